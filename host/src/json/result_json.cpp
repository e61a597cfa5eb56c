// JSON form of ScenarioConfig and ScenarioResult (the worker protocol).
//
// Layout:
//   config: {"category", "plugin", "benchmark", "scenario_name", "variant", "compile_mode",
//            "batch_size", "dtype", "device", "threads", "warmup_iterations",
//            "measurement_iterations", "num_tokens_to_generate", "model_id",
//            "params": {key: [value, ...]},
//            "min_time_s", "max_time_s", "target_ci_width"}
//           (the last three were added later: absent means 0, no time rule)
//   result: {"status", "reason",
//            "series": [{"name", "unit", "inner_iterations", "samples": [number, ...]}],
//            "scalars": [{"name", "value", "unit"}],
//            "info": {key: value},
//            "warnings": [text, ...],
//            "monitors": {"gpu_metrics": monitor, "cpu_metrics": monitor},
//            "sampling": {series name: {"stop_reason", "elapsed_s", "samples", "target_ci_width",
//                                       "ci_width", "clock_resolution_ns", "clock_cost_ns"}}}
//   monitor: {"available", "reason",
//             "metrics": {name: {"mean", "min", "max", "count", "unit"}},
//             "values": {name: {"value", "unit"}},
//             "flags": {name: bool}, "info": {key: value}, "warnings": [text, ...],
//             "timeline": {"time_s": [number, ...], "series": {name: [number, ...]}}}
//
// Non-finite numbers: this is a private protocol between the host and its own workers,
// so NaN and +-infinity are written as RapidJSON's NaN / Infinity / -Infinity tokens
// (kWriteNanAndInfFlag) and read back with kParseNanAndInfFlag: they round-trip exactly.
// A null where a number is expected is also read as NaN, so that strict-JSON producers
// (and the reports, which write null) can be read too. Numbers are parsed with full
// precision, so every finite double round-trips bit for bit.
//
// Reading is strict: every field written above is required and must have the type
// written (but "warnings", "monitors" and "sampling", added later, may be absent: none); unknown
// fields are ignored. A monitor's name must end in "_metrics" (it becomes a key of
// the scenario in the report). Errors name the field by its path, e.g.
// "result JSON: field 'series[2].unit' is missing".

#include "json/result_json.hpp"

#include "json/json_parse.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace benchhost {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                 rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;
using Value = rapidjson::Value;


