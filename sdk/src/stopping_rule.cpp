#include <bench/stopping_rule.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <bench/internal/bootstrap.hpp>
#include <bench/statistics.hpp>

namespace bench {

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
        return enough_samples;
    }
    const double elapsed_s = elapsed_ns(start_, now) / 1e9;
    if (options_.max_time_s > 0 && elapsed_s >= options_.max_time_s && n >= 1) {
        reason_ = "max_time";
        return true;
    }
    if (!enough_samples || elapsed_s < options_.min_time_s) return false;
    if (options_.target_ci_width <= 0) {
        reason_ = options_.min_time_s > 0 ? "min_time" : "iterations";
        return true;
    }
    // The CI needs a sort: check when the series has grown by a tenth since the last check.
    if (samples.size() < next_check_) return false;
    next_check_ = samples.size() + std::max<std::size_t>(1, samples.size() / 10);
    const double width = relative_median_ci_width(samples);
    if (std::isfinite(width) && width <= options_.target_ci_width) {
        reason_ = "ci_width";
        return true;
    }
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
