// The run's report files (DESIGN.md, "Output").
//
// The reports are strict JSON: a number that is not finite (the statistics of an empty
// series, a NaN sample) is written as null, and text that is not valid UTF-8 (a worker's
// log tail, an exception message) has each bad byte replaced by U+FFFD, so that any JSON
// reader (Python's json, jq, a browser) can read every report.
//
// Order of writing: the plugin reports, then the CSV, then benchmark_summary.json last,
// so that a summary on disk always points at reports that exist.

#include "report/report_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <bench/internal/series_analysis.hpp>
#include <bench/statistics.hpp>

#include "analysis/analysis.hpp"
#include "util/atomic_file.hpp"
#include "json/json_writer.hpp"
#include "json/result_json.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

constexpr int schema_version = report_schema_version;

// Series that make the headline figures of a scenario in the summary, in this order.
constexpr const char* headline_series[] = {"latency", "time_to_first_token", "time_per_output_token",
                                           "tokens_per_second", "throughput"};

void write_string_map(JsonOut& out, const std::map<std::string, std::string>& map) {
    out.start_object();
    for (const auto& [key, value] : map) out.field(key, value);
    out.end_object();
}


void write_hardware(JsonOut& out, const HardwareInfo& hardware, const std::vector<std::string>& warnings) {
    out.start_object();
    for (const auto& [section, facts] : hardware) {
        if (section == "warnings") continue;  // the key of the list below
        out.key(section);
        write_string_map(out, facts);
    }
    out.key("warnings");
    out.strings(warnings);
    out.end_object();
}

void write_numbers(JsonOut& out, const std::vector<double>& values) {
    out.start_array();
    for (const double v : values) out.number(v);
    out.end_array();
}

// A monitor's report: "gpu_metrics" or "cpu_metrics" of a scenario.
void write_monitor(JsonOut& out, const bench::MonitorReport& report) {
    out.start_object();
    out.field("available", report.available);
    if (!report.reason.empty() || !report.available) out.field("reason", report.reason);
    out.key("metrics");
    out.start_object();
    for (const auto& [name, stats] : report.metrics) {
        out.key(name);
        out.start_object();
        out.field("mean", stats.mean);
        out.field("min", stats.min);
        out.field("max", stats.max);
        out.field("count", stats.count);
        out.field("unit", stats.unit);
        out.end_object();
    }
    out.end_object();
    out.key("values");
    out.start_object();
    for (const auto& [name, value] : report.values) {
        out.key(name);
        out.start_object();
        out.field("value", value.value);
        out.field("unit", value.unit);
        out.end_object();
    }
    out.end_object();
    out.key("flags");
    out.start_object();
    for (const auto& [name, flag] : report.flags) out.field(name, flag);
    out.end_object();
    out.key("info");
    write_string_map(out, report.info);
    out.key("warnings");
    out.strings(report.warnings);
    out.key("timeline");
    out.start_object();
    out.key("time_s");
    write_numbers(out, report.timeline.time_s);
    out.key("series");
    out.start_object();
    for (const auto& [name, values] : report.timeline.series) {
        out.key(name);
        write_numbers(out, values);
    }
    out.end_object();
    out.end_object();
    out.end_object();
}

// The few monitor figures the summary shows per scenario: means of these metrics,
// these values, and every flag.
void write_monitor_headline(JsonOut& out, const bench::MonitorReport& report) {
    static const char* const headline_metrics[] = {"gpu_utilization", "power", "process_memory_used", "cpu_utilization"};
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
        out.start_object();
        out.field("value", it->second.value);
        out.field("unit", it->second.unit);
        out.end_object();
    }
    for (const auto& [name, flag] : report.flags) out.field(name, flag);
    out.end_object();
}

void write_config(JsonOut& out, const bench::ScenarioConfig& config) {
    rapidjson::Document document;
    const std::string json = config_to_json(config);
    document.Parse(json.data(), json.size());
    out.value(document);  // config_to_json always writes valid JSON
}

bench::Summary summary_of(const bench::Series& series) {
    return bench::summarize(std::span<const double>(series.samples));
}

