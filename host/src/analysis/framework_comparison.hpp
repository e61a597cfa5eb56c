// One model across frameworks: the scenarios of a run grouped by the model they ran, as
// each plugin declares it (info "model": "resnet50" from the C++ plugin, from
// resnet50_py and from resnet50_jax alike; docs/plugin-guide.md), and by what must match
// for two figures to compare (the batch size, dtype, device and threads, and the series
// measured with its unit). In each group, a row per framework and variant (LibTorch from
// C++, PyTorch from Python, JAX; eager, compiled, kernelized): which one is fastest, how
// much faster it is than each other one (the ratio of the medians with its bootstrap
// interval), and each one's peak memory and compile time.
//
// Computed once, when the run ends, from the statistics already in the record, and
// handed to report.md and report.html (RunEnd::frameworks,
// report/reporter_registry.hpp); nothing here formats text. Nothing is guessed from a
// plugin's name: a scenario that names no model is in no group.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/run_record.hpp"

namespace benchhost {

/// The framework of a scenario whose plugin did not say (no info "framework").
inline constexpr const char* unreported_framework = "framework not reported";

/// One scenario of a group: a framework's variant of the model.
struct FrameworkEntry {
    const ScenarioOutcome* outcome = nullptr;  // in the record compared
    /// Info "framework" as the plugin set it: "libtorch", "PyTorch 2.14.1+cu130 (Python)",
    /// "JAX 0.6.2, Flax (Python)"; unreported_framework without one.
    std::string framework;
    const SeriesStatistics* series = nullptr;  // the group's series: its median and the median's CI
    /// The fastest entry's speedup over this one: this median over the fastest's (1.35x: this
    /// one takes 1.35 times as long), with the 95% bootstrap interval of that ratio. None for
    /// the fastest itself.
    std::optional<Speedup> behind_fastest;
    /// Not the fastest, but the interval of behind_fastest holds 1: at 95% it is not told
    /// apart from the fastest.
    bool tied_with_fastest = false;
    double peak_rss_mib = NAN;  // the worker's peak resident memory over the scenario (scalar peak_rss)
    /// The device's peak where the plugin recorded one (a GPU): PyTorch's allocator peak
    /// (cuda_max_memory_allocated), JAX's peak bytes in use (device_peak_memory).
    double device_peak_mib = NAN;
    /// Compiling the variant, before the first timed sample: compile_time (torch.compile's
    /// first call, an AOTInductor or TorchScript compile), else JAX's lowering_s + compile_s.
    double compile_ms = NAN;
    /// No compile time, for the compiler's cache had the variant (info compile_cache "hit...":
    /// an AOTInductor package compiled by an earlier worker, loaded).
    bool compile_cached = false;
};

/// A model in one configuration, its frameworks side by side.
struct ModelGroup {
    std::string model;  // info "model"
    std::string series, unit;  // what is compared: the scenarios' headline series ("latency") and its unit
    int batch_size = 1;
    std::string dtype, device;
    int threads = 0;  // 0: each framework's default
    /// The scenarios that succeeded, by framework in the order the frameworks first ran, each
    /// framework's in the run's order.
    std::vector<FrameworkEntry> entries;
    std::vector<std::string> frameworks;  // distinct, in that order
    std::size_t fastest = 0;  // in entries: the lowest median (the first of equal ones)
    std::vector<std::size_t> fastest_of_framework;  // in entries, one per framework, as `frameworks`
};

struct FrameworkComparison {
    /// The groups of two frameworks or more, in the order of their first scenario in the run.
    std::vector<ModelGroup> groups;
    /// The groups of one framework (a model, or a batch size of it, that only one framework
    /// ran), in the same order: not compared, and no speedups computed.
    std::vector<ModelGroup> one_framework;
};

/// The comparison across frameworks of `record`, whose statistics are computed. A scenario
/// takes part when it succeeded, its plugin named the model (info "model") and its headline
/// series (headline_series) is a time with samples: lower is faster.
FrameworkComparison compare_frameworks(const RunRecord& record);

/// Compiling the scenario's variant before its first timed sample, in ms: scalar
/// compile_time (torch.compile's first call, an AOTInductor or TorchScript compile), else
/// JAX's lowering_s + compile_s; NaN without one (nothing compiled, or a package loaded
/// from the cache).
double compile_time_ms(const ScenarioOutcome& outcome);

/// What the compiler's cache did for the scenario, in a word: info compile_cache's
/// outcome without its path (an AOTInductor package's "hit" or "miss", one per package
/// joined by "; "; JAX's persistent cache "hit", "miss", "not used"), else torch.compile's FX graph
/// cache (info fx_graph_cache without the bypass's reason: "bypass", "hit x2, miss");
/// empty where neither was recorded.
std::string compile_cache_outcome(const ScenarioOutcome& outcome);

/// The framework a scenario reported (info "framework"), else unreported_framework.
std::string framework_of(const ScenarioOutcome& outcome);

}  // namespace benchhost
