#include "json/report_reader.hpp"

#include "analysis/scenario_statistics.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "json/json_parse.hpp"
#include "json/result_json.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

using Value = rapidjson::Value;

/// Checked access to a JSON object, naming the path of what is wrong.
class Reader {
public:
    Reader(const Value& value, std::string path) : value_(value), path_(std::move(path)) {
        if (!value_.IsObject()) fail("", "must be an object");
    }

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw std::runtime_error(join(field) + ": " + problem);
    }
    std::string join(const std::string& field) const {
        return field.empty() ? path_ : path_.empty() ? field : path_ + "." + field;
    }
    bool has(const char* field) const { return value_.HasMember(field); }
    const Value& member(const char* field) const {
        auto it = value_.FindMember(field);
        if (it == value_.MemberEnd()) fail(field, "is missing");
        return it->value;
    }
    Reader object(const char* field) const { return Reader(member(field), join(field)); }
    std::string string(const char* field) const {
        const Value& v = member(field);
        if (!v.IsString()) fail(field, "must be a string");
        return {v.GetString(), v.GetStringLength()};
    }
    std::string string_or(const char* field, std::string fallback) const { return has(field) ? string(field) : fallback; }
    /// A number; null stands for a value that was not finite.
    double number(const char* field) const { return as_number(member(field), join(field)); }
    const Value& array(const char* field) const {
        const Value& v = member(field);
        if (!v.IsArray()) fail(field, "must be an array");
        return v;
    }
    const Value& value() const { return value_; }
    const std::string& path() const { return path_; }

    static double as_number(const Value& v, const std::string& where) {
        if (v.IsNull()) return std::numeric_limits<double>::quiet_NaN();
        if (!v.IsNumber()) throw std::runtime_error(where + ": must be a number");
        return v.GetDouble();
    }

private:
    const Value& value_;
    std::string path_;
};

std::map<std::string, std::string> string_map(const Reader& reader) {
    std::map<std::string, std::string> out;
    for (const auto& member : reader.value().GetObject()) {
        const std::string key(member.name.GetString(), member.name.GetStringLength());
        if (!member.value.IsString()) reader.fail(key, "must be a string");
        out[key] = std::string(member.value.GetString(), member.value.GetStringLength());
    }
    return out;
}

std::vector<std::string> string_list(const Value& array, const std::string& where) {
    if (!array.IsArray()) throw std::runtime_error(where + ": must be an array");
    std::vector<std::string> out;
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
        if (!array[i].IsString()) throw std::runtime_error(where + "[" + std::to_string(i) + "]: must be a string");
        out.emplace_back(array[i].GetString(), array[i].GetStringLength());
    }
    return out;
}

std::vector<double> number_list(const Value& array, const std::string& where) {
    if (!array.IsArray()) throw std::runtime_error(where + ": must be an array");
    std::vector<double> out;
    out.reserve(array.Size());
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i)
        out.push_back(Reader::as_number(array[i], where + "[" + std::to_string(i) + "]"));
    return out;
}

/// A scenario's "gpu_metrics" or "cpu_metrics" (report_writer.cpp, write_monitor).
bench::MonitorReport read_monitor(const Reader& monitor) {
    bench::MonitorReport report;
    const Value& available = monitor.member("available");
    if (!available.IsBool()) monitor.fail("available", "must be true or false");
    report.available = available.GetBool();
    report.reason = monitor.string_or("reason", "");
    if (monitor.has("metrics")) {
        const Reader metrics = monitor.object("metrics");
        for (const auto& member : metrics.value().GetObject()) {
            const std::string name(member.name.GetString(), member.name.GetStringLength());
            const Reader stats(member.value, metrics.join(name));
            bench::MetricStats out;
            out.mean = stats.number("mean");
            out.min = stats.number("min");
            out.max = stats.number("max");
            const Value& count = stats.member("count");
            if (!count.IsInt64()) stats.fail("count", "must be an integer");
            out.count = count.GetInt64();
            out.unit = stats.string("unit");
            report.metrics.emplace(name, std::move(out));
        }
    }
    if (monitor.has("values")) {
        const Reader values = monitor.object("values");
        for (const auto& member : values.value().GetObject()) {
            const std::string name(member.name.GetString(), member.name.GetStringLength());
            const Reader value(member.value, values.join(name));
            report.values.emplace(name, bench::MonitorValue{value.number("value"), value.string("unit")});
        }
    }
    if (monitor.has("flags")) {
        const Reader flags = monitor.object("flags");
        for (const auto& member : flags.value().GetObject()) {
            const std::string name(member.name.GetString(), member.name.GetStringLength());
            if (!member.value.IsBool()) flags.fail(name, "must be true or false");
            report.flags.emplace(name, member.value.GetBool());
        }
    }
    if (monitor.has("info")) report.info = string_map(monitor.object("info"));
    if (monitor.has("warnings")) report.warnings = string_list(monitor.member("warnings"), monitor.join("warnings"));
    if (monitor.has("timeline")) {
        const Reader timeline = monitor.object("timeline");
        report.timeline.time_s = number_list(timeline.member("time_s"), timeline.join("time_s"));
        const Reader series = timeline.object("series");
        for (const auto& member : series.value().GetObject()) {
            const std::string name(member.name.GetString(), member.name.GetStringLength());
            report.timeline.series.emplace(name, number_list(member.value, series.join(name)));
        }
    }
    return report;
}

