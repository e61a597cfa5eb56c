// What a scenario produces: named series of samples, scalars, and text facts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/export.hpp>
#include <bench/monitor_report.hpp>
#include <bench/peak.hpp>
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
    double ci_width = 0;  // relative width of the median's 95% interval at the end (NaN: too few samples)
    double clock_resolution_ns = 0;
    double clock_cost_ns = 0;

    friend bool operator==(const SamplingReport&, const SamplingReport&) = default;
};

/// How often a classifier was right over a labelled data set (ABI 2.5): its top-1
/// and top-5 accuracy, kept as counts so that they are exact.
struct Accuracy {
    std::string model;  // what was evaluated: the model's label ("original", "quantized")
    std::string dataset;  // the data set it was evaluated on, e.g. its folder
    long long inputs = 0;  // inputs classified
    long long top1_correct = 0;  // whose label scored highest
    long long top5_correct = 0;  // whose label was among the five highest scores (all of them with fewer classes)

    double top1() const { return inputs > 0 ? static_cast<double>(top1_correct) / static_cast<double>(inputs) : 0.0; }
    double top5() const { return inputs > 0 ? static_cast<double>(top5_correct) / static_cast<double>(inputs) : 0.0; }

    friend bool operator==(const Accuracy&, const Accuracy&) = default;
};

/// How a scenario ended. The plugin decides between the first three; the host adds
/// the others when the worker process ends abnormally.
enum class Status {
    success,  // ran and measured
    skipped,  // declined to run, with a reason (unsupported dtype, mock disabled, ...)
    failed,  // threw, or its output was wrong
    crashed,  // the worker died on a signal
    timed_out,  // the worker ran past --timeout and was killed
    exited,  // the worker exited on its own before reporting (exit(N) in a plugin)
    rejected,  // the host refused the plugin file before running it (see the reason)
};

/// What the GPU did during each sample of a series timed on a CUDA device (ABI 2.10),
/// from the GPU monitor's readings while the sample ran (at its --monitor-interval).
struct SampleDeviceState {
    std::vector<double> sm_clock_mhz;  // the lowest SM clock read; NaN: none read
    std::vector<std::uint64_t> throttle_reasons;  // NVML's clock event reasons seen (a bit mask)
    long long discarded_throttled = 0;  // samples --discard-throttled dropped
    std::string discarded_reasons;  // their reasons, as words

    friend bool operator==(const SampleDeviceState&, const SampleDeviceState&) = default;
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
    /// With --find-peak: the rates tried and the peak found (<bench/peak.hpp>). (Added
    /// in ABI 2.4, last.)
    std::optional<PeakSearch> peak_search;
    /// The classification accuracy of each model the scenario evaluated (ABI 2.5, last
    /// for the same reason).
    std::vector<Accuracy> accuracy;
    /// Where the time went, from the profiled pass after the measurement (--profile,
    /// Context::profile); empty without one. (Added in ABI 2.7, last.)
    std::optional<Profile> profile;
    /// The GPU's state during each sample, by series (ABI 2.10, last): for series timed
    /// on a CUDA device while the GPU monitor ran.
    std::map<std::string, SampleDeviceState> device_state;
    /// When each sample of a series ended, in seconds from the start of the scenario's
    /// worker (rounds pooled: each round after the one before, the gaps left out), by
    /// series: those whose every sample the SDK saw end (measure, add_sample). The
    /// statistics read them to see how the samples lie in time. (Added last; only
    /// Context::take_result writes it, which plugins do not call.)
    std::map<std::string, std::vector<double>> sample_times;

    const Series* find_series(std::string_view name) const;
    const Scalar* find_scalar(std::string_view name) const;

    friend bool operator==(const ScenarioResult&, const ScenarioResult&) = default;
};

}  // namespace bench
