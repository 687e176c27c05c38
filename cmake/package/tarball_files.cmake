# Script mode: compiles MODEL for "mrvl, c" with MLIPC and keeps the
# tarball's runtime/ and templates/ (less templates/firmware/main.c, written
# per module) in OUT/files, for the install (cmake/MlipcPackage.cmake).
set(work ${OUT}/tarball)
file(REMOVE_RECURSE ${OUT}/files ${work})
file(MAKE_DIRECTORY ${work}/x ${OUT}/files)
execute_process(COMMAND ${MLIPC} compile ${MODEL} --target "mrvl, c" -o ${work}/model.tar
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tarball_files.cmake: mlipc compile ${MODEL} failed (${rc})")
endif()
file(ARCHIVE_EXTRACT INPUT ${work}/model.tar DESTINATION ${work}/x)
if(NOT EXISTS ${work}/x/runtime/src/sim/mlip_sim.c)
  message(FATAL_ERROR "tarball_files.cmake: ${MODEL} has no MLIP region on \"mrvl, c\", so its tarball has no simulator")
endif()
file(REMOVE ${work}/x/templates/firmware/main.c)
file(RENAME ${work}/x/runtime ${OUT}/files/runtime)
file(RENAME ${work}/x/templates ${OUT}/files/templates)
file(REMOVE_RECURSE ${work})
file(TOUCH ${OUT}/files.stamp)
