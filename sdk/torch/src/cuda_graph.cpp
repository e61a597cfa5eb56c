#include <bench/torch/cuda_graph.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#if defined(BENCH_TORCH_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/cuda.h>
#endif

namespace bench::libtorch {

#if defined(BENCH_TORCH_WITH_CUDA)

namespace {

/// The graph and the tensors it reads and writes, alive as long as the forward is.
struct Graphed {
    at::cuda::CUDAGraph graph;
    torch::Tensor input;  // static: each call copies its input here
    torch::Tensor output;  // static: each replay writes here
};

}  // namespace

std::function<torch::Tensor(const torch::Tensor&)> cuda_graphed(
    const std::function<torch::Tensor(const torch::Tensor&)>& forward, const torch::Tensor& example, int warmup_calls) {
    if (!example.is_cuda())
        throw std::runtime_error("cuda_graphed: the example input is on " + example.device().str() +
                                 ": CUDA graphs replay work on a CUDA device");
    auto graphed = std::make_shared<Graphed>();
    graphed->input = example.clone();
    const c10::cuda::CUDAGuard device_guard(example.device());
    // Warm up and capture on a side stream, never the legacy default stream (which
    // cannot be captured); the caller's stream waits for none of it, so synchronize.
    const at::cuda::CUDAStream side = at::cuda::getStreamFromPool(false, example.device().index());
    torch::cuda::synchronize(example.device().index());
    {
        const c10::cuda::CUDAStreamGuard stream_guard(side);
        for (int i = 0; i < warmup_calls; ++i) (void)forward(graphed->input);
    }
    torch::cuda::synchronize(example.device().index());
    {
        const c10::cuda::CUDAStreamGuard stream_guard(side);
        graphed->graph.capture_begin();
        graphed->output = forward(graphed->input);
        graphed->graph.capture_end();
    }
    torch::cuda::synchronize(example.device().index());
    return [graphed](const torch::Tensor& x) {
        const torch::Tensor& input = graphed->input;
        if (x.sizes() != input.sizes() || x.scalar_type() != input.scalar_type() || x.device() != input.device())
            throw std::invalid_argument("cuda_graphed: the graph was captured for an input of shape " +
                                        c10::str(input.sizes()) + " (" +
                                        std::string(c10::toString(input.scalar_type())) + ", " + input.device().str() +
                                        "), called with " + c10::str(x.sizes()) + " (" +
                                        std::string(c10::toString(x.scalar_type())) + ", " + x.device().str() + ")");
        if (!x.is_same(input)) graphed->input.copy_(x, /*non_blocking=*/true);
        graphed->graph.replay();
        return graphed->output;
    };
}

#else

std::function<torch::Tensor(const torch::Tensor&)> cuda_graphed(
    const std::function<torch::Tensor(const torch::Tensor&)>&, const torch::Tensor&, int) {
    throw std::runtime_error("cuda_graphed: this LibTorch build has no CUDA");
}

#endif

}  // namespace bench::libtorch
