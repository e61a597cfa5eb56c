// Google Benchmark 1.7 JSON (see gbench_json_reporter.hpp for the mapping). The field names
// and their order follow Google Benchmark's src/json_reporter.cc (v1.7.1).

#include "report/files/gbench_json_reporter.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "analysis/scenario_statistics.hpp"
#include "json/json_writer.hpp"
#include "report/file_reporter.hpp"
#include "report/reporter_factories.hpp"

namespace benchhost {
namespace {

using Writer = JsonOut;  // pretty, strict: the report format

/// Google Benchmark's unit for a series' unit, and the factor to it; nullopt when the
/// unit is not a time.
struct TimeUnit {
    const char* name;
    double factor;
};

std::optional<TimeUnit> time_unit(std::string_view unit) {
    if (unit == "ns") return TimeUnit{"ns", 1.0};
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return TimeUnit{"us", 1.0};
    if (unit == "ms") return TimeUnit{"ms", 1.0};
    if (unit == "s") return TimeUnit{"ms", 1e3};
    return std::nullopt;
}

std::optional<double> parse_number(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end == text.data() || !std::isfinite(value)) return std::nullopt;
    return value;
}

void key(Writer& out, std::string_view name) { out.key(name); }
void string_field(Writer& out, std::string_view name, std::string_view value) { out.field(name, value); }
void int_field(Writer& out, std::string_view name, long long value) { out.field(name, value); }
void number_field(Writer& out, std::string_view name, double value) { out.field(name, value); }

void write_context(Writer& out, const RunRecord& record) {
    out.start_object();
    // Google Benchmark writes local time with its offset; the record has UTC.
    std::string date = record.started_at;
    if (date.ends_with('Z')) date = date.substr(0, date.size() - 1) + "+00:00";
    string_field(out, "date", date);
    std::string host = record.host_name;
    if (host.empty()) host = hardware_fact(record.hardware, "host", "hostname");
    string_field(out, "host_name", host);
    string_field(out, "executable", "benchhost");

    auto number_fact = [&](const char* section, std::initializer_list<const char*> keys) -> double {
        for (const char* k : keys)
            if (const auto v = parse_number(hardware_fact(record.hardware, section, k))) return *v;
        return 0;
    };
    int_field(out, "num_cpus", std::llround(number_fact("cpu", {"logical_cores", "cpus_available"})));
    int_field(out, "mhz_per_cpu", std::llround(number_fact("cpu", {"current_mhz", "max_mhz"})));
    key(out, "cpu_scaling_enabled");
    out.boolean(hardware_fact(record.hardware, "cpu", "frequency_scaling").starts_with("on"));
    key(out, "caches");
    out.start_array();
    out.end_array();
    key(out, "load_avg");
    out.start_array();
    for (const char* k : {"load_average_1m", "load_average_5m", "load_average_15m"})
        if (const auto v = parse_number(hardware_fact(record.hardware, "load", k))) out.number(*v);
    out.end_array();
    const std::string optimized = hardware_fact(record.hardware, "build", "optimized");
    std::string build_type = hardware_fact(record.hardware, "build", "build_type");
    std::transform(build_type.begin(), build_type.end(), build_type.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool release = optimized.empty()
                             ? (build_type == "release" || build_type == "relwithdebinfo" || build_type == "minsizerel")
                             : optimized == "yes";
    string_field(out, "library_build_type", release ? "release" : "debug");
    // Custom context, as benchmark::AddCustomContext adds it.
    string_field(out, "benchhost_version", record.host_version);
    string_field(out, "benchhost_commit", record.commit_id);
    string_field(out, "benchhost_run", record.timestamp);
    out.end_object();
}

/// One exported series: the finite samples, in the unit written.
struct Exported {
    std::string name;  // <scenario_id>/<series>
    long long family_index = 0, instance_index = 0;
    long long iterations = 1;
    const char* unit = "ms";
    std::vector<double> samples;
    const SeriesStatistics* statistics = nullptr;  // computed when the scenario ended
    double factor = 1;  // from the series' unit to `unit`
};

std::vector<Exported> exported_series(const RunRecord& record) {
    std::vector<Exported> out;
    std::map<std::string, long long> families;  // benchmark id + series -> family_index
    std::map<std::string, long long> instances;  // the same -> instances so far
    for (const auto& outcome : record.outcomes) {
        if (outcome.result.status != bench::Status::success || !outcome.statistics.computed) continue;
        std::set<std::string, std::less<>> seen;  // the report writes the first of a name only
        for (const auto& series : outcome.result.series) {
            if (!seen.insert(series.name).second) continue;
            const auto unit = time_unit(series.unit);
            if (!unit) continue;
            Exported e;
            for (const double sample : series.samples)
                if (std::isfinite(sample)) e.samples.push_back(sample * unit->factor);
            if (e.samples.empty()) continue;
            const std::string family = outcome.config.benchmark_id() + "/" + series.name;
            const auto [it, added] = families.emplace(family, static_cast<long long>(families.size()));
            e.family_index = it->second;
            e.instance_index = instances[family]++;
            e.name = outcome.config.scenario_id() + "/" + series.name;
            e.iterations = std::max<long long>(1, series.inner_iterations);
            e.unit = unit->name;
            e.factor = unit->factor;
            e.statistics = outcome.statistics.find(series.name);
            if (e.statistics == nullptr) continue;
            out.push_back(std::move(e));
        }
    }
    return out;
}

void write_entry_head(Writer& out, const Exported& e, const std::string& name, const char* run_type) {
    string_field(out, "name", name);
    int_field(out, "family_index", e.family_index);
    int_field(out, "per_family_instance_index", e.instance_index);
    string_field(out, "run_name", e.name);
    string_field(out, "run_type", run_type);
    int_field(out, "repetitions", static_cast<long long>(e.samples.size()));
}

void write_times(Writer& out, double value, const char* unit) {
    number_field(out, "real_time", value);
    number_field(out, "cpu_time", value);  // wall time only: the same value
    string_field(out, "time_unit", unit);
}

void write_exported_series(Writer& out, const Exported& e) {
    const auto n = static_cast<long long>(e.samples.size());
    for (long long i = 0; i < n; ++i) {
        out.start_object();
        write_entry_head(out, e, e.name, "iteration");
        int_field(out, "repetition_index", i);
        int_field(out, "threads", 1);
        int_field(out, "iterations", e.iterations);
        write_times(out, e.samples[static_cast<std::size_t>(i)], e.unit);
        out.end_object();
    }
    // Google Benchmark reports no aggregates for a single repetition.
    if (n < 2) return;
    // The statistics of the finite samples, as every other output has them.
    const bench::Summary& s = e.statistics->analysis.summary;
    const double mean = s.mean * e.factor, stddev = s.std * e.factor;
    const struct {
        const char* name;
        const char* unit;
        double value;
    } aggregates[] = {{"mean", "time", mean},
                      {"median", "time", s.median * e.factor},
                      {"stddev", "time", stddev},
                      {"cv", "percentage", stddev / mean}};
    for (const auto& aggregate : aggregates) {
        if (!std::isfinite(aggregate.value)) continue;
        out.start_object();
        write_entry_head(out, e, e.name + "_" + aggregate.name, "aggregate");
        int_field(out, "threads", 1);
        string_field(out, "aggregate_name", aggregate.name);
        string_field(out, "aggregate_unit", aggregate.unit);
        int_field(out, "iterations", n);
        write_times(out, aggregate.value, e.unit);
        out.end_object();
    }
}

}  // namespace

std::string to_gbench_json(const RunRecord& given) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    Writer out;
    out.start_object();
    key(out, "context");
    write_context(out, record);
    key(out, "benchmarks");
    out.start_array();
    for (const Exported& e : exported_series(record)) write_exported_series(out, e);
    out.end_array();
    out.end_object();
    return out.text();
}

std::size_t gbench_iteration_count(const RunRecord& given) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    std::size_t count = 0;
    for (const Exported& e : exported_series(record)) count += e.samples.size();
    return count;
}

/// gbench.json in the run folder (`run --format gbench-json`), or the file or standard
/// output that `export --output` names.
std::unique_ptr<RunReporter> make_gbench_json_reporter(const ReporterSettings& settings) {
    return make_file_reporter(settings,
                              {.name = "gbench.json",
                               .render = [](const RunRecord& record, const RunEnd&) { return to_gbench_json(record); },
                               .at_checkpoints = true});
}

}  // namespace benchhost
