// The figures the console table, report.md and report.html show, computed once from a
// RunRecord: per scenario its headline series with the 95% CI of its median (bootstrap
// over the raw samples), spread, throughput, speedups over eager and its other series;
// per run the machine and the settings in a few lines, and how the scenarios make tables
// (one per benchmark, a column per axis that varies in it). Every renderer reads these,
// so they always agree.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bench/internal/statistics/series_analysis.hpp>

#include "analysis/scenario_statistics.hpp"
#include "analysis/stragglers.hpp"
#include "model/run_record.hpp"

namespace benchhost {

struct Comparison;  // analysis/compare.hpp
struct FrameworkComparison;  // analysis/framework_comparison.hpp

struct ScenarioFigures {
    const ScenarioOutcome* outcome = nullptr;

    /// The series a row of the tables is about: latency, else time_to_first_token,
    /// time_per_output_token, else the first time series, else the first series; empty
    /// without series, and for a scenario that did not succeed (as is the throughput).
    std::string headline;
    std::string unit;  // of the headline series
    std::vector<double> samples;  // its finite samples, in `unit`
    bench::SeriesAnalysis analysis;  // of `samples`: median, p95, CV, median CI
    bool is_time = false;  // `unit` is a time: samples_ms holds them in ms
    std::vector<double> samples_ms;

    /// Median of the series "throughput", else "tokens_per_second", else the scalar
    /// "throughput" (a serving load's; no interval); NaN without any.
    std::string throughput_series;
    double throughput = NAN;
    std::string throughput_unit;

    bench::Interval throughput_ci;  // 95%, of the median

    /// Every other series the scenario recorded (a Python function's returned figures,
    /// the time to first token beside the latency, ...): those with finite samples, in
    /// the order recorded, but the headline and the throughput series. Empty for a
    /// scenario that did not succeed. Their statistics are the scenario's own
    /// (outcome->statistics), computed when it ended.
    std::vector<const SeriesStatistics*> other_series;

    std::vector<Speedup> speedups;  // over eager, with their 95% CIs

    /// Of a distributed scenario in a ScalingGroup: its throughput over world_size times
    /// the throughput at world size 1 (its statistics' scaling); NaN otherwise.
    double scaling_efficiency = NAN;
    bench::Interval scaling_efficiency_ci{};

    std::string variant;  // "eager", "compiled", "kernelized" (plus "/<compile mode>" when not default)
    int batch_size = 1;
    /// The benchmark and every axis but variant (and compile mode) and batch size:
    /// "resnet50[dtype=float32]". Scenarios with the same key make one line per variant
    /// in the per-batch-size charts.
    std::string batch_group;
    /// The same without only the variant: what a speedup row is about.
    std::string variant_group;

