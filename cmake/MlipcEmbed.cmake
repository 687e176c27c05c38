# mlipc_embed(<target> OUTPUT <file.cpp> ENTRIES <logical-name> <path> ...)
# Generates a C++ source that holds the given files as byte arrays, so that the
# `mlipc` binary carries the runtime sources and templates it writes into every
# tarball and never reads the source tree at run time.
set(MLIPC_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)

function(mlipc_embed out_var)
  cmake_parse_arguments(E "" "OUTPUT" "ENTRIES" ${ARGN})
  set(manifest "")
  set(deps "")
  list(LENGTH E_ENTRIES n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET E_ENTRIES ${i} name)
    list(GET E_ENTRIES ${j} path)
    string(APPEND manifest "${name}|${path}\n")
    list(APPEND deps ${path})
  endforeach()
  set(manifest_file ${E_OUTPUT}.manifest)
  file(GENERATE OUTPUT ${manifest_file} CONTENT "${manifest}")
  add_custom_command(
    OUTPUT ${E_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DMANIFEST=${manifest_file} -DOUTPUT=${E_OUTPUT}
            -P ${MLIPC_EMBED_SCRIPT}
    DEPENDS ${deps} ${manifest_file} ${MLIPC_EMBED_SCRIPT}
    COMMENT "Embedding runtime sources and templates"
    VERBATIM)
  set(${out_var} ${E_OUTPUT} PARENT_SCOPE)
endfunction()
