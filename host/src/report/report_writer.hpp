// The run folder's data files in one call, from a finished record: the plugin reports,
// the CSV and benchmark_summary.json, each written atomically by its reporter
// (files/plugin_json_reporter.cpp, files/csv_reporter.cpp, files/summary_reporter.cpp). A run drives those
// reporters itself; this is for a record that is already whole (tests, tools).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "model/run_record.hpp"
#include "report/files/report_json.hpp"

namespace benchhost {

struct WrittenReports {
    std::map<std::string, std::filesystem::path> plugin_reports;  // plugin name -> path
    std::filesystem::path summary;
    std::filesystem::path csv;
};

/// Throws std::runtime_error naming the file that could not be written. Computes the
/// statistics (on a copy) when the record does not have them yet (report_whole_run).
WrittenReports write_reports(const RunRecord& record, const std::filesystem::path& output_dir);

}  // namespace benchhost