void write_string(Writer& writer, std::string_view text) {
    writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_key(Writer& writer, std::string_view key) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void write_field(Writer& writer, std::string_view key, std::string_view value) {
    write_key(writer, key);
    write_string(writer, value);
}

void write_field(Writer& writer, std::string_view key, int value) {
    write_key(writer, key);
    writer.Int(value);
}

void write_field(Writer& writer, std::string_view key, double value) {
    write_key(writer, key);
    writer.Double(value);
}

// Reads fields of one document and reports errors as "<what>: field '<path>' ...".
class FieldReader {
public:
    explicit FieldReader(std::string what) : what_(std::move(what)) {}

    [[noreturn]] void fail(const std::string& message) const {
        throw std::runtime_error(what_ + ": " + message);
    }
    [[noreturn]] void missing(const std::string& path) const {
        fail("field '" + path + "' is missing");
    }
    [[noreturn]] void wrong_type(const std::string& path, const char* expected) const {
        fail("field '" + path + "' must be " + expected);
    }

    rapidjson::Document parse(std::string_view json) const {
        rapidjson::Document document;
        if (const std::string error = parse_json(json, document); !error.empty()) fail(error);
        if (!document.IsObject()) fail("expected an object at the top level");
        return document;
    }

    static std::string join(const std::string& prefix, const char* key) {
        return prefix.empty() ? std::string(key) : prefix + "." + key;
    }

    const Value& member(const Value& object, const char* key, const std::string& path) const {
        const auto it = object.FindMember(key);
        if (it == object.MemberEnd()) missing(path);
        return it->value;
    }

    std::string string(const Value& object, const char* key, const std::string& prefix = {}) const {
        const std::string path = join(prefix, key);
        const Value& value = member(object, key, path);
        if (!value.IsString()) wrong_type(path, "a string");
        return {value.GetString(), value.GetStringLength()};
    }

    int integer(const Value& object, const char* key, const std::string& prefix = {}) const {
        const std::string path = join(prefix, key);
        const Value& value = member(object, key, path);
        if (!value.IsInt()) wrong_type(path, "an integer");
        return value.GetInt();
    }

    long long integer64(const Value& object, const char* key, const std::string& prefix = {}) const {
        const std::string path = join(prefix, key);
        const Value& value = member(object, key, path);
        if (!value.IsInt64()) wrong_type(path, "an integer");
        return value.GetInt64();
    }

    bool boolean(const Value& value, const std::string& path) const {
        if (!value.IsBool()) wrong_type(path, "true or false");
        return value.GetBool();
    }

    double number(const Value& value, const std::string& path) const {
        if (value.IsNull()) return std::numeric_limits<double>::quiet_NaN();
        if (!value.IsNumber()) wrong_type(path, "a number or null");
        return value.GetDouble();
    }

    double number(const Value& object, const char* key, const std::string& prefix = {}) const {
        const std::string path = join(prefix, key);
        return number(member(object, key, path), path);
    }

    const Value& array(const Value& object, const char* key, const std::string& prefix = {}) const {
        const std::string path = join(prefix, key);
        const Value& value = member(object, key, path);
        if (!value.IsArray()) wrong_type(path, "an array");
        return value;
    }

    const Value& object(const Value& parent, const char* key, const std::string& prefix = {}) const {
        const std::string path = join(prefix, key);
        const Value& value = member(parent, key, path);
        if (!value.IsObject()) wrong_type(path, "an object");
        return value;
    }

    // For an element of an array: path is e.g. "series[2]".
    void require_object(const Value& value, const std::string& path) const {
        if (!value.IsObject()) wrong_type(path, "an object");
    }

private:
    std::string what_;
};

std::string indexed(const char* name, rapidjson::SizeType index) {
    return std::string(name) + "[" + std::to_string(index) + "]";
}

void write_numbers(Writer& writer, const std::vector<double>& values) {
    writer.StartArray();
    for (const double v : values) writer.Double(v);
    writer.EndArray();
}

void write_strings(Writer& writer, const std::vector<std::string>& values) {
    writer.StartArray();
    for (const auto& v : values) write_string(writer, v);
    writer.EndArray();
}

void write_monitor(Writer& writer, const bench::MonitorReport& report) {
    writer.StartObject();
    write_key(writer, "available");
    writer.Bool(report.available);
    write_field(writer, "reason", report.reason);
    write_key(writer, "metrics");
    writer.StartObject();
    for (const auto& [name, stats] : report.metrics) {
        write_key(writer, name);
        writer.StartObject();
        write_key(writer, "mean");
        writer.Double(stats.mean);
        write_key(writer, "min");
        writer.Double(stats.min);
        write_key(writer, "max");
        writer.Double(stats.max);
        write_key(writer, "count");
        writer.Int64(stats.count);
        write_field(writer, "unit", stats.unit);
        writer.EndObject();
    }
    writer.EndObject();
    write_key(writer, "values");
    writer.StartObject();
    for (const auto& [name, value] : report.values) {
        write_key(writer, name);
        writer.StartObject();
        write_key(writer, "value");
        writer.Double(value.value);
        write_field(writer, "unit", value.unit);
        writer.EndObject();
    }
    writer.EndObject();
    write_key(writer, "flags");
    writer.StartObject();
    for (const auto& [name, flag] : report.flags) {
        write_key(writer, name);
        writer.Bool(flag);
    }
    writer.EndObject();
    write_key(writer, "info");
    writer.StartObject();
    for (const auto& [key, value] : report.info) write_field(writer, key, value);
    writer.EndObject();
    write_key(writer, "warnings");
    write_strings(writer, report.warnings);
    write_key(writer, "timeline");
    writer.StartObject();
    write_key(writer, "time_s");
    write_numbers(writer, report.timeline.time_s);
    write_key(writer, "series");
    writer.StartObject();
    for (const auto& [name, values] : report.timeline.series) {
        write_key(writer, name);
        write_numbers(writer, values);
    }
    writer.EndObject();
    writer.EndObject();
    writer.EndObject();
}

std::vector<double> read_numbers(const FieldReader& read, const Value& array, const std::string& path) {
    if (!array.IsArray()) read.wrong_type(path, "an array");
    std::vector<double> values;
    values.reserve(array.Size());
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) values.push_back(read.number(array[i], path + "[" + std::to_string(i) + "]"));
    return values;
}

