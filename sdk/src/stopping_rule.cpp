#include <bench/stopping_rule.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include <bench/internal/statistics/bootstrap.hpp>
#include <bench/statistics.hpp>

namespace bench {

namespace {
std::mutex between_samples_mutex;
std::function<double()> between_samples;  // guarded by between_samples_mutex

/// Runs the between-samples pause, if any: the seconds it waited.
double pause_between_samples() {
    std::function<double()> pause;
    {
        std::lock_guard lock(between_samples_mutex);
        if (!between_samples) return 0;
        pause = between_samples;
    }
    return pause();
}
}  // namespace

void StoppingRule::set_pause_between_samples(std::function<double()> pause) {
    std::lock_guard lock(between_samples_mutex);
    between_samples = std::move(pause);
}

double relative_median_ci_width(std::span<const double> samples) {
    if (samples.size() < 2) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    const Interval ci = median_interval_of_sorted(sorted);
    const double median = percentile_of_sorted(sorted, 50);
    if (median == 0) return std::numeric_limits<double>::quiet_NaN();
    return (ci.high - ci.low) / std::abs(median);
}

StoppingRule::StoppingRule(const TimingOptions& options) : options_(options) {
    if (options_.target_ci_width > 0 && options_.max_time_s <= 0) options_.max_time_s = default_max_time_s;
    if (options_.max_time_s > 0 && options_.min_time_s > options_.max_time_s) options_.min_time_s = options_.max_time_s;
}

void StoppingRule::start(Clock::time_point now) {
    start_ = now;
    next_check_ = 0;
}

bool StoppingRule::should_stop(std::span<const double> samples, Clock::time_point now) {
    const auto n = static_cast<long long>(samples.size());
    if (n >= max_samples) {
        reason_ = "sample_limit";
        return true;
    }
    const bool enough_samples = n >= options_.measurement_iterations;
    if (!options_.has_time_rule()) {
        reason_ = "iterations";
        if (!enough_samples) pause_between_samples();
        return enough_samples;
    }
    const double elapsed_s = elapsed_ns(start_, now) / 1e9;
    if (options_.max_time_s > 0 && elapsed_s >= options_.max_time_s && n >= 1) {
        reason_ = "max_time";
        return true;
    }
    if (!enough_samples || elapsed_s < options_.min_time_s) return go_on();
    if (options_.target_ci_width <= 0) {
        reason_ = options_.min_time_s > 0 ? "min_time" : "iterations";
        return true;
    }
    // The CI needs a sort: check when the series has grown by a tenth since the last check.
    if (samples.size() < next_check_) return go_on();
    next_check_ = samples.size() + std::max<std::size_t>(1, samples.size() / 10);
    const double width = relative_median_ci_width(samples);
    if (std::isfinite(width) && width <= options_.target_ci_width) {
        reason_ = "ci_width";
        return true;
    }
    return go_on();
}

bool StoppingRule::go_on() {
    // The time paused is not the measurement's: the time rule's clock starts that much later.
    const double paused_s = pause_between_samples();
    if (paused_s > 0) start_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(paused_s));
    return false;
}

SamplingReport StoppingRule::report(std::span<const double> samples, Clock::time_point now) const {
    SamplingReport report;
    report.stop_reason = reason_;
    report.elapsed_s = elapsed_ns(start_, now) / 1e9;
    report.samples = static_cast<long long>(samples.size());
    report.target_ci_width = options_.target_ci_width;
    report.ci_width = relative_median_ci_width(samples);
    report.clock_resolution_ns = clock_resolution_ns();
    report.clock_cost_ns = clock_cost_ns();
    return report;
}

}  // namespace bench
