// Analysis: what the host concludes from a scenario's samples, computed once when the
// scenario ends and stored in its outcome (ScenarioOutcome::statistics), so that every
// reporter reads the same figures: each series' summary, spread, confidence intervals,
// outliers and stability; the speedups of compiled and kernelized variants over eager;
// warnings about figures that should not be trusted. Nothing here changes a result.
//
// One rule for every output: statistics are over the finite samples of a series (a NaN
// or infinite sample is left out and counted in `non_finite`); the headline series of a
// scenario is headline_series() below.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <bench/result.hpp>

#include "model/run_record.hpp"

namespace benchhost {

/// Series whose speedup over eager a report gives, when the scenario has them.
inline constexpr const char* speedup_series[] = {"latency", "time_to_first_token", "time_per_output_token"};

/// Scalars that make a scenario's cold start, in the order a report lists them: what
/// happens before the first measured call.
inline constexpr const char* cold_start_scalars[] = {"plugin_load",       "model_load",     "load_time", "compile_time",
                                                     "package_load_time", "kernelize_time", "first_call"};

/// The finite samples of `samples`, in order.
std::vector<double> finite_samples(const std::vector<double>& samples);

/// Fills outcome.statistics.series and, for a distributed scenario, its stragglers
/// (analysis/stragglers.hpp) from outcome.result (once: a second call does nothing unless
/// `force`, which a pooled round needs). Leaves speedups to complete_speedups().
void compute_statistics(ScenarioOutcome& outcome, bool force = false);

/// Fills the speedups of every outcome of `record` whose eager counterpart (the
/// successful eager scenario that differs only in the variant) is in the record and has
/// its statistics, and the scaling efficiency of every distributed outcome whose
/// scenario at world size 1 (the successful one that differs only in the world size) is;
/// outcomes already done are left alone. Linear in the number of outcomes, so that it can
/// run at every checkpoint of a long run.
void complete_speedups(RunRecord& record);

/// The series a scaling efficiency compares, the first that both scenarios have.
inline constexpr const char* scaling_series[] = {"throughput", "tokens_per_second"};

/// Throughput at `world_size` ranks over `world_size` times the throughput at one rank:
/// 1 is perfect scaling. NaN unless every figure is positive and finite.
double scaling_efficiency(double throughput, int world_size, double throughput_at_one);

/// The scaling efficiency of `outcome` (world size N) over `at_one`, the scenario at world
/// size 1 that differs from it only in the world size, both with their statistics: of
/// the first of scaling_series both have, the median at N over N times the median at 1,
/// with the bootstrap interval of the ratio of the medians over N (none at world size
/// 1). None without such a series, or when a median is not positive.
std::optional<ScalingEfficiency> scaling_over(const ScenarioOutcome& at_one, const ScenarioOutcome& outcome);

/// compute_statistics for every outcome, then complete_speedups: what a record read back
/// from files, merged from shards or built in a test needs before it is reported.
void analyze_run(RunRecord& record);

/// Whether every outcome of `record` has its statistics.
bool statistics_computed(const RunRecord& record);

/// `record` itself when its statistics are computed (always, in a run); else a copy,
/// analyzed, kept in `storage`. For the functions that render a whole record given by a
/// caller that may not have analyzed it (tests, tools).
const RunRecord& with_statistics(const RunRecord& record, std::optional<RunRecord>& storage);

/// The series a one-line view of a scenario is about: latency, else time_to_first_token,
/// else time_per_output_token, else the first time series, else the first series;
/// nullptr without series. The console, report.md and report.html all use it.
const SeriesStatistics* headline_series(const ScenarioOutcome& outcome);

/// Warnings about the figures of a finished scenario: a time series that is unstable, a
/// rank that is a straggler (straggler_warning), a confidence-interval target that the
/// time budget did not reach. Reads the statistics.
std::vector<std::string> statistical_warnings(const ScenarioOutcome& outcome);

/// The warning of a series whose samples fall into distinct speed states
/// (series.analysis.states.distinct()): the states with their medians and durations.
std::string speed_states_warning(const SeriesStatistics& series);

/// The speedups of `outcome` over the eager scenario of the same benchmark with the
/// same other axes in `record`, computed now from the raw samples (a scan of the
/// record: for tests and one-off use; reporters read outcome.statistics.speedups).
std::vector<Speedup> speedups_over_eager(const RunRecord& record, const ScenarioOutcome& outcome);

/// The speedup of series `name` of `outcome` over the same series of `baseline` (both
/// with their statistics computed): the ratio of the medians, with the bootstrap
/// interval of that ratio; none when either lacks the series or its samples, or their
/// units differ. What the speedups over eager are made of; the reports also compare
/// dtypes with it.
std::optional<Speedup> series_speedup(const ScenarioOutcome& baseline, const ScenarioOutcome& outcome,
                                      const std::string& name);

/// The eager scenario `outcome` is compared with, or nullptr.
const ScenarioOutcome* eager_counterpart(const RunRecord& record, const ScenarioOutcome& outcome);

}  // namespace benchhost