std::vector<std::string> read_strings(const FieldReader& read, const Value& array, const std::string& path) {
    if (!array.IsArray()) read.wrong_type(path, "an array");
    std::vector<std::string> values;
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
        if (!array[i].IsString()) read.wrong_type(path + "[" + std::to_string(i) + "]", "a string");
        values.emplace_back(array[i].GetString(), array[i].GetStringLength());
    }
    return values;
}

std::string name_of(const Value::ConstMemberIterator& it) { return {it->name.GetString(), it->name.GetStringLength()}; }

bench::MonitorReport read_monitor(const FieldReader& read, const Value& object, const std::string& path) {
    read.require_object(object, path);
    bench::MonitorReport report;
    report.available = read.boolean(read.member(object, "available", path + ".available"), path + ".available");
    report.reason = read.string(object, "reason", path);
    const Value& metrics = read.object(object, "metrics", path);
    for (auto it = metrics.MemberBegin(); it != metrics.MemberEnd(); ++it) {
        const std::string where = path + ".metrics." + name_of(it);
        read.require_object(it->value, where);
        bench::MetricStats stats;
        stats.mean = read.number(it->value, "mean", where);
        stats.min = read.number(it->value, "min", where);
        stats.max = read.number(it->value, "max", where);
        stats.count = read.integer64(it->value, "count", where);
        stats.unit = read.string(it->value, "unit", where);
        report.metrics.emplace(name_of(it), std::move(stats));
    }
    const Value& values = read.object(object, "values", path);
    for (auto it = values.MemberBegin(); it != values.MemberEnd(); ++it) {
        const std::string where = path + ".values." + name_of(it);
        read.require_object(it->value, where);
        report.values.emplace(name_of(it), bench::MonitorValue{read.number(it->value, "value", where),
                                                                read.string(it->value, "unit", where)});
    }
    const Value& flags = read.object(object, "flags", path);
    for (auto it = flags.MemberBegin(); it != flags.MemberEnd(); ++it)
        report.flags.emplace(name_of(it), read.boolean(it->value, path + ".flags." + name_of(it)));
    const Value& info = read.object(object, "info", path);
    for (auto it = info.MemberBegin(); it != info.MemberEnd(); ++it) {
        if (!it->value.IsString()) read.wrong_type(path + ".info." + name_of(it), "a string");
        report.info.emplace(name_of(it), std::string(it->value.GetString(), it->value.GetStringLength()));
    }
    report.warnings = read_strings(read, read.array(object, "warnings", path), path + ".warnings");
    const Value& timeline = read.object(object, "timeline", path);
    const std::string timeline_path = path + ".timeline";
    report.timeline.time_s = read_numbers(read, read.array(timeline, "time_s", timeline_path), timeline_path + ".time_s");
    const Value& series = read.object(timeline, "series", timeline_path);
    for (auto it = series.MemberBegin(); it != series.MemberEnd(); ++it)
        report.timeline.series.emplace(name_of(it), read_numbers(read, it->value, timeline_path + ".series." + name_of(it)));
    return report;
}

}  // namespace

