# Output safety through the CLI (cmake -P; issue 19): runs `streamtensor compile` (a graph, GRAPH)
# and `streamtensor hbm-image` (a model, MODEL) as a user would, in WORK, against every kind of
# output path that must be refused, and checks each gives exit code 2, one error line naming
# the path, and leaves the user's files as they were with nothing beside them. Then checks that
# a compile over its own design replaces it, and that --force replaces a foreign directory but
# never the current directory.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/cwd)
set(failed "")

# Runs the CLI in WORK/cwd; sets rc, out, err in the caller.
macro(run)
  execute_process(COMMAND ${EXE} ${ARGN} WORKING_DIRECTORY ${WORK}/cwd RESULT_VARIABLE rc
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# The user's files: notes.txt and src/main.c in DIR.
function(plant dir)
  file(WRITE ${dir}/notes.txt "my notes\n")
  file(WRITE ${dir}/src/main.c "int main(void) { return 0; }\n")
endfunction()
function(expect_planted name dir)
  file(READ ${dir}/notes.txt notes)
  file(READ ${dir}/src/main.c main)
  file(GLOB entries RELATIVE ${dir} ${dir}/*)
  list(SORT entries)
  if(NOT notes STREQUAL "my notes\n" OR NOT main STREQUAL "int main(void) { return 0; }\n"
      OR NOT entries STREQUAL "notes.txt;src")
    set(failed "${failed}${name}: the user's files in ${dir} changed: ${entries}\n" PARENT_SCOPE)
  endif()
endfunction()
# Nothing but the expected names in WORK/<sub> (no staging directory left behind).
function(expect_entries name sub expected)
  file(GLOB entries RELATIVE ${WORK}/${sub} ${WORK}/${sub}/*)
  list(SORT entries)
  if(NOT "${entries}" STREQUAL "${expected}")
    set(failed "${failed}${name}: ${WORK}/${sub} holds '${entries}', expected '${expected}'\n"
      PARENT_SCOPE)
  endif()
endfunction()
# Exit code 2 and exactly one error line matching REGEX.
function(expect_refused name regex)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^streamtensor [a-z-]+: error: [^\n]*\n$"
      OR NOT err MATCHES "${regex}")
    set(failed "${failed}${name}: expected exit code 2 and one error line matching\n${regex}\n"
      "got ${rc}:\n${err}${out}\n" PARENT_SCOPE)
  endif()
endfunction()

# 1. compile -o <a foreign non-empty directory>
plant(${WORK}/mine)
run(compile ${GRAPH} -o ${WORK}/mine)
expect_refused(foreign_dir "${WORK}/mine: -o: expected a new or empty directory, or a design directory streamtensor wrote, got a directory that streamtensor did not write \\(it holds notes.txt, src\\); nothing was changed \\(choose another path, or pass --force to replace it\\)")
expect_planted(foreign_dir ${WORK}/mine)
expect_entries(foreign_dir "" "cwd;mine")

# 2. compile -o <an existing regular file>, with and without --force
file(WRITE ${WORK}/notes.txt "my notes\n")
foreach(force "" "--force")
  run(compile ${GRAPH} -o ${WORK}/notes.txt ${force})
  expect_refused(regular_file${force} "notes.txt: -o: expected .*, got an existing regular file; nothing was changed \\(choose another path\\)")
endforeach()
file(READ ${WORK}/notes.txt notes)
if(NOT notes STREQUAL "my notes\n" OR IS_DIRECTORY ${WORK}/notes.txt)
  string(APPEND failed "regular_file: notes.txt changed\n")
endif()

# 3. compile -o . (the current directory), with and without --force; and its parent
plant(${WORK}/cwd)
foreach(path "." "./" ".." "${WORK}/cwd")
  foreach(force "" "--force")
    run(compile ${GRAPH} -o ${path} ${force})
    expect_refused("dot(${path}${force})" "-o: expected a directory other than the current directory .*never replaced, even with --force")
  endforeach()
endforeach()
expect_planted(dot ${WORK}/cwd)

# 4. compile -o / --force
run(compile ${GRAPH} -o / --force)
expect_refused(root "^streamtensor compile: error: /: -o: expected a directory other than the root directory")

# 5. the home directory (HOME pointed at a directory holding the user's files)
plant(${WORK}/home)
set(saved_home "$ENV{HOME}")
set(ENV{HOME} ${WORK}/home)
run(compile ${GRAPH} -o ${WORK}/home --force)
expect_refused(home "-o: expected a directory other than the home directory")
set(ENV{HOME} "${saved_home}")
expect_planted(home ${WORK}/home)

# 6. hbm-image --out <a foreign directory>, and <the model directory> even with --force
run(hbm-image ${MODEL} --out ${WORK}/mine --max-context 16)
expect_refused(hbm_image_foreign "^streamtensor hbm-image: error: ${WORK}/mine: --out: expected a new or empty directory, or an HBM image directory streamtensor wrote, got a directory that streamtensor did not write")
expect_planted(hbm_image_foreign ${WORK}/mine)
run(hbm-image ${MODEL} --out ${MODEL} --max-context 16 --force)
expect_refused(hbm_image_input "--out: expected a directory other than the input")

# 7. compile over its own design replaces it; a file the user put into it makes it foreign
run(compile ${GRAPH} -o ${WORK}/design)
run(compile ${GRAPH} -o ${WORK}/design)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/design/.streamtensor-output)
  string(APPEND failed "own_design: a second compile into its design failed (${rc}):\n${err}\n")
endif()
expect_entries(own_design "" "cwd;design;home;mine;notes.txt")
file(WRITE ${WORK}/design/notes.txt "my notes\n")
run(compile ${GRAPH} -o ${WORK}/design)
expect_refused(own_design_with_notes "a design directory written by 'streamtensor compile' that also holds entries streamtensor did not write \\(notes.txt\\)")
if(NOT EXISTS ${WORK}/design/notes.txt)
  string(APPEND failed "own_design_with_notes: notes.txt is gone\n")
endif()

# 8. --force replaces a foreign directory
run(compile ${GRAPH} -o ${WORK}/mine --force)
if(NOT rc EQUAL 0 OR EXISTS ${WORK}/mine/notes.txt OR NOT EXISTS ${WORK}/mine/report.json)
  string(APPEND failed "force: compile --force over a foreign directory (${rc}):\n${err}\n")
endif()
expect_entries(force "" "cwd;design;home;mine;notes.txt")

if(failed)
  message(FATAL_ERROR "${failed}")
endif()
file(REMOVE_RECURSE ${WORK})
