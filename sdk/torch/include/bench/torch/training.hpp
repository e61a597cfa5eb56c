// Training steps of a model: forward, cross-entropy loss, backward and an optimizer
// step, timed apart, with the memory they take measured: parameters, gradients,
// optimizer state, activations kept for backward, and the peak.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include <bench/context.hpp>
#include <bench/torch/model_benchmark.hpp>

namespace bench::libtorch {

/// A model to train: the module (its parameters are what the optimizer updates) and its
/// forward pass, returning logits of shape [batch, classes].
struct TrainableModel {
    std::shared_ptr<torch::nn::Module> module;
    Forward forward;
};

struct TrainingBenchmark {
    std::string model;  // name in the report, e.g. "resnet50"
    std::string throughput_unit;  // e.g. "images/s"
    /// Builds the model with seeded weights, on the CPU in float32. It is called while
    /// memory is counted: what it leaves allocated is the model's memory.
    std::function<TrainableModel()> build;
    /// An input batch of `batch_size`, on `device` in `dtype`, seeded.
    std::function<torch::Tensor(int64_t batch_size, torch::Device device, torch::ScalarType dtype)> make_input;
    /// The labels of that batch: class indices (int64, shape [batch_size]), seeded.
    std::function<torch::Tensor(int64_t batch_size, torch::Device device)> make_targets;
    /// Parameters the architecture must have (checked and recorded); 0 to skip the check.
    int64_t expected_parameters = 0;
};

/// The optimizers a training benchmark takes (param "optimizer"): "sgd", SGD with
/// momentum 0.9, lr 0.01 and weight decay 1e-4 (one momentum buffer per parameter);
/// "adamw", AdamW with lr 1e-3 and weight decay 0.01 (two moments per parameter).
/// Another name is std::invalid_argument.
BENCH_EXPORT std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name,
                                                                     const std::vector<torch::Tensor>& parameters);

/// Runs a training scenario:
///  - eager only: a compiled or kernelized scenario is skipped (they are inference
///    variants); ThreadScope, select_device, select_dtype as run_model_benchmark;
///    the optimizer from param "optimizer" (default sgd; info "optimizer");
///  - on the CPU, memory counted by a CpuMemoryTracker around building the model and two
///    training steps, before anything is timed (scalars in MiB):
///      "memory_parameters"       live after building the model: its parameters, and
///                                its buffers (batch norm statistics) with them;
///      "memory_inference_peak"   the most live during a forward pass in eval mode
///                                without autograd, at the same batch (model and input
///                                included);
///      "memory_activations"      live at the end of the forward pass and the loss, less
///                                before it: what autograd keeps for backward, and the
///                                output;
///      "memory_gradients"        live after the first backward (output and graph freed),
///                                less before the forward;
///      "memory_optimizer_state"  live after the first optimizer step, less before it;
///      "memory_peak"             the most live during the second step (zero_grad,
///                                forward, loss, backward, optimizer step), everything
///                                included;
///    and the ratios "memory_breakdown_over_peak" (parameters + gradients + optimizer
///    state + activations, over the peak) and "memory_training_over_inference" (the
///    step's peak over the inference peak). Checked: parameters and gradients within 5%
///    of the bytes of the module's parameters (numel x element size), the breakdown
///    within 10% of the peak; otherwise a warning (Context::add_warning) says by how
///    much. On another device the breakdown is not measured (info "memory" says so);
///  - "first_call" (ms): the first training step;
///  - timed steps, warmup_iterations then as many as the run's stopping rule asks,
///    watched on "step": series "forward" (forward and loss), "backward",
///    "optimizer_step" (the update, then zero_grad for the next step), "step" (all three),
///    "throughput" (batch_size per step, in throughput_unit); the device is
///    synchronized before every clock read. On CUDA, where that removes the overlap a
///    real step has, each phased step alternates with one waited for at its end only:
///    series "step_unsynchronized", from which "throughput" is then computed (info
///    "throughput" says so). A loss that is not finite fails the scenario; the last one
///    is recorded as the scalar "loss";
///  - record_memory; "parameters", "model_load"; info "model", "framework",
///    "torch_version", "dtype", "device", "threads".
BENCH_EXPORT void run_training_benchmark(Context& ctx, TrainingBenchmark& spec);

}  // namespace bench::libtorch