bool is_monitor_name(std::string_view name) {
    constexpr std::string_view suffix = "_metrics";
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

namespace {

void write_config(Writer& writer, const bench::ScenarioConfig& config) {
    writer.StartObject();
    write_field(writer, "category", config.category);
    write_field(writer, "plugin", config.plugin);
    write_field(writer, "benchmark", config.benchmark);
    write_field(writer, "scenario_name", config.scenario_name);
    write_field(writer, "variant", bench::to_string(config.variant));
    write_field(writer, "compile_mode", config.compile_mode);
    write_field(writer, "batch_size", config.batch_size);
    write_field(writer, "dtype", config.dtype);
    write_field(writer, "device", config.device);
    write_field(writer, "threads", config.threads);
    write_field(writer, "warmup_iterations", config.warmup_iterations);
    write_field(writer, "measurement_iterations", config.measurement_iterations);
    write_field(writer, "num_tokens_to_generate", config.num_tokens_to_generate);
    write_field(writer, "model_id", config.model_id);
    write_field(writer, "min_time_s", config.min_time_s);
    write_field(writer, "max_time_s", config.max_time_s);
    write_field(writer, "target_ci_width", config.target_ci_width);
    write_key(writer, "params");
    writer.StartObject();
    for (const auto& [key, values] : config.params.all()) {
        write_key(writer, key);
        writer.StartArray();
        for (const auto& value : values) write_string(writer, value);
        writer.EndArray();
    }
    writer.EndObject();
    writer.EndObject();
}

bench::ScenarioConfig read_config(const FieldReader& read, const Value& document) {
    bench::ScenarioConfig config;
    config.category = read.string(document, "category");
    config.plugin = read.string(document, "plugin");
    config.benchmark = read.string(document, "benchmark");
    config.scenario_name = read.string(document, "scenario_name");
    const std::string variant = read.string(document, "variant");
    const auto parsed_variant = bench::parse_variant(variant);
    if (!parsed_variant) read.fail("field 'variant' has an unknown value '" + variant + "'");
    config.variant = *parsed_variant;
    config.compile_mode = read.string(document, "compile_mode");
    config.batch_size = read.integer(document, "batch_size");
    config.dtype = read.string(document, "dtype");
    config.device = read.string(document, "device");
    config.threads = read.integer(document, "threads");
    config.warmup_iterations = read.integer(document, "warmup_iterations");
    config.measurement_iterations = read.integer(document, "measurement_iterations");
    config.num_tokens_to_generate = read.integer(document, "num_tokens_to_generate");
    config.model_id = read.string(document, "model_id");
    if (document.HasMember("min_time_s")) config.min_time_s = read.number(document, "min_time_s");
    if (document.HasMember("max_time_s")) config.max_time_s = read.number(document, "max_time_s");
    if (document.HasMember("target_ci_width")) config.target_ci_width = read.number(document, "target_ci_width");

    const Value& params = read.object(document, "params");
    for (auto it = params.MemberBegin(); it != params.MemberEnd(); ++it) {
        std::string key(it->name.GetString(), it->name.GetStringLength());
        const std::string path = "params." + key;
        if (!it->value.IsArray()) read.wrong_type(path, "an array of strings");
        bench::Params::Values values;
        for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
            const Value& element = it->value[i];
            if (!element.IsString()) read.wrong_type(path + "[" + std::to_string(i) + "]", "a string");
            values.emplace_back(element.GetString(), element.GetStringLength());
        }
        config.params.set(std::move(key), std::move(values));
    }
    return config;
}

void write_result(Writer& writer, const bench::ScenarioResult& result) {
    writer.StartObject();
    write_field(writer, "status", bench::to_string(result.status));
    write_field(writer, "reason", result.reason);

    write_key(writer, "series");
    writer.StartArray();
    for (const auto& series : result.series) {
        writer.StartObject();
        write_field(writer, "name", series.name);
        write_field(writer, "unit", series.unit);
        write_key(writer, "inner_iterations");
        writer.Int64(series.inner_iterations);
        write_key(writer, "samples");
        writer.StartArray();
        for (const double sample : series.samples) writer.Double(sample);
        writer.EndArray();
        writer.EndObject();
    }
    writer.EndArray();

    write_key(writer, "scalars");
    writer.StartArray();
    for (const auto& scalar : result.scalars) {
        writer.StartObject();
        write_field(writer, "name", scalar.name);
        write_key(writer, "value");
        writer.Double(scalar.value);
        write_field(writer, "unit", scalar.unit);
        writer.EndObject();
    }
    writer.EndArray();

    write_key(writer, "info");
    writer.StartObject();
    for (const auto& [key, value] : result.info) write_field(writer, key, value);
    writer.EndObject();

    write_key(writer, "warnings");
    write_strings(writer, result.warnings);
    write_key(writer, "monitors");
    writer.StartObject();
    for (const auto& [name, report] : result.monitors) {
        write_key(writer, name);
        write_monitor(writer, report);
    }
    writer.EndObject();

    write_key(writer, "sampling");
    writer.StartObject();
    for (const auto& [name, sampling] : result.sampling) {
        write_key(writer, name);
        writer.StartObject();
        write_field(writer, "stop_reason", sampling.stop_reason);
        write_field(writer, "elapsed_s", sampling.elapsed_s);
        write_key(writer, "samples");
        writer.Int64(sampling.samples);
        write_field(writer, "target_ci_width", sampling.target_ci_width);
        write_field(writer, "ci_width", sampling.ci_width);
        write_field(writer, "clock_resolution_ns", sampling.clock_resolution_ns);
        write_field(writer, "clock_cost_ns", sampling.clock_cost_ns);
        writer.EndObject();
    }
    writer.EndObject();

    writer.EndObject();
}

bench::ScenarioResult read_result(const FieldReader& read, const Value& document) {
    bench::ScenarioResult result;
    const std::string status = read.string(document, "status");
    const auto parsed_status = bench::parse_status(status);
    if (!parsed_status) read.fail("field 'status' has an unknown value '" + status + "'");
    result.status = *parsed_status;
    result.reason = read.string(document, "reason");

    const Value& series_array = read.array(document, "series");
    for (rapidjson::SizeType i = 0; i < series_array.Size(); ++i) {
        const std::string path = indexed("series", i);
        const Value& element = series_array[i];
        read.require_object(element, path);
        bench::Series series;
        series.name = read.string(element, "name", path);
        series.unit = read.string(element, "unit", path);
        series.inner_iterations = read.integer64(element, "inner_iterations", path);
        const Value& samples = read.array(element, "samples", path);
        series.samples.reserve(samples.Size());
        for (rapidjson::SizeType j = 0; j < samples.Size(); ++j) {
            series.samples.push_back(read.number(samples[j], path + "." + indexed("samples", j)));
        }
        result.series.push_back(std::move(series));
    }

    const Value& scalars = read.array(document, "scalars");
    for (rapidjson::SizeType i = 0; i < scalars.Size(); ++i) {
        const std::string path = indexed("scalars", i);
        const Value& element = scalars[i];
        read.require_object(element, path);
        bench::Scalar scalar;
        scalar.name = read.string(element, "name", path);
        scalar.value = read.number(element, "value", path);
        scalar.unit = read.string(element, "unit", path);
        result.scalars.push_back(std::move(scalar));
    }

    const Value& info = read.object(document, "info");
    for (auto it = info.MemberBegin(); it != info.MemberEnd(); ++it) {
        std::string key(it->name.GetString(), it->name.GetStringLength());
        if (!it->value.IsString()) read.wrong_type("info." + key, "a string");
        result.info.emplace(std::move(key),
                            std::string(it->value.GetString(), it->value.GetStringLength()));
    }

    if (document.HasMember("warnings"))
        result.warnings = read_strings(read, read.array(document, "warnings"), "warnings");
    if (document.HasMember("monitors")) {
        const Value& monitors = read.object(document, "monitors");
        for (auto it = monitors.MemberBegin(); it != monitors.MemberEnd(); ++it) {
            std::string name = name_of(it);
            if (!is_monitor_name(name))
                read.fail("field 'monitors." + name + "': a monitor's name must be lower-case letters, digits and "
                          "'_', ending in \"_metrics\"");
            result.monitors.emplace(name, read_monitor(read, it->value, "monitors." + name));
        }
    }
    if (document.HasMember("sampling")) {
        const Value& sampling = read.object(document, "sampling");
        for (auto it = sampling.MemberBegin(); it != sampling.MemberEnd(); ++it) {
            const std::string name = name_of(it);
            const std::string path = "sampling." + name;
            read.require_object(it->value, path);
            bench::SamplingReport report;
            report.stop_reason = read.string(it->value, "stop_reason", path);
            report.elapsed_s = read.number(it->value, "elapsed_s", path);
            report.samples = read.integer64(it->value, "samples", path);
            report.target_ci_width = read.number(it->value, "target_ci_width", path);
            report.ci_width = read.number(it->value, "ci_width", path);
            report.clock_resolution_ns = read.number(it->value, "clock_resolution_ns", path);
            report.clock_cost_ns = read.number(it->value, "clock_cost_ns", path);
            result.sampling.emplace(name, std::move(report));
        }
    }
    return result;
}

std::string text_of(const rapidjson::StringBuffer& buffer) { return {buffer.GetString(), buffer.GetSize()}; }

}  // namespace

