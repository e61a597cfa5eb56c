// The reporters a run can have, by name: the one place that knows them all. `run`,
// `merge`, `report` and `export` ask it for reporters by name; adding a format means
// adding a Reporter (one file) and one entry in reporter_registry.cpp.
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
};

/// What the reporters of a run are handed when it ends, beside its record: what several
/// of them read, concluded once before any of them runs (conclude_run), so that no
/// reporter depends on another's order.
struct RunEnd {
    /// The run against its baseline (ReporterSettings::baseline); none without one, at a
    /// checkpoint, or when it could not be made.
    std::optional<Comparison> comparison;
    /// Why the baseline could not be compared ("cannot compare with the baseline B: ..."):
    /// the comparison reporter fails with it. Empty when it was, or there is none.
    std::string comparison_error;

    const Comparison* baseline_comparison() const { return comparison ? &*comparison : nullptr; }
    /// The run's models side by side across frameworks (analysis/framework_comparison.hpp):
    /// made from `record` when first asked for (report.md or report.html), then kept for
    /// the others of this end.
    const FrameworkComparison& frameworks(const RunRecord& record) const;

private:
    mutable std::optional<FrameworkComparison> frameworks_;
};

/// What a run's end concludes for its reporters: with a baseline in `settings`, the run
/// folder there read back and compared with `record` (the comparison's labels are the
/// two folders). Throws nothing: a baseline that cannot be read is in comparison_error.
RunEnd conclude_run(const ReporterSettings& settings, const RunRecord& record);

/// Every reporter of the registry: a Reporter that is handed the run's end (RunEnd) with
/// its record when the run ends.
class RunReporter : public Reporter {
public:
    /// Once, at the end, as Reporter::run_finished, with what was concluded of the run.
    virtual void run_ended(const RunRecord& record, const RunEnd& end) = 0;
    /// A reporter called on its own: the end of a run with nothing concluded (no comparison).
    void run_finished(const RunRecord& record) final;
};

/// The reporters of one run, called as one (ReporterMultiplex), which conclude the run
/// (conclude_run) before the first of them is told it ended.
class RunReporters final : public Reporter {
public:
    RunReporters() = default;
    explicit RunReporters(ReporterSettings settings) : settings_(std::move(settings)) {}
    void add(std::unique_ptr<RunReporter> reporter);
    bool empty() const { return all_.empty(); }

    void run_started(const RunRecord& record) override { all_.run_started(record); }
    void execution_started(const ExecutionProgress& progress) override { all_.execution_started(progress); }
    void execution_skipped(const ExecutionProgress& progress, bool resumed) override {
        all_.execution_skipped(progress, resumed);
    }
    void execution_finished(const ExecutionProgress& progress, const ScenarioOutcome& outcome) override {
        all_.execution_finished(progress, outcome);
    }
    void scenario_finished(const RunRecord& record, const ScenarioOutcome& outcome) override {
        all_.scenario_finished(record, outcome);
    }
    void checkpoint(const RunRecord& record) override { all_.checkpoint(record); }
    /// Concludes the run (conclude_run), then tells each reporter it ended.
    void run_finished(const RunRecord& record) override;
    /// Tells each reporter the run ended with `end`, concluded already.
    void run_ended(const RunRecord& record, const RunEnd& end);
    int exit_status() const override { return all_.exit_status(); }
    std::vector<std::filesystem::path> files() const override { return all_.files(); }

    /// What failed, one message each (ReporterMultiplex::errors, take_errors).
    const std::vector<std::string>& errors() const { return all_.errors(); }
    std::vector<std::string> take_errors() { return all_.take_errors(); }

private:
    ReporterSettings settings_;
    ReporterMultiplex all_;
};

/// What a reporter is for, which says who asks for it.
enum class ReporterKind {
    file,  // a file of the run folder, which `merge` and `ab`'s sides write too
    console,  // for people on the terminal, during the run or at its end
    end_of_run,  // the run against another, once it has ended (`run --baseline`)
};

struct ReporterInfo {
    std::string name;
    /// What it writes; an optional format's, `run --format`'s help says after its name
    /// (optional_formats_help): "gbench.json, Google Benchmark's JSON".
    std::string description;
    ReporterKind kind = ReporterKind::file;
    /// Chosen with `run --format NAME` (and kept by merge) rather than written always.
    bool optional_format = false;
    std::unique_ptr<RunReporter> (*make)(const ReporterSettings&);
};

/// Every reporter, in the order a run calls them. The summary comes after the files it
/// points at, so that a summary on disk never names a report that does not exist.
const std::vector<ReporterInfo>& reporter_registry();

/// Throws std::invalid_argument for an unknown name, listing the known ones.
std::unique_ptr<RunReporter> make_reporter(std::string_view name, const ReporterSettings& settings);

/// The names of the optional formats (`run --format`): every reporter marked optional_format,
/// in registry order ("gbench-json", "junit", "summary-md").
std::vector<std::string> optional_format_names();

/// The optional formats as `run --format`'s help lists them, each its name and its
/// description: "gbench-json (gbench.json, Google Benchmark's JSON), junit (...), ...".
std::string optional_formats_help();

/// The reporters of the kinds `kinds`, in registry order: each that is not an optional
/// format, and those of `formats` that are.
std::vector<std::string> reporter_names(std::initializer_list<ReporterKind> kinds,
                                        const std::vector<std::string>& formats = {});

/// The reporters `names` as one, made in registry order (whatever order `names` has).
RunReporters make_reporters(const std::vector<std::string>& names, const ReporterSettings& settings);

/// The reporters `names` over a record that is already whole (merge, report, export,
/// tests): made, then run_finished. Computes the statistics on a copy when the record
/// lacks them. `end`: what the run concluded when it is known already (`report` reads
/// back the run's comparison.json), else concluded now. Returns what failed, one message
/// each; empty when everything was written.
std::vector<std::string> report_whole_run(const RunRecord& record, const std::vector<std::string>& names,
                                          const ReporterSettings& settings,
                                          const std::optional<RunEnd>& end = std::nullopt);

}  // namespace benchhost
