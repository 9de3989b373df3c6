# Verilator integration: one shared Verilator runtime library for every model, and helpers to
# verilate a template at one parameter set into a test executable and register CTest tests.
find_package(verilator REQUIRED HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)

# The Verilator runtime (verilated.cpp, threads, FST writer), compiled once rather than once per
# test executable as verilate() would do.
add_library(st_verilator_runtime STATIC
  ${VERILATOR_ROOT}/include/verilated.cpp
  ${VERILATOR_ROOT}/include/verilated_threads.cpp
  ${VERILATOR_ROOT}/include/verilated_fst_c.cpp)
target_include_directories(st_verilator_runtime SYSTEM PUBLIC
  ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
target_compile_definitions(st_verilator_runtime PUBLIC VM_TRACE=1 VM_TRACE_FST=1 VM_COVERAGE=0 VM_SC=0)
# -g0 (here and on every model's generated C++): the build type's -g made the compiler write
# debug info for Verilator's flat generated code, ten times the compile of a trace file at -O1
# (33 s -> 3 s for one attention model) for symbols nobody steps through.
target_compile_options(st_verilator_runtime PRIVATE -O2 -w -g0)
target_link_libraries(st_verilator_runtime PUBLIC ZLIB::ZLIB Threads::Threads)

# st_add_verilated_model(<exe-target> PREFIX <Vname> TOP <module> SOURCES <sv...>
#                        [PARAMS Name=Value ...] [ARGS <extra verilator args>] [NO_TRACE]
#                        [OPT <1|2|3>] [THREADS <n>])
# Verilates TOP with the given parameter overrides (-G) into class PREFIX, linked into the
# executable. FST tracing is compiled in (a test turns it on with --trace FILE) unless NO_TRACE
# (generated design testbenches: their traced build is separate, `streamtensor sim --trace`).
# OPT: the optimization of the model's C++ (default 1: the tests' models compile quickly; a long
# simulation pays for 2, `streamtensor sim` chooses it by the run's predicted cycles). THREADS
# n > 1: Verilator's multithreaded model on n threads (the same results, docs/decisions.md).
function(st_add_verilated_model target)
  cmake_parse_arguments(M "NO_TRACE" "PREFIX;TOP;OPT;THREADS" "SOURCES;PARAMS;ARGS" ${ARGN})
  set(gflags)
  foreach(p ${M_PARAMS})
    list(APPEND gflags "-G${p}")
  endforeach()
  set(trace TRACE_FST)
  if(M_NO_TRACE)
    set(trace)
    # st_verilator_runtime (with the FST writer) publishes VM_TRACE=1 and VM_TRACE_FST=1; keep
    # the target's definitions equal. The Harness sees from the model whether it can trace.
    set_property(TARGET ${target} PROPERTY VERILATOR_TRACE ON)
    set_property(TARGET ${target} PROPERTY VERILATOR_TRACE_FST ON)
  endif()
  if(NOT M_OPT)
    set(M_OPT 1)
  endif()
  if(NOT M_OPT MATCHES "^[123]$")
    message(FATAL_ERROR "st_add_verilated_model(${target}): OPT must be 1, 2 or 3, got ${M_OPT}")
  endif()
  math(EXPR opt_slow "${M_OPT} - 1")
  set(threads)
  if(M_THREADS AND M_THREADS GREATER 1)
    set(threads THREADS ${M_THREADS})
  endif()
  # The sources relative to the directory Verilator runs in (verilate()'s working directory):
  # the generated C++ names them (the locations of assertions and $display), so that a model's
  # C++ is the same in every clone and design directory and ccache finds it from another one.
  set(sources)
  foreach(source ${M_SOURCES})
    get_filename_component(source ${source} ABSOLUTE)
    file(RELATIVE_PATH source ${CMAKE_CURRENT_SOURCE_DIR} ${source})
    list(APPEND sources ${source})
  endforeach()
  verilate(${target} ${trace} ${threads} PREFIX ${M_PREFIX} TOP_MODULE ${M_TOP}
    SOURCES ${sources}
    VERILATOR_ARGS -Wall -Wno-fatal --assert --x-assign unique --x-initial unique ${gflags} ${M_ARGS}
    OPT_FAST -O${M_OPT} OPT_SLOW -O${opt_slow} OPT_GLOBAL -O${M_OPT})
  # Drop the per-target copy of the runtime: st_verilator_runtime provides it.
  get_target_property(srcs ${target} SOURCES)
  list(FILTER srcs EXCLUDE REGEX "/include/verilated[a-z_]*\\.cpp$")
  set_property(TARGET ${target} PROPERTY SOURCES ${srcs})
  st_compile_model_in_batches(${target} ${M_PREFIX} ${M_OPT} ${opt_slow})
endfunction()

# How much of a model's generated C++ one compiler run takes (see st_compile_model_in_batches).
set(ST_VERILATED_BATCH_BYTES 1000000)

# st_compile_model_in_batches(<target> <prefix> <opt fast> <opt slow>): compiles the model's
# generated C++ as translation units that #include its files up to ST_VERILATED_BATCH_BYTES each
# (a larger file alone; fast and slow code apart, each at its optimization), without debug info,
# instead of one compiler run per file. Verilator splits a design into hundreds of small files,
# and each run first parses the model's headers (about a second): a fixture's generated design
# took ~380 compiler runs, ~500 CPU-s. Verilator's own Makefile build concatenates them the same
# way (__ALL.cpp); the byte cap keeps the big files of a multithreaded -O2 model from piling into
# one unit that would compile alone for minutes. No debug info: see st_verilator_runtime. The
# generated files stay sources of the target (header-only) so that re-verilating still precedes
# the compile; the batches include them by relative path, so that ccache hits from another clone.
function(st_compile_model_in_batches target prefix opt_fast opt_slow)
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(vdir ${binary_dir}/CMakeFiles/${target}.dir/${prefix}.dir)
  # The file lists Verilator wrote (verilate() includes the same file in its own scope).
  include(${vdir}/${prefix}_copy.cmake)
  foreach(kind fast slow)
    string(TOUPPER ${kind} KIND)
    set(files ${${prefix}_CLASSES_${KIND}} ${${prefix}_SUPPORT_${KIND}})
    if(NOT files)
      continue()
    endif()
    set_source_files_properties(${files} PROPERTIES HEADER_FILE_ONLY ON)
    set(batch 0)
    set(count 0)
    set(bytes 0)
    set(text "")
    list(LENGTH files left)
    foreach(file ${files})
      get_filename_component(name ${file} NAME)
      file(SIZE ${file} size)
      string(APPEND text "#include \"${name}\"\n")
      math(EXPR count "${count} + 1")
      math(EXPR bytes "${bytes} + ${size}")
      math(EXPR left "${left} - 1")
      # Close the batch when the next file would take it past the cap, or at the end.
      set(next_size 0)
      if(left GREATER 0)
        list(GET files -${left} next)
        file(SIZE ${next} next_size)
      endif()
      math(EXPR with_next "${bytes} + ${next_size}")
      if(left EQUAL 0 OR with_next GREATER ST_VERILATED_BATCH_BYTES)
        set(unit ${vdir}/${prefix}__batch_${kind}_${batch}.cpp)
        file(CONFIGURE OUTPUT ${unit} CONTENT
          "// Generated by st_compile_model_in_batches: ${count} of ${prefix}'s ${kind} files.\n${text}"
          @ONLY)
        target_sources(${target} PRIVATE ${unit})
        set_source_files_properties(${unit} PROPERTIES COMPILE_OPTIONS "-O${opt_${kind}};-g0")
        math(EXPR batch "${batch} + 1")
        set(count 0)
        set(bytes 0)
        set(text "")
      endif()
    endforeach()
  endforeach()
endfunction()

# st_add_rtl_test_executable(<target> <tb sources...>): a test executable linked with the tb
# library; models are added to it with st_add_verilated_model.
function(st_add_rtl_test_executable target)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE st_tb st_verilator_runtime)
  target_compile_options(${target} PRIVATE -O1)