std::string config_to_json(const bench::ScenarioConfig& config) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    write_config(writer, config);
    return text_of(buffer);
}

bench::ScenarioConfig config_from_json(std::string_view json) {
    const FieldReader read("config JSON");
    return read_config(read, read.parse(json));
}

std::string result_to_json(const bench::ScenarioResult& result) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    write_result(writer, result);
    return text_of(buffer);
}

bench::ScenarioResult result_from_json(std::string_view json) {
    const FieldReader read("result JSON");
    return read_result(read, read.parse(json));
}

// ---- The run journal ----------------------------------------------------------------

std::string journal_header_line(const JournalHeader& header) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    writer.StartObject();
    write_field(writer, "journal", std::string_view(journal_format_name));
    write_field(writer, "version", journal_format_version);
    write_field(writer, "timestamp", header.timestamp);
    write_field(writer, "started_at", header.started_at);
    write_field(writer, "commit_id", header.commit_id);
    write_field(writer, "host_version", header.host_version);
    write_key(writer, "run_config");
    writer.StartObject();
    for (const auto& [key, value] : header.run_config) write_field(writer, key, value);
    writer.EndObject();
    if (header.shard) {
        write_key(writer, "shard");
        writer.StartObject();
        write_field(writer, "index", header.shard->index);
        write_field(writer, "count", header.shard->count);
        write_key(writer, "plan_scenarios");
        writer.Uint64(header.shard->plan_scenarios);
        write_field(writer, "plan_fingerprint", header.shard->plan_fingerprint);
        writer.EndObject();
    }
    writer.EndObject();
    return text_of(buffer) + "\n";
}

