# bench_add_plugin(<name> CATEGORY <unit|integration|performance> SOURCES <src>...
#                  [LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>])
#
# Builds lib<name>.so into <dir>/<category>/ (default: the build's plugins/ folder),
# linked to the SDK, with hidden visibility so that only what BENCH_PLUGIN and the
# entry-point macros mark is exported.
function(bench_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "CATEGORY;OUTPUT_DIRECTORY" "SOURCES;LIBRARIES")
  if(NOT arg_CATEGORY MATCHES "^(unit|integration|performance)$")
    message(FATAL_ERROR "bench_add_plugin(${name}): CATEGORY must be unit, integration or performance, got '${arg_CATEGORY}'")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "bench_add_plugin(${name}): SOURCES is empty")
  endif()
  if(NOT arg_OUTPUT_DIRECTORY)
    if(DEFINED BENCH_PLUGIN_OUTPUT_DIRECTORY)
      set(arg_OUTPUT_DIRECTORY ${BENCH_PLUGIN_OUTPUT_DIRECTORY})
    else()
      set(arg_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins)
    endif()
  endif()
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
endfunction()
