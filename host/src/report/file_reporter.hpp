// A reporter of one file: what most formats are. It renders the file's text from the
// record and writes it atomically, at the end of the run and, if asked, at each
// checkpoint, so that a run killed at any point leaves the file whole.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/reporter.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

/// Makes a file's text from the record and what its end concluded (the comparison with
/// the baseline, the models across frameworks). At a checkpoint the run has not ended:
/// `end` concludes nothing.
using RenderFile = std::function<std::string(const RunRecord& record, const RunEnd& end)>;

/// Each member has a default member initializer, so that a reporter names only what it
/// sets ({.name = ..., .render = ...}) without GCC's -Wmissing-field-initializers.
struct FileReport {
    /// The file's name in the run folder (ReporterSettings::output_dir), or `name_of` when
    /// the name depends on the record (the CSV's holds the run's timestamp). Where
    /// ReporterSettings::output_file is given, the file goes there instead; "-" is
    /// standard output, written once, at the end.
    std::string name{};
    std::function<std::string(const RunRecord& record)> name_of{};
    RenderFile render{};
    /// Written at each checkpoint too, not only when the run ends.
    bool at_checkpoints = false;
    /// Called with the text once it is written at the end (summary.md appends it to the
    /// CI job's summary).
    std::function<void(const std::string& text)> then{};
};

std::unique_ptr<RunReporter> make_file_reporter(const ReporterSettings& settings, FileReport report);

}  // namespace benchhost
