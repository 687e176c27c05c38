# mlipc_add_model(<target> MODEL <m.onnx> [TARGET "mrvl, c"|c] [NUM_TILES <n>]
#                 [MATTR "<mattr>"] [MODULE_NAME <name>] [OPTIONS <mlipc compile options>...])
#
# Compiles the model with mlipc at build time, again when the .onnx, the
# arguments or the mlipc executable change, and makes <target> a static
# library of the generated C (codegen/host/src/<name>_lib0.c and _lib1.c),
# linking mlipc::runtime, with the tarball's codegen/host/include and the
# runtime headers as PUBLIC include directories: include "tvmgen_<name>.h"
# and call tvmgen_<name>_run. The tarball itself is the target's
# MLIPC_TARBALL property. One module per call (not --pes, which writes one
# module per stage); MODULE_NAME (default "default") tells two models of one
# image apart. docs/user-guide.md, "Building with CMake".
set(_MLIPC_COMPILE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/mlipc_compile_model.cmake")

function(mlipc_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 M "" "MODEL;TARGET;NUM_TILES;MATTR;MODULE_NAME" "OPTIONS")
  if(M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mlipc_add_model(${target}): unknown arguments: ${M_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT M_MODEL)
    message(FATAL_ERROR "mlipc_add_model(${target}): MODEL <file.onnx> is required")
  endif()
  if(NOT M_MODULE_NAME)
    set(M_MODULE_NAME default)
  endif()
  foreach(o IN LISTS M_OPTIONS)
    if(o MATCHES "^--(module-name|pes|output)([= ]|$)" OR o STREQUAL "-o")
      message(FATAL_ERROR "mlipc_add_model(${target}): ${o} is not for OPTIONS (the module name is MODULE_NAME; "
                          "the function writes the tarball and builds it itself, one module)")
    endif()
  endforeach()
  get_filename_component(model "${M_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "mlipc_add_model(${target}): MODEL ${model} does not exist")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.mlipc")
  set(tarball "${dir}/${M_MODULE_NAME}.tar")
  set(args compile "${model}" -o "${tarball}" "--module-name=${M_MODULE_NAME}")
  if(DEFINED M_TARGET)
    list(APPEND args "--target=${M_TARGET}")
  endif()
  if(DEFINED M_NUM_TILES)
    list(APPEND args "--target-mrvl-num_tiles=${M_NUM_TILES}")
  endif()
  if(DEFINED M_MATTR)
    list(APPEND args "--target-mrvl-mattr=${M_MATTR}")
  endif()
  list(APPEND args ${M_OPTIONS})
  # The arguments, one a line: what the build runs, and its stamp. file(GENERATE)
  # writes it only when it changes, so changed options compile the model again
  # and an unchanged configure does not.
  list(JOIN args "\n" text)
  file(GENERATE OUTPUT "${dir}/args.txt" CONTENT "${text}\n")

  set(src "${dir}/tarball/codegen/host/src")
  set(sources "${src}/${M_MODULE_NAME}_lib0.c" "${src}/${M_MODULE_NAME}_lib1.c")
  set(header "${dir}/tarball/codegen/host/include/tvmgen_${M_MODULE_NAME}.h")
  add_custom_command(
    OUTPUT ${sources} "${header}" "${tarball}"
    COMMAND "${CMAKE_COMMAND}" "-DMLIPC=$<TARGET_FILE:mlipc::mlipc>" "-DARGS=${dir}/args.txt" "-DTARBALL=${tarball}"
            "-DOUT=${dir}/tarball" -P "${_MLIPC_COMPILE_SCRIPT}"
    DEPENDS "${model}" "${dir}/args.txt" "${_MLIPC_COMPILE_SCRIPT}" "$<TARGET_FILE:mlipc::mlipc>"
    COMMENT "mlipc: compiling ${M_MODEL} for ${target}"
    VERBATIM)

  add_library(${target} STATIC ${sources} "${header}")
  target_include_directories(${target} PUBLIC "${dir}/tarball/codegen/host/include")
  target_link_libraries(${target} PUBLIC mlipc::runtime)
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON MLIPC_TARBALL "${tarball}")
endfunction()
