# Finds LibTorch for the LibTorch layer and plugins, and checks what it is:
#
# - Where: -DCMAKE_PREFIX_PATH (or Torch_DIR) as for any CMake package; without either,
#   the torch of BENCH_PYTHON (default: the project's virtual environment, .venv/bin/python,
#   which scripts/bench and scripts/test make) gives its CMake package.
# - Which version: PyTorch 2.3 or newer (the CPU allocator interface of the memory
#   tracker, non-const allocate and copy_data, is 2.3's). The version found is recorded in
#   BENCH_TORCH_VERSION (e.g. 2.14.1+cu130) and the build checks at every build that the
#   torch it was configured with is still the one there (bench_torch_version_check).
# - CUDA: a CUDA build of torch (the package index's wheels are) needs NVIDIA's CUDA
#   toolkit of the same major.minor version as the CUDA that torch carries; configure
#   fails naming both otherwise (-DBENCH_ALLOW_CUDA_MISMATCH=ON turns that into a warning).
#   BENCH_WITH_CUDA (default: ON for a CUDA torch, OFF for a CPU one) compiles the CUDA
#   parts of the SDK; ON with a torch that has no CUDA, or a CUDA torch whose c10_cuda is
#   missing, fails: the CUDA parts never drop out silently.
#
# - Run time: the CUDA libraries that the torch wheel carries, one set
#   (BenchTorchRuntime.cmake).
#
# Sets BENCH_TORCH_VERSION, BENCH_TORCH_ROOT (torch's folder, where its version is read),
# BENCH_TORCH_CUDA_VERSION (empty for a CPU torch),
# BENCH_TORCH_CUDA_LIBRARY_DIRS, BENCH_WITH_CUDA, and the target
# bench_torch_version_check.

set(BENCH_PYTHON "${PROJECT_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
    "Python whose torch gives LibTorch's CMake package when CMAKE_PREFIX_PATH and Torch_DIR do not")
option(BENCH_ALLOW_CUDA_MISMATCH "Only warn when the CUDA toolkit's version differs from torch's CUDA" OFF)

# Where the CMake package is, unless the user said.
if(NOT Torch_DIR)
  find_file(_bench_torch_config TorchConfig.cmake PATH_SUFFIXES share/cmake/Torch NO_CACHE)
  if(NOT _bench_torch_config AND EXISTS "${BENCH_PYTHON}")
    execute_process(
      COMMAND "${BENCH_PYTHON}" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
      OUTPUT_VARIABLE _bench_torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_VARIABLE _bench_torch_error RESULT_VARIABLE _bench_torch_status)
    if(NOT _bench_torch_status EQUAL 0)
      message(FATAL_ERROR "BENCH_PYTHON=${BENCH_PYTHON} cannot import torch:\n${_bench_torch_error}"
                          "scripts/bench installs it (docs/install.md), or give -DCMAKE_PREFIX_PATH=<libtorch>.")
    endif()
    set(Torch_DIR "${_bench_torch_prefix}/Torch" CACHE PATH "LibTorch's CMake package" FORCE)
  elseif(NOT _bench_torch_config)
    message(FATAL_ERROR "No LibTorch found: BENCH_PYTHON (${BENCH_PYTHON}) does not exist, and neither "
                        "CMAKE_PREFIX_PATH nor Torch_DIR names one. scripts/bench makes the project's venv with the "
                        "pinned torch; or give -DBENCH_PYTHON=<a python with torch>, -DCMAKE_PREFIX_PATH=<libtorch>, "
                        "or -DBENCH_WITH_TORCH=OFF (docs/install.md).")
  endif()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/BenchTorchVersion.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/BenchTorchRuntime.cmake)

# torch's root: Torch_DIR is <root>/share/cmake/Torch.
if(Torch_DIR)
  get_filename_component(_bench_torch_root "${Torch_DIR}/../../.." ABSOLUTE)
elseif(_bench_torch_config)
  get_filename_component(_bench_torch_root "${_bench_torch_config}/../../../.." ABSOLUTE)
endif()
if(_bench_torch_root)
  bench_read_torch_version("${_bench_torch_root}" _bench_torch_file_version BENCH_TORCH_CUDA_VERSION)
endif()

