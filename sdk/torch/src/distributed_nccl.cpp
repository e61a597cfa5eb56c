// The NCCL process group of the ranks (distributed.cpp asks for it on CUDA): compiled only
// where LibTorch has CUDA (BENCH_TORCH_WITH_CUDA), whose libtorch_cuda has NCCL.
// ProcessGroupNCCL.hpp is compiled in where USE_C10D_NCCL is defined, as LibTorch's CMake
// package defines it for a LibTorch with NCCL, and here where it did not.
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL 1
#endif

#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

namespace bench::libtorch {

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    int device) {
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(device));
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, c10d::ProcessGroupNCCL::Options::create());
}

}  // namespace bench::libtorch
