// The reporters a run can have, by name: the one place that knows them all. `run`,
// `merge`, `report` and `export` ask it for reporters by name; adding a format means
// adding a Reporter (one file) and one entry in reporter_registry.cpp.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/logger.h>

#include "analysis/compare.hpp"
#include "analysis/framework_comparison.hpp"
#include "model/reporter.hpp"
#include "report/console/progress_reporter.hpp"

namespace benchhost {

/// What a reporter may need to know besides the record.
struct ReporterSettings {
    std::filesystem::path output_dir;  // the run folder its files go to
    /// For a single-file format written elsewhere (`export --output FILE`); "-" is
    /// standard output. Empty: the format's own name in output_dir.
    std::filesystem::path output_file;
    std::ostream* console = nullptr;  // tables for people (console, comparison); nullptr: std::cout
    spdlog::logger* log = nullptr;  // the run's log, for what a reporter concludes; may be nullptr
    ProgressSink* progress = nullptr;  // the status line on a terminal; nullptr elsewhere
    // The comparison with a baseline run (`run --baseline`), and how it judges (the
    // threshold, the noise floor, the history's noise between runs).
    std::filesystem::path baseline;
    CompareOptions compare;
    bool fail_on_regression = false;
    /// The comparison with the baseline, once the comparison reporter has made it at the
    /// end of the run: shared by the copies of these settings, read by the reporters
    /// after it (junit), so that it is computed once.
    std::shared_ptr<std::optional<Comparison>> comparison = std::make_shared<std::optional<Comparison>>();
    /// The run's models side by side across frameworks (analysis/framework_comparison.hpp),
    /// made at the end of the run by the first reporter that reads it (framework_comparison
    /// below) and read by the others (report.md, report.html), so that it is computed once.
    /// make_reporters gives each set of reporters a slot of its own: one run, one record.
    std::shared_ptr<std::optional<FrameworkComparison>> frameworks =
        std::make_shared<std::optional<FrameworkComparison>>();
};

/// The comparison across frameworks of `record` at the end of its run: the one in
/// settings.frameworks, made now when none is there yet. Not at a checkpoint: the record
/// is not whole then.
const FrameworkComparison& framework_comparison(const ReporterSettings& settings, const RunRecord& record);

struct ReporterInfo {
    std::string name;
    std::string description;  // for --help and docs
    /// Chosen with `run --format NAME` (and kept by merge) rather than written always.
    bool optional_format = false;
    std::unique_ptr<Reporter> (*make)(const ReporterSettings&);
};

/// Every reporter, in the order a run calls them. The summary comes after the files it
/// points at, so that a summary on disk never names a report that does not exist.
const std::vector<ReporterInfo>& reporter_registry();

/// Throws std::invalid_argument for an unknown name, listing the known ones.
std::unique_ptr<Reporter> make_reporter(std::string_view name, const ReporterSettings& settings);

/// The names of the optional formats (`run --format`): every reporter marked optional_format,
/// in registry order ("gbench-json", "junit", "summary-md").
std::vector<std::string> optional_format_names();

/// The reporters of a run folder's files, in registry order: every file reporter that is
/// not optional, plus the optional `formats`.
std::vector<std::string> file_reporter_names(const std::vector<std::string>& formats);

/// A multiplex of `names`, made in registry order (whatever order `names` has).
ReporterMultiplex make_reporters(const std::vector<std::string>& names, const ReporterSettings& settings);

/// The reporters `names` over a record that is already whole (merge, report, export,
/// tests): made, then run_finished. Computes the statistics on a copy when the record
/// lacks them. Returns what failed, one message each; empty when everything was written.
std::vector<std::string> report_whole_run(const RunRecord& record, const std::vector<std::string>& names,
                                          const ReporterSettings& settings);

}  // namespace benchhost
