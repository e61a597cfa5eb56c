// Compare: two runs of the same suite, scenario by scenario. For each time series both
// runs measured (latency, time to first token, ...), the ratio of the medians with its
// confidence interval and a verdict. This is what `benchhost compare` and `benchhost run
// --baseline` print, and what fails a CI job.
//
// The evidence depends on what the runs hold. Samples of one run share that moment's
// load, so two runs differ by more than their samples' spread says:
// - "pairs": an A/B run (benchhost ab) ran round i of both sides back to back; the
//   ratio is the Hodges-Lehmann estimate of the rounds' ratios of medians, its interval
//   Wilcoxon's signed-rank interval (what a pair shares, the moment's load, cancels).
//   A verdict read again after every added pair is read at a stricter level
//   (CompareOptions::first_look_pairs);
// - "rounds": both sides measured in rounds (run --rounds N, N >= 2): the interval
//   resamples rounds, then samples within them (bench/internal/statistics/round_bootstrap.hpp);
// - "samples": one round on either side: a bootstrap interval of the samples and a
//   Mann-Whitney U test, which cannot see the noise between runs. A change the test
//   finds is "slower" only when the interval lies beyond the noise floor (the spread
//   between single runs of the same build, CompareOptions::noise_floor), else
//   "inconclusive".
// With pairs or rounds the verdict reads the interval: "slower" when it lies above 1
// and the ratio passes the threshold, "same" when it lies within the threshold, else
// "inconclusive".
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/internal/statistics/bootstrap.hpp>

#include "model/run_record.hpp"