    bool success() const { return outcome->result.status == bench::Status::success; }
};

/// Axis name and value, as in a scenario name's brackets.
using AxisValues = std::vector<std::pair<std::string, std::string>>;

/// One table of the reports: the scenarios of one benchmark (category/plugin/benchmark),
/// a row each, with a column per axis whose value varies among them.
struct BenchmarkTable {
    std::string benchmark_id;
    /// Axes with one value in this benchmark but several in the run: said with its name.
    AxisValues fixed_axes;
    /// The axes that vary in this benchmark, in the order of the scenario names.
    std::vector<std::string> axes;
    struct Row {
        std::size_t scenario = 0;  // in RunFigures::scenarios
        std::vector<std::string> values;  // one per axis; "-" where the name lacks it
    };
    std::vector<Row> rows;  // the record's order
};

struct CategoryTables {
    std::string category;
    RunTotals totals;
    std::vector<BenchmarkTable> tables;  // in order of first appearance; none without scenarios
};

/// A variant's speedup over eager in one benchmark, for the overview.
struct VariantSpeedup {
    std::string variant;  // as ScenarioFigures::variant: "compiled", "compiled/torchscript", ...
    /// Eager's median over the variant's, of the headline series; over several axis points
    /// (batch sizes, dtypes, ...), the geometric mean of their speedups.
    double value = NAN;
    bench::Interval ci;  // its 95% CI at one point; invalid over several
    int points = 0;  // the axis points it is over
};

/// One row of the overview that opens the rendered reports: a benchmark, its headline
/// figure and how each variant compares with eager.
struct BenchmarkOverview {
    std::string benchmark_id;
    RunTotals totals;
    /// Its first successful scenario with samples, in the plan's order (eager, the smallest
    /// batch first): the figure the row shows, with its axes. Null when none succeeded.
    const ScenarioFigures* headline = nullptr;
    std::vector<VariantSpeedup> speedups;  // in order of first appearance
};

/// Scenarios that share a reason (a skip) or a warning, said once.
struct ScenarioGroup {
    std::string text;  // the reason; for warnings, the first scenario's wording
    std::vector<const ScenarioOutcome*> scenarios;
};

/// A distributed scenario's ranks: per time series the ranks recorded alike (each rank's
/// samples kept as `<series>.rank<N>`: execute/rank_results.hpp), each rank's median with
/// its 95% CI, and the ranks the host named stragglers in it (the scenario's statistics:
/// ScenarioStatistics::stragglers, computed once when it ended).
struct RankTable {
    const ScenarioFigures* scenario = nullptr;
    int ranks = 0;  // the columns: ranks 0 to ranks - 1
    struct Row {
        std::string series;  // "latency.1MiB"
        std::vector<const SeriesStatistics*> per_rank;  // rank r's statistics; null where it has none
        std::vector<Straggler> stragglers;  // slowest first
    };
    std::vector<Row> rows;  // in the order recorded
};

/// A collective's bus bandwidth against message size, in one scenario (a collective at one
/// world size): the series `busbw.<size>` (GB/s) that performance/collectives records for
/// each message size, the size in bytes from its scalar `bytes.<size>` (else the label:
/// "8B", "64KiB", "1MiB").
struct BandwidthCurve {
    const ScenarioFigures* scenario = nullptr;
    std::string collective;  // the benchmark
    int world_size = 0;
    struct Point {
        std::string size;  // the label: "1MiB"
        double bytes = NAN;
        const SeriesStatistics* busbw = nullptr;
        const SeriesStatistics* algbw = nullptr;  // null when not recorded
        const SeriesStatistics* latency = nullptr;  // null when not recorded
    };
    std::vector<Point> points;  // by size
};

/// Scenarios that differ only in world size, with a throughput: how it scales.
struct ScalingGroup {
    /// category/plugin/ and the scenario name without world_size:
    /// "performance/ddp_training/ddp_training[batch_size=8]".
    std::string group;
    std::string unit;  // of the throughput
    double base = NAN;  // the throughput at world size 1; NaN when that did not run
    struct Point {
        const ScenarioFigures* scenario = nullptr;
        int world_size = 0;
        double throughput = NAN;  // median, with its CI
        bench::Interval ci;
        double ideal = NAN;  // world_size x base
        /// The scenario's ScenarioStatistics::scaling (scaling_efficiency(throughput,
        /// world_size, base)), with its 95% interval; NaN without world size 1.
        double efficiency = NAN;
        bench::Interval efficiency_ci{};
    };
    std::vector<Point> points;  // by world size; two world sizes at least
};

struct RunFigures {
    const RunRecord* record = nullptr;
    RunTotals totals;
    std::vector<ScenarioFigures> scenarios;  // the record's order
    /// The machine in a few labelled lines: CPU, memory, GPU, OS, build, LibTorch, load.
    std::vector<std::pair<std::string, std::string>> machine;
    /// How the run was set up, in labelled lines: the sampling of its scenarios, then the
    /// options it recorded (run_config) that are set.
    std::vector<std::pair<std::string, std::string>> settings;
    /// The command line of the run and the folder it was given in, as recorded; empty
    /// for a run that did not record them.
    std::string command_line, working_directory;
    /// Axes with one value across the whole run: said once, above the tables.
    AxisValues fixed_axes;
    /// Every category of category_order(), with its tables.
    std::vector<CategoryTables> categories;