void write_series(JsonOut& out, const bench::Series& series) {
    const bench::SeriesAnalysis analysis = bench::analyze_series(series.samples);
    const bench::Summary& s = analysis.summary;
    out.start_object();
    out.field("mean", s.mean);
    out.field("median", s.median);
    out.field("std", s.std);
    out.field("min", s.min);
    out.field("max", s.max);
    out.field("p25", s.p25);
    out.field("p75", s.p75);
    out.field("p90", s.p90);
    out.field("p95", s.p95);
    out.field("p99", s.p99);
    out.field("count", s.count);
    out.field("unit", series.unit);
    out.field("inner_iterations", series.inner_iterations);
    out.field("cv", analysis.cv);
    out.key("ci95");
    out.start_object();
    out.key("median");
    out.interval(analysis.median_ci);
    out.key("mean");
    out.interval(analysis.mean_ci);
    out.field("level", 0.95);
    out.field("method", "percentile bootstrap, " +
                            std::to_string(bench::bootstrap_resamples(series.samples.size())) + " resamples");
    out.end_object();
    out.key("outliers");
    out.start_object();
    out.field("low_severe", analysis.outliers.low_severe);
    out.field("low_mild", analysis.outliers.low_mild);
    out.field("high_mild", analysis.outliers.high_mild);
    out.field("high_severe", analysis.outliers.high_severe);
    out.end_object();
    out.field("stable", analysis.stable);
    out.key("measurements");
    out.start_array();
    for (const double sample : series.samples) out.number(sample);
    out.end_array();
    out.end_object();
}

void write_speedups(JsonOut& out, const std::vector<Speedup>& speedups) {
    if (speedups.empty()) return;
    out.key("speedup_over_eager");
    out.start_object();
    for (const Speedup& speedup : speedups) {
        out.key(speedup.series);
        out.start_object();
        out.field("value", speedup.value);
        out.key("ci95");
        out.interval(speedup.ci);
        out.field("baseline_scenario_id", speedup.baseline_scenario_id);
        out.end_object();
    }
    out.end_object();
}

void write_scenario(JsonOut& out, const ScenarioOutcome& outcome, const RunRecord& record) {
    const auto& config = outcome.config;
    const auto& result = outcome.result;
    const bool success = result.status == bench::Status::success;

    out.start_object();
    out.field("scenario_name", config.scenario_name);
    out.field("scenario_id", config.scenario_id());
    out.field("benchmark", config.benchmark);
    out.field("status", bench::to_string(result.status));
    if (!result.reason.empty()) out.field("reason", result.reason);

    out.key("metadata");
    out.start_object();
    out.field("timestamp", outcome.started_at);
    out.field("commit_id", record.commit_id);
    out.key("hardware_info");
    write_hardware(out, record.hardware, record.hardware_warnings);
    out.key("config");
    write_config(out, config);
    out.field("plugin_version", outcome.plugin_version);
    out.field("plugin_path", outcome.plugin_path.string());
    out.end_object();

    // Series and scalars share one namespace; the first of a name wins.
    std::set<std::string, std::less<>> written;
    out.key("measurements");
    out.start_object();
    for (const auto& series : result.series) {
        if (!written.insert(series.name).second) continue;
        out.key(series.name);
        write_series(out, series);
    }
    for (const auto& scalar : result.scalars) {
        if (!written.insert(scalar.name).second) continue;
        out.key(scalar.name);
        out.start_object();
        out.field("value", scalar.value);
        out.field("unit", scalar.unit);
        out.end_object();
    }
    out.end_object();

    if (!result.sampling.empty()) {
        out.key("sampling");
        out.start_object();
        for (const auto& [name, sampling] : result.sampling) {
            out.key(name);
            out.start_object();
            out.field("stop_reason", sampling.stop_reason);
            out.field("elapsed_s", sampling.elapsed_s);
            out.field("samples", sampling.samples);
            out.field("target_ci_width", sampling.target_ci_width > 0 ? sampling.target_ci_width : std::nan(""));
            out.field("ci_width", sampling.ci_width);
            out.field("clock_resolution_ns", sampling.clock_resolution_ns);
            out.field("clock_cost_ns", sampling.clock_cost_ns);
            out.end_object();
        }
        out.end_object();
    }
    if (outcome.rounds > 1) out.field("rounds", outcome.rounds);

    bool any_cold_start = false;
    for (const char* name : cold_start_scalars) {
        const bench::Scalar* scalar = result.find_scalar(name);
        if (scalar == nullptr) continue;
        if (!any_cold_start) {
            out.key("cold_start");
            out.start_object();
            any_cold_start = true;
        }
        out.key(name);
        out.start_object();
        out.field("value", scalar->value);
        out.field("unit", scalar->unit);
        out.end_object();
    }
    if (any_cold_start) out.end_object();

    write_speedups(out, speedups_over_eager(record, outcome));

    for (const auto& [name, report] : result.monitors) {
        if (!is_monitor_name(name)) continue;
        out.key(name);
        write_monitor(out, report);
    }
    out.key("warnings");
    out.strings(result.warnings);

    out.key("info");
    write_string_map(out, result.info);
    out.field("wall_time_s", outcome.wall_time_s);
    if (!success && !outcome.log_tail.empty()) out.field("log_tail", outcome.log_tail);
    out.end_object();
}