namespace benchhost {

/// How far apart the medians of a scenario's runs on one machine are, learned from the
/// run history (analysis/history_check.hpp): the standard deviation of their logs, and
/// how many runs it was learned from.
struct HistoryNoise {
    double sd = NAN;
    std::size_t runs = 0;
};

struct CompareOptions {
    double threshold = 0.05;  // a change smaller than this is "same", however significant
    double alpha = 0.05;  // significance level of the U test
    /// How far apart single runs of the same build can be (a relative change): with one
    /// run a side, a change is "slower" or "faster" only when its interval lies beyond it.
    double noise_floor = 0.10;
    /// The runs are the two sides of an A/B run: round i of one ran beside round i of the
    /// other, and they are compared pair by pair.
    bool paired = false;
    /// Between-run noise from a history, by history_noise_key(scenario, series): a series
    /// with one round a side is judged by it (evidence "history") instead of the floor.
    std::map<std::string, HistoryNoise> history_noise{};
    /// Paired: the pairs every scenario runs before its first verdict (ab --rounds). A
    /// verdict read after more pairs, added one at a time while it was inconclusive or
    /// by a confirmation, is one of many looks at the same growing data: each look at 95%
    /// would add its own chance of a false alarm. Past the first look the verdict reads
    /// the interval at later_looks_level instead (as Pocock's repeated significance
    /// tests do): the looks together then call a build slower than itself about as
    /// rarely as one look at 95% does (tests/host/analysis/compare_test.cpp).
    std::size_t first_look_pairs = 6;
    double later_looks_level = 0.99;
    /// Paired: how many time series the A/B run compares (0: compare_runs counts them,
    /// compared_series). The run fails its gate when any one of them is slower, so a
    /// verdict of slower or faster reads each at a level that keeps the chance of a false
    /// one anywhere in the run where one series alone would have it (Bonferroni): 1 - 0.05 /
    /// rows at the first look, 1 - 0.01 / rows past it. "same" reads the interval of the
    /// look itself: calling a change absent is no alarm.
    std::size_t family_rows = 0;
};

/// One run a side: how far the machine's speed, read off the reference loop before and
/// after each side's samples, may change within a side or differ between the sides
/// before the verdict cannot tell a change from the machine's. 20%: on the development
/// VM the speed states differ by 1.6x to 2x on the Python reference (readings of one
/// state within 10% of each other) and by up to 1.3x on the C++ one (docs/statistics.md).
inline constexpr double speed_reference_tolerance = 0.20;

/// The key of CompareOptions::history_noise.
inline std::string history_noise_key(const std::string& scenario_id, const std::string& series) {
    return scenario_id + "\n" + series;
}

/// inconclusive: the interval reaches past the threshold, but does not exclude no change.
enum class Verdict { faster, slower, same, inconclusive };
std::string_view to_string(Verdict verdict);
/// The verdict to_string names; nullopt for another text.
std::optional<Verdict> parse_verdict(std::string_view text);

struct SeriesComparison {
    std::string scenario_id;
    std::string series;
    /// The medians in ms, or, for a compiler count (evidence "count", unit "count"), the
    /// two sides' counts.
    double base_median_ms = 0, new_median_ms = 0;
    std::string unit = "ms";  // of base_median_ms and new_median_ms: "ms", or "count"
    std::size_t base_samples = 0, new_samples = 0;
    double ratio = 0;  // new median / base median: above 1 is slower
    bench::Interval ratio_ci;  // 95%, bootstrap
    double p_value = 1;  // Mann-Whitney U, two-sided
    Verdict verdict = Verdict::same;
    /// One run a side: the machine's speed during new over that during base, read off the
    /// reference loop (bench/speed_reference.hpp), when it differed or changed beyond
    /// speed_reference_tolerance and made the verdict inconclusive; NaN otherwise.
    double speed_reference_ratio = std::numeric_limits<double>::quiet_NaN();
    std::string note;  // why the verdict could not be "slower" or "faster" (too few samples, ...)
    /// What the interval and the verdict rest on: "pairs" (A/B), "rounds" (between-round
    /// spread seen), "history" (one run each, the spread between runs learned from the
    /// run history), "samples" (one run each: the spread between runs is not seen) or
    /// "count" (a compiler count, compiler_counts: no statistics, any increase is slower).
    std::string evidence = "samples";
    int base_rounds = 1, new_rounds = 1;
    std::size_t history_runs = 0;  // evidence "history": the runs the noise was learned from
    /// The level of the interval the verdict was read from: 0.95 (ratio_ci itself), or for
    /// pairs the look's level (CompareOptions::later_looks_level past the first look)
    /// divided among the series the run compares (CompareOptions::family_rows): verdict_ci.
    double verdict_level = 0.95;
    bench::Interval verdict_ci;
    /// With --confirm, when the scenario was run again because it was flagged slower: the
    /// figures it was flagged with (its first rounds). The row's own figures are over all
    /// rounds, confirmation included.
    struct First {
        double ratio = 0;
        bench::Interval ratio_ci;
        Verdict verdict = Verdict::slower;
        int base_rounds = 1, new_rounds = 1;
    };
    std::optional<First> first;
};

/// The machine's load while one side ran, from the CPU monitor of its scenarios (the
/// mean over those that were monitored); NaN when none was.
struct SideLoad {
    std::size_t scenarios = 0;  // monitored scenarios
    double machine_busy_percent = NAN;  // of all CPUs, by everything (system_cpu_utilization)
    double other_cpus = NAN;  // CPUs kept busy by other processes than the benchmark
    double load_average = NAN;  // runnable tasks (1-minute load average)
};

/// One thing that differs between the two sides, as each has it: {"param slowdown",
/// "(none)", "1.05"}, {"plugins folder", "build/plugins", "/tmp/pr/build/plugins"}.
struct SideDifference {
    std::string what, base, next;
    bool operator==(const SideDifference&) const = default;
};

struct Comparison {
    std::string base_label, new_label;  // the folders compared
    CompareOptions options;
    std::vector<SeriesComparison> rows;
    std::vector<std::string> only_in_base, only_in_new;  // scenario ids
    /// Scenarios in both runs that could not be compared: "<id>: failed in new run (...)".
    std::vector<std::string> not_compared;
    /// Why the runs' figures may not be comparable: "cpu.model: X (base) vs Y (new)".
    std::vector<std::string> incomparable;
    double geomean_ratio = 0;  // of all rows' ratios; NaN without rows
    SideLoad base_load, new_load;
    /// What else the reader should know, a sentence each (an A/B run's budget spent, ...).
    std::vector<std::string> notes;
    /// What differs between the sides (side_differences): without it a reader cannot tell
    /// a change from the noise of one build. nullopt when not known (a comparison.json
    /// written before it was recorded).
    std::optional<std::vector<SideDifference>> differences;

