# `streamtensor sim` on an LLM design rejects a run the design cannot take before it builds the
# testbench (cmake -P): compiles FIXTURE with --max-context 16 into WORK, then runs sim with no or
# an empty --prompt-ids, an id equal to the vocabulary size, a negative id and one token too many
# for max_context, and a --kv-prefill at or near the context, and checks each gives exit code 2,
# one error line naming the option, the bad value and the limit, and that tb/build was not
# created.
file(REMOVE_RECURSE ${WORK})
set(design ${WORK}/design)
execute_process(COMMAND ${EXE} compile ${FIXTURE} --precision w4a8 --target u55c
  --max-context 16 -o ${design} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile failed (${rc}):\n${out}${err}")
endif()

set(failed "")
# One case: sim with ARGS (';'-separated) must fail with usage exit code 2 and stderr matching
# REGEX, without building the testbench.
function(expect_rejected name args regex)
  execute_process(COMMAND ${EXE} sim ${design} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  set(why "")
  if(NOT "${rc}" STREQUAL "2")
    string(APPEND why "exit code: expected 2, got ${rc}\n")
  endif()
  if(NOT "${err}" MATCHES "${regex}")
    string(APPEND why "stderr: expected to match\n${regex}\n")
  endif()
  if(EXISTS ${design}/tb/build)
    string(APPEND why "the testbench build directory ${design}/tb/build exists\n")
  endif()
  if(why)
    set(failed "${failed}${name}: sim ${args}\n${why}--- stdout:\n${out}--- stderr:\n${err}\n"
      PARENT_SCOPE)
  endif()
endfunction()

set(empty_regex
  "^streamtensor sim: error: --prompt-ids: \\(empty\\): expected at least one prompt token id\n$")
expect_rejected(no_prompt "--tokens;2" "${empty_regex}")
# An explicit empty --prompt-ids "" (a CMake list cannot hold the empty argument).
set(EMPTY_ARG "")
execute_process(COMMAND ${EXE} sim ${design} --prompt-ids "${EMPTY_ARG}" --tokens 2
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT "${rc}" STREQUAL "2" OR NOT "${err}" MATCHES "${empty_regex}" OR EXISTS ${design}/tb/build)
  string(APPEND failed "empty_prompt: sim --prompt-ids '': exit code ${rc}, stderr:\n${err}\n")
endif()
expect_rejected(id_at_vocab_size "--prompt-ids;1,96,3;--tokens;2"
  "^streamtensor sim: error: --prompt-ids: id 96 \\(position 1\\): expected a token id in \\[0, 96\\) \\(vocab_size of [^\n]*/design.json\\)\n$")
expect_rejected(negative_id "--prompt-ids;1,-5;--tokens;2"
  "--prompt-ids: id -5 \\(position 1\\): expected a token id in \\[0, 96\\)")
expect_rejected(too_many_tokens "--prompt-ids;1,2,3;--tokens;15"
  "^streamtensor sim: error: --tokens: 15: expected prompt length 3 \\+ tokens - 1 <= max_context 16 of [^\n]*/design.json, i.e. at most 14 tokens\n$")
expect_rejected(prefill_beyond_context "--prompt-ids;1,2,3;--kv-prefill;16;--tokens;1"
  "^streamtensor sim: error: --tokens: 1: expected max\\(prompt length 3, kv-prefill 16 \\+ 1\\) \\+ tokens - 1 <= max_context 16 of [^\n]*/design.json, i.e. a kv-prefill below 16\n$")
expect_rejected(prefill_too_many_tokens "--prompt-ids;1,2,3;--kv-prefill;10;--tokens;7"
  "expected max\\(prompt length 3, kv-prefill 10 \\+ 1\\) \\+ tokens - 1 <= max_context 16 of [^\n]*/design.json, i.e. at most 6 tokens\n$")
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
file(REMOVE_RECURSE ${WORK})
