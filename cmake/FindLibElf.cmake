# FindLibElf: libelf (elfutils) through pkg-config; defines LibElf::LibElf.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LIBELF QUIET libelf)
endif()
find_path(LibElf_INCLUDE_DIR NAMES gelf.h HINTS ${PC_LIBELF_INCLUDE_DIRS})
find_library(LibElf_LIBRARY NAMES elf HINTS ${PC_LIBELF_LIBRARY_DIRS})
set(LibElf_VERSION ${PC_LIBELF_VERSION})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibElf REQUIRED_VARS LibElf_LIBRARY LibElf_INCLUDE_DIR VERSION_VAR LibElf_VERSION)
if(LibElf_FOUND AND NOT TARGET LibElf::LibElf)
  add_library(LibElf::LibElf UNKNOWN IMPORTED)
  set_target_properties(LibElf::LibElf PROPERTIES
    IMPORTED_LOCATION ${LibElf_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${LibElf_INCLUDE_DIR})
endif()
mark_as_advanced(LibElf_INCLUDE_DIR LibElf_LIBRARY)
