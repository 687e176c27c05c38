# Script mode (mlipc_add_model's build step): runs MLIPC with the arguments in
# ARGS (one a line; they write TARBALL), unpacks the tarball into OUT, and
# checks that it holds the generated files the library compiles, no more.
file(STRINGS "${ARGS}" args)
execute_process(COMMAND "${MLIPC}" ${args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mlipc_add_model: mlipc ${args} failed (${rc})")
endif()
file(REMOVE_RECURSE "${OUT}")
file(ARCHIVE_EXTRACT INPUT "${TARBALL}" DESTINATION "${OUT}")
get_filename_component(module "${TARBALL}" NAME_WE)
file(GLOB generated RELATIVE "${OUT}/codegen/host/src" "${OUT}/codegen/host/src/*")
set(expected "${module}_lib0.c;${module}_lib1.c")
if(NOT generated STREQUAL expected)
  message(FATAL_ERROR "mlipc_add_model: ${TARBALL} holds codegen/host/src/{${generated}}, not {${expected}}: "
                      "one module is built (this mlipc and its package differ?)")
endif()
# The archive's times are the compile's; the build compares with the inputs'.
foreach(f IN LISTS expected)
  file(TOUCH_NOCREATE "${OUT}/codegen/host/src/${f}")
endforeach()
file(TOUCH_NOCREATE "${OUT}/codegen/host/include/tvmgen_${module}.h" "${TARBALL}")
