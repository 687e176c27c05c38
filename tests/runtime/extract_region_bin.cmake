# Compiles MODEL for the MLIP with MLIPC and copies the first region's
# command buffer to OUT/region.bin.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${MLIPC} compile ${MODEL} --target "mrvl, c" --target-mrvl-num_tiles=2
                        "--target-mrvl-mattr=sim -quantize=fp16 -wb_pin_ocm=1" -o ${OUT}/model.tar
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mlipc compile failed (${rc})")
endif()
file(ARCHIVE_EXTRACT INPUT ${OUT}/model.tar DESTINATION ${OUT}/x)
file(GLOB bins ${OUT}/x/mlip/*.bin)
list(LENGTH bins n)
if(n EQUAL 0)
  message(FATAL_ERROR "no mlip/*.bin in the tarball")
endif()
list(GET bins 0 first)
file(COPY_FILE ${first} ${OUT}/region.bin)
