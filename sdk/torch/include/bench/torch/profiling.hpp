// The LibTorch layer's profiler (<bench/profile.hpp>): with --profile, a profiled pass of
// one call of the model under LibTorch's own profiler, for the operator table, the
// per-module table, the operator flame graph and the trace. run_model_benchmark does it
// for every model plugin; a plugin that times itself calls profile() after measuring.
//
// LibTorch 1.13 (Debian's) is built without Kineto: its Kineto-based API
// (torch::autograd::profiler::enableProfiler) still records CPU events, but with times
// in whole microseconds and no trace file. The legacy profiler (enableProfilerLegacy
// with ProfilerState::CPU) keeps nanoseconds, input shapes, FLOPs and memory events, and
// is what TorchOperatorProfiler runs.
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

/// LibTorch's legacy profiler (CPU events, input shapes, FLOPs, memory) as the SDK's
/// operator profiler. Operators are the events outside USER_SCOPE; modules are the
/// USER_SCOPE events (ModuleScope), their parameters looked up in `parameters` by name.
/// A module's memory comes from the profiler's memory events on its thread: the bytes
/// allocated while it ran (its activations: outputs and temporaries) and the most live
/// at once above what was live when it began. The operators' flame graph nests modules and
/// operators under `call_name`, each frame's value its self time.
class BENCH_EXPORT TorchOperatorProfiler : public OperatorProfiler {
public:
    explicit TorchOperatorProfiler(std::string call_name, std::map<std::string, double> parameters = {});
    ~TorchOperatorProfiler() override;
    std::string name() const override;
    void start() override;
    void stop() override;
    void report(Profile& profile, long long calls) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Context::profile of `call` (one call of what was measured: a forward pass, a
/// generation; it should synchronize the device) under TorchOperatorProfiler, with the
/// module table's parameters from `parameters`. Returns at once without --profile.
BENCH_EXPORT void profile(Context& ctx, const std::string& call_name, std::function<void()> call,
                          std::map<std::string, double> parameters = {});

}  // namespace bench::libtorch
