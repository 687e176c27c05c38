# Seed corpora for the fuzz targets, from the project's own test data:
#   onnx    every .onnx under tests/data and examples/ below 128 KiB, and
#           (when ONNX_TESTDATA names Debian's libonnx-testdata folder, as
#           the conformance tests use it) the ONNX node-test models;
#           onnx-short, the suite's seeds (below)
#   npz     every .npz and .npy under tests/data and examples/
#   tar     tarballs mlipc compiles from small models (CPU and MLIP)
#   cmdbuf  the MLIP command buffers inside those tarballs (fp16 and int8)
#   pipeline  pipeline.json of mesh tarballs mlipc compiles (--pes 2 and 3),
#           and the damaged manifests of tests/data/robustness/pipeline
#   calib   the calibration sets of tests/data/robustness/calibration
#   serve   the client streams of tests/data/robustness/serve (make_seeds.py)
# Small seeds mutate faster; the large models add little.
# Script mode: -DMLIPC=<mlipc> -DDATA=<tests/data> -DEXAMPLES=<examples> -DOUT=<folder> [-DONNX_TESTDATA=<folder>]
file(REMOVE_RECURSE ${OUT})
foreach(sub onnx onnx-short npz tar cmdbuf pipeline calib serve)
  file(MAKE_DIRECTORY ${OUT}/${sub})
endforeach()

function(copy_seeds sub prefix)
  set(k 0)
  foreach(f IN LISTS ARGN)
    file(SIZE ${f} size)
    if(size LESS 131072)
      get_filename_component(name ${f} NAME)
      file(COPY_FILE ${f} ${OUT}/${sub}/${prefix}${k}-${name})
      math(EXPR k "${k} + 1")
    endif()
  endforeach()
endfunction()

file(GLOB_RECURSE onnx ${DATA}/*.onnx ${EXAMPLES}/*.onnx)
copy_seeds(onnx "" ${onnx})
# The suite's short run (fuzz.onnx) first replays its seeds, each compiled
# for both targets, before it mutates anything, so it takes few: the hostile
# models of tests/data/robustness, three small networks (CPU, fp16 and int8
# MLIP) and every 50th node test (about 20 of the ~930).
file(GLOB short_onnx ${DATA}/robustness/*.onnx ${DATA}/models/small_mlip/model.onnx
     ${DATA}/models/quant_qdq_mlip_dense/model.onnx ${DATA}/models/torch_mlip_acts/model.onnx)
copy_seeds(onnx-short "" ${short_onnx})
if(ONNX_TESTDATA AND IS_DIRECTORY ${ONNX_TESTDATA}/node)
  file(GLOB node_models ${ONNX_TESTDATA}/node/*/model.onnx)
  copy_seeds(onnx "node-" ${node_models})
  set(sample "")
  set(i 0)
  foreach(m IN LISTS node_models)
    math(EXPR r "${i} % 50")
    if(r EQUAL 0)
      list(APPEND sample ${m})
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
  copy_seeds(onnx-short "node-" ${sample})
