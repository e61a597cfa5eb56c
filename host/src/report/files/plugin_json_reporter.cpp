// The plugin reports: <plugin>/<plugin>_<timestamp>.json, every scenario of one plugin
// with its metadata, each series with its statistics (as computed when the scenario
// ended) and raw samples, the sampling, the accuracy of classifiers, the cold start, the
// speedups over eager, a distributed scenario's stragglers, the peak search (--find-peak),
// the monitors' reports, warnings and info. docs/schema/report.schema.json describes it;
// json/report_reader.cpp reads it back (the statistics, the speedups and the stragglers
// among them, are computed again from the samples read, as they were when written).
//
// At a checkpoint the reports of the plugins that have new scenarios are written again;
// at the end, every plugin's.

#include <set>
#include <stdexcept>

#include "analysis/scenario_statistics.hpp"
#include "json/profile_json.hpp"
#include "json/result_json.hpp"
#include "json/scenario_json.hpp"
#include "report/files/profile_trace_reporter.hpp"
#include "report/files/report_json.hpp"
#include "report/reporter_factories.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {
namespace {

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
    out.key("plugin_build");
    write_plugin_build(out, outcome.plugin_build);
    out.end_object();

    // Series and scalars share one namespace; the first of a name wins.
    std::set<std::string, std::less<>> written;
    out.key("measurements");
    out.start_object();
    for (const auto& series : result.series) {
        if (!written.insert(series.name).second) continue;
        const SeriesStatistics* statistics = outcome.statistics.find(series.name);
        if (statistics == nullptr)
            throw std::logic_error("the statistics of " + config.scenario_id() + " were not computed");
        out.key(series.name);
        const auto times = result.sample_times.find(series.name);
        write_series(out, series, statistics, times == result.sample_times.end() ? nullptr : &times->second);
    }
    for (const auto& scalar : result.scalars) {
        if (!written.insert(scalar.name).second) continue;
        out.key(scalar.name);
        write_figure(out, scalar.value, scalar.unit);
    }
    out.end_object();

    if (!result.sampling.empty()) {
        out.key("sampling");
        write_sampling(out, result.sampling);
    }
    if (!result.accuracy.empty()) {
        out.key("accuracy");
        write_accuracy(out, result.accuracy);
    }
    if (!result.device_state.empty()) {
        out.key("device_state");
        write_device_state(out, result.device_state);
    }
    if (outcome.rounds > 1) out.field("rounds", outcome.rounds);
    if (outcome.first_rounds > 0) out.field("first_rounds", outcome.first_rounds);
    if (!outcome.round_sizes.empty()) {
        out.key("round_sizes");
        write_round_sizes(out, outcome.round_sizes);
    }

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
        write_figure(out, scalar->value, scalar->unit);
    }
    if (any_cold_start) out.end_object();

    write_speedups(out, outcome.statistics.speedups);
    if (!outcome.statistics.stragglers.empty()) {
        out.key("stragglers");
        out.start_array();
        for (const Straggler& straggler : outcome.statistics.stragglers) {
            const SeriesStatistics* series = outcome.statistics.find(straggler.series);
            out.start_object();
            out.field("series", straggler.series);
            out.field("rank", straggler.rank);
            out.field("median", straggler.median);
            out.field("others_median", straggler.others_median);
            out.field("unit", series != nullptr ? series->unit : std::string());
            out.field("ratio", straggler.ratio);
            out.field("ci95", straggler.interval);
            out.end_object();
        }
        out.end_array();
    }
    if (result.peak_search) {
        out.key("peak_search");
        write_peak_search(out, *result.peak_search);
    }

    for (const auto& [name, report] : result.monitors) {
        if (!is_monitor_name(name)) continue;
        out.key(name);
        write_monitor(out, report);
    }
    out.field("warnings", result.warnings);

    out.field("info", result.info);
    if (result.profile) {
        out.key("profile");
        write_profile(out, *result.profile, profile_trace_file(outcome, record.timestamp));
    }
    out.field("wall_time_s", outcome.wall_time_s);
    if (!success && !outcome.log_tail.empty()) out.field("log_tail", outcome.log_tail);
    out.end_object();
}

std::string plugin_report(const std::string& plugin, const std::vector<const ScenarioOutcome*>& outcomes,
                          const RunRecord& record) {
    JsonOut out(report_json);
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

class PluginJsonReporter final : public RunReporter {
public:
    explicit PluginJsonReporter(std::filesystem::path dir) : dir_(std::move(dir)) {}

    void scenario_finished(const RunRecord&, const ScenarioOutcome& outcome) override {
        changed_.insert(outcome.config.plugin);
    }
    void checkpoint(const RunRecord& record) override {
        if (!changed_.empty()) write(record, &changed_);
    }
    void run_ended(const RunRecord& record, const RunEnd&) override { write(record, nullptr); }
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

std::unique_ptr<RunReporter> make_plugin_json_reporter(const ReporterSettings& settings) {
    return std::make_unique<PluginJsonReporter>(settings.output_dir);
}

}  // namespace benchhost
