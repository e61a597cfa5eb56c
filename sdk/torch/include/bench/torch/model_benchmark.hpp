// The standard flow of a model benchmark, shared by the vision and transformer
// plugins: pick device, dtype and threads; build the model; run the scenario's
// variant (eager, compiled or kernelized), checking its output against eager; measure
// latency, throughput, work and memory.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include <bench/clock.hpp>
#include <bench/context.hpp>
#include <bench/torch/aot_inductor.hpp>
#include <bench/torch/kernels.hpp>

namespace bench::libtorch {

using Forward = std::function<torch::Tensor(const torch::Tensor&)>;

struct ModelBenchmark {
    std::string model;  // name in the report, e.g. "resnet50"
    std::string throughput_unit;  // e.g. "images/s"
    std::shared_ptr<torch::nn::Module> module;  // the eager model, with seeded random weights
    Forward forward;  // its eager forward pass
    /// An input batch of `batch_size` for the model, on `device` in `dtype`, seeded.
    std::function<torch::Tensor(int64_t batch_size, torch::Device device, torch::ScalarType dtype)> make_input;
    /// The kernelized forward pass, built from the eager model with the registry's
    /// kernels; empty when the model has none (the scenario is then skipped).
    std::function<Forward(const KernelRegistry& kernels)> kernelize;
    /// Parameters the architecture must have (checked and recorded); 0 to skip the check.
    int64_t expected_parameters = 0;
    // (A plugin builds this struct and the SDK reads it: no member may be appended
    // within an ABI major. The model's Python definition is an argument of its own.)
};

/// Builds the model: calls `build()` (construct the module, initialize its weights),
/// records the time it took as the scalar "model_load" (ms), a cold start that the
/// first forward pass does not include, and returns what `build` returned.
template <class Build>
auto load_model(Context& ctx, Build&& build) {
    const auto start = Clock::now();
    auto model = std::forward<Build>(build)();
    ctx.record_scalar("model_load", elapsed_ns(start, Clock::now()) / 1e6, "ms");
    return model;
}

/// Runs the scenario:
///  - ThreadScope, select_device, select_dtype (skips where they skip); in a dtype other
///    than float32, the model's float32 output on the same input (make_input in float32)
///    first; the module moved to the device, its floating-point parameters and buffers
///    to the dtype (integer buffers such as position ids keep theirs), eval mode,
///    requires_grad off;
///  - "parameters" (count) checked against expected_parameters (std::runtime_error);
///  - under c10::InferenceMode from here on: one input from make_input(batch_size), eager's
///    output on it as the reference;
///  - the variant: eager runs `forward`; compiled, in an AOTInductor mode (default,
///    max-autotune), runs aot_compile with `python` (skipped without one, or where the
///    compile cannot run here) and records "compile_time" and "export_time" when it
///    compiled, "package_load_time" (ms), info "compile_cache" and "variant_passes"; in
///    reduce-overhead, on CUDA, the default mode's package replayed as a CUDA graph
///    (cuda_graphed; "graph_capture_time", ms), skipped on the CPU; in a TorchScript mode (torchscript, ...) it
///    runs compile_traced(config.compile_mode) and records "compile_time" (ms) and info
///    "variant_passes"; an unknown mode fails the scenario; kernelized runs
///    kernelize(KernelRegistry::with_defaults()) (skipped when kernelize is empty or
///    returns an empty Forward) and records "kernelize_time" (ms) and info "kernels";
///  - "first_call" (ms): the cold start, the first call after building or compiling;
///    compiled and kernelized outputs checked against eager (check_against_reference:
///    "max_abs_diff", "max_rel_diff"; out of tolerance the scenario fails);
///    record_difference_from_float32 of the variant's output (for eager a second call)
///    against the float32 output, or eager's reference in float32
///    ("max_abs_diff_vs_float32", "max_rel_diff_vs_float32");
///  - "latency" (ms, measure_synchronized), "throughput" (batch_size per call, in
///    throughput_unit); with --load instead, the variant serves queries of one input
///    each with dynamic batching (Context::serve_batches, up to --max-batch: a batch of
///    n queries is one forward pass over n inputs; the compiled variant traces a graph,
///    or has a package compiled, per batch size, each checked against eager,
///    "serving_compile_time", info "serving_compile_cache" for packages), and the
///    load's figures replace these and the work (docs/serving.md);
///  - work, outside the measured time: FLOPs counted on the traced eager graph,
///    record_work with calibrated_peak_gflops(dtype) on the CPU ("flops_per_forward",
///    "gflops", "peak_gflops", "fraction_of_peak"); a forward that cannot be traced only
///    loses these, with a warning in the log;
///  - record_memory; info "model", "framework" (libtorch), "torch_version", "dtype",
///    "device", "threads";
///  - with --profile, last: profile() of one forward pass of the variant (the module
///    table's parameters from module_parameters(*module)), <bench/torch/profiling.hpp>.
BENCH_EXPORT void run_model_benchmark(Context& ctx, ModelBenchmark& spec, const PythonModel& python);

/// The same without a Python definition: the AOTInductor modes are skipped, saying so.
BENCH_EXPORT void run_model_benchmark(Context& ctx, ModelBenchmark& spec);

/// For a plugin that calls its compiled model itself (gpt2: a prefill package and a
/// decode-step package over one KV cache), one AOTInductor package as run_model_benchmark
/// gets it: aot_compile of `module` with the scenario's compile mode, --compile-timeout
/// and the tolerance of `dtype` for the Python model's output against `reference`. Skips
/// the scenario for reduce-overhead (CUDA graphs: the CPU has none; on CUDA only
/// run_model_benchmark wraps its package in one)
/// and where the compile cannot run here (AotUnavailable); the package's notes become
/// warnings. Other errors as aot_compile's. (Added in ABI 2.9.)
BENCH_EXPORT AotModel compile_package(Context& ctx, const torch::nn::Module& module, const PythonModel& python,
                                      const std::vector<torch::Tensor>& inputs, const torch::Tensor& reference,
                                      torch::ScalarType dtype);

/// What a compiled scenario's packages cost, recorded as run_model_benchmark records its
/// one: "compile_time" and "export_time" summed over the packages that were compiled
/// (neither when all came from the cache), "package_load_time" summed (ms), info
/// "compile_cache" (hit or miss and the package, each) and "variant_passes". (ABI 2.9.)
BENCH_EXPORT void record_packages(Context& ctx, const std::vector<const AotModel*>& packages);

/// Number of parameters of a module (all of its parameters, recursively; a tensor
/// registered twice, as tied weights are, counts once).
BENCH_EXPORT int64_t count_parameters(const torch::nn::Module& module);

/// Counts the module's parameters and records them as the scalar "parameters" (count);
/// when `expected` > 0 and the count differs, throws std::runtime_error naming `model`
/// and both counts: a model definition that does not match its architecture is wrong.
/// Returns the count.
BENCH_EXPORT int64_t record_parameters(Context& ctx, const torch::nn::Module& module, const std::string& model,
                                       int64_t expected = 0);

}  // namespace bench::libtorch
