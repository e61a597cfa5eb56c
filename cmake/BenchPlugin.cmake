# bench_add_plugin(<name> CATEGORY <unit|integration|performance> SOURCES <src>...
#                  [LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>]
#                  [INSTALL_DESTINATION <dir> | NO_INSTALL])
#
# Builds lib<name>.so into <dir>/<category>/ (default: the build's plugins/ folder),
# linked to the SDK, with hidden visibility so that only what BENCH_PLUGIN and the
# entry-point macros mark is exported.
#
# A project that sets no build type (CMAKE_BUILD_TYPE empty, with a single-config
# generator) gets no optimization flags from CMake at all: a plugin built so is measured
# slower than it is. bench_add_plugin then builds it with -O2 -DNDEBUG, saying so; a
# build type, whichever, is left alone.
#
# `cmake --install` puts it in <prefix>/plugins/<category>/ (INSTALL_DESTINATION: in
# <dir>/<category>/ instead, relative to the prefix or absolute), where a benchhost
# installed in <prefix>/bin looks by default. A plugin given an OUTPUT_DIRECTORY (test
# fixtures, tools) is installed only when it also has an INSTALL_DESTINATION; NO_INSTALL
# never installs it.
#
# Used in this tree (cmake/) and installed with the SDK's CMake package
# (<prefix>/lib/cmake/BenchSDK/), which includes it: out-of-tree plugins call it the same
# way after find_package(BenchSDK).

# Where a plugin goes, for the functions below: OUTPUT_DIRECTORY defaults to
# BENCH_PLUGIN_OUTPUT_DIRECTORY, else the build's plugins/ folder; INSTALL_DESTINATION to
# plugins. A macro: it sets the caller's arg_ variables.
macro(_bench_plugin_destinations)
  if(NOT arg_OUTPUT_DIRECTORY)
    if(DEFINED BENCH_PLUGIN_OUTPUT_DIRECTORY)
      set(arg_OUTPUT_DIRECTORY ${BENCH_PLUGIN_OUTPUT_DIRECTORY})
    else()
      set(arg_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins)
    endif()
  endif()
  if(NOT arg_INSTALL_DESTINATION)
    set(arg_INSTALL_DESTINATION plugins)
  endif()
endmacro()

function(bench_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "CATEGORY;OUTPUT_DIRECTORY;INSTALL_DESTINATION"
                        "SOURCES;LIBRARIES")
  if(NOT arg_CATEGORY MATCHES "^(unit|integration|performance)$")
    message(FATAL_ERROR "bench_add_plugin(${name}): CATEGORY must be unit, integration or performance, got '${arg_CATEGORY}'")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "bench_add_plugin(${name}): SOURCES is empty")
  endif()
  if(arg_NO_INSTALL AND arg_INSTALL_DESTINATION)
    message(FATAL_ERROR "bench_add_plugin(${name}): NO_INSTALL and INSTALL_DESTINATION exclude each other")
  endif()
  set(install_plugin TRUE)
  if(arg_NO_INSTALL OR (arg_OUTPUT_DIRECTORY AND NOT arg_INSTALL_DESTINATION))
    set(install_plugin FALSE)
  endif()
  _bench_plugin_destinations()
  add_library(${name} MODULE ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE bench::sdk ${arg_LIBRARIES})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY}/${arg_CATEGORY})
  # A plugin must resolve every symbol at link time: a missing one would otherwise
  # only show when the host loads it.
  target_link_options(${name} PRIVATE -Wl,--no-undefined)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT CMAKE_BUILD_TYPE AND NOT multi_config)
    target_compile_options(${name} PRIVATE -O2)
    target_compile_definitions(${name} PRIVATE NDEBUG)
    message(STATUS "bench_add_plugin(${name}): no CMAKE_BUILD_TYPE, so the plugin is built optimized "
                   "(-O2 -DNDEBUG); set CMAKE_BUILD_TYPE to choose")
  endif()

  if(install_plugin)
    # Installed, it finds the SDK in <prefix>/plugins/<category>/../../lib, and in the
    # folders of the libraries it linked that are outside this project and the system's
    # own (an SDK installed elsewhere, a LibTorch unpacked in /opt).
    if(DEFINED BENCH_SDK_INSTALL_LIBDIR)
      set(libdir ${BENCH_SDK_INSTALL_LIBDIR})
    elseif(DEFINED CMAKE_INSTALL_LIBDIR)
      set(libdir ${CMAKE_INSTALL_LIBDIR})
    else()
      set(libdir lib)
    endif()
    set_target_properties(${name} PROPERTIES
      INSTALL_RPATH "$ORIGIN/../../${libdir}"
      INSTALL_RPATH_USE_LINK_PATH TRUE)
    install(TARGETS ${name} LIBRARY DESTINATION ${arg_INSTALL_DESTINATION}/${arg_CATEGORY})
  endif()
