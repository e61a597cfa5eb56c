#include "report/report_reader.hpp"

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include <rapidjson/document.h>

#include "analysis/scenario_statistics.hpp"
#include "json/field_reader.hpp"
#include "json/profile_json.hpp"
#include "json/report_schema.hpp"
#include "json/result_json.hpp"
#include "json/scenario_json.hpp"
#include "report/comparison_reporter.hpp"
#include "util/text_file.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

using Style = FieldReader::Style;

/// A report file's top level, after its schema check: a file of the current
/// schema_version must match docs/schema exactly; an older one (or one without a
/// version) is read field by field, with what older hosts left out taken as absent; a
/// newer one is refused.
FieldReader checked_top(const rapidjson::Document& document, const std::string& origin, ReportSchema schema) {
    const FieldReader top(document, origin, Style::dotted);
    if (!top.has("schema_version")) return top;
    const int version = top.integer("schema_version");
    const int current = schema == ReportSchema::comparison ? comparison_schema_version : report_schema_version;
    if (version > current)
        top["schema_version"].fail("is " + std::to_string(version) + ", newer than this benchhost reads (" +
                                   std::to_string(current) + ")");
    if (version == current) {
        if (const std::string why = schema_violation(document, schema); !why.empty())
            throw std::runtime_error(origin + ": does not match " + schema_file_name(schema) + " (schema_version " +
                                     std::to_string(version) + "): " + why);
    }
    return top;
}

/// "hardware_info" of a scenario or a shard, "context" of the summary: sections of text
/// facts, and the list of warnings.
HardwareInfo read_hardware(const FieldReader& object, std::vector<std::string>* warnings) {
    HardwareInfo hardware;
    object.as_object().each_member([&](const std::string& name, const FieldReader& section) {
        if (name != "warnings") {
            hardware[name] = section.as_string_map();
        } else if (warnings != nullptr) {
            *warnings = section.as_strings();
        }
    });
    return hardware;
}

ScenarioOutcome read_scenario(const FieldReader& scenario) {
    ScenarioOutcome outcome;
    const FieldReader metadata = scenario.object("metadata");
    outcome.config = read_config(metadata.object("config"));
    outcome.result.status = scenario.enumerated("status", bench::parse_status);
    outcome.result.reason = scenario.string_or("reason", "");
    outcome.started_at = metadata.string("timestamp");
    outcome.plugin_version = metadata.string_or("plugin_version", "");
    outcome.plugin_path = metadata.string_or("plugin_path", "");
    if (metadata.has("plugin_build")) outcome.plugin_build = read_plugin_build(metadata["plugin_build"]);
    outcome.wall_time_s = scenario.has("wall_time_s") ? scenario.number("wall_time_s") : 0.0;
    outcome.log_tail = scenario.string_or("log_tail", "");
    if (scenario.has("info")) outcome.result.info = scenario["info"].as_string_map();
    if (scenario.has("warnings")) outcome.result.warnings = scenario["warnings"].as_strings();
    scenario.each_member([&](const std::string& name, const FieldReader& field) {
        if (is_monitor_name(name)) outcome.result.monitors.emplace(name, read_monitor(field));
    });
    if (scenario.has("rounds")) outcome.rounds = scenario.integer("rounds");
    if (scenario.has("first_rounds")) outcome.first_rounds = scenario.integer("first_rounds");
    if (scenario.has("round_sizes")) outcome.round_sizes = read_round_sizes(scenario.object("round_sizes"));
    if (scenario.has("sampling")) outcome.result.sampling = read_sampling(scenario.object("sampling"));
    if (scenario.has("peak_search")) outcome.result.peak_search = read_peak_search(scenario["peak_search"]);
    if (scenario.has("accuracy")) outcome.result.accuracy = read_accuracy(scenario["accuracy"]);
    if (scenario.has("device_state")) outcome.result.device_state = read_device_state(scenario["device_state"]);
    if (scenario.has("profile")) outcome.result.profile = read_profile(scenario["profile"]);

    scenario.object("measurements").each_member([&](const std::string& name, const FieldReader& field) {
        const FieldReader item = field.as_object();
        if (item.has("measurements")) {
            std::vector<double> times;
            outcome.result.series.push_back(read_series(item, name, &times));
            if (!times.empty()) outcome.result.sample_times[name] = std::move(times);
        } else {
            outcome.result.scalars.push_back(read_figure(item, name));
        }
    });
    return outcome;
}

