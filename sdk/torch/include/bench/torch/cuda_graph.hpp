// A forward pass captured once as a CUDA graph and replayed: what torch.compile's
// reduce-overhead mode does around Inductor's code, for the launch-bound part of a model
// (hundreds of small kernels at batch 1, each costing the host a launch).
#pragma once

#include <functional>

#include <torch/types.h>

#include <bench/export.hpp>

namespace bench::libtorch {

/// `forward` (work on a CUDA device, launched on the current stream, that allocates only
/// through PyTorch's caching allocator and never synchronizes: an AOTInductor package,
/// an eager module without data-dependent control flow) as one CUDA graph. It is called
/// `warmup_calls` times on a side stream (as torch.cuda.graphs does: lazy initialization,
/// the allocator's first blocks), then once under capture with a copy of `example` as
/// the graph's static input. Each call of the result copies its input into that static
/// input (as torch.compile's reduce-overhead does with an input it does not own), replays
/// the graph on the current stream and returns the graph's static output: overwritten by
/// the next call, so use or clone it before. A call whose input differs from `example` in
/// shape, dtype or device is std::invalid_argument. Throws std::runtime_error where this
/// LibTorch has no CUDA or `example` is not on a CUDA device, and PyTorch's error when the
/// capture fails (a synchronization, a host-side read, an allocation outside the
/// caching allocator inside `forward`). (ABI 2.11.)
BENCH_EXPORT std::function<torch::Tensor(const torch::Tensor&)> cuda_graphed(
    const std::function<torch::Tensor(const torch::Tensor&)>& forward, const torch::Tensor& example,
    int warmup_calls = 3);

}  // namespace bench::libtorch
