# Small declarative helpers so that each CMakeLists.txt stays a list of what it builds.

# The MLIR libraries every MLIR-linking target needs: the dylib for quick local builds,
# or MLIR's and LLVM's static component libraries for binaries that must run where no
# MLIR or LLVM is installed (a GPU machine). Static archives only contribute what a
# target uses, so every target gets the same list plus the components it names.
set(CGC_MLIR_STATIC_LIBS
  MLIRIR MLIRParser MLIRBytecodeReader MLIRBytecodeWriter MLIRPass MLIRSupport
  MLIRFunctionInterfaces MLIRInferTypeOpInterface MLIRSideEffectInterfaces
  MLIRControlFlowInterfaces MLIRCallInterfaces MLIRTransforms MLIRTransformUtils
  MLIRRewrite MLIRPDLDialect MLIRPDLInterpDialect MLIRPDLToPDLInterp)
function(cgc_mlir_link_libs out_var)
  if(CGC_LINK_MLIR_DYLIB)
    set(${out_var} MLIR LLVM PARENT_SCOPE)
  else()
    set(${out_var} ${CGC_MLIR_STATIC_LIBS} ${ARGN} PARENT_SCOPE)
  endif()
endfunction()

# MLIR's exported static libraries name the LLVM dylib ("LLVM") as their dependency;
# for a fully static link, point them at LLVM's static component libraries instead.
function(cgc_use_static_llvm)
  get_property(imported DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    if(NOT target MATCHES "^MLIR")
      continue()
    endif()
    get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
    if(interface AND "LLVM" IN_LIST interface)
      list(TRANSFORM interface REPLACE "^LLVM$" "LLVMSupport;LLVMDemangle")
      set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${interface}")
    endif()
  endforeach()
endfunction()

# cgc_add_dialect(<Name> TD <main .td> [DEPENDS ...])
# Runs mlir-tablegen for ops, types, dialect and docs of one dialect; defines <Name>IncGen.
function(cgc_add_dialect name)
  cmake_parse_arguments(ARG "" "TD;DIALECT" "" ${ARGN})
  set(LLVM_TARGET_DEFINITIONS ${ARG_TD})
  mlir_tablegen(${name}Ops.h.inc -gen-op-decls)
  mlir_tablegen(${name}Ops.cpp.inc -gen-op-defs)
  mlir_tablegen(${name}Types.h.inc -gen-typedef-decls -typedefs-dialect=${ARG_DIALECT})
  mlir_tablegen(${name}Types.cpp.inc -gen-typedef-defs -typedefs-dialect=${ARG_DIALECT})
  mlir_tablegen(${name}Attrs.h.inc -gen-attrdef-decls -attrdefs-dialect=${ARG_DIALECT})
  mlir_tablegen(${name}Attrs.cpp.inc -gen-attrdef-defs -attrdefs-dialect=${ARG_DIALECT})
  mlir_tablegen(${name}Enums.h.inc -gen-enum-decls)
  mlir_tablegen(${name}Enums.cpp.inc -gen-enum-defs)
  mlir_tablegen(${name}Dialect.h.inc -gen-dialect-decls -dialect=${ARG_DIALECT})
  mlir_tablegen(${name}Dialect.cpp.inc -gen-dialect-defs -dialect=${ARG_DIALECT})
  add_public_tablegen_target(${name}IncGen)
  add_mlir_doc(${name}Ops ${name}Ops Dialects/ -gen-op-doc -dialect=${ARG_DIALECT})
endfunction()

# cgc_add_library(<name> SOURCES ... [MLIR] [LINK ...])
# A static library; MLIR-linking ones get the MLIR libraries in one place.
function(cgc_add_library name)
  cmake_parse_arguments(ARG "MLIR" "" "SOURCES;LINK;DEPENDS;MLIR_COMPONENTS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_MLIR)
    cgc_mlir_link_libs(mlir_libs ${ARG_MLIR_COMPONENTS})
    target_link_libraries(${name} PUBLIC ${mlir_libs})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
endfunction()

# cgc_add_unittest(<name> SOURCES ... LINK ...): one GoogleTest binary registered with ctest.
function(cgc_add_unittest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/unittests)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()

# cgc_embed_text(<target> <file> <output.inc>): <binary dir>/<output.inc> holds the
# text of <file> (relative to the current source directory) as a C++ raw string
# literal, regenerated when the file changes; <target> may #include it.
function(cgc_embed_text target input output)
  set(source ${CMAKE_CURRENT_SOURCE_DIR}/${input})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${output})
  set(script ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake)
  add_custom_command(OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${source} -DOUTPUT=${generated} -P ${script}
    DEPENDS ${source} ${script}
    COMMENT "Embedding ${input}")
  target_sources(${target} PRIVATE ${generated})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
endfunction()

# Adds a subdirectory when it has a CMakeLists.txt.
macro(cgc_add_subdirectory_if_present dir)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endmacro()

# cgc_add_driver(<name> SOURCES ... [LINK ...]): a driver plugin
# libcgc-driver-<name>.so in <build>/lib/cgc-drivers, exporting only cgcDriverOpen.
# Plugins are never unmapped (-z nodelete): libMLIR.so outlives a plugin in the
# process and its TypeID registry keeps pointers to type names in the plugin's
# data, so a dlclose that unmapped it would crash the next plugin loaded. The
# driver's close() still frees every object and joins every thread.
function(cgc_add_driver name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  set(target cgc-driver-${name})
  set(exports ${PROJECT_SOURCE_DIR}/cmake/driver-exports.map)
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LINK})
  set_target_properties(${target} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib/cgc-drivers
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${exports})
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${exports} -Wl,--no-undefined -Wl,-z,nodelete)
  # Installed beside libcgc-api.so, whose loader looks in <its directory>/cgc-drivers.
  # A plugin links nothing of the prefix: its RPATH is the MLIR and LLVM
  # libraries' directory alone (CMAKE_INSTALL_RPATH_USE_LINK_PATH).
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "")
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/cgc-drivers)
endfunction()

# cgc_set_library_version(<target>): VERSION and SOVERSION of an installed
# shared library. Before 1.0 a minor release may change the ABI, so the SONAME
# carries major.minor (libcgc-api.so.0.1); from 1.0 on, the major version.
function(cgc_set_library_version target)
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  else()
    set(soversion ${PROJECT_VERSION_MAJOR})
  endif()
  set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${soversion})
endfunction()
