#include <bench/internal/statistics/series_analysis.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include <bench/internal/statistics/block_bootstrap.hpp>

namespace bench {

SeriesAnalysis analyze_series(std::span<const double> samples, std::span<const double> end_times_s,
                              const BootstrapOptions& options) {
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
    a.block = block_length(samples);
    a.median_ci = block_bootstrap_interval(samples, Statistic::median, a.block, options);
    a.mean_ci = block_bootstrap_interval(samples, Statistic::mean, a.block, options);
    a.states = speed_states(samples, end_times_s);
    if (a.mdape >= unstable_mdape) {
        a.stable = false;
        a.instability = fmt::format(
            "samples deviate from the median by {:.1f}% (median absolute deviation; {:.0f}% or "
            "more is unstable): the machine may be busy or the work may vary",
            a.mdape * 100, unstable_mdape * 100);
    } else if (a.cv >= unstable_cv &&
               static_cast<double>(a.outliers.total()) >= std::max(1.0, unstable_outlier_share * sorted.size())) {
        a.stable = false;
        a.instability = fmt::format(
            "samples spread with a coefficient of variation of {:.0f}% (std / mean) though most lie near the "
            "median: {} of {} are outliers (beyond Tukey's fences; {:.0f}% or more with a CV of {:.0f}% or more "
            "is unstable): the work or the machine stalls now and then",
            a.cv * 100, a.outliers.total(), sorted.size(), unstable_outlier_share * 100, unstable_cv * 100);
    }
    return a;
}

}  // namespace bench
