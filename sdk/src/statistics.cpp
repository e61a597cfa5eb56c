#include <bench/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace bench {

double percentile_of_sorted(std::span<const double> sorted, double q) {
    if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(rank));
    const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
    const double fraction = rank - static_cast<double>(lower);
    return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

Summary summarize(std::span<const double> all_samples) {
    // Only finite samples: sorting a NaN is undefined behaviour, and one infinity would
    // make the mean and the spread meaningless.
    std::vector<double> sorted;
    sorted.reserve(all_samples.size());
    for (const double x : all_samples)
        if (std::isfinite(x)) sorted.push_back(x);
    Summary s;
    s.count = sorted.size();
    if (sorted.empty()) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        s.mean = s.median = s.std = s.min = s.max = nan;
        s.p25 = s.p75 = s.p90 = s.p95 = s.p99 = nan;
        return s;
    }
    std::sort(sorted.begin(), sorted.end());
    const double n = static_cast<double>(sorted.size());
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
    double squares = 0;
    for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
    s.std = sorted.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
    s.min = sorted.front();
    s.max = sorted.back();
    s.median = percentile_of_sorted(sorted, 50);
    s.p25 = percentile_of_sorted(sorted, 25);
    s.p75 = percentile_of_sorted(sorted, 75);
    s.p90 = percentile_of_sorted(sorted, 90);
    s.p95 = percentile_of_sorted(sorted, 95);
    s.p99 = percentile_of_sorted(sorted, 99);
    return s;
}

}  // namespace bench
