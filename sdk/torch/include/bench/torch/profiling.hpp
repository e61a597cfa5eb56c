// The LibTorch layer's profiler (<bench/profile.hpp>): with --profile, a profiled pass of
// one call of the model under LibTorch's own profiler, for the operator table, the
// per-module table, the operator flame graph and the trace. run_model_benchmark does it
// for every model plugin; a plugin that times itself calls profile() after measuring.
//
// TorchOperatorProfiler runs Kineto's profiler (torch::autograd::profiler::enableProfiler
// with ProfilerState::KINETO): CPU events with nanosecond times, input shapes, FLOPs and
// memory, and on CUDA the device's kernels. Where LibTorch is built without Kineto, it
// runs the legacy profiler (enableProfilerLegacy with ProfilerState::CPU) for the same
// tables, CPU events only. docs/profiling.md says how the two were compared.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <ATen/record_function.h>
#include <torch/nn/module.h>

#include <bench/context.hpp>
#include <bench/profile.hpp>

namespace bench::libtorch {

/// Names a part of the model in a profile while it lives: a RecordFunction scope
/// (at::RecordScope::USER_SCOPE) called `name`, which the profile reports as a module
/// (its time and share of the call, parameters, the memory it allocated). Scopes nest. When no
/// profiler runs, it costs RecordFunction's check for active callbacks (nanoseconds).
///
///   torch::Tensor forward(const torch::Tensor& x) {
///       const bench::libtorch::ModuleScope scope(name_);  // e.g. "layer1_0"
///       ...
///   }
class ModuleScope {
public:
    explicit ModuleScope(const std::string& name) : guard_(at::RecordScope::USER_SCOPE) {
        if (guard_.isActive()) guard_.before(name);
    }
    explicit ModuleScope(const char* name) : guard_(at::RecordScope::USER_SCOPE) {
        if (guard_.isActive()) guard_.before(name);
    }
    ModuleScope(const ModuleScope&) = delete;
    ModuleScope& operator=(const ModuleScope&) = delete;

private:
    at::RecordFunction guard_;
};

/// Parameters of the named parts of `module`, for the profile's module table, by the
/// names a ModuleScope may have: every submodule's path ("layer1_0",
/// "encoder.layers.encoder_layer_0"), its last component when no other submodule has it
/// ("encoder_layer_0"), and every prefix of a path component before a '_' or '.' that
/// groups several submodules ("layer1": layer1_0, layer1_1, ...; "stem": stem_conv,
/// stem_bn): each tensor counted once (tied weights once).
BENCH_EXPORT std::map<std::string, double> module_parameters(const torch::nn::Module& module);

/// LibTorch's profiler (CPU events, input shapes, FLOPs, memory) as the SDK's operator
/// profiler: Kineto's where LibTorch has it, else the legacy one; the environment's
/// BENCH_TORCH_PROFILER=legacy (or =kineto) asks for one, and name() says which runs
/// ("LibTorch 2.14.1 profiler (Kineto, CPU events)"). Where the one asked for cannot run
/// (or the value is none of these), start() throws why. Operators are the events outside
/// USER_SCOPE; modules are the USER_SCOPE events (ModuleScope), their parameters looked up
/// in `parameters` by name. A module's memory comes from the profiler's memory events on
/// its thread, on the device the work runs on: the bytes allocated while it ran (its
/// activations: outputs and temporaries) and the most live at once above what was live
/// when it began. The operators' flame graph nests modules and operators under
/// `call_name`, each frame's value its self time.
///
/// Made by profile() for a scenario on CUDA, on a machine with CUDA and under Kineto, it
/// also records the device's kernels, copies and memsets: a "device" flame graph of each
/// one's device time under the operator that launched it, a note of the operators'
/// device times, and the kernels in the trace, one track per stream. Made directly, it
/// profiles the CPU's events alone.
class BENCH_EXPORT TorchOperatorProfiler : public OperatorProfiler {
public:
    explicit TorchOperatorProfiler(std::string call_name, std::map<std::string, double> parameters = {});
    ~TorchOperatorProfiler() override;
    std::string name() const override;
    void start() override;
    void stop() override;
    void report(Profile& profile, long long calls) override;

private:
    // profile() tells it the scenario's device.
    friend void profile(Context& ctx, const std::string& call_name, std::function<void()> call,
                        std::map<std::string, double> parameters);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Context::profile of `call` (one call of what was measured: a forward pass, a
/// generation; it should synchronize the device) under TorchOperatorProfiler, with the
/// module table's parameters from `parameters`, on the scenario's device (config.device;
/// "auto": CUDA where the machine has it). Returns at once without --profile.
BENCH_EXPORT void profile(Context& ctx, const std::string& call_name, std::function<void()> call,
                          std::map<std::string, double> parameters = {});

}  // namespace bench::libtorch