std::string journal_outcome_line(const ScenarioOutcome& outcome, int round) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    writer.StartObject();
    write_field(writer, "round", round);
    write_field(writer, "plugin_path", outcome.plugin_path.string());
    write_field(writer, "plugin_version", outcome.plugin_version);
    write_field(writer, "started_at", outcome.started_at);
    write_field(writer, "wall_time_s", outcome.wall_time_s);
    write_field(writer, "log_tail", outcome.log_tail);
    write_key(writer, "crashed_while_loading");
    writer.Bool(outcome.crashed_while_loading);
    write_key(writer, "config");
    write_config(writer, outcome.config);
    write_key(writer, "result");
    write_result(writer, outcome.result);
    writer.EndObject();
    return text_of(buffer) + "\n";
}

JournalLine parse_journal_line(std::string_view line, const std::string& origin) {
    const FieldReader read(origin);
    const rapidjson::Document document = read.parse(line);
    JournalLine parsed;
    if (document.HasMember("journal")) {
        if (read.string(document, "journal") != journal_format_name) read.fail("not a benchhost run journal");
        const int version = read.integer(document, "version");
        if (version > journal_format_version)
            read.fail("journal version " + std::to_string(version) + " is newer than this benchhost reads (" +
                      std::to_string(journal_format_version) + ")");
        JournalHeader header;
        header.timestamp = read.string(document, "timestamp");
        header.started_at = read.string(document, "started_at");
        header.commit_id = read.string(document, "commit_id");
        header.host_version = read.string(document, "host_version");
        const Value& config = read.object(document, "run_config");
        for (auto it = config.MemberBegin(); it != config.MemberEnd(); ++it) {
            if (!it->value.IsString()) read.wrong_type("run_config." + name_of(it), "a string");
            header.run_config.emplace(name_of(it), std::string(it->value.GetString(), it->value.GetStringLength()));
        }
        if (document.HasMember("shard")) {
            const Value& shard = read.object(document, "shard");
            ShardInfo info;
            info.index = read.integer(shard, "index", "shard");
            info.count = read.integer(shard, "count", "shard");
            info.plan_scenarios = static_cast<std::size_t>(read.integer64(shard, "plan_scenarios", "shard"));
            info.plan_fingerprint = read.string(shard, "plan_fingerprint", "shard");
            header.shard = info;
        }
        parsed.header = std::move(header);
        return parsed;
    }
    ScenarioOutcome outcome;
    parsed.round = read.integer(document, "round");
    outcome.plugin_path = read.string(document, "plugin_path");
    outcome.plugin_version = read.string(document, "plugin_version");
    outcome.started_at = read.string(document, "started_at");
    outcome.wall_time_s = read.number(document, "wall_time_s");
    outcome.log_tail = read.string(document, "log_tail");
    outcome.crashed_while_loading = read.boolean(read.member(document, "crashed_while_loading", "crashed_while_loading"),
                                                 "crashed_while_loading");
    const FieldReader config_reader(origin + ": config");
    outcome.config = read_config(config_reader, read.object(document, "config"));
    const FieldReader result_reader(origin + ": result");
    outcome.result = read_result(result_reader, read.object(document, "result"));
    parsed.outcome = std::move(outcome);
    return parsed;
}

}  // namespace benchhost
