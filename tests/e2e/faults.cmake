# Planted faults in an LLM design (label `e2e`; included by tests/e2e/CMakeLists.txt): the
# llama_tiny_gqa fixture at W4A8 with one FIFO forced below its LP depth (compile
# --fifo-depth STREAM=DEPTH) must either still decode bit-exactly or stop at the watchdog naming
# the blocked stream and kernels; never a silent hang (run_fault_test.py). One Verilator build
# per test, each in its own compile output directory (ccache shared).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(st_fault_model ${CMAKE_SOURCE_DIR}/tests/fixtures/llama_tiny_gqa)

# The residual bypass: block_fork_in_x sends x to attn_norm and to attn_residual, which needs
# o_proj's output first, and that needs the whole vector through the norm. At depth 2 the fork
# cannot finish the vector, so the norm never ends: deadlock.
add_test(NAME e2e.fault.residual_bypass_deadlocks
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/run_fault_test.py
    --streamtensor $<TARGET_FILE:streamtensor> --model ${st_fault_model}
    --stream block_fork_in_x.out1_to_attn_residual.a --depth 2
    --producer block_fork_in_x --consumer block_attn_residual --expect deadlock
    --work ${CMAKE_CURRENT_BINARY_DIR}/fault_residual_bypass)
# down_proj's input, an x port of the shared GEMV engine (LP: 48): the engine loads the whole
# vector into its x buffer as it comes before it multiplies, so at 2 the design still decodes
# bit-exactly.
add_test(NAME e2e.fault.down_proj_input_bit_exact
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/run_fault_test.py
    --streamtensor $<TARGET_FILE:streamtensor> --model ${st_fault_model}
    --stream block_gated_to_down_proj --depth 2
    --producer block_gated --consumer gemv_engine --expect bit_exact
    --work ${CMAKE_CURRENT_BINARY_DIR}/fault_down_proj_input)
set_tests_properties(e2e.fault.residual_bypass_deadlocks e2e.fault.down_proj_input_bit_exact
  PROPERTIES LABELS e2e TIMEOUT 1800 COST 120 FAIL_REGULAR_EXPRESSION "FAIL:")
