// The configuration of one scenario: one point of a benchmark's axes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <bench/export.hpp>
#include <bench/load.hpp>
#include <bench/params.hpp>

namespace bench {

/// The three execution paths of the same model that benchhost compares.
enum class Variant {
    eager,  // the module as written
    compiled,  // compiled ahead of time (AOTInductor) or captured by TorchScript: compile_mode
    kernelized,  // layers replaced by optimized kernels
};

BENCH_EXPORT std::string_view to_string(Variant variant);
BENCH_EXPORT std::optional<Variant> parse_variant(std::string_view text);

struct ScenarioConfig {
    // Identity, filled in by the host's planner.
    std::string category;  // unit, integration or performance
    std::string plugin;  // plugin name
    std::string benchmark;  // benchmark name
    std::string scenario_name;  // benchmark name plus its axis values

    // The axes every plugin may vary over.
    Variant variant = Variant::eager;
    std::string compile_mode = "default";
    int batch_size = 1;
    std::string dtype = "float32";
    std::string device = "cpu";
    int threads = 0;  // intra-op threads; 0 keeps the library's default

    // How to measure.
    int warmup_iterations = 3;
    int measurement_iterations = 10;

    // Generative models.
    int num_tokens_to_generate = 20;
    std::string model_id;

    Params params;

    // The time rule of the sampling (bench::TimingOptions); all 0: a fixed count.
    // (Added in ABI 1.2, after the members older plugins know.)
    double min_time_s = 0;
    double max_time_s = 0;
    double target_ci_width = 0;

    // The load a benchmark that serves runs under (--load ...; <bench/load.hpp>).
    // (Added in ABI 2.3, after the members older plugins know.)
    LoadConfig load;

    // --profile: after its measurement, the benchmark's Context::profile runs a profiled
    // pass (<bench/profile.hpp>). (Added in ABI 2.7, after the members older plugins know.)
    bool profile = false;

    // --compile-timeout: seconds the compiled variant's compile may take (the AOTInductor
    // compile's child process); 0: no limit but the scenario's. (Added in ABI 2.8.)
    double compile_timeout_s = 0;

    // How Context::measure_device times (ABI 2.10): "auto" (CUDA events when a CUDA
    // device is there, else the host's clock), "host" or "cuda-events" (--timer).
    std::string timer = "auto";
    // "warm", or "cold": the caches are flushed before each sample, outside the timed
    // region (the CPU's by measure, the device's L2 by measure_device; --cache).
    std::string cache = "warm";
    // --discard-throttled: samples during which the GPU throttled are dropped, counted
    // and reported (the worker does it, from the GPU monitor's readings).
    bool discard_throttled = false;
    // --throttle-cooldown: on a CUDA device, before each sample, when the GPU throttled
    // since the last one, wait at most this many seconds for it to stop (the worker
    // does it, from the GPU monitor's readings); 0: never. (Added in ABI 2.12.)
    double throttle_cooldown_s = 0;

    // The ranks of a distributed scenario (ABI 2.14): the world_size axis, which only a
    // benchmark that declares it varies over (a Python function's
    // @benchhost.benchmark(distributed=True), a C++ plugin's "world_size" in its axes).
    // The host starts that many rank processes with torchrun's environment (RANK,
    // WORLD_SIZE, MASTER_ADDR, ...; docs/distributed.md). 0: not distributed, one worker.
    int world_size = 0;

    // --discard-recompiled (ABI 2.15): the samples during which a compile ran (the
    // framework said so through Context::record_compile: a recompile after a guard
    // failed, a new shape) are dropped, counted and reported; without it they are kept,
    // counted and warned about (the worker does it).
    bool discard_recompiled = false;
    // --compile-cache (ABI 2.15): "warm" (the default: the compile caches as earlier
    // workers left them), or "cold": the worker's compile caches (benchhost's, PyTorch
    // Inductor's, JAX's persistent cache) are a fresh empty folder, removed after the
    // scenario (the host does it, through the worker's environment).
    std::string compile_cache = "warm";

    /// "category/plugin/benchmark": what --include and --exclude match.
    std::string benchmark_id() const { return category + "/" + plugin + "/" + benchmark; }
    /// benchmark_id() plus the scenario's axis values: unique within a run.
    std::string scenario_id() const { return category + "/" + plugin + "/" + scenario_name; }

    friend bool operator==(const ScenarioConfig&, const ScenarioConfig&) = default;
};

}  // namespace bench
