// Stragglers: in a distributed scenario, the ranks that hold the others up. Each rank
// times its own samples (ctx.measure aligns the ranks before each sample, outside the
// timed region), so a rank whose step is slower has slower samples than the others;
// a rank is named when its median is slower than the other ranks' beyond the interval.
// The rule runs once, with the scenario's statistics (analysis/scenario_statistics.hpp),
// on each rank's samples that the merge of the ranks' results kept as "<series>.rank<N>"
// (execute/rank_results.hpp); every output reads ScenarioStatistics::stragglers.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bench/result.hpp>

#include "model/run_record.hpp"

namespace benchhost {

/// The least slowdown a straggler has: the ratio's interval must lie above 1 + this. A
/// rank a few percent slower than the others is within what ranks of equal work differ
/// by (where they sit on the cores, who wakes first from the barrier).
inline constexpr double straggler_threshold = 0.05;

/// The ranks of `per_rank` (each rank's samples of one series, lower is better: a time)
/// whose ratio of medians to the other ranks' samples pooled has a 95% interval
/// (bootstrap_ratio_interval) entirely above 1 + threshold, slowest first. None with
/// fewer than two ranks or when a rank has fewer than three samples. Their `series` is
/// left empty.
std::vector<Straggler> find_stragglers(const std::vector<std::vector<double>>& per_rank,
                                       double threshold = straggler_threshold);

/// The series that holds rank `rank`'s own samples of `series`: "latency.rank1".
std::string rank_series_name(std::string_view series, std::size_t rank);

/// "latency.rank1": the series "latency" and rank 1; {"", -1} for a name of no rank.
std::pair<std::string, int> parse_rank_series_name(std::string_view name);

/// The stragglers of a scenario of `world_size` ranks: find_stragglers over the finite
/// samples of each time series every rank has as "<series>.rank<N>" (ranks 0 to
/// world_size - 1), by series in the order recorded. None below two ranks.
std::vector<Straggler> scenario_stragglers(const bench::ScenarioResult& result, int world_size);

/// The scenario's warning: "rank 1 is a straggler in latency: its median 20.3 ms is
/// 9.80x the other ranks' 2.07 ms (95% interval 9.52x to 10.1x)".
std::string straggler_warning(std::string_view unit, const Straggler& straggler);

}  // namespace benchhost
