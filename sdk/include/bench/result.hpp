// What a scenario produces: named series of samples, scalars, and text facts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/export.hpp>
#include <bench/monitor_report.hpp>
#include <bench/profile.hpp>

namespace bench {

/// A named series of samples, e.g. "latency" in ms, one value per measured iteration.
struct Series {
    std::string name;
    std::string unit;
    std::vector<double> samples;
    /// Calls per sample: > 1 when a fast callable was timed in batches and each sample
    /// is the batch's time divided by this count.
    long long inner_iterations = 1;

    friend bool operator==(const Series&, const Series&) = default;
};

/// A single figure, e.g. "parameters" or "peak_rss".
struct Scalar {
    std::string name;
    double value = 0;
    std::string unit;

    friend bool operator==(const Scalar&, const Scalar&) = default;
};

/// How a series' sampling ended (see bench::StoppingRule).
struct SamplingReport {
    /// iterations (the fixed count), min_time, ci_width (the CI target was reached),
    /// max_time (the budget was spent first), sample_limit.
    std::string stop_reason = "iterations";
    double elapsed_s = 0;
    long long samples = 0;
    double target_ci_width = 0;  // 0: none
    double ci_width = 0;         // relative width of the median's 95% interval at the end (NaN: too few samples)
    double clock_resolution_ns = 0;
    double clock_cost_ns = 0;

    friend bool operator==(const SamplingReport&, const SamplingReport&) = default;
};

/// How a scenario ended. The plugin decides between the first three; the host adds
/// the others when the worker process ends abnormally.
enum class Status {
    success,    // ran and measured
    skipped,    // declined to run, with a reason (unsupported dtype, mock disabled, ...)
    failed,     // threw, or its output was wrong
    crashed,    // the worker died on a signal
    timed_out,  // the worker ran past --timeout and was killed
    exited,     // the worker exited on its own before reporting (exit(N) in a plugin)
    rejected,   // the host refused the plugin file before running it (see the reason)
};

BENCH_EXPORT std::string_view to_string(Status status);
BENCH_EXPORT std::optional<Status> parse_status(std::string_view text);

struct BENCH_EXPORT ScenarioResult {
    Status status = Status::success;
    std::string reason;  // why it was skipped or failed; empty on success
    std::vector<Series> series;
    std::vector<Scalar> scalars;
    std::map<std::string, std::string> info;  // text facts: framework, model name, ...
    /// Reports of the monitors that watched the scenario, by the name each is written
    /// under in the report: "gpu_metrics", "cpu_metrics" (names end in "_metrics").
    std::map<std::string, MonitorReport> monitors;
    /// What may make the figures wrong (the GPU throttled, the machine was loaded).
    std::vector<std::string> warnings;
    /// How the sampling of each series timed by the SDK ended, by series name. (Added in
    /// ABI 1.2, last so that the members before it keep their place.)
    std::map<std::string, SamplingReport> sampling;
    /// Where the time went, from the profiled pass after the measurement (--profile,
    /// Context::profile); empty without one. (Added in ABI 2.4, last.)
    std::optional<Profile> profile;

    const Series* find_series(std::string_view name) const;
    const Scalar* find_scalar(std::string_view name) const;

    friend bool operator==(const ScenarioResult&, const ScenarioResult&) = default;
};

}  // namespace bench
