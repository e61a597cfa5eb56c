// The JSON blocks that the plugin reports (plugin_json_reporter.cpp) and the summary
// (summary_reporter.cpp) share, and the names and version of those files. Both are
// written through JsonOut in report_json (json/json_writer.hpp); the blocks they share
// with the worker protocol are in json/scenario_json.hpp. docs/schema describes them,
// and report/report_reader.hpp reads them back.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "json/json_writer.hpp"
#include "json/report_schema.hpp"  // report_schema_version
#include "model/run_record.hpp"

namespace benchhost {

inline constexpr const char* summary_file_name = "benchmark_summary.json";

/// The report file of one plugin, relative to the output folder.
std::filesystem::path plugin_report_path(const std::string& plugin, const std::string& timestamp);
/// The CSV of a run, relative to the output folder: benchmark_results_<timestamp>.csv.
std::filesystem::path csv_report_path(const std::string& timestamp);

/// The machine record with its warnings: "hardware_info" of a scenario, "context" of the
/// summary.
void write_hardware(JsonOut& out, const HardwareInfo& hardware, const std::vector<std::string>& warnings);
/// "speedup_over_eager": {series: {value, ci95, baseline_scenario_id}}; nothing when empty.
void write_speedups(JsonOut& out, const std::vector<Speedup>& speedups);
/// "scaling_efficiency": {series, world_size, value, ci95, baseline_scenario_id}; nothing
/// without one.
void write_scaling(JsonOut& out, const std::optional<ScalingEfficiency>& scaling);

}  // namespace benchhost
