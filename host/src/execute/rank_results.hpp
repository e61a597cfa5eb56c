// A distributed scenario's result, made of its ranks' (rank_executor.hpp), once every rank
// succeeded. Sample i of each rank timed the same step (ctx.measure aligned the ranks
// before it), so the scenario's step time per sample is the slowest rank's:
//   - a series in a unit of time that every rank recorded with as many samples becomes,
//     sample by sample, the largest of the ranks' (the slowest rank); a rate (a unit in
//     "/s") the smallest; each rank's own samples of a time series are kept beside it as
//     the series "<name>.rank<N>" (from which the scenario's statistics name the ranks
//     whose median is slower than the others' beyond the interval: analysis/stragglers.hpp);
//   - any other series, the scalars, the info, the monitors and the sampling are rank
//     0's, but for memory peaks (scalars named *peak_rss*), the largest of the ranks';
//     a series only another rank recorded is kept as "<name>.rank<N>";
//   - the warnings are rank 0's and the others' that rank 0 does not have, each marked
//     with its rank.
#pragma once

#include <vector>

#include <bench/result.hpp>

namespace benchhost {

/// The scenario's result from its ranks' results, in rank order (all successes).
bench::ScenarioResult merge_rank_results(const std::vector<bench::ScenarioResult>& ranks);

}  // namespace benchhost
