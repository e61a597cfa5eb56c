// The gate of `benchhost history check`: one run's median of a series against the
// medians of the runs before it on the same machine, judged by the spread between those
// runs (the between-run noise), never by the run's own samples alone.
//
// The earlier runs (the last `lookback` of them) are the baseline; when their medians
// step (a change point, bench/internal/statistics/change_points.hpp), only the runs since the last
// step are, so that an old change neither counts as noise nor hides in the level. On
// the logs of their medians (n values, mean m, standard deviation s) the interval a new
// run of the same code falls in, `level` of the time, is m +- t(n-1) s sqrt(1 + 1/n)
// (a prediction interval). The checked run's ratio to the baseline, exp(x - m), gets
// the interval exp(x - m -+ t s sqrt(1 + 1/n)), and its verdict reads it as a comparison
// does (analysis/compare.hpp, verdict_of): slower when the interval lies above 1 and
// the ratio passes the threshold, same when it lies within the threshold, else
// inconclusive. Fewer than `min_runs` baseline runs: inconclusive, saying so.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <string>

#include <bench/internal/statistics/bootstrap.hpp>

#include "analysis/compare.hpp"

namespace benchhost {

struct HistoryCheckOptions {
    double threshold = 0.05;  // a change smaller than this is "same", however clear
    std::size_t lookback = 30;  // the earlier runs looked at, at most (the newest ones)
    std::size_t min_runs = 5;  // fewer baseline runs than this: inconclusive
    double level = 0.99;  // of the interval a run of the same code falls in
};

struct HistoryCheck {
    std::size_t runs = 0;  // baseline runs: the earlier runs the noise is learned from
    std::size_t first = 0;  // where they start in the earlier runs given
    bool after_step = false;  // they start at a change point
    double baseline = NAN;  // the geometric mean of their medians
    double noise = NAN;  // the spread between them: the sd of their log medians
    double ratio = NAN;  // the checked median over the baseline
    bench::Interval ratio_ci;  // the interval the noise gives the ratio (level)
    Verdict verdict = Verdict::inconclusive;
    std::string note;  // why it is inconclusive, when it is for want of runs
};

/// The baseline `earlier` gives (the medians of the runs before, oldest first): the
/// runs of the window since its last step, their mean log median and the standard
/// deviation of their logs (NaN with fewer than min_runs).
struct HistoryBaseline {
    std::size_t runs = 0, first = 0;
    bool after_step = false;
    double mean_log = NAN, noise = NAN;
};
HistoryBaseline history_baseline(std::span<const double> earlier, const HistoryCheckOptions& options = {});

/// Checks `latest` (a median) against `earlier` (the medians of the runs before it,
/// oldest first; non-finite and non-positive ones are left out).
HistoryCheck check_against_history(std::span<const double> earlier, double latest,
                                   const HistoryCheckOptions& options = {});

/// Checks a compiler count (analysis/compare.hpp, compiler_counts) of the checked run
/// against the run before it of the same configuration (`earlier`, oldest first: its
/// last): a count is the same on every run of one build, so any increase is slower and
/// any decrease faster, with no noise to learn (check.runs is 1, noise NaN; ratio NaN
/// when the earlier count was 0). The note says what changed: "graph_breaks 0 -> 1 since
/// the run before", and for an increase what the checked run said of its count
/// (`reasons`: a graph_breaks count's reasons, HistorySeries::note) after a colon.
HistoryCheck check_count_against_history(std::span<const double> earlier, double latest, const std::string& name,
                                         const std::string& reasons = "");

}  // namespace benchhost