std::string plugin_report(const std::string& plugin, const std::vector<const ScenarioOutcome*>& outcomes,
                          const RunRecord& record) {
    JsonOut out;
    out.start_object();
    out.field("model_name", plugin);
    out.field("schema_version", schema_version);
    out.key("benchmark_scenarios");
    out.start_array();
    for (const ScenarioOutcome* outcome : outcomes) write_scenario(out, *outcome, record);
    out.end_array();
    out.end_object();
    return out.text();
}

std::string summary_report(const RunRecord& record) {
    const RunTotals totals = count_totals(record);
    JsonOut out;
    out.start_object();
    out.field("schema_version", schema_version);

    out.key("run_metadata");
    out.start_object();
    out.field("timestamp", record.timestamp);
    out.field("started_at", record.started_at);
    out.field("finished_at", record.finished_at);
    out.field("host", record.host_name);
    out.field("commit_id", record.commit_id);
    out.field("host_version", record.host_version);
    out.field("interrupted", record.interrupted);
    out.field("state", record.interrupted ? "interrupted" : record.finished ? "complete" : "running");
    out.key("config");
    write_string_map(out, record.run_config);
    out.field("total_benchmarks", totals.total);
    out.field("successful_runs", totals.successful);
    out.field("failed_runs", totals.failed);
    out.field("skipped_runs", totals.skipped);
    out.field("success_rate", totals.success_rate());
    if (record.shard) {
        out.key("shard");
        out.start_object();
        out.field("index", record.shard->index);
        out.field("count", record.shard->count);
        out.field("plan_scenarios", record.shard->plan_scenarios);
        out.field("plan_fingerprint", record.shard->plan_fingerprint);
        out.end_object();
    }
    out.end_object();

    out.key("context");
    write_hardware(out, record.hardware, record.hardware_warnings);

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
        out.field("report", plugin_report_path(config.plugin, record.timestamp).generic_string());
        out.key("headline");
        out.start_object();
        for (const char* name : headline_series) {
            const bench::Series* series = result.find_series(name);
            if (series == nullptr) continue;
            const bench::Summary s = summary_of(*series);
            out.key(name);
            out.start_object();
            out.field("median", s.median);
            out.field("mean", s.mean);
            out.field("p95", s.p95);
            out.field("cv", s.count > 1 && s.mean != 0 ? s.std / std::abs(s.mean) : std::nan(""));
            out.key("ci95_median");
            out.interval(bench::bootstrap_interval(series->samples, bench::Statistic::median));
            out.field("unit", series->unit);
            out.end_object();
        }
        out.end_object();
        write_speedups(out, speedups_over_eager(record, outcome));
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
        out.key("warnings");
        out.strings(result.warnings);
        out.field("wall_time_s", outcome.wall_time_s);
        out.end_object();
    }
    out.end_array();
    out.end_object();
    return out.text();
}