# A CUDA torch: the toolkit must be there and of torch's CUDA version, checked before
# Torch's own package looks for it (its message would not name torch's version).
if(BENCH_TORCH_CUDA_VERSION)
  find_package(CUDAToolkit QUIET)
  if(NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR "LibTorch ${_bench_torch_file_version} (${_bench_torch_root}) is a CUDA ${BENCH_TORCH_CUDA_VERSION} "
                        "build, and building against it needs NVIDIA's CUDA toolkit ${BENCH_TORCH_CUDA_VERSION}: none was found "
                        "(set CUDAToolkit_ROOT or CUDA_HOME, or build against a CPU LibTorch: docs/install.md).")
  endif()
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _bench_toolkit_cuda "${CUDAToolkit_VERSION}")
  if(NOT _bench_toolkit_cuda VERSION_EQUAL BENCH_TORCH_CUDA_VERSION)
    string(CONCAT _bench_message "the CUDA toolkit ${CUDAToolkit_VERSION} (${CUDAToolkit_BIN_DIR}) does not match the CUDA "
                       "${BENCH_TORCH_CUDA_VERSION} that LibTorch ${_bench_torch_file_version} was built with "
                       "(${_bench_torch_root}): install toolkit ${BENCH_TORCH_CUDA_VERSION} and point CUDAToolkit_ROOT at it, "
                       "or pin a torch built with CUDA ${_bench_toolkit_cuda}")
    if(BENCH_ALLOW_CUDA_MISMATCH)
      message(WARNING "${_bench_message} (going on: BENCH_ALLOW_CUDA_MISMATCH)")
    else()
      message(FATAL_ERROR "${_bench_message}; -DBENCH_ALLOW_CUDA_MISMATCH=ON builds anyway.")
    endif()
  endif()
  bench_torch_cuda_defaults()
endif()

find_package(Torch REQUIRED)
bench_torch_runtime_libraries("${_bench_torch_root}")

if(NOT _bench_torch_file_version)
  set(_bench_torch_file_version "${Torch_VERSION}")
endif()
if(Torch_VERSION VERSION_LESS 2.3)
  message(FATAL_ERROR "LibTorch ${Torch_VERSION} (${Torch_DIR}) is too old: benchhost needs PyTorch 2.3 or newer "
                      "(docs/install.md says how to build against another LibTorch).")
endif()
set(BENCH_TORCH_VERSION "${_bench_torch_file_version}")
set(BENCH_TORCH_ROOT "${_bench_torch_root}")

# The CUDA parts of the SDK: on by default exactly when torch has CUDA.
if(BENCH_TORCH_CUDA_VERSION)
  set(_bench_cuda_default ON)
else()
  set(_bench_cuda_default OFF)
endif()
option(BENCH_WITH_CUDA "Compile the CUDA parts of the SDK (needs a CUDA build of LibTorch)" ${_bench_cuda_default})
if(BENCH_WITH_CUDA)
  if(NOT BENCH_TORCH_CUDA_VERSION OR NOT C10_CUDA_LIBRARY)
    message(FATAL_ERROR "BENCH_WITH_CUDA is ON, but LibTorch ${BENCH_TORCH_VERSION} (${Torch_DIR}) has no CUDA "
                        "(CUDA version: '${BENCH_TORCH_CUDA_VERSION}', c10_cuda: '${C10_CUDA_LIBRARY}'): "
                        "use a CUDA build of torch, or -DBENCH_WITH_CUDA=OFF for a CPU-only build.")
  endif()
  message(STATUS "LibTorch ${BENCH_TORCH_VERSION} with CUDA ${BENCH_TORCH_CUDA_VERSION} (toolkit ${CUDAToolkit_VERSION}): "
                 "the SDK's CUDA parts are compiled")
else()
  message(STATUS "LibTorch ${BENCH_TORCH_VERSION}, without CUDA: the SDK's CUDA parts are not compiled")
endif()

# At every build: the torch the build was configured with must still be the one installed
# there (a venv upgraded under a configured build would fail later, at link or load time,
# with messages that name no version).
if(_bench_torch_root)
  add_custom_target(bench_torch_version_check ALL
    COMMAND ${CMAKE_COMMAND} -DTORCH_ROOT=${_bench_torch_root} -DEXPECTED=${BENCH_TORCH_VERSION}
            -P ${CMAKE_CURRENT_LIST_DIR}/BenchTorchVersion.cmake
    COMMENT "Checking that LibTorch is still ${BENCH_TORCH_VERSION}"
    VERBATIM)
endif()
