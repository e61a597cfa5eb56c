// benchmark_summary.json: the run's metadata and totals, the machine, the shards of a
// merged run, and one entry per scenario with the headline figures of every series it
// recorded (read from the statistics computed when it ended), its speedups, a
// distributed scenario's scaling efficiency, what a compiler did for it, the monitors'
// headline figures and the path of its plugin report. docs/schema/summary.schema.json
// describes it. Written after the plugin reports (the registry's order), so that a
// summary on disk never points at a report that does not exist.

#include <algorithm>
#include <cmath>
#include <iterator>

#include "analysis/compare.hpp"  // compiler_counts
#include "analysis/framework_comparison.hpp"  // compile_time_ms, compile_cache_outcome
#include "analysis/scenario_statistics.hpp"
#include "json/result_json.hpp"
#include "json/scenario_json.hpp"
#include "report/file_reporter.hpp"
#include "report/files/report_json.hpp"
#include "report/plugin_entries.hpp"
#include "report/reporter_factories.hpp"

namespace benchhost {
namespace {

// Series that open the headline figures of a scenario in the summary, in this order
// (when recorded); every other series with samples follows, in the order recorded.
constexpr const char* summary_headline_series[] = {"latency", "time_to_first_token", "time_per_output_token",
                                                   "tokens_per_second", "throughput"};

void write_headline_series(JsonOut& out, const SeriesStatistics& series) {
    const bench::Summary& s = series.analysis.summary;
    out.key(series.name);
    out.start_object();
    out.field("median", s.median);
    out.field("mean", s.mean);
    out.field("p95", s.p95);
    out.field("cv", series.analysis.cv);  // as the statistics computed it
    out.field("ci95_median", series.analysis.median_ci);
    out.field("unit", series.unit);
    out.end_object();
}

// The few monitor figures the summary shows per scenario: means of these metrics,
// these values, and every flag.
void write_monitor_headline(JsonOut& out, const bench::MonitorReport& report) {
    static const char* const headline_metrics[] = {"gpu_utilization", "power", "process_memory_used",
                                                   "cpu_utilization"};
    static const char* const headline_values[] = {"energy_per_iteration", "peak_rss"};
    out.start_object();
    out.field("available", report.available);
    if (!report.available) out.field("reason", report.reason);
    for (const char* name : headline_metrics) {
        const auto it = report.metrics.find(name);
        if (it == report.metrics.end()) continue;
        out.key(name);
        out.start_object();
        out.field("mean", it->second.mean);
        out.field("max", it->second.max);
        out.field("unit", it->second.unit);
        out.end_object();
    }
    for (const char* name : headline_values) {
        const auto it = report.values.find(name);
        if (it == report.values.end()) continue;
        out.key(name);
        write_figure(out, it->second.value, it->second.unit);
    }
    for (const auto& [name, flag] : report.flags) out.field(name, flag);
    out.end_object();
}

/// "compiler": what a compiler did for the scenario, where it recorded any of it: the
/// compile time (ms), the cache's outcome and which caches it measured with (info
/// compile_caches' first word: warm or cold), the counts compare gates, the timed
/// samples a compile ran in, the graph breaks' reasons. Nothing where none was recorded.
void write_compiler(JsonOut& out, const ScenarioOutcome& outcome) {
    const bench::ScenarioResult& result = outcome.result;
    bool started = false;
    const auto start = [&] {
        if (started) return;
        out.key("compiler");
        out.start_object();
        started = true;
    };
    if (const double ms = compile_time_ms(outcome); std::isfinite(ms)) {
        start();
        out.field("compile_time_ms", ms);
    }
    if (const std::string cache = compile_cache_outcome(outcome); !cache.empty()) {
        start();
        out.field("compile_cache", cache);
    }
    if (const auto caches = result.info.find("compile_caches"); caches != result.info.end()) {
        const std::string which = caches->second.substr(0, caches->second.find(':'));
        if (which == "warm" || which == "cold") {
            start();
            out.field("compile_caches", which);
        }
    }
    std::vector<std::string> counts(std::begin(compiler_counts), std::end(compiler_counts));
    counts.insert(counts.end(), {"recompiled_samples", "discarded_recompiled"});
    for (const std::string& name : counts)
        if (const bench::Scalar* count = result.find_scalar(name); count != nullptr && std::isfinite(count->value)) {
            start();
            out.field(name, count->value);
        }
    for (const char* key : {"graph_break_reasons", "recompile_reasons", "compiled_samples"})
        if (const auto text = result.info.find(key); text != result.info.end()) {
            start();
            out.field(key, text->second);
        }
    if (started) out.end_object();
}

/// "plugins": each plugin of the run, with how it was compiled.
void write_plugins(JsonOut& out, const RunRecord& record) {
    out.key("plugins");
    out.start_array();
    for (const PluginEntry& plugin : plugin_entries(record)) {
        out.start_object();
        out.field("category", plugin.category);
        out.field("plugin", plugin.plugin);
        out.field("version", plugin.version);
        out.field("path", plugin.path.string());
        out.key("build");
        write_plugin_build(out, plugin.build);
        out.end_object();
    }
    out.end_array();
}

std::string summary_report(const RunRecord& record) {
    const RunTotals totals = count_totals(record);
    JsonOut out(report_json);
    out.start_object();
    out.field("schema_version", report_schema_version);

    out.key("run_metadata");
    out.start_object();
    // A record read back from a folder written before runs had ids has none to write.
    if (!record.run_id.empty()) out.field("run_id", record.run_id);
    out.field("timestamp", record.timestamp);
    out.field("started_at", record.started_at);
    out.field("finished_at", record.finished_at);
    out.field("host", record.host_name);
    out.field("commit_id", record.commit_id);
    out.field("host_version", record.host_version);
    out.field("interrupted", record.interrupted);
    out.field("state", record.interrupted ? "interrupted" : record.finished ? "complete" : "running");
    out.field("config", record.run_config);
    out.field("total_benchmarks", totals.total);
    out.field("successful_runs", totals.successful);
    out.field("failed_runs", totals.failed);
    out.field("skipped_runs", totals.skipped);
    out.field("success_rate", totals.success_rate());
    if (record.shard) {
        out.key("shard");
        write_shard(out, *record.shard);
    }
    out.end_object();

    out.key("context");
    write_hardware(out, record.hardware, record.hardware_warnings);
    write_plugins(out, record);

    if (!record.shards.empty()) {
        out.key("shards");
        out.start_array();
        for (const ShardRecord& shard : record.shards) {
            out.start_object();
            out.field("index", shard.index);
            out.field("host", shard.host_name);
            out.field("started_at", shard.started_at);
            out.field("finished_at", shard.finished_at);
            out.field("commit_id", shard.commit_id);
            out.field("source", shard.source);
            out.key("hardware_info");
            write_hardware(out, shard.hardware, {});
            out.end_object();
        }
        out.end_array();
    }

    out.key("results");
    out.start_array();
    for (const auto& outcome : record.outcomes) {
        if (!outcome.statistics.computed) continue;  // still running (rounds to come)
        const auto& config = outcome.config;
        const auto& result = outcome.result;
        out.start_object();
        out.field("scenario_id", config.scenario_id());
        out.field("category", config.category);
        out.field("plugin", config.plugin);
        out.field("benchmark", config.benchmark);
        out.field("scenario_name", config.scenario_name);
        out.field("status", bench::to_string(result.status));
        out.field("reason", result.reason);
        out.field("variant", bench::to_string(config.variant));
        out.field("batch_size", config.batch_size);
        out.field("dtype", config.dtype);
        out.field("device", config.device);
        if (config.world_size > 0) out.field("world_size", config.world_size);
        out.field("report", plugin_report_path(config.plugin, record.timestamp).generic_string());
        out.key("headline");
        out.start_object();
        for (const char* name : summary_headline_series)
            if (const SeriesStatistics* series = outcome.statistics.find(name)) write_headline_series(out, *series);
        for (const SeriesStatistics& series : outcome.statistics.series) {
            const bool written = std::any_of(std::begin(summary_headline_series), std::end(summary_headline_series),
                                             [&](const char* name) { return series.name == name; });
            if (written || series.analysis.summary.count == 0) continue;
            write_headline_series(out, series);
        }
        out.end_object();
        write_speedups(out, outcome.statistics.speedups);
        write_scaling(out, outcome.statistics.scaling);
        write_compiler(out, outcome);
        if (outcome.rounds > 1) out.field("rounds", outcome.rounds);
        if (!result.monitors.empty()) {
            out.key("monitors");
            out.start_object();
            for (const auto& [name, report] : result.monitors) {
                if (!is_monitor_name(name)) continue;
                out.key(name);
                write_monitor_headline(out, report);
            }
            out.end_object();
        }
        out.field("warnings", result.warnings);
        out.field("wall_time_s", outcome.wall_time_s);
        out.end_object();
    }
    out.end_array();
    out.end_object();
    return out.text();
}

}  // namespace

std::unique_ptr<RunReporter> make_summary_reporter(const ReporterSettings& settings) {
    return make_file_reporter(settings,
                              {.name = summary_file_name,
                               .render = [](const RunRecord& record, const RunEnd&) { return summary_report(record); },
                               .at_checkpoints = true});
}

}  // namespace benchhost
