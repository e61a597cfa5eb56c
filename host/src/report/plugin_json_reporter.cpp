// The plugin reports: <plugin>/<plugin>_<timestamp>.json, every scenario of one plugin
// with its metadata, each series with its statistics (as computed when the scenario
// ended) and raw samples, the sampling, the cold start, the speedups over eager, the
// monitors' reports, warnings and info. docs/schema/report.schema.json describes it;
// json/report_reader.cpp reads it back.
//
// At a checkpoint the reports of the plugins that have new scenarios are written again;
// at the end, every plugin's.

#include <set>
#include <stdexcept>
#include <string_view>

#include <rapidjson/document.h>

#include "analysis/scenario_statistics.hpp"
#include "json/json_parse.hpp"
#include "json/result_json.hpp"
#include "report/report_json.hpp"
#include "report/reporter_factories.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {
namespace {

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

void write_config(JsonOut& out, const bench::ScenarioConfig& config) {
    // The worker protocol's form of the config (json/result_json.hpp), copied as strict JSON.
    rapidjson::Document document;
    if (const std::string error = parse_json(config_to_json(config), document); !error.empty())
        throw std::logic_error("config JSON: " + error);
    out.value(document);
}

void write_series(JsonOut& out, const bench::Series& series, const SeriesStatistics& statistics) {
    const bench::SeriesAnalysis& analysis = statistics.analysis;
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
    out.field("method", "percentile bootstrap, " + std::to_string(statistics.bootstrap_resamples) + " resamples");
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
        const SeriesStatistics* statistics = outcome.statistics.find(series.name);
        if (statistics == nullptr) throw std::logic_error("the statistics of " + config.scenario_id() + " were not computed");
        out.key(series.name);
        write_series(out, series, *statistics);
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

    write_speedups(out, outcome.statistics.speedups);

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
    out.field("schema_version", report_schema_version);
    out.key("benchmark_scenarios");
    out.start_array();
    for (const ScenarioOutcome* outcome : outcomes) write_scenario(out, *outcome, record);
    out.end_array();
    out.end_object();
    return out.text();
}

class PluginJsonReporter final : public Reporter {
public:
    explicit PluginJsonReporter(std::filesystem::path dir) : dir_(std::move(dir)) {}

    void scenario_finished(const RunRecord&, const ScenarioOutcome& outcome) override {
        changed_.insert(outcome.config.plugin);
    }
    void checkpoint(const RunRecord& record) override {
        if (!changed_.empty()) write(record, &changed_);
    }
    void run_finished(const RunRecord& record) override { write(record, nullptr); }
    std::vector<std::filesystem::path> files() const override { return {written_.begin(), written_.end()}; }

private:
    /// Writes the reports of `only` (every plugin when nullptr), plugins in order of
    /// their first scenario.
    void write(const RunRecord& record, const std::set<std::string>* only) {
        std::vector<std::string> plugins;
        std::map<std::string, std::vector<const ScenarioOutcome*>> by_plugin;
        for (const ScenarioOutcome& outcome : record.outcomes) {
            if (only != nullptr && only->count(outcome.config.plugin) == 0) continue;
            if (!outcome.statistics.computed) continue;  // still running (rounds to come)
            auto& group = by_plugin[outcome.config.plugin];
            if (group.empty()) plugins.push_back(outcome.config.plugin);
            group.push_back(&outcome);
        }
        for (const std::string& plugin : plugins) {
            const std::filesystem::path path = dir_ / plugin_report_path(plugin, record.timestamp);
            write_file_atomically(path, plugin_report(plugin, by_plugin[plugin], record));
            written_.insert(path);
            changed_.erase(plugin);
        }
    }

    std::filesystem::path dir_;
    std::set<std::string> changed_;
    std::set<std::filesystem::path> written_;
};

}  // namespace

std::unique_ptr<Reporter> make_plugin_json_reporter(const ReporterSettings& settings) {
    return std::make_unique<PluginJsonReporter>(settings.output_dir);
}

}  // namespace benchhost
