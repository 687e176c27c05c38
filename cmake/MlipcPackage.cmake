# The installed package (docs/user-guide.md, "Building with CMake"):
#   bin/mlipc
#   include/mlipc/            the headers a tarball's code includes (mlip/, tvm/, dlpack/)
#   share/mlipc/runtime/src/  the runtime sources a tarball carries
#   share/mlipc/templates/    crt_config and platform templates, the firmware image's files
#   lib/cmake/mlipc/          mlipcConfig.cmake, mlipcConfigVersion.cmake, mlipc_add_model
#   lib/pkgconfig/mlipc.pc    for Makefiles
# The runtime and template files are not listed here: they are the files of
# a tarball that mlipc itself writes (codegen/resources/tarball_files.cpp),
# taken from the tarball of a model with an MLIP region (so the simulator is
# there too), with templates/firmware/main.c left out (mlipc writes it per
# module). One list, the compiler's.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MLIPC_PACKAGE_FILES ${CMAKE_BINARY_DIR}/package)
add_custom_command(
  OUTPUT ${MLIPC_PACKAGE_FILES}/files.stamp
  COMMAND ${CMAKE_COMMAND} -DMLIPC=$<TARGET_FILE:mlipc> -DMODEL=${PROJECT_SOURCE_DIR}/examples/digits/model.onnx
          -DOUT=${MLIPC_PACKAGE_FILES} -P ${CMAKE_CURRENT_LIST_DIR}/package/tarball_files.cmake
  DEPENDS mlipc ${PROJECT_SOURCE_DIR}/examples/digits/model.onnx ${CMAKE_CURRENT_LIST_DIR}/package/tarball_files.cmake
  COMMENT "Taking the runtime and templates a tarball carries for the install"
  VERBATIM)
add_custom_target(mlipc_package_files ALL DEPENDS ${MLIPC_PACKAGE_FILES}/files.stamp)

set(MLIPC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mlipc)
set(MLIPC_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/mlipc)
set(MLIPC_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/mlipc)

install(TARGETS mlipc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${MLIPC_PACKAGE_FILES}/files/runtime/include/ DESTINATION ${MLIPC_INSTALL_INCLUDEDIR})
install(DIRECTORY ${MLIPC_PACKAGE_FILES}/files/runtime/src DESTINATION ${MLIPC_INSTALL_DATADIR}/runtime)
install(DIRECTORY ${MLIPC_PACKAGE_FILES}/files/templates DESTINATION ${MLIPC_INSTALL_DATADIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/package/mlipcConfig.cmake.in ${MLIPC_PACKAGE_FILES}/mlipcConfig.cmake
  INSTALL_DESTINATION ${MLIPC_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR MLIPC_INSTALL_INCLUDEDIR MLIPC_INSTALL_DATADIR)
# 0.x: a minor version may change the interface. ARCH_INDEPENDENT: the
# package serves any target (a cross build is 32-bit); mlipc runs on the
# build machine, the runtime is built from source.
write_basic_package_version_file(${MLIPC_PACKAGE_FILES}/mlipcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${MLIPC_PACKAGE_FILES}/mlipcConfig.cmake ${MLIPC_PACKAGE_FILES}/mlipcConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/package/mlipcAddModel.cmake
              ${CMAKE_CURRENT_LIST_DIR}/package/mlipc_compile_model.cmake
        DESTINATION ${MLIPC_INSTALL_CMAKEDIR})

# pkg-config: paths relative to the .pc file, so the prefix can move.
file(RELATIVE_PATH MLIPC_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" MLIPC_PC_TO_PREFIX "${MLIPC_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/package/mlipc.pc.in ${MLIPC_PACKAGE_FILES}/mlipc.pc @ONLY)
install(FILES ${MLIPC_PACKAGE_FILES}/mlipc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
