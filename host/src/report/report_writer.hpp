// Writes a run's files (DESIGN.md, "Output"), each atomically:
//   <plugin>/<plugin>_<timestamp>.json   one per plugin
//   benchmark_summary.json
//   benchmark_results_<timestamp>.csv
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "run/run_record.hpp"

namespace benchhost {

/// schema_version of the reports and the summary (docs/schema/README.md lists them):
/// 2 added series statistics (cv, ci95, outliers, stable), sampling, cold_start,
/// speedup_over_eager and rounds; 3 sharded and merged runs (run_metadata.shard, shards).
inline constexpr int report_schema_version = 3;

struct WrittenReports {
    std::map<std::string, std::filesystem::path> plugin_reports;  // plugin name -> path
    std::filesystem::path summary;
    std::filesystem::path csv;
};

/// Throws std::runtime_error naming the file that could not be written. With
/// `only_plugin`, writes that plugin's report (and the CSV and summary): what changed
/// after one more scenario, so that a run killed at any point leaves complete files.
WrittenReports write_reports(const RunRecord& record, const std::filesystem::path& output_dir,
                             const std::string* only_plugin = nullptr);

/// The report file of one plugin, relative to the output folder.
std::filesystem::path plugin_report_path(const std::string& plugin, const std::string& timestamp);

}  // namespace benchhost
