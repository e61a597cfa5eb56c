// Stragglers: in a distributed scenario, the ranks that hold the others up. Each rank
// times its own samples (ctx.measure aligns the ranks before each sample, outside the
// timed region), so a rank whose step is slower has slower samples than the others;
// a rank is named when its median is slower than the other ranks' beyond the interval.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/internal/statistics/bootstrap.hpp>

namespace benchhost {

struct Straggler {
    int rank = 0;
    double median = NAN;  // the rank's median
    double others_median = NAN;  // the median of the other ranks' samples, pooled
    double ratio = NAN;  // median / others_median
    bench::Interval interval;  // the 95% bootstrap interval of the ratio
};

/// The least slowdown a straggler has: the ratio's interval must lie above 1 + this. A
/// rank a few percent slower than the others is within what ranks of equal work differ
/// by (where they sit on the cores, who wakes first from the barrier).
inline constexpr double straggler_threshold = 0.05;

/// The ranks of `per_rank` (each rank's samples of one series, lower is better: a time)
/// whose ratio of medians to the other ranks' samples pooled has a 95% interval
/// (bootstrap_ratio_interval) entirely above 1 + threshold, slowest first. None with
/// fewer than two ranks or when a rank has fewer than three samples.
std::vector<Straggler> find_stragglers(const std::vector<std::vector<double>>& per_rank,
                                       double threshold = straggler_threshold);

/// The scenario's warning: "rank 1 is a straggler in latency: its median 20.3 ms is
/// 9.80x the other ranks' 2.07 ms (95% interval 9.52x to 10.1x)".
std::string straggler_warning(std::string_view series, std::string_view unit, const Straggler& straggler);

/// A straggler as its warning names it, read back from the warning: what the reports
/// show from a run's record (the rule is applied once, when the ranks' results are
/// merged). The rank, ratio and interval as the warning gives them (three significant
/// digits; the medians are left NaN: the reports read them from the ranks' series).
struct NamedStraggler {
    std::string series;
    Straggler straggler;
};

/// The straggler that `warning`, a straggler_warning, names; nullopt for any other text.
std::optional<NamedStraggler> parse_straggler_warning(std::string_view warning);

}  // namespace benchhost
