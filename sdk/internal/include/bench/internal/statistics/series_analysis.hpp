// Everything a report says about one series: its summary, its spread, the confidence
// intervals of its median and mean, its outliers, and whether it is stable enough to
// be trusted.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <span>
#include <string>

#include <bench/internal/statistics/bootstrap.hpp>
#include <bench/internal/statistics/outliers.hpp>
#include <bench/statistics.hpp>

namespace bench {

struct SeriesAnalysis {
    Summary summary;
    double cv = 0;  // coefficient of variation: std / mean (NaN when undefined)
    /// Median absolute deviation from the median, relative to the median (nanobench's
    /// MdAPE): robust to outliers, so a few slow samples do not make a series unstable.
    double mdape = 0;
    Interval median_ci, mean_ci;  // 95%, percentile bootstrap
    OutlierCounts outliers;
    bool stable = true;
    std::string instability;  // why not stable; empty when stable
};

/// A series is unstable when its MdAPE reaches this (5%, as nanobench warns).
inline constexpr double unstable_mdape = 0.05;

SeriesAnalysis analyze_series(std::span<const double> samples, const BootstrapOptions& options = {});

}  // namespace bench