/// A number that strict JSON may have written as null (not finite), or left out: NaN.
double number_or_nan(const FieldReader& object, const char* key) { return object.has(key) ? object.number(key) : NAN; }

std::vector<std::string> strings_or_none(const FieldReader& object, const char* key) {
    return object.has(key) ? object[key].as_strings() : std::vector<std::string>{};
}

SideLoad read_load(const FieldReader& load) {
    SideLoad side;
    side.scenarios = static_cast<std::size_t>(load.integer64("monitored_scenarios"));
    side.machine_busy_percent = number_or_nan(load, "machine_busy_percent");
    side.other_cpus = number_or_nan(load, "other_cpus");
    side.load_average = number_or_nan(load, "load_average");
    return side;
}

SeriesComparison read_comparison_row(const FieldReader& row) {
    SeriesComparison c;
    c.scenario_id = row.string("scenario_id");
    c.series = row.string("series");
    c.base_median_ms = row.number("base_median_ms");
    c.new_median_ms = row.number("new_median_ms");
    c.unit = row.string_or("unit", "ms");
    c.base_samples = static_cast<std::size_t>(row.integer64("base_samples"));
    c.new_samples = static_cast<std::size_t>(row.integer64("new_samples"));
    c.ratio = row.number("ratio");
    c.ratio_ci = row["ratio_ci95"].as_interval();
    // Null where the U test is not the evidence (comparison_json): the default then.
    if (row.has("p_value") && !row["p_value"].value().IsNull()) c.p_value = row.number("p_value");
    c.verdict = row.enumerated("verdict", parse_verdict);
    c.evidence = row.string_or("evidence", "samples");
    if (row.has("base_rounds")) c.base_rounds = row.integer("base_rounds");
    if (row.has("new_rounds")) c.new_rounds = row.integer("new_rounds");
    if (row.has("history_runs")) c.history_runs = static_cast<std::size_t>(row.integer64("history_runs"));
    if (row.has("verdict_level")) {
        c.verdict_level = row.number("verdict_level");
        c.verdict_ci = row["verdict_ci"].as_interval();
    }
    c.note = row.string_or("note", "");
    if (row.has("first")) {
        const FieldReader first = row.object("first");
        SeriesComparison::First f;
        f.ratio = first.number("ratio");
        f.ratio_ci = first["ratio_ci95"].as_interval();
        f.verdict = first.enumerated("verdict", parse_verdict);
        f.base_rounds = first.integer("base_rounds");
        f.new_rounds = first.integer("new_rounds");
        c.first = f;
    }
    return c;
}

}  // namespace

Comparison parse_comparison(std::string_view json, const std::string& origin) {
    const rapidjson::Document document = FieldReader::parse(json, origin, Style::dotted);
    const FieldReader top = checked_top(document, origin, ReportSchema::comparison);
    Comparison c;
    c.base_label = top.string("base");
    c.new_label = top.string("new");
    c.options.paired = top.string_or("mode", "runs") == "ab";
    c.options.threshold = top.number("threshold");
    if (top.has("alpha")) c.options.alpha = top.number("alpha");
    if (top.has("noise_floor")) c.options.noise_floor = top.number("noise_floor");
    c.incomparable = strings_or_none(top, "incomparable");
    const FieldReader rows = top.array("rows");
    for (std::size_t i = 0; i < rows.size(); ++i) c.rows.push_back(read_comparison_row(rows.at(i).as_object()));
    c.geomean_ratio = number_or_nan(top, "geomean_ratio");
    c.only_in_base = strings_or_none(top, "only_in_base");
    c.only_in_new = strings_or_none(top, "only_in_new");
    c.not_compared = strings_or_none(top, "not_compared");
    c.notes = strings_or_none(top, "notes");
    // Older files do not say what differs: unknown, not "nothing".
    if (top.has("differences")) {
        const FieldReader differences = top.array("differences");
        c.differences.emplace();
        for (std::size_t i = 0; i < differences.size(); ++i) {
            const FieldReader d = differences.at(i).as_object();
            c.differences->push_back({d.string("what"), d.string("base"), d.string("new")});
        }
    }
    if (top.has("load")) {
        const FieldReader load = top.object("load");
        c.base_load = read_load(load.object("base"));
        c.new_load = read_load(load.object("new"));
    }
    return c;
}

