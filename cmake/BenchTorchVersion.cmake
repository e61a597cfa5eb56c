# The version and CUDA of a torch install, read from its files (never by running it):
# torch/version.py for a Python package, build-version for a libtorch archive.
function(bench_read_torch_version torch_root out_version out_cuda)
  set(version "")
  set(cuda "")
  if(EXISTS "${torch_root}/version.py")
    file(STRINGS "${torch_root}/version.py" line REGEX "^__version__ *= *")
    string(REGEX REPLACE "^__version__ *= *'([^']*)'.*" "\\1" version "${line}")
    file(STRINGS "${torch_root}/version.py" line REGEX "^cuda *[:=]")
    if(line MATCHES "'([0-9.]+)'")
      set(cuda "${CMAKE_MATCH_1}")
    endif()
  elseif(EXISTS "${torch_root}/build-version")
    file(STRINGS "${torch_root}/build-version" version LIMIT_COUNT 1)
    if(version MATCHES "\\+cu([0-9]+)([0-9])$")
      set(cuda "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    endif()
  endif()
  set(${out_version} "${version}" PARENT_SCOPE)
  set(${out_cuda} "${cuda}" PARENT_SCOPE)
endfunction()

# Run as a script (cmake -DTORCH_ROOT=... -DEXPECTED=... -P BenchTorchVersion.cmake), at
# every build: fails when the torch there is no longer the one the build was configured with.
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  bench_read_torch_version("${TORCH_ROOT}" found found_cuda)
  if(NOT found STREQUAL EXPECTED)
    if(NOT found)
      set(found "no torch")
    endif()
    message(FATAL_ERROR "This build was configured with LibTorch ${EXPECTED}, but ${TORCH_ROOT} now holds ${found}: "
                        "configure again (cmake -S <source> -B <build> --fresh), or reinstall ${EXPECTED} "
                        "(scripts/bench does, from the pinned versions).")
  endif()
endif()
