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
#include <bench/internal/statistics/speed_states.hpp>
#include <bench/statistics.hpp>

namespace bench {

struct SeriesAnalysis {
    Summary summary;
    double cv = 0;  // coefficient of variation: std / mean (NaN when undefined)
    /// Median absolute deviation from the median, relative to the median (nanobench's
    /// MdAPE): robust to outliers, so a few slow samples do not make a series unstable.
    double mdape = 0;
    /// 95%, by the circular block bootstrap over the samples in time order, with blocks
    /// of `block` samples (block_length: 1 when neighbouring samples are not correlated,
    /// which makes it the plain percentile bootstrap).
    Interval median_ci, mean_ci;
    std::size_t block = 1;
    OutlierCounts outliers;
    /// Distinct speed states over time, when the samples fall into them.
    SpeedStates states;
    bool stable = true;
    std::string instability;  // why not stable; empty when stable
};

/// A series is unstable when its MdAPE reaches this (5%, as nanobench warns), or when its
/// coefficient of variation reaches unstable_cv with at least unstable_outlier_share of
/// its samples outliers: stalls far from the rest, which the MdAPE does not see (one
/// wild sample among many is an outlier, not instability).
inline constexpr double unstable_mdape = 0.05;
inline constexpr double unstable_cv = 0.25;
inline constexpr double unstable_outlier_share = 0.05;

/// `samples` in time order; `end_times_s`, when it has a time per sample, says when each
/// ended (seconds), for the speed states' durations.
SeriesAnalysis analyze_series(std::span<const double> samples, std::span<const double> end_times_s = {},
                              const BootstrapOptions& options = {});

}  // namespace bench