    std::size_t count(Verdict verdict) const;
    /// Rows significantly slower by more than the threshold.
    std::size_t regressions() const { return count(Verdict::slower); }
};

/// Compares every scenario of `next` with the scenario of the same id in `base`.
Comparison compare_runs(const RunRecord& base, const RunRecord& next, const CompareOptions& options = {});

/// What a compiler did, counted per scenario (benchhost.torch's scalars of the same
/// names): a count that grows is a regression however small (a graph break sends part
/// of the model back to eager; a recompile lands in the timed samples).
inline constexpr std::string_view compiler_counts[] = {"graph_breaks", "recompiles", "unique_graphs"};

/// The info key where a scenario says what its compiler count `count` counted:
/// graph_break_reasons for graph_breaks, recompile_reasons for recompiles; empty for
/// another count.
std::string_view compiler_count_reasons_key(std::string_view count);

/// What a scenario said its compiler count `count` counted: the reasons of its graph
/// breaks (info graph_break_reasons) or the guards its recompiles failed (info
/// recompile_reasons), each the first three whole, then how many more; empty for another
/// count or where the scenario said nothing.
std::string compiler_count_reasons(const bench::ScenarioResult& result, std::string_view count);

/// The rows of one scenario that both sides ran successfully: one per time series both
/// measured, then one per compiler count both recorded, slower when it grew and faster
/// when it fell (compare_runs calls it for every scenario; an A/B run after every pair).
std::vector<SeriesComparison> compare_outcomes(const ScenarioOutcome& base, const ScenarioOutcome& next,
                                               const CompareOptions& options);

/// How many time series compare_outcomes compares with statistics for one scenario that
/// both sides ran successfully (its compiler counts aside).
std::size_t compared_series(const ScenarioOutcome& base, const ScenarioOutcome& next);

/// The verdict an interval of a ratio (new / base) gives: slower (or faster) when it
/// excludes no change and the ratio passes the threshold, same when it lies within the
/// threshold, else inconclusive (and inconclusive for an invalid interval).
Verdict verdict_of(double ratio, const bench::Interval& ci, double threshold);

/// The verdict of a scenario from its rows: slower when one is, else inconclusive when
/// one is, else faster when one is, else same.
Verdict scenario_verdict(const std::vector<SeriesComparison>& rows);

/// True when the rows of one scenario are slower by compiler counts alone (a count row
/// slower, no time series slower): a count is the same on every run of one build, so
/// more rounds (--confirm) cannot change the verdict, and none are run for it.
bool slower_by_counts_alone(const std::vector<SeriesComparison>& rows);

/// The load of one side (see SideLoad).
SideLoad side_load(const RunRecord& record);

/// The machine and build facts that differ between two runs (see Comparison::incomparable).
std::vector<std::string> incomparable_facts(const HardwareInfo& base, const HardwareInfo& next);

/// What differs between two runs, or the two sides of an A/B run, as their records say:
/// the settings that shape what is measured (parameters, axes, sampling, the plugins
/// folder; not where the run was written, what it selected or how it is judged), each
/// plugin both ran (version and commit, how it was compiled), the benchhost commit, and
/// the machine and build facts of incomparable_facts. A setting one side lacks is
/// "(none)", a fact "unknown".
std::vector<SideDifference> side_differences(const RunRecord& base, const RunRecord& next);

}  // namespace benchhost
