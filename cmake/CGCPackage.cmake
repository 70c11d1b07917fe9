# What an installed OpenCGC offers applications beyond its files (each target
# installs itself where it is defined): the CMake package
# <prefix>/lib/cmake/OpenCGC (find_package(OpenCGC) gives OpenCGC::api, the
# device API; OpenCGC::runtime, the runtime's Session; and the tools as
# OpenCGC::cgc-opt, ...), pkg-config files for the same two libraries, and the
# test that builds examples/ against an installed copy.
include(CMakePackageConfigHelpers)

set(cgc_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/OpenCGC)
install(EXPORT OpenCGCTargets
  NAMESPACE OpenCGC::
  FILE OpenCGCTargets.cmake
  DESTINATION ${cgc_package_dir})
configure_package_config_file(cmake/OpenCGCConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/OpenCGCConfig.cmake
  INSTALL_DESTINATION ${cgc_package_dir})
# Before 1.0 a minor release may change the API (and the SONAME carries
# major.minor, cgc_set_library_version): find_package(OpenCGC 0.1) accepts
# 0.1.x only.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(cgc_compatibility SameMinorVersion)
else()
  set(cgc_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/OpenCGCConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY ${cgc_compatibility})
install(FILES
  ${PROJECT_BINARY_DIR}/package/OpenCGCConfig.cmake
  ${PROJECT_BINARY_DIR}/package/OpenCGCConfigVersion.cmake
  DESTINATION ${cgc_package_dir})

# pkg-config files locate the prefix from their own directory (${pcfiledir}),
# so that `cmake --install --prefix P` and a copied tree both work.
set(cgc_pkgconfig_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH CGC_PKGCONFIG_TO_PREFIX /prefix/${cgc_pkgconfig_dir} /prefix)
string(REGEX REPLACE "/$" "" CGC_PKGCONFIG_TO_PREFIX "${CGC_PKGCONFIG_TO_PREFIX}")
set(cgc_pkgconfig_files opencgc)
if(TARGET cgc-runtime)
  list(APPEND cgc_pkgconfig_files opencgc-runtime)
endif()
foreach(name IN LISTS cgc_pkgconfig_files)
  configure_file(cmake/${name}.pc.in ${PROJECT_BINARY_DIR}/package/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/${name}.pc DESTINATION ${cgc_pkgconfig_dir})
endforeach()

# Install into a fresh prefix, build examples/ against it through the CMake
# package and through pkg-config, and run them on the CPU device (in a build
# that has every part the script checks).
if(TARGET cgc-api AND TARGET cgc-runtime AND TARGET cgc-driver-cpu AND TARGET cgc-opt
   AND TARGET cgc-import AND TARGET cgc-compile AND TARGET cgc-run)
  add_test(NAME install.examples
    COMMAND bash ${PROJECT_SOURCE_DIR}/examples/test-installed.sh
            ${PROJECT_BINARY_DIR} ${PROJECT_BINARY_DIR}/install-examples
            ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER})
  set_tests_properties(install.examples PROPERTIES LABELS install TIMEOUT 300)
endif()