std::string serialize(const Value& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return {buffer.GetString(), buffer.GetSize()};
}

ScenarioOutcome read_scenario(const Reader& scenario) {
    ScenarioOutcome outcome;
    const Reader metadata = scenario.object("metadata");
    const Reader config = metadata.object("config");
    try {
        outcome.config = config_from_json(serialize(config.value()));
    } catch (const std::runtime_error& e) {
        metadata.fail("config", e.what());
    }
    const std::string status = scenario.string("status");
    const auto parsed = bench::parse_status(status);
    if (!parsed) scenario.fail("status", "has an unknown value '" + status + "'");
    outcome.result.status = *parsed;
    outcome.result.reason = scenario.string_or("reason", "");
    outcome.started_at = metadata.string("timestamp");
    outcome.plugin_version = metadata.string_or("plugin_version", "");
    outcome.plugin_path = metadata.string_or("plugin_path", "");
    outcome.wall_time_s = scenario.has("wall_time_s") ? scenario.number("wall_time_s") : 0.0;
    outcome.log_tail = scenario.string_or("log_tail", "");
    if (scenario.has("info")) outcome.result.info = string_map(scenario.object("info"));
    if (scenario.has("warnings"))
        outcome.result.warnings = string_list(scenario.member("warnings"), scenario.join("warnings"));
    for (const auto& member : scenario.value().GetObject()) {
        const std::string name(member.name.GetString(), member.name.GetStringLength());
        if (!is_monitor_name(name) || outcome.result.monitors.count(name) > 0) continue;
        outcome.result.monitors.emplace(name, read_monitor(Reader(member.value, scenario.join(name))));
    }

    if (scenario.has("rounds")) outcome.rounds = static_cast<int>(scenario.number("rounds"));
    if (scenario.has("sampling")) {
        const Reader sampling = scenario.object("sampling");
        for (const auto& member : sampling.value().GetObject()) {
            const std::string name(member.name.GetString(), member.name.GetStringLength());
            const Reader item(member.value, sampling.join(name));
            bench::SamplingReport report;
            report.stop_reason = item.string("stop_reason");
            report.elapsed_s = item.number("elapsed_s");
            report.samples = static_cast<long long>(item.number("samples"));
            report.target_ci_width = item.has("target_ci_width") ? item.number("target_ci_width") : 0.0;
            if (!std::isfinite(report.target_ci_width)) report.target_ci_width = 0;
            report.ci_width = item.number("ci_width");
            report.clock_resolution_ns = item.number("clock_resolution_ns");
            report.clock_cost_ns = item.number("clock_cost_ns");
            outcome.result.sampling.emplace(name, std::move(report));
        }
    }

    const Reader measurements = scenario.object("measurements");
    for (const auto& member : measurements.value().GetObject()) {
        const std::string name(member.name.GetString(), member.name.GetStringLength());
        const Reader item(member.value, measurements.join(name));
        if (item.has("measurements")) {
            bench::Series series;
            series.name = name;
            series.unit = item.string("unit");
            series.inner_iterations = item.has("inner_iterations")
                                          ? static_cast<long long>(item.number("inner_iterations"))
                                          : 1;
            const Value& samples = item.array("measurements");
            for (rapidjson::SizeType i = 0; i < samples.Size(); ++i)
                series.samples.push_back(Reader::as_number(samples[i], item.join("measurements[" + std::to_string(i) + "]")));
            outcome.result.series.push_back(std::move(series));
        } else {
            outcome.result.scalars.push_back({name, item.number("value"), item.string("unit")});
        }
    }
    return outcome;
}

