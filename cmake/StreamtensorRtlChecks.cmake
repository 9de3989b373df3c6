# Static checks on the RTL templates: Verilator lint (-Wall, no warnings allowed) and Yosys
# synthesis for UltraScale+ (no errors, no latches, resource counts recorded, expected RAM
# primitives present).
find_program(YOSYS_PROGRAM yosys REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(ST_SYNTH_CHECK ${CMAKE_CURRENT_LIST_DIR}/../tools/rtl_synth_check.py)

# st_add_lint_test(<name> TOP <module> SOURCES <sv...> [PARAMS Name=Value ...])
function(st_add_lint_test name)
  cmake_parse_arguments(L "" "TOP" "SOURCES;PARAMS" ${ARGN})
  set(gflags)
  foreach(p ${L_PARAMS})
    list(APPEND gflags "-G${p}")
  endforeach()
  add_test(NAME ${name}
    COMMAND ${VERILATOR_BIN} --lint-only -Wall --top-module ${L_TOP} ${gflags} ${L_SOURCES})
  set_tests_properties(${name} PROPERTIES LABELS lint TIMEOUT 120
    FAIL_REGULAR_EXPRESSION "%Warning;%Error")
endfunction()

# st_add_synth_test(<name> TOP <module> SOURCES <sv...> [PARAMS Name=Value ...]
#                   [EXPECT "CELL>=N" ...] [KEEP_HIERARCHY])
# Writes <build>/synth/<name>.json with the cell counts and LUT/FF/BRAM/URAM/DSP totals.
# KEEP_HIERARCHY: module by module (each distinct submodule parameterization mapped once, e.g.
# one st_gemv_channel for all channels), totals counted through the hierarchy.
function(st_add_synth_test name)
  cmake_parse_arguments(S "KEEP_HIERARCHY" "TOP" "SOURCES;PARAMS;EXPECT" ${ARGN})
  set(args --top ${S_TOP} --report ${CMAKE_BINARY_DIR}/synth/${name}.json)
  if(S_KEEP_HIERARCHY)
    list(APPEND args --keep-hierarchy)
  endif()
  foreach(p ${S_PARAMS})
    list(APPEND args --param ${p})
  endforeach()
  foreach(e ${S_EXPECT})
    list(APPEND args --expect ${e})
  endforeach()
  add_test(NAME ${name}
    COMMAND ${Python3_EXECUTABLE} ${ST_SYNTH_CHECK} --yosys ${YOSYS_PROGRAM} ${args} ${S_SOURCES})
  set_tests_properties(${name} PROPERTIES LABELS synth TIMEOUT 600)
endfunction()
