// benchmark_results_<timestamp>.csv: one row per scenario (framework, model, variant,
// device, batch size, dtype, latency mean and percentiles in ms, throughput, peak memory,
// timestamp, git commit), then two columns for each other series of the run,
// <series>_median and <series>_unit, in the order the series first appear (a Python
// function's returned figures, the time to first token, ...): empty where the scenario
// lacks it. Last, where a scenario of the run recorded what a compiler did, its columns:
// compile_time_ms, compile_cache (hit, miss, bypass), graph_breaks, recompiles,
// unique_graphs and recompiled_samples. Then, where a distributed scenario of the run has
// a scaling efficiency (its throughput over N times that at world size 1: the
// statistics'), scaling_efficiency, scaling_efficiency_ci_low and
// scaling_efficiency_ci_high. RFC 4180 quoting, numbers in their shortest exact form.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/compare.hpp"  // compiler_counts
#include "analysis/framework_comparison.hpp"  // compile_time_ms, compile_cache_outcome
#include "report/file_reporter.hpp"
#include "report/files/report_json.hpp"
#include "report/reporter_factories.hpp"
#include "util/append_unique.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

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
    "git_commit,world_size";

// The series whose median is the throughput column: "throughput", else "tokens_per_second".
const SeriesStatistics* throughput_statistics(const ScenarioOutcome& outcome) {
    const SeriesStatistics* throughput = outcome.statistics.find("throughput");
    return throughput != nullptr ? throughput : outcome.statistics.find("tokens_per_second");
}

// The series that get columns of their own: each one that a scenario recorded with
// samples and the fixed columns do not show for it, in order of first appearance.
std::vector<std::string> other_series_columns(const RunRecord& record) {
    std::vector<std::string> names;
    for (const auto& outcome : record.outcomes) {
        if (!outcome.statistics.computed) continue;
        const SeriesStatistics* throughput = throughput_statistics(outcome);
        for (const SeriesStatistics& series : outcome.statistics.series) {
            if (series.analysis.summary.count == 0 || series.name == "latency" || &series == throughput) continue;
            append_unique(names, series.name);
        }
    }
    return names;
}

// What a compiler did, after the compile time and the cache's outcome: the counts compare
// gates (compiler_counts), then the timed samples a compile ran in.
std::vector<std::string> compiler_count_columns() {
    std::vector<std::string> names(std::begin(compiler_counts), std::end(compiler_counts));
    names.emplace_back("recompiled_samples");
    return names;
}

// Whether a scenario of the run recorded what a compiler did: then the CSV has its columns.
bool has_compiler_columns(const RunRecord& record) {
    for (const auto& outcome : record.outcomes) {
        if (!outcome.statistics.computed) continue;
        if (std::isfinite(compile_time_ms(outcome)) || !compile_cache_outcome(outcome).empty()) return true;
        for (const std::string& name : compiler_count_columns())
            if (outcome.result.find_scalar(name) != nullptr) return true;
    }
    return false;
}

std::string csv_report(const RunRecord& record) {
    const std::vector<std::string> other_series = other_series_columns(record);
    const bool compiler = has_compiler_columns(record);
    const bool scaling = std::any_of(record.outcomes.begin(), record.outcomes.end(), [](const ScenarioOutcome& o) {
        return o.statistics.computed && o.statistics.scaling.has_value();
    });
    std::string csv = csv_header;
    for (const std::string& name : other_series)
        csv += ',' + csv_field(name + "_median") + ',' + csv_field(name + "_unit");
    if (compiler) {
        csv += ",compile_time_ms,compile_cache";
        for (const std::string& name : compiler_count_columns()) csv += ',' + name;
    }
    if (scaling) csv += ",scaling_efficiency,scaling_efficiency_ci_low,scaling_efficiency_ci_high";
    csv += '\n';
    for (const auto& outcome : record.outcomes) {
        if (!outcome.statistics.computed) continue;  // still running (rounds to come)
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

        if (const SeriesStatistics* latency = outcome.statistics.find("latency")) {
            const bench::Summary& s = latency->analysis.summary;
            const double factor = to_ms_factor(latency->unit);
            for (const double v : {s.mean, s.median, s.p90, s.p95, s.p99}) row.push_back(csv_number(v * factor));
        } else {
            row.insert(row.end(), 5, std::string());
        }

        if (const SeriesStatistics* throughput = throughput_statistics(outcome)) {
            row.push_back(csv_number(throughput->analysis.summary.median));
            row.push_back(throughput->unit);
        } else {
            row.insert(row.end(), 2, std::string());
        }

        const bench::Scalar* peak = result.find_scalar("peak_rss");
        row.push_back(peak != nullptr ? csv_number(peak->value * to_mib_factor(peak->unit)) : std::string());
        row.push_back(outcome.started_at.empty() ? record.started_at : outcome.started_at);
        row.push_back(record.commit_id);
        // A distributed scenario's ranks; empty for one that is not distributed.
        row.push_back(config.world_size > 0 ? std::to_string(config.world_size) : std::string());
        // Each other series' median wherever the scenario has it (its samples), in its unit.
        for (const std::string& name : other_series) {
            const SeriesStatistics* series = outcome.statistics.find(name);
            if (series != nullptr && series->analysis.summary.count > 0) {
                row.push_back(csv_number(series->analysis.summary.median));
                row.push_back(series->unit);
            } else {
                row.insert(row.end(), 2, std::string());
            }
        }
        if (compiler) {
            row.push_back(csv_number(compile_time_ms(outcome)));
            row.push_back(compile_cache_outcome(outcome));
            for (const std::string& name : compiler_count_columns()) {
                const bench::Scalar* count = result.find_scalar(name);
                row.push_back(count != nullptr ? csv_number(count->value) : std::string());
            }
        }
        if (scaling) {
            const std::optional<ScalingEfficiency>& efficiency = outcome.statistics.scaling;
            row.push_back(efficiency ? csv_number(efficiency->value) : std::string());
            row.push_back(efficiency ? csv_number(efficiency->ci.low) : std::string());
            row.push_back(efficiency ? csv_number(efficiency->ci.high) : std::string());
        }

        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i > 0) csv += ',';
            csv += csv_field(row[i]);
        }
        csv += '\n';
    }
    return csv;
}

}  // namespace

std::unique_ptr<RunReporter> make_csv_reporter(const ReporterSettings& settings) {
    return make_file_reporter(
        settings, {.name_of = [](const RunRecord& record) { return csv_report_path(record.timestamp).string(); },
                   .render = [](const RunRecord& record, const RunEnd&) { return csv_report(record); },
                   .at_checkpoints = true});
}

}  // namespace benchhost