// ---- CSV -------------------------------------------------------------------------

// RFC 4180: a field holding a comma, a quote, CR or LF is quoted, quotes doubled.
std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

// Shortest text that reads back as the same double; empty when not finite.
std::string csv_number(double value) {
    if (!std::isfinite(value)) return {};
    char buffer[64];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
    if (error != std::errc{}) return {};
    return std::string(buffer, end);
}

constexpr const char* csv_header =
    "framework,model,scenario,variant,device,batch_size,dtype,status,latency_mean_ms,latency_p50_ms,"
    "latency_p90_ms,latency_p95_ms,latency_p99_ms,throughput,throughput_unit,peak_memory_mb,timestamp,"
    "git_commit";

std::string csv_report(const RunRecord& record) {
    std::string csv = csv_header;
    csv += '\n';
    for (const auto& outcome : record.outcomes) {
        const auto& config = outcome.config;
        const auto& result = outcome.result;
        const auto info = [&](const char* key) -> std::string {
            const auto it = result.info.find(key);
            return it == result.info.end() ? std::string() : it->second;
        };
        std::string model = info("model");
        if (model.empty()) model = config.plugin;

        std::vector<std::string> row;
        row.push_back(info("framework"));
        row.push_back(model);
        row.push_back(config.scenario_id());
        row.emplace_back(bench::to_string(config.variant));
        row.push_back(config.device);
        row.push_back(std::to_string(config.batch_size));
        row.push_back(config.dtype);
        row.emplace_back(bench::to_string(result.status));

        if (const bench::Series* latency = result.find_series("latency")) {
            const bench::Summary s = summary_of(*latency);
            const double factor = to_ms_factor(latency->unit);
            for (const double v : {s.mean, s.median, s.p90, s.p95, s.p99}) row.push_back(csv_number(v * factor));
        } else {
            row.insert(row.end(), 5, std::string());
        }

        const bench::Series* throughput = result.find_series("throughput");
        if (throughput == nullptr) throughput = result.find_series("tokens_per_second");
        if (throughput != nullptr) {
            row.push_back(csv_number(summary_of(*throughput).median));
            row.push_back(throughput->unit);
        } else {
            row.insert(row.end(), 2, std::string());
        }

        const bench::Scalar* peak = result.find_scalar("peak_rss");
        row.push_back(peak != nullptr ? csv_number(peak->value * to_mib_factor(peak->unit)) : std::string());
        row.push_back(outcome.started_at.empty() ? record.started_at : outcome.started_at);
        row.push_back(record.commit_id);

        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i > 0) csv += ',';
            csv += csv_field(row[i]);
        }
        csv += '\n';
    }
    return csv;
}

}  // namespace

std::filesystem::path plugin_report_path(const std::string& plugin, const std::string& timestamp) {
    return std::filesystem::path(plugin) / (plugin + "_" + timestamp + ".json");
}

WrittenReports write_reports(const RunRecord& record, const std::filesystem::path& output_dir,
                             const std::string* only_plugin) {
    // Group per plugin, plugins in order of first appearance.
    std::vector<std::string> plugins;
    std::map<std::string, std::vector<const ScenarioOutcome*>> by_plugin;
    for (const auto& outcome : record.outcomes) {
        auto& group = by_plugin[outcome.config.plugin];
        if (group.empty()) plugins.push_back(outcome.config.plugin);
        group.push_back(&outcome);
    }

    WrittenReports written;
    for (const auto& plugin : plugins) {
        if (only_plugin != nullptr && plugin != *only_plugin) continue;
        const std::filesystem::path path = output_dir / plugin_report_path(plugin, record.timestamp);
        write_file_atomically(path, plugin_report(plugin, by_plugin[plugin], record));
        written.plugin_reports[plugin] = path;
    }

    written.csv = output_dir / ("benchmark_results_" + record.timestamp + ".csv");
    write_file_atomically(written.csv, csv_report(record));

    written.summary = output_dir / "benchmark_summary.json";
    write_file_atomically(written.summary, summary_report(record));
    return written;
}

}  // namespace benchhost
