#include "monitor_summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace bench::detail {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}

std::vector<Span> spans_of(const std::vector<MeasurementWindow>& windows, Clock::time_point origin) {
    std::vector<Span> spans;
    spans.reserve(windows.size());
    for (const MeasurementWindow& w : windows)
        spans.push_back({seconds_since(origin, w.start), seconds_since(origin, w.stop)});
    return spans;
}

std::vector<char> counted_samples(const std::vector<double>& times, const std::vector<Span>& spans) {
    std::vector<char> counted(times.size(), spans.empty() ? 1 : 0);
    if (spans.empty()) return counted;
    for (std::size_t i = 1; i < times.size(); ++i)
        for (const Span& span : spans)
            if (times[i - 1] < span.stop && times[i] > span.start) {
                counted[i] = 1;
                break;
            }
    return counted;
}

MetricStats stats_of(const std::vector<double>& values, const std::vector<char>& counted, std::string unit) {
    MetricStats stats;
    stats.unit = std::move(unit);
    double sum = 0;
    for (std::size_t i = 0; i < values.size() && i < counted.size(); ++i) {
        const double v = values[i];
        if (!counted[i] || std::isnan(v)) continue;
        sum += v;
        stats.min = stats.count == 0 ? v : std::min(stats.min, v);
        stats.max = stats.count == 0 ? v : std::max(stats.max, v);
        ++stats.count;
    }
    if (stats.count > 0) stats.mean = sum / static_cast<double>(stats.count);
    return stats;
}

std::vector<double> rate_of(const std::vector<double>& times, const std::vector<double>& counter, double scale) {
    std::vector<double> rates(times.size(), nan);
    for (std::size_t i = 1; i < times.size(); ++i) {
        const double dt = times[i] - times[i - 1];
        if (dt > 0 && !std::isnan(counter[i]) && !std::isnan(counter[i - 1]))
            rates[i] = (counter[i] - counter[i - 1]) / dt * scale;
    }
    return rates;
}

double value_at(const std::vector<double>& times, const std::vector<double>& cumulative, double t) {
    // The readings that are there, in time order.
    std::size_t before = times.size(), after = times.size();
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (std::isnan(cumulative[i])) continue;
        if (times[i] <= t) before = i;
        if (times[i] >= t) {
            after = i;
            break;
        }
    }
    if (before == times.size() && after == times.size()) return nan;
    if (before == times.size()) return cumulative[after];
    if (after == times.size() || after == before) return cumulative[before];
    const double span = times[after] - times[before];
    const double f = span > 0 ? (t - times[before]) / span : 1.0;
    return cumulative[before] + f * (cumulative[after] - cumulative[before]);
}

double growth_during(const std::vector<double>& times, const std::vector<double>& cumulative,
                     const std::vector<Span>& spans) {
    double total = 0;
    for (const Span& span : spans) {
        const double a = value_at(times, cumulative, span.start);
        const double b = value_at(times, cumulative, span.stop);
        if (std::isnan(a) || std::isnan(b)) return nan;
        total += b - a;
    }
    return total;
}

double growth(const std::vector<double>& cumulative) {
    double first = nan, last = nan;
    for (const double v : cumulative) {
        if (std::isnan(v)) continue;
        if (std::isnan(first)) first = v;
        last = v;
    }
    return last - first;
}

MonitorTimeline make_timeline(const std::vector<double>& times,
                              const std::vector<std::pair<std::string, std::vector<double>>>& series,
                              const std::vector<char>& counted) {
    const std::size_t n = times.size();
    const std::size_t points = std::min(n, MonitorTimeline::max_points);
    // Point p stands for samples [first[p], first[p + 1]).
    auto first = [&](std::size_t p) { return p * n / std::max<std::size_t>(points, 1); };
    auto reduce = [&](const std::vector<double>& values) {
        std::vector<double> out(points, nan);
        for (std::size_t p = 0; p < points; ++p) {
            double sum = 0;
            std::size_t count = 0;
            for (std::size_t i = first(p); i < first(p + 1); ++i) {
                if (std::isnan(values[i])) continue;
                sum += values[i];
                ++count;
            }
            if (count > 0) out[p] = count == 1 ? sum : sum / static_cast<double>(count);
        }
        return out;
    };
    MonitorTimeline timeline;
    timeline.time_s = reduce(times);
    for (const auto& [name, values] : series) timeline.series[name] = reduce(values);
    std::vector<double> measured(n);
    for (std::size_t i = 0; i < n; ++i) measured[i] = counted[i] ? 1.0 : 0.0;
    timeline.series["in_measurement"] = reduce(measured);
    return timeline;
}

std::string format_number(double value, int precision) {
    std::ostringstream text;
    text.precision(precision);
    text << value;
    return text.str();
}

}  // namespace bench::detail
