// Where the time goes (ABI 2.7): with --profile, a benchmark hands the SDK one call of
// what it measured, after its measurement, and the SDK runs a separate profiled pass of
// that call: under an operator profiler when the benchmark gives one (the LibTorch
// layer's: <bench/torch/profiling.hpp>), and under Linux perf sampling where the
// machine allows it. The timed samples are never profiled: the pass runs after them,
// and records only the scenario's `profile`. docs/profiling.md tells what a profile
// holds and how the reports show it.
//
//   // after ctx.measure(...):
//   ctx.profile({.name = "forward", .call = [&] { model.forward(input); }});
//
// Without --profile, Context::profile returns at once.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <bench/export.hpp>

namespace bench {

/// One operator of a profile, its figures per profiled call (summed over the calls to it
/// within one call of the benchmark, then averaged over the profiled calls).
struct ProfileOperator {
    std::string name;  // "aten::conv2d"
    double calls = 0;  // times it ran
    double self_ms = 0;  // its time less the operators it called
    double total_ms = 0;  // its time, the operators it called included (a nested call of itself counted once)
    double flops = 0;  // floating-point operations, where the profiler counts them; 0: not counted
    std::string input_shapes;  // the input shapes of its costliest calls: "[[1, 64, 56, 56], [64, 64, 3, 3]]"

    friend bool operator==(const ProfileOperator&, const ProfileOperator&) = default;
};

/// A part of the model that the benchmark named (a module scope: bench::libtorch::ModuleScope),
/// its figures per profiled call.
struct ProfileModule {
    std::string name;  // "layer1.0"
    int depth = 0;  // 0: outermost; 1: inside one other named part, ...
    double calls = 0;
    double total_ms = 0;
    double share = 0;  // total_ms over the profiled call's time
    double parameters = NAN;  // its parameters (count); NaN: not known
    /// Bytes allocated while it ran: every tensor its operators made, its output and
    /// temporaries alike (its activations), from the profiler's memory events; NaN: not
    /// measured.
    double allocated_bytes = NAN;
    /// The most bytes live at once while it ran, above what was live when it began.
    double peak_bytes = NAN;

    friend bool operator==(const ProfileModule& a, const ProfileModule& b) {
        auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
        return a.name == b.name && a.depth == b.depth && a.calls == b.calls && a.total_ms == b.total_ms &&
               a.share == b.share && same(a.parameters, b.parameters) && same(a.allocated_bytes, b.allocated_bytes) &&
               same(a.peak_bytes, b.peak_bytes);
    }
};

/// One stack of a flame graph: its frames from the root, joined by ';', and its value.
struct FlameStack {
    std::string frames;  // "forward;layer1;aten::conv2d;aten::convolution"
    double value = 0;

    friend bool operator==(const FlameStack&, const FlameStack&) = default;
};

/// Folded stacks, as Brendan Gregg's flamegraph.pl reads them.
struct FlameGraph {
    std::string name;  // "operators" (the operator profiler's nesting), "device" (GPU kernels under them) or "native"
                       // (perf's call stacks)
    std::string source;  // how it was measured, for the reader
    std::string unit;  // of the values: "ms"
    std::vector<FlameStack> stacks;

    friend bool operator==(const FlameGraph&, const FlameGraph&) = default;
};

/// One span of the trace: a profiled call, an operator, a module, a device's kernel.
struct TraceEvent {
    std::string name;
    std::string category;  // "call", "operator", "module", "kernel" (a kernel, copy or memset on a GPU)
    double start_us = 0;  // microseconds since the Unix epoch (the system clock)
    double duration_us = 0;
    /// Its track: 0 the profiled calls, above 0 a thread, below 0 a GPU's stream:
    /// -(1 + 1,000,000 x device + stream).
    long long thread = 0;
    std::string input_shapes;  // an operator's

    friend bool operator==(const TraceEvent&, const TraceEvent&) = default;
};

/// What a profiled pass found.
struct Profile {
    std::string call;  // what one profiled call is ("forward", "generation")
    std::string operator_profiler;  // what measured the operators; empty: none
    long long calls = 0;  // calls profiled by the operator profiler
    /// Medians of one call under the operator profiler and without it, timed in blocks that
    /// take turns in the same pass, and their ratio: the operator profiler's own overhead.
    double call_ms = NAN;
    double unprofiled_call_ms = NAN;
    double overhead = NAN;
    std::vector<ProfileOperator> operators;  // by self time, the most first
    std::vector<ProfileModule> modules;  // in the order they first ran
    std::vector<FlameGraph> flame_graphs;
    std::vector<TraceEvent> trace;  // the profiled calls and what ran in them
    std::string sampler;  // what sampled the native stacks; empty: nothing did
    long long samples = 0;  // stacks it sampled
    /// What is missing and why ("native stacks: perf is not installed ..."), and other
    /// facts a reader needs.
    std::vector<std::string> notes;
    /// Set by the host when it reads a profile back from a report: the file its trace
    /// was written to, relative to the run folder. Plugins leave it empty.
    std::string trace_file;

    friend bool operator==(const Profile& a, const Profile& b) {
        auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
        return a.call == b.call && a.operator_profiler == b.operator_profiler && a.calls == b.calls &&
               same(a.call_ms, b.call_ms) && same(a.unprofiled_call_ms, b.unprofiled_call_ms) &&
               same(a.overhead, b.overhead) && a.operators == b.operators && a.modules == b.modules &&
               a.flame_graphs == b.flame_graphs && a.trace == b.trace && a.sampler == b.sampler &&
               a.samples == b.samples && a.notes == b.notes && a.trace_file == b.trace_file;
    }
};

/// Records what runs inside a call at the level of a framework's operators. The SDK calls
/// start() right before and stop() right after each call it profiles, then report() once.
class BENCH_EXPORT OperatorProfiler {
public:
    virtual ~OperatorProfiler();
    /// What it is, for the reader: "LibTorch 2.14.1 profiler (Kineto, CPU events)".
    virtual std::string name() const = 0;
    virtual void start() = 0;
    virtual void stop() = 0;
    /// Fills `profile`'s operators, modules (without their share: the SDK computes it),
    /// an "operators" flame graph and trace events, from what it recorded in `calls` calls:
    /// every figure per call.
    virtual void report(Profile& profile, long long calls) = 0;
};

/// What Context::profile profiles.
struct ProfileCall {
    std::string name = "call";  // what one call is: "forward", "generation"
    std::function<void()> call;  // one call, as it was measured
    std::shared_ptr<OperatorProfiler> operators = nullptr;  // may be empty: no operator table (initialized: designated
                                                            // initializers may leave it out under -Wextra)
};

}  // namespace bench
