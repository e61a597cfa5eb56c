// The worker protocol and the run journal: a ScenarioConfig and a ScenarioResult in
// protocol_json (json/json_writer.hpp), the blocks they share with the reports written
// and read by json/scenario_json.hpp.
//
// Layout:
//   config: json/scenario_json.hpp
//   result: {"status", "reason",
//            "series": [series, ...] (listed: with "name"),
//            "scalars": [{"name", "value", "unit"}, ...],
//            "info": {key: value},
//            "warnings": [text, ...],
//            "monitors": {"gpu_metrics": monitor, "cpu_metrics": monitor},
//            "sampling": sampling,
//            "peak_search": peak search (only with --find-peak),
//            "accuracy": accuracy,
//            "profile": profile (json/profile_json.hpp; only with --profile)}
//   the processes the worker server stopped after a worker: {"processes": [{"pid", "command"}, ...]}
//
// Non-finite numbers: this is a private protocol between the host and its own workers,
// so NaN and +-infinity are written as the NaN / Infinity / -Infinity tokens and text as
// its bytes: they round-trip exactly. A null where a number is expected is read as NaN,
// so that strict-JSON producers (and the reports, which write null) can be read too.
// Numbers are parsed with full precision, so every finite double round-trips bit for bit.
//
// Reading is strict: every field written is required and must have the type written
// (but "warnings", "monitors", "sampling", "peak_search" and "accuracy", added later, may be absent: none, and so
// may the optional fields of the blocks); unknown fields are ignored. A monitor's name
// must end in "_metrics" (it becomes a key of the scenario in the report). Errors name
// the field by its path, e.g. "result JSON: field 'series[2].unit' is missing".

#include "json/result_json.hpp"

#include <string>
#include <utility>

#include "json/field_reader.hpp"
#include "json/json_writer.hpp"
#include "json/profile_json.hpp"
#include "json/scenario_json.hpp"

