# infrastructure_resource_check and st_add_vs_model_test, included by tests/rtl/{fifo,fork,axi_dma,axi_lite_ctrl}.
# Resource model comparison (compiler/model/{fifo,fork,axi_lite_ctrl,dma_stream}_resources.h):
# one checker for every infrastructure template, built by whichever of these directories is
# configured first.
if(NOT TARGET infrastructure_resource_check)
  find_package(nlohmann_json CONFIG REQUIRED)
  add_executable(infrastructure_resource_check
    ${CMAKE_SOURCE_DIR}/tests/rtl/fifo/infrastructure_resource_check.cpp)
  target_link_libraries(infrastructure_resource_check PRIVATE st_compiler
    nlohmann_json::nlohmann_json)
  target_include_directories(infrastructure_resource_check PRIVATE ${CMAKE_SOURCE_DIR}/tb)
endif()
# st_add_vs_model_test(<synth test name> <params...>): <name>.vs_model after <name>.
function(st_add_vs_model_test name)
  add_test(NAME ${name}.vs_model COMMAND infrastructure_resource_check
    ${CMAKE_BINARY_DIR}/synth/${name}.json ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${name}_fixture)
  set_tests_properties(${name}.vs_model PROPERTIES LABELS synth FIXTURES_REQUIRED ${name}_fixture)
endfunction()
