#include <bench/internal/statistics/series_analysis.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

namespace bench {

SeriesAnalysis analyze_series(std::span<const double> samples, const BootstrapOptions& options) {
    SeriesAnalysis a;
    a.summary = summarize(samples);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    a.cv = a.summary.count > 1 && a.summary.mean != 0 ? a.summary.std / std::abs(a.summary.mean) : nan;
    a.mdape = nan;
    if (samples.empty()) return a;

    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    a.outliers = classify_outliers(sorted);
    if (a.summary.median != 0) {
        std::vector<double> deviations;
        deviations.reserve(sorted.size());
        for (const double x : sorted) deviations.push_back(std::abs(x - a.summary.median) / std::abs(a.summary.median));
        std::sort(deviations.begin(), deviations.end());
        a.mdape = percentile_of_sorted(deviations, 50);
    }
    a.median_ci = bootstrap_interval(samples, Statistic::median, options);
    a.mean_ci = bootstrap_interval(samples, Statistic::mean, options);
    if (a.mdape >= unstable_mdape) {
        a.stable = false;
        a.instability = fmt::format(
            "samples deviate from the median by {:.1f}% (median absolute deviation; {:.0f}% or "
            "more is unstable): the machine may be busy or the work may vary",
            a.mdape * 100, unstable_mdape * 100);
    }
    return a;
}

}  // namespace bench