endfunction()

# bench_add_python_plugin(<name> CATEGORY <unit|integration|performance> SOURCES <file.py>
#                         [OUTPUT_DIRECTORY <dir>] [INSTALL_DESTINATION <dir> | NO_INSTALL])
#
# A Python plugin, as benchhost finds it: copies <file.py> to <dir>/<category>/ (default:
# the build's plugins/ folder) whenever it changes, under the target <name>, and installs
# it beside the .so plugins. Nothing is compiled: the plugin runs in the worker's
# embedded Python (docs/plugin-guide.md, "Python plugins").
function(bench_add_python_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "CATEGORY;SOURCES;OUTPUT_DIRECTORY;INSTALL_DESTINATION" "")
  if(NOT arg_CATEGORY MATCHES "^(unit|integration|performance)$")
    message(FATAL_ERROR "bench_add_python_plugin(${name}): CATEGORY must be unit, integration or performance, got '${arg_CATEGORY}'")
  endif()
  if(NOT arg_SOURCES MATCHES "\\.py$")
    message(FATAL_ERROR "bench_add_python_plugin(${name}): SOURCES must be one .py file, got '${arg_SOURCES}'")
  endif()
  get_filename_component(source "${arg_SOURCES}" ABSOLUTE)
  get_filename_component(file_name "${source}" NAME)
  _bench_plugin_destinations()
  set(copy "${arg_OUTPUT_DIRECTORY}/${arg_CATEGORY}/${file_name}")
  add_custom_command(OUTPUT "${copy}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${arg_OUTPUT_DIRECTORY}/${arg_CATEGORY}"
    COMMAND ${CMAKE_COMMAND} -E copy_if_different "${source}" "${copy}"
    DEPENDS "${source}"
    COMMENT "Python plugin ${arg_CATEGORY}/${file_name}")
  add_custom_target(${name} ALL DEPENDS "${copy}")
  if(NOT arg_NO_INSTALL)
    install(FILES "${source}" DESTINATION ${arg_INSTALL_DESTINATION}/${arg_CATEGORY})
  endif()
endfunction()

# bench_embed_text(<target> <identifier> <file>)
#
# Gives <target>'s sources the text of <file> as a constant: #include
# <bench_embedded/<identifier>.hpp> declares `inline constexpr const char <identifier>[]`.
# A model plugin embeds the Python definition of its model this way for the AOTInductor
# compile (<bench/torch/aot_inductor.hpp>), so that the plugin carries it wherever it is
# installed. Editing <file> configures again; the header is rewritten only when it changes.
function(bench_embed_text target identifier file)
  get_filename_component(file "${file}" ABSOLUTE)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "bench_embed_text(${target}): ${file} does not exist")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(READ "${file}" text)
  if(text MATCHES "\\)bench_embedded\"")
    message(FATAL_ERROR "bench_embed_text(${target}): ${file} contains the closing delimiter )bench_embedded\"")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/bench_embedded_${target}")
  set(header_text "// Generated by bench_embed_text from ${file}.\n#pragma once\n\ninline constexpr const char ${identifier}[] = R\"bench_embedded(${text})bench_embedded\";\n")
  # Written beside, then copied only when it differs (no rebuild of its includers).
  file(WRITE "${dir}/${identifier}.hpp.new" "${header_text}")
  configure_file("${dir}/${identifier}.hpp.new" "${dir}/bench_embedded/${identifier}.hpp" COPYONLY)
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