namespace benchhost {
namespace {

void write_result(JsonOut& out, const bench::ScenarioResult& result) {
    out.start_object();
    out.field("status", bench::to_string(result.status));
    out.field("reason", result.reason);
    out.key("series");
    out.start_array();
    for (const auto& series : result.series) {
        const auto times = result.sample_times.find(series.name);
        write_series(out, series, nullptr, times == result.sample_times.end() ? nullptr : &times->second);
    }
    out.end_array();
    out.key("scalars");
    out.start_array();
    for (const auto& scalar : result.scalars) write_figure(out, scalar.value, scalar.unit, scalar.name);
    out.end_array();
    out.field("info", result.info);
    out.field("warnings", result.warnings);
    out.key("monitors");
    out.start_object();
    for (const auto& [name, report] : result.monitors) {
        out.key(name);
        write_monitor(out, report);
    }
    out.end_object();
    out.key("sampling");
    write_sampling(out, result.sampling);
    if (result.peak_search) {
        out.key("peak_search");
        write_peak_search(out, *result.peak_search);
    }
    out.key("accuracy");
    write_accuracy(out, result.accuracy);
    if (result.profile) {
        out.key("profile");
        write_profile(out, *result.profile);
    }
    if (!result.device_state.empty()) {
        out.key("device_state");
        write_device_state(out, result.device_state);
    }
    out.end_object();
}

bench::ScenarioResult read_result(const FieldReader& object) {
    const FieldReader document = object.as_object();
    bench::ScenarioResult result;
    result.status = document.enumerated("status", bench::parse_status);
    result.reason = document.string("reason");
    const FieldReader series = document.array("series");
    for (std::size_t i = 0; i < series.size(); ++i) {
        std::vector<double> times;
        result.series.push_back(read_series(series.at(i).as_object(), std::nullopt, &times));
        if (!times.empty()) result.sample_times[result.series.back().name] = std::move(times);
    }
    const FieldReader scalars = document.array("scalars");
    for (std::size_t i = 0; i < scalars.size(); ++i) result.scalars.push_back(read_figure(scalars.at(i).as_object()));
    result.info = document["info"].as_string_map();
    if (document.has("warnings")) result.warnings = document["warnings"].as_strings();
    if (document.has("monitors")) {
        document.object("monitors").each_member([&](const std::string& name, const FieldReader& monitor) {
            if (!is_monitor_name(name))
                monitor.fail_because(
                    "a monitor's name must be lower-case letters, digits and '_', ending in \"_metrics\"");
            result.monitors.emplace(name, read_monitor(monitor));
        });
    }
    if (document.has("sampling")) result.sampling = read_sampling(document.object("sampling"));
    if (document.has("peak_search")) result.peak_search = read_peak_search(document["peak_search"]);
    if (document.has("accuracy")) result.accuracy = read_accuracy(document["accuracy"]);
    if (document.has("profile")) result.profile = read_profile(document["profile"]);
    if (document.has("device_state")) result.device_state = read_device_state(document["device_state"]);
    return result;
}

template <class Write>
std::string protocol_text(Write&& write) {
    JsonOut out(protocol_json);
    write(out);
    return out.json();
}

/// Parses one protocol document and reads it with `read`.
template <class Read>
auto read_protocol(std::string_view json, const std::string& origin, Read&& read) {
    const rapidjson::Document document = FieldReader::parse(json, origin);
    return read(FieldReader(document, origin));
}

}  // namespace

bool is_monitor_name(std::string_view name) {
    constexpr std::string_view suffix = "_metrics";
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::string config_to_json(const bench::ScenarioConfig& config) {
    return protocol_text([&](JsonOut& out) { write_config(out, config); });
}

bench::ScenarioConfig config_from_json(std::string_view json) {
    return read_protocol(json, "config JSON", read_config);
}

std::string result_to_json(const bench::ScenarioResult& result) {
    return protocol_text([&](JsonOut& out) { write_result(out, result); });
}

bench::ScenarioResult result_from_json(std::string_view json) {
    return read_protocol(json, "result JSON", read_result);
}

std::string stopped_processes_to_json(const std::vector<StoppedProcess>& processes) {
    return protocol_text([&](JsonOut& out) {
        out.start_object();
        out.key("processes");
        out.start_array();
        for (const StoppedProcess& process : processes) {
            out.start_object();
            out.field("pid", process.pid);
            out.field("command", process.command);
            out.end_object();
        }
        out.end_array();
        out.end_object();
    });
}

std::vector<StoppedProcess> stopped_processes_from_json(std::string_view json) {
    return read_protocol(json, "stopped processes JSON", [](const FieldReader& document) {
        const FieldReader list = document.array("processes");
        std::vector<StoppedProcess> processes;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const FieldReader process = list.at(i).as_object();
            processes.push_back({process.integer("pid"), process.string("command")});
        }
        return processes;
    });
}

// ---- The run journal ----------------------------------------------------------------

std::string journal_header_line(const JournalHeader& header) {
    return protocol_text([&](JsonOut& out) {
               out.start_object();
               out.field("journal", journal_format_name);
               out.field("version", journal_format_version);
               if (!header.run_id.empty()) out.field("run_id", header.run_id);
               out.field("timestamp", header.timestamp);
               out.field("started_at", header.started_at);
               out.field("commit_id", header.commit_id);
               out.field("host_version", header.host_version);
               out.field("run_config", header.run_config);
               if (header.shard) {
                   out.key("shard");
                   write_shard(out, *header.shard);
               }
               out.end_object();
           }) +
           "\n";
}

std::string journal_outcome_line(const ScenarioOutcome& outcome, int round) {
    return protocol_text([&](JsonOut& out) {
               out.start_object();
               out.field("round", round);
               out.field("plugin_path", outcome.plugin_path.string());
               out.field("plugin_version", outcome.plugin_version);
               out.key("plugin_build");
               write_plugin_build(out, outcome.plugin_build);
               out.field("started_at", outcome.started_at);
               out.field("wall_time_s", outcome.wall_time_s);
               out.field("log_tail", outcome.log_tail);
               out.field("crashed_while_loading", outcome.crashed_while_loading);
               if (outcome.first_rounds > 0) out.field("confirms_after", outcome.first_rounds);
               out.key("config");
               write_config(out, outcome.config);
               out.key("result");
               write_result(out, outcome.result);
               out.end_object();
           }) +
           "\n";
}

JournalLine parse_journal_line(std::string_view line, const std::string& origin) {
    const rapidjson::Document document = FieldReader::parse(line, origin);
    const FieldReader read(document, origin);
    JournalLine parsed;
    if (read.has("journal")) {
        if (read.string("journal") != journal_format_name) read.fail("not a benchhost run journal");
        const int version = read.integer("version");
        if (version > journal_format_version)
            read.fail("journal version " + std::to_string(version) + " is newer than this benchhost reads (" +
                      std::to_string(journal_format_version) + ")");
        JournalHeader header;
        header.run_id = read.string_or("run_id", "");
        header.timestamp = read.string("timestamp");
        header.started_at = read.string("started_at");
        header.commit_id = read.string("commit_id");
        header.host_version = read.string("host_version");
        header.run_config = read["run_config"].as_string_map();
        if (read.has("shard")) header.shard = read_shard(read["shard"]);
        parsed.header = std::move(header);
        return parsed;
    }
    ScenarioOutcome outcome;
    parsed.round = read.integer("round");
    outcome.plugin_path = read.string("plugin_path");
    outcome.plugin_version = read.string("plugin_version");
    if (read.has("plugin_build")) outcome.plugin_build = read_plugin_build(read["plugin_build"]);
    outcome.started_at = read.string("started_at");
    outcome.wall_time_s = read.number("wall_time_s");
    outcome.log_tail = read.string("log_tail");
    outcome.crashed_while_loading = read.boolean("crashed_while_loading");
    if (read.has("confirms_after")) outcome.first_rounds = read.integer("confirms_after");
    outcome.config = read_config(read.object("config"));
    outcome.result = read_result(read["result"]);
    parsed.outcome = std::move(outcome);
    return parsed;
}

}  // namespace benchhost
