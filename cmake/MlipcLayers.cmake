# The offline generator's layers (codegen/CMakeLists.txt): one static
# library per folder (or folders), which may use only the layers listed in
# its DEPS. Every layer sees codegen/ as an include directory, so the
# compiler alone would let any layer include any folder's header; the check
# below makes the declared dependencies the rule.
#
# mlipc_layer(<name> DIRS <folders under codegen/> DEPS <libraries>)
#   The layer's sources are the .cpp files of DIRS. DEPS may name other
#   layers (the only codegen folders it may include, with theirs) and
#   outside libraries.
# mlipc_check_layers()
#   After the last layer: a build step that re-runs whenever a layer's
#   source or header changes (cmake/check_layers.cmake) and fails the build,
#   naming the file and the include, when a layer includes a header of a
#   codegen folder that is neither its own nor one of a layer it depends on
#   (directly or through other layers). Every layer library waits for it.
function(mlipc_layer name)
  cmake_parse_arguments(L "" "" "DIRS;DEPS" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY MLIPC_LAYERS ${name})
  set_property(GLOBAL PROPERTY MLIPC_LAYER_DIRS_${name} ${L_DIRS})
  set_property(GLOBAL PROPERTY MLIPC_LAYER_DEPS_${name} ${L_DEPS})
  set(srcs "")
  foreach(d IN LISTS L_DIRS)
    file(GLOB s CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${d}/*.cpp)
    list(APPEND srcs ${s})
  endforeach()
  if(NOT srcs)  # a layer that has no code yet
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${L_DEPS})
    return()
  endif()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${L_DEPS})
  mlipc_cxx_target(${name})
endfunction()

# The folders a layer may include: its own, then those of every layer it
# depends on, through theirs.
function(mlipc_layer_allowed_dirs name out)
  set(seen "")
  set(todo ${name})
  set(dirs "")
  get_property(layers GLOBAL PROPERTY MLIPC_LAYERS)
  while(todo)
    list(POP_FRONT todo l)
    if(l IN_LIST seen OR NOT l IN_LIST layers)
      continue()
    endif()
    list(APPEND seen ${l})
    get_property(d GLOBAL PROPERTY MLIPC_LAYER_DIRS_${l})
    get_property(deps GLOBAL PROPERTY MLIPC_LAYER_DEPS_${l})
    list(APPEND dirs ${d})
    list(APPEND todo ${deps})
  endwhile()
  list(REMOVE_DUPLICATES dirs)
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

function(mlipc_check_layers)
  get_property(layers GLOBAL PROPERTY MLIPC_LAYERS)
  set(manifest "")
  set(files "")
  foreach(l IN LISTS layers)
    get_property(dirs GLOBAL PROPERTY MLIPC_LAYER_DIRS_${l})
    mlipc_layer_allowed_dirs(${l} allowed)
    string(REPLACE ";" "," dirs_text "${dirs}")
    string(REPLACE ";" "," allowed_text "${allowed}")
    string(APPEND manifest "${l}|${dirs_text}|${allowed_text}\n")
    foreach(d IN LISTS dirs)
      file(GLOB f CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${d}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/${d}/*.h
           ${CMAKE_CURRENT_SOURCE_DIR}/${d}/*.inc)
      list(APPEND files ${f})
    endforeach()
  endforeach()
  set(manifest_file ${CMAKE_CURRENT_BINARY_DIR}/layers.manifest)
  file(GENERATE OUTPUT ${manifest_file} CONTENT "${manifest}")
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/layers.checked)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DMANIFEST=${manifest_file} -DROOT=${CMAKE_CURRENT_SOURCE_DIR}
            -P ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${files} ${manifest_file} ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    COMMENT "Checking that each codegen layer includes only the layers it depends on"
    VERBATIM)
  add_custom_target(mlipc_layer_check DEPENDS ${stamp})
  foreach(l IN LISTS layers)
    get_target_property(type ${l} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      add_dependencies(${l} mlipc_layer_check)
    endif()
  endforeach()
endfunction()
