# `streamtensor sim` on a damaged design directory (cmake -P; issue 19): compiles MODEL (an LLM
# design, --max-context 16) and GRAPH (a graph design) into WORK, then for each damage -- a
# missing or truncated HBM image file, a manifest that disagrees with design.json, a missing RTL
# file or $readmemh table, a damaged design.json or testbench manifest, a missing or truncated
# graph data file -- runs sim on a copy and checks exit code 2, one error line naming the file,
# the field and what was expected, and that no testbench build was started. Also: sim on a
# directory compile did not write, and --trace onto a user's file, are refused the same way.
file(REMOVE_RECURSE ${WORK})
set(failed "")
execute_process(COMMAND ${EXE} compile ${MODEL} --precision w4a8 --target u55c --max-context 16
  -o ${WORK}/llm RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile ${MODEL} failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${EXE} compile ${GRAPH} -o ${WORK}/graph RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile ${GRAPH} failed (${rc}):\n${out}${err}")
endif()

# A fresh copy of design KIND (llm or graph) at WORK/<name>; sets `case` in the caller.
macro(copy_design kind name)
  set(case ${WORK}/${name})
  file(REMOVE_RECURSE ${case})
  file(COPY ${WORK}/${kind}/ DESTINATION ${case})
endmacro()
# sim on `case` (extra ARGN) must give exit code 2 and one error line matching REGEX, and must
# not have created a testbench build directory.
function(expect_rejected name regex)
  execute_process(COMMAND ${EXE} sim ${case} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  set(why "")
  if(NOT rc EQUAL 2)
    string(APPEND why "exit code: expected 2, got ${rc}\n")
  endif()
  if(NOT err MATCHES "^streamtensor sim: error: [^\n]*\n$" OR NOT err MATCHES "${regex}")
    string(APPEND why "stderr: expected one line matching\n${regex}\n")
  endif()
  if(EXISTS ${case}/tb/build OR EXISTS ${case}/tb/build-trace)
    string(APPEND why "a testbench build directory was created\n")
  endif()
  if(why)
    set(failed "${failed}${name}:\n${why}--- stdout:\n${out}--- stderr:\n${err}\n" PARENT_SCOPE)
  endif()
endfunction()
set(run --prompt-ids 1,2 --tokens 2)

# The image files of the LLM design.
file(GLOB images RELATIVE ${WORK}/llm/hbm ${WORK}/llm/hbm/hbm_pc*.bin)
list(GET images 0 image)

copy_design(llm missing_image)
file(REMOVE ${case}/hbm/${image})
expect_rejected(missing_image "hbm/${image}: file: expected the HBM image of channel [0-9]+ \\(as [^\n]*manifest.json lists\\), got no such file" ${run})

copy_design(llm truncated_image)
execute_process(COMMAND truncate -s 100 ${case}/hbm/${image})
expect_rejected(truncated_image "hbm/${image}: size: expected [0-9]+ bytes \\(as [^\n]*manifest.json lists\\), got 100 \\(truncated\\)" ${run})

copy_design(llm manifest_precision)
file(READ ${case}/hbm/manifest.json text)
string(REGEX REPLACE "\"precision\": *\"w4a8\"" "\"precision\": \"w8a16\"" text "${text}")
file(WRITE ${case}/hbm/manifest.json "${text}")
expect_rejected(manifest_precision "hbm/manifest.json: precision: expected 'w4a8' as in [^\n]*design.json, got 'w8a16' \\(the image belongs to another compile\\)" ${run})

copy_design(llm manifest_context)
file(READ ${case}/hbm/manifest.json text)
string(REGEX REPLACE "\"max_context\": *16" "\"max_context\": 32" text "${text}")
file(WRITE ${case}/hbm/manifest.json "${text}")
expect_rejected(manifest_context "hbm/manifest.json: max_context: expected 16 as in [^\n]*design.json, got 32" ${run})

copy_design(llm manifest_address)
file(READ ${case}/hbm/manifest.json text)
string(REGEX MATCH "\"name\": *\"run/prompt\"[^}]*\"address\": *([0-9]+)" match "${text}")
set(address ${CMAKE_MATCH_1})
math(EXPR moved "${address} + 4096")
string(REGEX REPLACE "\"address\": *${address}$" "\"address\": ${moved}" moved_match "${match}")
string(REPLACE "${match}" "${moved_match}" text "${text}")
file(WRITE ${case}/hbm/manifest.json "${text}")
expect_rejected(manifest_address "hbm/manifest.json: buffer 'run/prompt' address: expected ${address} as argument '[a-z_]+' in [^\n]*design.json, got ${moved}" ${run})

copy_design(llm missing_rtl)
file(STRINGS ${case}/rtl/filelist.f rtl_files)
list(GET rtl_files 0 first_rtl)
file(REMOVE ${case}/rtl/${first_rtl})
expect_rejected(missing_rtl "rtl/filelist.f: line 1: expected an existing RTL file, got '${first_rtl}' \\(missing\\)" ${run})

# The tables the top names by absolute path: the copy's top names the original's, so damage
# the original's (and recompile after).
copy_design(llm missing_table)
file(GLOB tables ${WORK}/llm/rtl/tables/*.mem)
list(GET tables 0 table)
file(RENAME ${table} ${table}.moved)
expect_rejected(missing_table "_top.sv: \\$readmemh table: expected an existing file, got '${table}' \\(missing" ${run})
file(RENAME ${table}.moved ${table})

copy_design(llm design_json)
file(WRITE ${case}/design.json "{\"format\": \"streamtensor-llm-design-1\", \"top\": ")
expect_rejected(design_json "design.json: JSON: expected valid JSON" ${run})

copy_design(llm design_json_field)
file(READ ${case}/design.json text)
string(REGEX REPLACE "\"max_context\": *16" "\"max_context\": \"16\"" text "${text}")
file(WRITE ${case}/design.json "${text}")
expect_rejected(design_json_field "design.json: max_context: expected an integer, got \"16\"" ${run})

copy_design(llm run_manifest)
file(READ ${case}/tb/llm_run.json text)
string(REGEX REPLACE "\"max_context\": *16" "\"max_context\": 8" text "${text}")
file(WRITE ${case}/tb/llm_run.json "${text}")
expect_rejected(run_manifest "tb/llm_run.json: max_context: expected 16 as in [^\n]*design.json" ${run})

# Graph designs: the testbench's data files.
file(GLOB data RELATIVE ${WORK}/graph/tb/data ${WORK}/graph/tb/data/*.bin)
list(GET data 0 datum)
copy_design(graph graph_missing_data)
file(REMOVE ${case}/tb/data/${datum})
expect_rejected(graph_missing_data "tb/data/${datum}: file: expected the data of buffer '[^']+' \\(as [^\n]*tb/design.json lists\\), got no such file")
copy_design(graph graph_truncated_data)
execute_process(COMMAND truncate -s 1 ${case}/tb/data/${datum})
expect_rejected(graph_truncated_data "tb/data/${datum}: size: expected [0-9]+ bytes \\(as [^\n]*\\), got 1 \\(truncated\\)")
copy_design(graph graph_missing_rtl)
file(STRINGS ${case}/rtl/filelist.f rtl_files)
list(GET rtl_files -1 last_rtl)
file(REMOVE ${case}/rtl/${last_rtl})
expect_rejected(graph_missing_rtl "rtl/filelist.f: line [0-9]+: expected an existing RTL file, got '${last_rtl}' \\(missing\\)")

# A directory compile did not write.
set(case ${WORK}/notes)
file(WRITE ${case}/notes.txt "my notes\n")
expect_rejected(foreign "${case}: design directory: expected a directory written by 'streamtensor compile', got a directory without")

# --trace onto a user's file, and onto a GTKWave save file the user edited: refused, kept.
copy_design(graph graph_trace)
file(WRITE ${WORK}/mine.fst "my waveform\n")
expect_rejected(trace_user_file "mine.fst: --trace: expected a new file or an FST waveform streamtensor wrote, got an existing file that is not" --trace ${WORK}/mine.fst)
file(WRITE ${WORK}/view.gtkw "[*] GTKWave Analyzer v3.3.104 (w)1999-2020 BSI\n")
expect_rejected(trace_user_save_file "view.gtkw: --trace: expected a new file or a GTKWave save file streamtensor wrote" --trace ${WORK}/view.fst)
file(READ ${WORK}/mine.fst fst)
file(READ ${WORK}/view.gtkw gtkw)
if(NOT fst STREQUAL "my waveform\n" OR NOT gtkw MATCHES "^\\[\\*\\] GTKWave Analyzer")
  string(APPEND failed "trace: the user's files changed\n")
endif()

if(failed)
  message(FATAL_ERROR "${failed}")
endif()
file(REMOVE_RECURSE ${WORK})
