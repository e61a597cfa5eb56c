// When to stop measuring. By default after a fixed number of samples; with a time
// rule, after at least --min-time, once the 95% confidence interval of the median is
// as narrow as asked, or when --max-time is spent, whichever comes first. The rule
// says which it was, so a report never passes off a budget-limited series as precise.
#pragma once

#include <functional>
#include <span>

#include <bench/clock.hpp>
#include <bench/export.hpp>
#include <bench/result.hpp>

namespace bench {

struct TimingOptions {
    int warmup_iterations = 3;
    /// Samples to measure; with a time rule, the fewest samples to measure.
    int measurement_iterations = 10;
    double min_sample_ns = 0;  // 0: default_min_sample_ns()
    // The time rule (all 0: none).
    double min_time_s = 0;  // measure at least this long
    double max_time_s = 0;  // stop when this is spent (default_max_time_s when only a CI target is set)
    /// Stop once (high - low) / median of the 95% CI of the median is at most this
    /// (0.01: the median is known within a 1% wide interval).
    double target_ci_width = 0;

    bool has_time_rule() const { return min_time_s > 0 || max_time_s > 0 || target_ci_width > 0; }
};

/// The time budget of a CI target given without --max-time.
inline constexpr double default_max_time_s = 10.0;

/// A series is never longer than this, whatever the rule: memory stays bounded.
inline constexpr long long max_samples = 10'000'000;

class BENCH_EXPORT StoppingRule {
public:
    explicit StoppingRule(const TimingOptions& options);

    /// Starts the clock of the time rule.
    void start(Clock::time_point now = Clock::now());
    /// Whether to stop, given the samples so far; call before each sample. Before it
    /// answers "go on", it runs the process's between-samples pause, if one is set
    /// (set_pause_between_samples: the worker's --throttle-cooldown); the time rule
    /// does not count the time paused.
    bool should_stop(std::span<const double> samples, Clock::time_point now = Clock::now());
    /// What happened: why it stopped, how long it took, how wide the median's interval is.
    SamplingReport report(std::span<const double> samples, Clock::time_point now = Clock::now()) const;

    /// Sets what should_stop runs before each sample, process-wide, for every rule (ABI
    /// 2.12): `pause` returns the seconds it waited, which the time rule leaves out. An
    /// empty function removes it. The worker sets it for --throttle-cooldown; a plugin
    /// has no use for it.
    static void set_pause_between_samples(std::function<double()> pause);

private:
    /// should_stop's "go on": runs the between-samples pause, leaving it out of the time.
    bool go_on();

    TimingOptions options_;
    Clock::time_point start_{};
    const char* reason_ = "iterations";
    std::size_t next_check_ = 0;  // sample count of the next CI check (sorting is not free)
};

/// The relative width (high - low) / median of the 95% interval of the median,
/// from order statistics; NaN for fewer than two samples.
BENCH_EXPORT double relative_median_ci_width(std::span<const double> samples);

}  // namespace bench