endif()
file(GLOB_RECURSE npz ${DATA}/*.npz ${DATA}/*.npy ${EXAMPLES}/*.npz)
copy_seeds(npz "" ${npz})
file(GLOB calib ${DATA}/robustness/calibration/*.npz)
copy_seeds(calib "" ${calib})

set(work ${OUT}/work)
file(MAKE_DIRECTORY ${work})
set(k 0)
# model | target | tiles | mattr
foreach(spec "${DATA}/robustness/batch0.onnx|c|8|sim -quantize=fp16 -wb_pin_ocm=0"
             "${DATA}/models/small_mlip/model.onnx|mrvl, c|2|sim -quantize=fp16 -wb_pin_ocm=1"
             "${DATA}/models/small_mlip/model.onnx|mrvl, c|1|sim -quantize=fp16 -wb_pin_ocm=0"
             "${DATA}/models/small_mlip/model.onnx|mrvl, c|4|hw -quantize=fp16 -wb_pin_ocm=0"
             # int8 command buffers: conv, depthwise, pools, add, mul; FC; average pool; tables; resize
             "${DATA}/models/quant_qdq_dw_se_residual_block/model.onnx|mrvl, c|2|sim -quantize=int8 -wb_pin_ocm=0"
             "${DATA}/models/quant_qdq_mlip_dense/model.onnx|mrvl, c|1|sim -quantize=int8 -wb_pin_ocm=1"
             "${DATA}/models/quant_qdq_mlip_avgpool/model.onnx|mrvl, c|4|sim -quantize=int8 -wb_pin_ocm=0"
             "${DATA}/models/quant_qdq_mlip_tables/model.onnx|mrvl, c|2|sim -quantize=int8 -wb_pin_ocm=1"
             "${DATA}/models/quant_qdq_mlip_upsample/model.onnx|mrvl, c|2|sim -quantize=int8 -wb_pin_ocm=0")
  string(REPLACE "|" ";" parts "${spec}")
  list(GET parts 0 model)
  list(GET parts 1 target)
  list(GET parts 2 tiles)
  list(GET parts 3 mattr)
  execute_process(COMMAND ${MLIPC} compile ${model} --target ${target} --target-mrvl-num_tiles=${tiles}
                          --target-mrvl-mattr=${mattr} -o ${OUT}/tar/${k}.tar
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mlipc compile ${model} --target ${target} failed (${rc})")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${OUT}/tar/${k}.tar DESTINATION ${work}/${k})
  file(GLOB bins ${work}/${k}/mlip/*.bin)
  copy_seeds(cmdbuf "t${k}-" ${bins})
  # Most of a tarball is the runtime's sources, which the readers only name:
  # a copy without them lets the fuzzer spend its mutations on the rest.
  if(k GREATER 0)
    file(REMOVE_RECURSE ${work}/${k}/runtime ${work}/${k}/templates)
    file(GLOB_RECURSE members RELATIVE ${work}/${k} ${work}/${k}/*)
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${OUT}/tar/${k}-lean.tar --format=pax -- ${members}
                    WORKING_DIRECTORY ${work}/${k} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "cannot write the lean seed tarball ${k}")
    endif()
  endif()
  math(EXPR k "${k} + 1")
endforeach()
file(REMOVE_RECURSE ${work})
file(GLOB cmdbufs ${OUT}/cmdbuf/*)
list(LENGTH cmdbufs n)
if(n EQUAL 0)
  message(FATAL_ERROR "no MLIP command buffer among the seed tarballs")
endif()

# Mesh manifests: model | target | PEs
file(MAKE_DIRECTORY ${work})
set(k 0)
foreach(spec "${DATA}/models/mlperf_tiny_kws_dscnn/model.onnx|mrvl, c|2"
             "${DATA}/models/mlperf_tiny_ic_resnet8/model.onnx|mrvl, c|3"
             "${DATA}/models/mlperf_tiny_kws_dscnn/model.onnx|c|2")
  string(REPLACE "|" ";" parts "${spec}")
  list(GET parts 0 model)
  list(GET parts 1 target)
  list(GET parts 2 pes)
  execute_process(COMMAND ${MLIPC} compile ${model} --target ${target} --pes ${pes} -o ${work}/mesh${k}.tar
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mlipc compile ${model} --target ${target} --pes ${pes} failed (${rc})")
  endif()
  file(ARCHIVE_EXTRACT INPUT ${work}/mesh${k}.tar DESTINATION ${work}/mesh${k} PATTERNS pipeline.json)
  file(COPY_FILE ${work}/mesh${k}/pipeline.json ${OUT}/pipeline/mesh${k}.json)
  math(EXPR k "${k} + 1")
endforeach()
file(REMOVE_RECURSE ${work})
file(GLOB damaged ${DATA}/robustness/pipeline/*.json)
copy_seeds(pipeline "damaged-" ${damaged})
file(GLOB serve_seeds ${DATA}/robustness/serve/*.bin)
copy_seeds(serve "" ${serve_seeds})
