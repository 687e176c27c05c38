# Script mode: lists the runtime library's external symbols by part, for the
# TVM adapter's weak runtime copy (codegen/resources/tarball_files.cpp).
# NM: the toolchain's nm; OBJECTS: the objects of mlip_runtime, joined by
# '|'; OUTPUT: lines "<part> <symbol>" (part: the runtime folder the object
# was compiled from, core, sim or pipeline), sorted. Symbols already weak
# (the platform hooks) and names outside the runtime's mlip_ prefix (a
# sanitizer's) are left out.
string(REPLACE "|" ";" objects "${OBJECTS}")
set(lines "")
foreach(obj IN LISTS objects)
  if(NOT obj MATCHES "/(core|sim|pipeline)/[^/]+$")
    message(FATAL_ERROR "runtime_symbols: ${obj} is in no runtime folder (core, sim, pipeline)")
  endif()
  set(part ${CMAKE_MATCH_1})
  execute_process(COMMAND ${NM} -g --defined-only ${obj} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "runtime_symbols: ${NM} failed on ${obj}")
  endif()
  string(REPLACE "\n" ";" out "${out}")
  foreach(l IN LISTS out)
    if(l MATCHES "[ \t]([TDRBC])[ \t]+(mlip_[A-Za-z0-9_]+)$")
      list(APPEND lines "${part} ${CMAKE_MATCH_2}")
    endif()
  endforeach()
endforeach()
list(SORT lines)
list(REMOVE_DUPLICATES lines)
string(REPLACE ";" "\n" text "${lines}")
file(WRITE ${OUTPUT}.tmp "${text}\n")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
