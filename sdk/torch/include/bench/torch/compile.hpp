// The compiled variant's TorchScript modes: the same model captured as a TorchScript
// graph by the tracer, then frozen and optimized. One model definition serves eager and
// compiled. (The AOTInductor modes are <bench/torch/aot_inductor.hpp>.)
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/script.h>

#include <bench/context.hpp>
#include <bench/export.hpp>

namespace bench::libtorch {

/// What a compile produced, and what it cost.
struct CompiledModel {
    torch::jit::Module module;  // call with module.forward(inputs)
    std::vector<std::string> passes;  // passes applied, e.g. {"trace", "freeze", "optimize_for_inference"}
    double compile_time_ms = 0;  // capture plus passes, wall clock
    /// The graph as traced, before any pass: every value carries its complete shape,
    /// which count_flops needs (the optimized graph's oneDNN ops no longer do).
    std::shared_ptr<torch::jit::Graph> traced_graph;
};

/// The TorchScript compile modes (config.compile_mode):
///   "torchscript":         trace, freeze, optimize_for_inference (oneDNN convolutions,
///                          folded batch norm, fused linear/activation where it applies)
///   "torchscript-freeze":  trace, freeze
///   "torchscript-trace":   trace only
/// std::invalid_argument names the mode when it is none of these.
BENCH_EXPORT std::vector<std::string> compile_passes(const std::string& mode);

/// Whether `mode` is one of compile_passes' modes.
BENCH_EXPORT bool is_torchscript_mode(const std::string& mode);

/// Every compile mode a scenario may ask for, for error messages: the AOTInductor ones
/// (default, max-autotune), reduce-overhead, and the TorchScript ones.
BENCH_EXPORT std::string known_compile_modes();

/// For a benchmark whose compiled variant is TorchScript only: returns when
/// config.compile_mode is a TorchScript mode; skips the scenario (Context::skip) with a
/// reason naming `what` when it is another known mode; throws std::invalid_argument for
/// an unknown one.
BENCH_EXPORT void require_torchscript_mode(Context& ctx, const std::string& what);

/// A forward pass over tensors: what compile_traced and trace_graph capture.
using TensorForward = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;

/// Traces `forward` (an eager model's forward pass, which must depend only on its
/// inputs and the model's parameters and buffers; parameters need requires_grad false)
/// on `example_inputs`, wraps the graph as the method `forward` of a new
/// torch::jit::Module whose graph holds the captured parameters and buffers as
/// constants, and applies the passes of `mode`. compile_time_ms is all of it.
///
/// Tracing records what ran on these inputs: data-dependent control flow is fixed to
/// the branch taken, and a size the C++ code reads (x.size(0)) is a plain integer, so it
/// becomes a constant: call the result with inputs of the example's shapes. Tracing
/// works under torch::NoGradGuard and c10::InferenceMode. Failures (a parameter that
/// requires grad, say) are std::runtime_error with the tracer's reason.
BENCH_EXPORT CompiledModel compile_traced(const TensorForward& forward,
                                          const std::vector<torch::Tensor>& example_inputs, const std::string& mode);

/// Only the capture: the traced graph of `forward` on `example_inputs` (runs it once),
/// with complete shapes, for count_flops. Same requirements and errors as compile_traced.
BENCH_EXPORT std::shared_ptr<torch::jit::Graph> trace_graph(const TensorForward& forward,
                                                            const std::vector<torch::Tensor>& example_inputs);

}  // namespace bench::libtorch
