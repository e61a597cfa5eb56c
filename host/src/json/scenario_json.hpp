// The JSON blocks of a scenario that several files hold: the worker protocol and the
// run journal (json/result_json.cpp, in protocol_json) and the plugin reports and the
// summary (report/*, in report_json). Each block has one writer and one reader, here,
// whatever the file; the formats (json/json_writer.hpp) differ only in layout and in how
// they write non-finite numbers and invalid UTF-8.
//
//   config   {"category", "plugin", "benchmark", "scenario_name", "variant", "compile_mode",
//             "batch_size", "dtype", "device", "threads", "warmup_iterations",
//             "measurement_iterations", "num_tokens_to_generate", "model_id",
//             "min_time_s", "max_time_s", "target_ci_width", "params": {key: [value, ...]}}
//            (min_time_s, max_time_s and target_ci_width were added later: absent means 0;
//            "profile": true only with --profile;
//            "load" {"mode", "queries", "min_duration_s", "samples_per_query", "target_qps",
//            "burstiness", "concurrency", "late_tolerance_ms", "seed", "slo": {metric: ms},
//            "slo_percentile", "find_peak", "peak_precision", "max_batch", "max_batch_wait_ms"}
//            only with --load; the last five were added later: absent means 0, false, 0, 0, 0;
//            "world_size" only for a distributed scenario: absent means 0, not distributed)
//   series   listed (the worker protocol): {"name", "unit", "inner_iterations", "samples": [...]};
//            keyed by its name (a report's "measurements"), with its statistics:
//            {"mean", "median", "std", "min", "max", "p25", "p75", "p90", "p95", "p99", "count",
//             "unit", "inner_iterations", "cv", "ci95", "outliers", "stable", "measurements": [...]}
//            (inner_iterations, added later, may be absent: 1)
//   figure   a scalar, a cold-start figure, a monitor's value: {"value", "unit"}; listed
//            (the worker protocol's "scalars"), with "name" first
//   monitor  {"available", "reason" (left out when available and empty),
//             "metrics": {name: {"mean", "min", "max", "count", "unit"}}, "values": {name: figure},
//             "flags": {name: bool}, "info": {key: text}, "warnings": [text, ...],
//             "timeline": {"time_s": [...], "series": {name: [...]}}}
//   sampling {series name: {"stop_reason", "elapsed_s", "samples", "target_ci_width" (null
//             without a target), "ci_width", "clock_resolution_ns", "clock_cost_ns"}}
//   accuracy {model: {"dataset", "inputs", "top1_correct", "top5_correct", "top1", "top5"}}
//            (top1 and top5: the fractions of the counts, for readers; read back from the
//            counts)
//   rounds   {series name: [samples of round 1, of round 2, ...]} (a report's "round_sizes")
//   peak search  {"percentile", "precision", "peak_qps" (NaN/null: none), "end",
//            "steps": [{"phase", "target_qps", "achieved_qps", "queries", "planned",
//            "goodput", "late_issues", "passed", "stopped_early",
//            "metrics": [{"metric", "bound_ms", "p50_ms", "percentile_ms"}, ...]}, ...]}
//   shard    {"index", "count", "plan_scenarios", "plan_fingerprint"}
//   plugin build  {"known", "optimized", "assertions", "sanitizers": [name, ...], "compiler"}
//            (only {"known": false} when the plugin did not record it; absent in files
//            written before plugins recorded it: unknown)
//
// Readers check every field they read (json/field_reader.hpp) and ignore unknown ones.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <bench/config.hpp>
#include <bench/monitor_report.hpp>
#include <bench/result.hpp>

#include "json/field_reader.hpp"
#include "json/json_writer.hpp"
#include "model/run_record.hpp"

namespace benchhost {

void write_config(JsonOut& out, const bench::ScenarioConfig& config);
bench::ScenarioConfig read_config(const FieldReader& object);

/// Listed without `statistics`, keyed with them (the caller writes the key). `times`:
/// when each sample ended (ScenarioResult::sample_times), written when it has one per
/// sample.
void write_series(JsonOut& out, const bench::Series& series, const SeriesStatistics* statistics = nullptr,
                  const std::vector<double>* times = nullptr);
/// `key`: the name it is written under in a report; none for the listed form. The
/// samples' times, when written, go to `times` (emptied otherwise), when given.
bench::Series read_series(const FieldReader& object, const std::optional<std::string>& key = std::nullopt,
                          std::vector<double>* times = nullptr);

/// Listed with a `name`, else keyed (the caller writes the key).
void write_figure(JsonOut& out, double value, std::string_view unit,
                  std::optional<std::string_view> name = std::nullopt);
bench::Scalar read_figure(const FieldReader& object, const std::optional<std::string>& key = std::nullopt);

void write_monitor(JsonOut& out, const bench::MonitorReport& report);
bench::MonitorReport read_monitor(const FieldReader& object);

void write_sampling(JsonOut& out, const std::map<std::string, bench::SamplingReport>& sampling);
std::map<std::string, bench::SamplingReport> read_sampling(const FieldReader& object);

void write_accuracy(JsonOut& out, const std::vector<bench::Accuracy>& accuracy);
/// Also checks the counts: 0 <= top1_correct <= top5_correct <= inputs.
std::vector<bench::Accuracy> read_accuracy(const FieldReader& object);

/// {series name: {"sm_clock_mhz": [...], "throttle_reasons": [...], "discarded_throttled":
/// N, "discarded_reasons": "..."}}: the GPU's state during each sample (ABI 2.10).
void write_device_state(JsonOut& out, const std::map<std::string, bench::SampleDeviceState>& states);
std::map<std::string, bench::SampleDeviceState> read_device_state(const FieldReader& object);

/// {series name: [samples of round 1, of round 2, ...]}
void write_round_sizes(JsonOut& out, const std::map<std::string, std::vector<std::size_t>>& round_sizes);
std::map<std::string, std::vector<std::size_t>> read_round_sizes(const FieldReader& object);

/// --find-peak's search (bench::PeakSearch), in the worker protocol and a report's scenario.
void write_peak_search(JsonOut& out, const bench::PeakSearch& search);
bench::PeakSearch read_peak_search(const FieldReader& object);

void write_shard(JsonOut& out, const ShardInfo& shard);
/// Also checks that 1 <= index <= count.
ShardInfo read_shard(const FieldReader& object);

void write_plugin_build(JsonOut& out, const PluginBuild& build);
PluginBuild read_plugin_build(const FieldReader& object);

}  // namespace benchhost
