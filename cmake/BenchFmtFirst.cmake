# bench_fmt_before_torch(TARGET): the SDK's headers use spdlog, which Debian builds against
# its own fmt (9); LibTorch 2.x ships fmt 12's headers in its include folder, and where
# that folder comes first a translation unit that includes both gets spdlog with the wrong
# fmt ("'basic_runtime' is not a member of 'fmt'"). Debian's fmt lives in /usr/include,
# which no -I can put first, so a folder holding only a link `fmt` to it is put before
# LibTorch's for TARGET and what links it.
function(bench_fmt_before_torch target)
  if(NOT TARGET fmt::fmt)
    find_package(fmt QUIET)
  endif()
  set(fmt_dir "")
  if(TARGET fmt::fmt)
    get_target_property(dirs fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
    foreach(dir IN LISTS dirs)
      if(EXISTS "${dir}/fmt/core.h")
        set(fmt_dir "${dir}/fmt")
        break()
      endif()
    endforeach()
  endif()
  if(NOT fmt_dir)
    return()  # spdlog with its own fmt: nothing to put first
  endif()
  set(first "${CMAKE_BINARY_DIR}/bench_fmt_first")
  if(NOT EXISTS "${first}/fmt")
    file(MAKE_DIRECTORY "${first}")
    file(CREATE_LINK "${fmt_dir}" "${first}/fmt" SYMBOLIC)
  endif()
  get_target_property(imported ${target} IMPORTED)
  if(imported)
    # Imported (an installed SDK): its own include folders come before LibTorch's, which
    # it links.
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${first}")
  else()
    target_include_directories(${target} BEFORE PUBLIC $<BUILD_INTERFACE:${first}>)
  endif()
endfunction()
