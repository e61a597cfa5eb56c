// The JSON blocks that the plugin reports (plugin_json_reporter.cpp) and the summary
// (summary_reporter.cpp) share, and the names and version of those files. Both are
// written through JsonOut in report_json (json/json_writer.hpp); the blocks they share
// with the worker protocol are in json/scenario_json.hpp. docs/schema describes them,
// and json/report_reader.hpp reads them back.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "json/json_writer.hpp"
#include "run/run_record.hpp"

namespace benchhost {

/// schema_version of the reports and the summary (docs/schema/README.md lists them):
/// 2 added series statistics (cv, ci95, outliers, stable), sampling, cold_start,
/// speedup_over_eager and rounds; 3 sharded and merged runs (run_metadata.shard, shards).
inline constexpr int report_schema_version = 3;

inline constexpr const char* summary_file_name = "benchmark_summary.json";

/// The report file of one plugin, relative to the output folder.
std::filesystem::path plugin_report_path(const std::string& plugin, const std::string& timestamp);

/// The machine record with its warnings: "hardware_info" of a scenario, "context" of the
/// summary.
void write_hardware(JsonOut& out, const HardwareInfo& hardware, const std::vector<std::string>& warnings);
/// "speedup_over_eager": {series: {value, ci95, baseline_scenario_id}}; nothing when empty.
void write_speedups(JsonOut& out, const std::vector<Speedup>& speedups);

}  // namespace benchhost