rapidjson::Document parse(std::string_view json, const std::string& origin) {
    rapidjson::Document document;
    if (const std::string error = parse_json(json, document); !error.empty())
        throw std::runtime_error(origin + ": invalid JSON: " + error);
    return document;
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file.string() + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

std::vector<ScenarioOutcome> parse_plugin_report(std::string_view json, const std::string& origin) {
    const rapidjson::Document document = parse(json, origin);
    const Reader report(document, origin);
    const Value& scenarios = report.array("benchmark_scenarios");
    std::vector<ScenarioOutcome> outcomes;
    for (rapidjson::SizeType i = 0; i < scenarios.Size(); ++i)
        outcomes.push_back(read_scenario(Reader(scenarios[i], report.join("benchmark_scenarios[" + std::to_string(i) + "]"))));
    return outcomes;
}

RunRecord read_run(const fs::path& dir) {
    const fs::path summary_file = dir / "benchmark_summary.json";
    const rapidjson::Document summary = parse(read_text(summary_file), summary_file.string());
    const Reader root(summary, summary_file.string());
    const Reader meta = root.object("run_metadata");

    RunRecord record;
    record.timestamp = meta.string("timestamp");
    record.started_at = meta.string("started_at");
    record.finished_at = meta.string_or("finished_at", "");
    const std::string state = meta.string_or("state", "");
    record.finished = state == "complete";
    record.interrupted = state == "interrupted";
    record.host_name = meta.string_or("host", "");
    record.commit_id = meta.string_or("commit_id", "unknown");
    record.host_version = meta.string_or("host_version", "");
    if (meta.has("config")) record.run_config = string_map(meta.object("config"));
    if (meta.has("shard")) {
        const Reader shard = meta.object("shard");
        ShardInfo info;
        info.index = static_cast<int>(shard.number("index"));
        info.count = static_cast<int>(shard.number("count"));
        info.plan_scenarios = static_cast<std::size_t>(shard.number("plan_scenarios"));
        info.plan_fingerprint = shard.string("plan_fingerprint");
        if (info.count < 1 || info.index < 1 || info.index > info.count)
            shard.fail("index", "must be between 1 and count");
        record.shard = info;
    }
    if (root.has("shards")) {
        const Value& shards = root.array("shards");
        for (rapidjson::SizeType i = 0; i < shards.Size(); ++i) {
            const Reader item(shards[i], root.join("shards[" + std::to_string(i) + "]"));
            ShardRecord shard;
            shard.index = static_cast<int>(item.number("index"));
            shard.host_name = item.string_or("host", "");
            shard.started_at = item.string_or("started_at", "");
            shard.finished_at = item.string_or("finished_at", "");
            shard.commit_id = item.string_or("commit_id", "");
            shard.source = item.string_or("source", "");
            if (item.has("hardware_info")) {
                const Reader hardware = item.object("hardware_info");
                for (const auto& section : hardware.value().GetObject()) {
                    const std::string name(section.name.GetString(), section.name.GetStringLength());
                    if (name == "warnings") continue;
                    shard.hardware[name] = string_map(Reader(section.value, hardware.join(name)));
                }
            }
            record.shards.push_back(std::move(shard));
        }
    }
    if (root.has("context")) {
        const Reader context = root.object("context");
        for (const auto& section : context.value().GetObject()) {
            const std::string name(section.name.GetString(), section.name.GetStringLength());
            if (name == "warnings") {
                record.hardware_warnings = string_list(section.value, context.join(name));
                continue;
            }
            record.hardware[name] = string_map(Reader(section.value, context.join(name)));
        }
    }

    // Each report once, in the order the summary first names it.
    std::map<std::string, std::vector<ScenarioOutcome>> reports;
    const Value& results = root.array("results");
    for (rapidjson::SizeType i = 0; i < results.Size(); ++i) {
        const Reader entry(results[i], root.join("results[" + std::to_string(i) + "]"));
        const std::string report = entry.string("report");
        if (report.empty() || fs::path(report).is_absolute() || report.find("..") != std::string::npos)
            entry.fail("report", "must be a path inside the run folder, got '" + report + "'");
        if (reports.count(report) > 0) continue;
        const fs::path file = dir / report;
        std::vector<ScenarioOutcome> outcomes = parse_plugin_report(read_text(file), file.string());
        record.outcomes.insert(record.outcomes.end(), outcomes.begin(), outcomes.end());
        reports[report] = {};
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
