// What a monitor reports about one scenario: statistics of what it sampled, single
// figures, text facts, warnings and a short time series. The GPU monitor's report is
// written as "gpu_metrics" and the CPU monitor's as "cpu_metrics" in each scenario of
// a plugin report (README, "Metrics", lists every name and unit).
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace bench {

namespace detail {
/// Equal, or both NaN: a value that could not be read equals another such value.
inline bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
inline bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!same_value(a[i], b[i])) return false;
    return true;
}
}  // namespace detail

/// Mean, minimum and maximum of a sampled quantity over the samples that count (those
/// taken during measurement, see MonitorReport). `count` is how many samples had a
/// value; with none, the statistics are NaN.
struct MetricStats {
    double mean = NAN;
    double min = NAN;
    double max = NAN;
    long long count = 0;
    std::string unit;

    friend bool operator==(const MetricStats& a, const MetricStats& b) {
        return detail::same_value(a.mean, b.mean) && detail::same_value(a.min, b.min) &&
               detail::same_value(a.max, b.max) && a.count == b.count && a.unit == b.unit;
    }
};

/// A single figure with its unit, e.g. energy_per_iteration in J.
struct MonitorValue {
    double value = NAN;
    std::string unit;

    friend bool operator==(const MonitorValue& a, const MonitorValue& b) {
        return detail::same_value(a.value, b.value) && a.unit == b.unit;
    }
};

/// The samples over time, reduced to at most MonitorTimeline::max_points points (each
/// point the mean of the samples it stands for): for plots. `time_s` is seconds since
/// the monitor was created; each series has one value per point (NaN: not read).
struct MonitorTimeline {
    static constexpr std::size_t max_points = 500;

    std::vector<double> time_s;
    std::map<std::string, std::vector<double>> series;

    friend bool operator==(const MonitorTimeline& a, const MonitorTimeline& b) {
        if (!detail::same_values(a.time_s, b.time_s) || a.series.size() != b.series.size()) return false;
        for (auto x = a.series.begin(), y = b.series.begin(); x != a.series.end(); ++x, ++y)
            if (x->first != y->first || !detail::same_values(x->second, y->second)) return false;
        return true;
    }
};

struct MonitorReport {
    /// false: nothing was monitored, and `reason` says why ("libnvidia-ml.so.1 not
    /// found: ...", "monitoring disabled (--monitor-interval 0)").
    bool available = false;
    std::string reason;
    /// Sampled quantities (gpu_utilization, rss, ...): statistics over the samples
    /// taken during measurement (info "window" = "measurement"), or over the whole
    /// scenario when the benchmark recorded no measurement window ("scenario").
    std::map<std::string, MetricStats> metrics;
    /// Single figures: sample_count, interval, energy_per_iteration, peak_rss, ...
    std::map<std::string, MonitorValue> values;
    /// Yes/no facts: throttled, loaded.
    std::map<std::string, bool> flags;
    /// Text facts: device, window, energy_source, throttle_reasons, ...
    std::map<std::string, std::string> info;
    /// What may make the figures wrong, in words; also logged and listed in the
    /// scenario's "warnings".
    std::vector<std::string> warnings;
    MonitorTimeline timeline;

    friend bool operator==(const MonitorReport&, const MonitorReport&) = default;
};

}  // namespace bench