    // What the rendered reports open with (the summary), and close with (the skips).
    std::vector<BenchmarkOverview> overview;  // a row per benchmark, in the tables' order
    /// The scenarios that ran and did not succeed (failed, crashed, timed out, ...), in order.
    std::vector<const ScenarioFigures*> failures;
    /// The warnings of the scenarios that ran, alike ones together: the same wording but
    /// for its numbers ("load average 2.26" and "load average 1.97" are one warning).
    std::vector<ScenarioGroup> warnings;
    /// The skipped scenarios by reason, in order of first appearance.
    std::vector<ScenarioGroup> skips;

    // Distributed scenarios (docs/distributed.md), in the record's order.
    std::vector<RankTable> rank_tables;  // each successful scenario with per-rank series
    std::vector<BandwidthCurve> bandwidth;  // each successful scenario with busbw.<size> series
    std::vector<ScalingGroup> scaling;  // with throughputs at two world sizes at least
};

RunFigures compute_figures(const RunRecord& record);

/// --find-peak's search of a scenario as text, for the console, report.md and report.html:
/// what each rate was judged by, one row per rate tried in the order they ran (the
/// peak's marked), and the peak in a sentence.
struct PeakTable {
    const ScenarioOutcome* outcome = nullptr;
    std::string bounds;  // "p99 of latency <= 20 ms"
    std::vector<std::string> columns;  // "#", "RATE/S", "ACHIEVED/S", "<METRIC> P50", "<METRIC> P99", ..., "GOODPUT",
                                       // "LATE", "QUERIES", "RESULT"
    std::vector<std::vector<std::string>> rows;
    std::string
        peak;  // "peak 1.17k queries/s: the highest rate that passed; the lowest that failed, 1.23k/s, is within 5%"
};

/// The scenarios with a peak search, in the record's order.
std::vector<PeakTable> peak_tables(const RunFigures& figures);
/// A rate of queries as the peak search shows it: "1.25k/s", "200/s"; "-" when not finite.
std::string rate_text(double qps);

/// A scenario as a reader tells it apart in this run: its benchmark (with the plugin when
/// named otherwise) and the axes whose value varies in the run:
/// "resnet50/train [variant=compiled, compile_mode=torchscript]".
std::string scenario_label(const RunFigures& figures, const ScenarioOutcome& outcome);
/// The values of those axes alone: "compiled, torchscript"; empty when none varies.
std::string varying_axes_text(const RunFigures& figures, const ScenarioOutcome& outcome);
/// "compiled 1.53x [1.51, 1.71]", "kernelized 1.17x (geometric mean of 2)".
std::string variant_speedup_text(const VariantSpeedup& speedup);
/// An overview row's scenarios: "4 of 6, 2 skipped", "3 of 4, 1 failed".
std::string overview_counts_text(const RunTotals& totals);

/// The renderers of rendered_reports.hpp, over figures already computed and the comparison
/// across frameworks of the same record; `comparison`, the run against its baseline when
/// it has one, opens the summary with its verdicts.
std::string markdown_report(const RunFigures& figures, const FrameworkComparison& frameworks,
                            const Comparison* comparison = nullptr);
std::string html_report(const RunFigures& figures, const FrameworkComparison& frameworks,
                        const Comparison* comparison = nullptr);

/// unit, integration, performance, then any other category the run has, in order of
/// first appearance.
std::vector<std::string> category_order(const RunFigures& figures);

/// The "k=v" entries of a scenario name's brackets ("resnet50[variant=eager,batch_size=1]"),
/// in order.
std::vector<std::pair<std::string, std::string>> scenario_axes(std::string_view scenario_name);

/// The scenario name with the named axes left out of its brackets (no brackets when none
/// is left): "resnet50[variant=eager,batch_size=1]" without variant is
/// "resnet50[batch_size=1]".
std::string scenario_name_without(std::string_view scenario_name, const std::vector<std::string>& axes);

/// "dtype=float32, device=cpu".
std::string axes_text(const AxisValues& axes);

/// "41 scenarios: 31 succeeded, 0 failed (100.0% of those that ran), 10 skipped"; without
/// the percentage when none ran. Skips are not failures: the rate is over the scenarios
/// that ran.
std::string totals_text(const RunTotals& totals);
/// "100.0%": the success rate over the scenarios that ran; "-" when none ran.
std::string success_rate_text(const RunTotals& totals);

/// How a scenario is sampled: "3 warmup, 10 samples", "3 warmup, at least 10 samples, at
/// least 0.5 s, at most 10 s".
std::string sampling_text(const bench::ScenarioConfig& config);

/// "3.92 ms [3.89, 3.95]": the headline median in a time unit that suits it, with the
/// bounds of its 95% CI in the same unit; "-" without samples.
std::string median_with_ci(const ScenarioFigures& figures);
std::string p95_text(const ScenarioFigures& figures);
std::string cv_text(const ScenarioFigures& figures);  // "4.1%"
std::string throughput_text(const ScenarioFigures& figures);
/// "execution_time 12.3 ms": a series' name and its median, in the unit that suits it.
std::string series_median_text(const SeriesStatistics& series);
/// The scenario's other series, each as series_median_text, joined by ", ": all of them,
/// or the first `shown` at most, then "+N more series"; with `width`, fewer so that the
/// text fits it (counting in code points; one at least, cut with "..." when it alone is
/// too wide). Empty when the scenario has none.
std::string other_series_text(const ScenarioFigures& figures, std::size_t shown = SIZE_MAX,
                              std::size_t width = SIZE_MAX);
/// "1.25x [1.23, 1.27]", with the series named when it is not latency.
std::string speedup_text(const Speedup& speedup);
/// A figure in `unit` with its interval, both in the unit that suits the figure.
std::string figure_with_interval(double value, const bench::Interval& interval, std::string_view unit);

/// The distributed scenarios in words, the same in report.md and report.html.
/// "0.94 [0.90, 0.97]", with the 95% CI when there is one; "-" when not finite.
std::string scaling_efficiency_text(double efficiency, const bench::Interval& ci = {});
/// A series' median with its 95% CI: "4.21 ms [4.10, 4.33]"; "-" for null or no samples
/// (a rank's cell, a model's latency).
std::string median_text(const SeriesStatistics* series);
/// The stragglers of a row: "rank 1: 2.14x the other ranks' median [1.11, 4.41]".
std::string stragglers_text(const RankTable::Row& row);
inline constexpr const char* ranks_explanation =
    "Each rank's median of each series it timed, with its 95% confidence interval; the straggler is a rank whose "
    "median is slower than the other ranks' samples pooled, the 95% interval of that ratio above 1.05 (the "
    "scenario's warning names it). The scenario's own series is, sample by sample, the slowest rank's.";
inline constexpr const char* scaling_explanation =
    "Scenarios that differ only in world size: the median throughput at each, the ideal (N times the throughput "
    "at world size 1) and the scaling efficiency (the throughput at N over that ideal; 1 is perfect scaling), from "
    "the medians of this run.";

/// The bus bandwidths of the collectives at one world size, as a table: a row per message
/// size (by size), a column per collective, each cell a median ("0.299 GB/s") or "-".
struct BandwidthTable {
    std::string title;  // "world size 2"
    int world_size = 0;
    std::vector<const BandwidthCurve*> curves;  // the columns
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;  // size label, a cell per curve
};
std::vector<BandwidthTable> bandwidth_tables(const RunFigures& figures);

/// A message size in bytes as the collectives name it: "8B", "64KiB", "1MiB", "2GiB"; NaN
/// for any other text.
double message_size_bytes(std::string_view label);

/// A time unit for values up to `max_ms`: {"us", 1e3} (factor from ms), {"ms", 1}, {"s", 1e-3}.
std::pair<std::string, double> time_display_unit(double max_ms);

}  // namespace benchhost
