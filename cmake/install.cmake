# What `cmake --install` lays down. For C/C++ users: headers, the static library, the CLI, the
# HDF5 plugin (hdf5/CMakeLists.txt), a CMake package (find_package(sciz) -> sciz::sciz) and a
# pkg-config file. For the wheel (SKBUILD), only what the Python package uses: the module
# (python/CMakeLists.txt), the plugin and the CLI as a script.
add_library(sciz::sciz ALIAS sciz)  # the same name for add_subdirectory() users

if(SKBUILD)
  install(TARGETS sciz_cli RUNTIME DESTINATION ${SKBUILD_SCRIPTS_DIR})
  return()
endif()
if(NOT SCIZ_INSTALL)
  return()
endif()

include(CMakePackageConfigHelpers)
set(SCIZ_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sciz)

install(TARGETS sciz EXPORT scizTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS sciz_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/sciz DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT scizTargets NAMESPACE sciz:: DESTINATION ${SCIZ_CMAKE_DIR})

# The static library carries its dependencies (OpenMP, the static CUDA runtime) into the
# consumer's link; the config finds them again there.
set(SCIZ_CONFIG_CUDA_ROOT "")
if(SCIZ_HAVE_CUDA)
  get_filename_component(SCIZ_CONFIG_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
configure_package_config_file(cmake/scizConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/scizConfig.cmake
                              INSTALL_DESTINATION ${SCIZ_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/scizConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/scizConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/scizConfigVersion.cmake
        DESTINATION ${SCIZ_CMAKE_DIR})

# pkg-config: the static library's whole link line goes into Libs, since there is no shared one.
set(SCIZ_PC_LIBS "${OpenMP_CXX_FLAGS} -lstdc++ -lm")
if(SCIZ_HAVE_CUDA)
  set(SCIZ_PC_LIBS "${SCIZ_PC_LIBS} -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lpthread")
endif()
# The prefix is found from the .pc file's own place, so the install tree can be moved.
file(RELATIVE_PATH SCIZ_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/sciz.pc.in ${CMAKE_CURRENT_BINARY_DIR}/sciz.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/sciz.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
