// Reads a run folder back (the inverse of report_writer.hpp): for --resume, and later
// for comparisons. Report files are untrusted input: every field is checked.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "run/run_record.hpp"

namespace benchhost {

/// The outcomes of one plugin report (`<plugin>/<plugin>_<timestamp>.json`). Throws
/// std::runtime_error "<origin>: benchmark_scenarios[2].measurements.latency: ...".
std::vector<ScenarioOutcome> parse_plugin_report(std::string_view json, const std::string& origin);

/// A whole run folder: the metadata of benchmark_summary.json and the outcomes of
/// every plugin report it points at, in the summary's order, with their statistics
/// computed (analysis/scenario_statistics.hpp). Throws std::runtime_error
/// naming the file and the field that are wrong.
RunRecord read_run(const std::filesystem::path& dir);

/// What a user names as a run: its folder, or the folder's benchmark_summary.json.
/// Returns the folder; throws std::runtime_error for a file of another name.
std::filesystem::path run_folder_of(const std::filesystem::path& path);

}  // namespace benchhost
