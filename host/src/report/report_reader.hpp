// Reads a run folder back (the inverse of report_writer.hpp): for --resume, merge,
// compare, report and export. Report files are untrusted input: a file of the current
// schema_version is first validated against docs/schema (json/report_schema.hpp: the
// schemas are compiled into the host), and every field is checked as it is read
// (json/field_reader.hpp). Files of an older schema_version (or none) are read field by
// field only; a newer one is refused.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare.hpp"
#include "model/run_record.hpp"

namespace benchhost {

/// The outcomes of one plugin report (`<plugin>/<plugin>_<timestamp>.json`). Throws
/// std::runtime_error "<origin>.benchmark_scenarios[2].measurements.latency.unit: ...", or
/// "<origin>: does not match report.schema.json (schema_version 4): <JSON pointer>: ...".
std::vector<ScenarioOutcome> parse_plugin_report(std::string_view json, const std::string& origin);

/// A comparison.json (`run --baseline`, `compare --json`, `ab`) read back, as the
/// comparison the reports were written with. Throws std::runtime_error naming the file and
/// the field that are wrong.
Comparison parse_comparison(std::string_view json, const std::string& origin);

/// The comparison a run folder kept (its comparison.json, from `run --baseline`), for
/// reports written again from the folder (report, export); none when the run had no
/// baseline, or when the file cannot be read, which is said on `warnings` as
/// "benchhost: warning: <why>: <without>".
std::optional<Comparison> kept_comparison(const std::filesystem::path& dir, const std::string& without,
                                          std::ostream& warnings);

/// A whole run folder: the metadata of benchmark_summary.json and the outcomes of
/// every plugin report it points at, in the summary's order, with their statistics
/// computed (analysis/scenario_statistics.hpp). Throws std::runtime_error
/// naming the file and the field that are wrong.
RunRecord read_run(const std::filesystem::path& dir);

/// What a user names as a run: its folder, or the folder's benchmark_summary.json.
/// Returns the folder; throws std::runtime_error for a file of another name.
std::filesystem::path run_folder_of(const std::filesystem::path& path);

}  // namespace benchhost
