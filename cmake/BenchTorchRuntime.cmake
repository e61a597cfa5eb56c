# bench_torch_runtime_libraries(TORCH_ROOT): one set of CUDA libraries for everything that
# links LibTorch.
#
# A torch wheel from the package index carries its CUDA runtime as nvidia-* packages
# beside it (site-packages/nvidia/<name>/lib: cudart, cuBLAS, cuDNN, NCCL, ...), and its
# own libraries find them through their run path ($ORIGIN/../../nvidia/...). But torch's
# CMake package links the CUDA toolkit's libcudart, which puts the toolkit's library
# folder on the link's search path and in the binaries' run path: the toolkit has an
# NCCL and a cuDNN of other versions (the linker resolved libtorch_cuda.so's libnccl.so.2
# there and failed on symbols torch 2.14.1 needs), and a toolkit or LD_LIBRARY_PATH could
# give the process a libcudart other than torch's. So, where the wheel's libraries are:
# - torch::cudart links the wheel's libcudart, not the toolkit's;
# - everything that links torch gets a DT_RPATH (not DT_RUNPATH: searched before
#   LD_LIBRARY_PATH, and for what the binary's dependencies load too) of torch's lib
#   folder and the wheel's CUDA library folders. Installed binaries keep it.
# Sets BENCH_TORCH_CUDA_LIBRARY_DIRS (empty for a torch without the wheel's libraries).
function(bench_torch_runtime_libraries torch_root)
  get_filename_component(site_packages "${torch_root}/.." ABSOLUTE)
  file(GLOB dirs LIST_DIRECTORIES true "${site_packages}/nvidia/*/lib")
  list(SORT dirs)
  set(BENCH_TORCH_CUDA_LIBRARY_DIRS "${dirs}" PARENT_SCOPE)
  if(NOT TARGET torch)
    return()
  endif()
  set(rpath "${torch_root}/lib")
  if(dirs)
    list(APPEND rpath ${dirs})
    if(TARGET torch::cudart)
      foreach(dir IN LISTS dirs)
        file(GLOB cudart "${dir}/libcudart.so.[0-9]*")
        if(cudart)
          list(GET cudart 0 cudart)
          # The toolkit's headers stay (the SDK's CUDA parts include cuda_runtime.h).
          if(TARGET CUDA::cudart)
            get_target_property(cuda_includes CUDA::cudart INTERFACE_INCLUDE_DIRECTORIES)
            if(cuda_includes)
              set_property(TARGET torch::cudart PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${cuda_includes}")
            endif()
          endif()
          set_property(TARGET torch::cudart PROPERTY INTERFACE_LINK_LIBRARIES "${cudart}")
          break()
        endif()
      endforeach()
    endif()
  endif()
  list(JOIN rpath ":" rpath)
  set_property(TARGET torch APPEND PROPERTY INTERFACE_LINK_OPTIONS "LINKER:--disable-new-dtags" "LINKER:-rpath,${rpath}")
endfunction()

# bench_torch_cuda_defaults(): what a CUDA torch's CMake package needs on a machine with
# the toolkit and no GPU, set before find_package(Torch) unless the user set it.
# - CMAKE_CUDA_STANDARD 17: Caffe2's package asks for CMAKE_CXX_STANDARD (20 here), and
#   CMake 3.25 knows no C++20 dialect flag for nvcc 13. No .cu file is compiled.
# - TORCH_CUDA_ARCH_LIST 8.0;9.0: without one, the package compiles and runs a program to
#   find the GPUs, which fails where there is none. The list matters only for .cu files.
macro(bench_torch_cuda_defaults)
  if(NOT DEFINED CMAKE_CUDA_STANDARD)
    set(CMAKE_CUDA_STANDARD 17)
  endif()
  if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(TORCH_CUDA_ARCH_LIST "8.0;9.0")
  endif()
endmacro()