std::vector<ScenarioOutcome> parse_plugin_report(std::string_view json, const std::string& origin) {
    const rapidjson::Document document = FieldReader::parse(json, origin, Style::dotted);
    const FieldReader report = checked_top(document, origin, ReportSchema::report);
    const FieldReader scenarios = report.array("benchmark_scenarios");
    std::vector<ScenarioOutcome> outcomes;
    for (std::size_t i = 0; i < scenarios.size(); ++i) outcomes.push_back(read_scenario(scenarios.at(i).as_object()));
    return outcomes;
}

std::optional<Comparison> kept_comparison(const fs::path& dir, const std::string& without, std::ostream& warnings) {
    const fs::path file = dir / "comparison.json";
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    try {
        return parse_comparison(read_text_file(file), file.string());
    } catch (const std::exception& e) {
        warnings << "benchhost: warning: " << e.what() << ": " << without << "\n";
        return std::nullopt;
    }
}

RunRecord read_run(const fs::path& dir) {
    const fs::path summary_file = dir / "benchmark_summary.json";
    const std::string origin = summary_file.string();
    const rapidjson::Document summary = FieldReader::parse(read_text_file(summary_file), origin, Style::dotted);
    const FieldReader root = checked_top(summary, origin, ReportSchema::summary);
    const FieldReader meta = root.object("run_metadata");

    RunRecord record;
    record.run_id = meta.string_or("run_id", "");  // none before schema_version 11
    record.timestamp = meta.string("timestamp");
    record.started_at = meta.string("started_at");
    record.finished_at = meta.string_or("finished_at", "");
    const std::string state = meta.string_or("state", "");
    record.finished = state == "complete";
    record.interrupted = state == "interrupted";
    record.host_name = meta.string_or("host", "");
    record.commit_id = meta.string_or("commit_id", "unknown");
    record.host_version = meta.string_or("host_version", "");
    if (meta.has("config")) record.run_config = meta["config"].as_string_map();
    if (meta.has("shard")) record.shard = read_shard(meta["shard"]);
    if (root.has("shards")) {
        const FieldReader shards = root.array("shards");
        for (std::size_t i = 0; i < shards.size(); ++i) {
            const FieldReader item = shards.at(i).as_object();
            ShardRecord shard;
            shard.index = item.integer("index");
            shard.host_name = item.string_or("host", "");
            shard.started_at = item.string_or("started_at", "");
            shard.finished_at = item.string_or("finished_at", "");
            shard.commit_id = item.string_or("commit_id", "");
            shard.source = item.string_or("source", "");
            if (item.has("hardware_info")) shard.hardware = read_hardware(item["hardware_info"], nullptr);
            record.shards.push_back(std::move(shard));
        }
    }
    if (root.has("context")) record.hardware = read_hardware(root["context"], &record.hardware_warnings);

    // Each report once, in the order the summary first names it.
    std::set<std::string> reports;
    const FieldReader results = root.array("results");
    for (std::size_t i = 0; i < results.size(); ++i) {
        const FieldReader entry = results.at(i).as_object();
        const std::string report = entry.string("report");
        if (report.empty() || fs::path(report).is_absolute() || report.find("..") != std::string::npos)
            entry["report"].fail("must be a path inside the run folder, got '" + report + "'");
        if (!reports.insert(report).second) continue;
        const fs::path file = dir / report;
        std::vector<ScenarioOutcome> outcomes = parse_plugin_report(read_text_file(file), file.string());
        record.outcomes.insert(record.outcomes.end(), outcomes.begin(), outcomes.end());
    }
    analyze_run(record);  // the statistics of every scenario, once, for whoever reads the record
    return record;
}

fs::path run_folder_of(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return path;
    if (path.filename() != "benchmark_summary.json")
        throw std::runtime_error(path.string() + ": not a run folder or its benchmark_summary.json");
    return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

}  // namespace benchhost