endfunction()

# st_add_rtl_test(<name> <target> [CONFIG <config>] [ARGS ...] [LABELS ...] [TIMEOUT s])
function(st_add_rtl_test name target)
  cmake_parse_arguments(T "" "CONFIG;TIMEOUT" "ARGS;LABELS" ${ARGN})
  set(cmd $<TARGET_FILE:${target}>)
  if(T_CONFIG)
    list(APPEND cmd --config ${T_CONFIG})
  endif()
  add_test(NAME ${name} COMMAND ${cmd} ${T_ARGS})
  if(NOT T_LABELS)
    set(T_LABELS rtl)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()

# st_add_template_tests(<name> TOP <module> SOURCES <sv...> TB <cpp...>
#                       CONFIGS "<cfg>:Name=Value,Name=Value" ... [ARGS <test args>]
#                       [LABELS ...] [TIMEOUT s])
# One test executable rtl_<name>_tests holding one Verilated model per config, and one CTest
# test rtl.<name>.<cfg> per config. Generates <name>_configs.h for the testbench:
#   #include "V<name>_<cfg>.h" ...
#   #define ST_CONFIGS(X) X(<cfg>, V<name>_<cfg>, (::st::tb::Params{{"Name", Value}, ...})) ...
# so the testbench dispatches on --config without repeating the parameter sets. A string value
# is written Name=\"text\" and reaches Verilator but not Params.
function(st_add_template_tests name)
  cmake_parse_arguments(T "" "TOP;TIMEOUT" "SOURCES;TB;CONFIGS;ARGS;LABELS" ${ARGN})
  set(target rtl_${name}_tests)
  st_add_rtl_test_executable(${target} ${T_TB})
  set(header "// Generated by CMake (st_add_template_tests): the parameter sets of ${name}.\n#pragma once\n#include \"params.h\"\n")
  set(macro "#define ST_CONFIGS(X)")
  foreach(cfg ${T_CONFIGS})
    string(REPLACE ":" ";" parts "${cfg}")
    list(GET parts 0 cfg_name)
    list(LENGTH parts nparts)
    set(params)
    set(cxx_params)
    if(nparts GREATER 1)
      list(GET parts 1 plist)
      string(REPLACE "," ";" params "${plist}")
      foreach(p ${params})
        string(REPLACE "=" ";" kv "${p}")
        list(GET kv 0 k)
        list(GET kv 1 v)
        # A string value (Name=\"text\") goes to Verilator only; Params holds integers.
        if(NOT v MATCHES "^\"")
          list(APPEND cxx_params "{\"${k}\", ${v}}")
        endif()
      endforeach()
    endif()
    string(REPLACE ";" ", " cxx_params "${cxx_params}")
    set(prefix V${name}_${cfg_name})
    st_add_verilated_model(${target} PREFIX ${prefix} TOP ${T_TOP} SOURCES ${T_SOURCES}
      PARAMS ${params})
    string(APPEND header "#include \"${prefix}.h\"\n")
    string(APPEND macro " \\\n  X(${cfg_name}, ${prefix}, (::st::tb::Params{${cxx_params}}))")
    set(labels ${T_LABELS})
    if(NOT labels)
      set(labels rtl)
    endif()
    st_add_rtl_test(rtl.${name}.${cfg_name} ${target} CONFIG ${cfg_name} ARGS ${T_ARGS}
      LABELS ${labels} TIMEOUT ${T_TIMEOUT})
  endforeach()
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated)
  file(CONFIGURE OUTPUT ${gen_dir}/${name}_configs.h CONTENT "${header}${macro}\n" @ONLY)
  target_include_directories(${target} PRIVATE ${gen_dir})
endfunction()
