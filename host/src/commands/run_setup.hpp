// What `benchhost run` and `benchhost ab` both do around their scenarios: the output
// folder, the log, the warnings about the plan, the record of the options, and a run
// folder's journal and reporters from its start to its end (RunFolderWriter).
#pragma once

#include <ctime>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/logger.h>

#include <bench/internal/monitors/gpu_clocks.hpp>

#include "analysis/compare.hpp"
#include "config/run_config.hpp"
#include "discover/discovery.hpp"
#include "model/reporter.hpp"
#include "model/run_record.hpp"
#include "plan/plan.hpp"
#include "report/console/progress_reporter.hpp"
#include "report/reporter_registry.hpp"
#include "run/journal.hpp"
#include "run/run_loop.hpp"

namespace benchhost {

/// `when` formatted by strftime, in UTC or local time.
std::string format_time(std::time_t when, const char* format, bool utc);

/// Creates a run's output folder and checks that it is writable, before anything runs.
/// Without `output_dir`: benchmark_results/<timestamp>/ and a `latest` link beside it.
/// Throws ConfigError naming the folder.
std::filesystem::path prepare_output_dir(const std::optional<std::filesystem::path>& output_dir,
                                         const std::string& timestamp);

/// The console's part of a log: `level` and up (warn with --quiet), through `progress`
/// when it is given, else to standard error.
spdlog::sink_ptr make_console_sink(const std::string& level, bool quiet, const std::shared_ptr<ProgressSink>& progress);
/// A log file: everything from debug up, timestamped; `append` keeps what it holds.
spdlog::sink_ptr make_log_file_sink(const std::filesystem::path& log_file, bool append);
/// A logger writing to all of `sinks`, flushed at every line.
std::shared_ptr<spdlog::logger> make_logger(std::vector<spdlog::sink_ptr> sinks);

/// One warning per plugin with scenarios to run whose build slows it down (not
/// optimized, assertions on, a sanitizer).
std::vector<std::string> plugin_build_warnings(const Plan& plan);

/// An empty plan and why: an error (the run exits 1), or with --allow-empty a warning.
void print_empty_plan(const std::vector<std::string>& reasons, bool allowed, std::ostream& out);

/// The effective options, as key -> text: the summary's run_config and report.md's
/// Settings (the command line that reproduces the run included).
std::map<std::string, std::string> describe_options(const RunOptions& options);

/// The reporters of a run folder: its files, the formats asked for, the progress, the
/// table, and with a baseline the comparison, judged with `compare`.
RunReporters make_run_reporters(const RunOptions& options, const CompareOptions& compare,
                                const std::filesystem::path& output_dir, spdlog::logger& log, ProgressSink* progress);

/// Logs what discovery and planning found: files that are not plugins, what the plan
/// left out, plugin builds that slow them down, the warnings; or, for an empty plan
/// allowed by --allow-empty, why it is empty (`empty_plan`).
void log_plan(spdlog::logger& log, const Discovery& discovery, const Plan& plan,
              const std::vector<std::string>& empty_plan);

/// Fills in what a record says of its run before the first scenario: its id and when it
/// started (unless `new_run` is false: a resumed run keeps both), the build, the machine
/// and its warnings (logged), the effective options.
void begin_record(RunRecord& record, const RunOptions& options, std::time_t start_time, bool new_run,
                  spdlog::logger& log);

/// With --lock-clocks: the GPUs the plan's scenarios run on ("cuda:N"; "cuda", and "auto"
/// on a machine with a GPU, are cuda:0) locked until the lock is destroyed, and what was
/// locked in the record's hardware facts (gpu.locked_clocks). Null without the option
/// or a scenario on a GPU (a warning). Throws ConfigError naming the option when a GPU
/// cannot be locked, before anything runs.
std::unique_ptr<bench::GpuClockLock> lock_gpu_clocks(const RunOptions& options, const Plan& plan, RunRecord& record,
                                                     spdlog::logger& log);

/// With --throttle-cooldown or --discard-throttled, which act on a CUDA device only: a
/// warning for each when none of the scenarios it was set for runs on one ("cuda",
/// "cuda:N"), so that it does nothing.
void warn_of_gpu_only_settings(const Plan& plan, spdlog::logger& log);

/// How the run loop runs each scenario, from the run's options.
RunLoopOptions run_loop_options(const RunOptions& options);

/// How a comparison with a baseline judges, from the run's options.
CompareOptions comparison_options(const RunOptions& options);

/// Logs the reporters' errors, once each; true when there was none.
bool log_reporter_errors(RunReporters& reporters, spdlog::logger& log);

/// A run folder being written, as `run` writes one and `ab` one per side: its journal and
/// its reporters, from the record's start to its end.
struct RunFolderWriter {
    std::unique_ptr<RunJournal> journal;
    RunReporters reporters;

    /// Opens the journal of `record` in `dir` and starts `reporters` with the record.
    /// Throws when the journal cannot be created, before anything runs.
    void start(const std::filesystem::path& dir, const RunRecord& record, RunReporters reporters);
    /// The parts the run loop writes through.
    RunLoopParts parts(spdlog::logger& log, PluginRegistry& registry) { return {log, registry, *journal, reporters}; }
    /// Ends the run once `runner` has run what it will: the journal brought up to date,
    /// the record finished (unless interrupted) at the time now, the reporters' files
    /// written, every error logged. False when something was not written.
    bool finish(ScenarioRunner& runner, RunRecord& record, spdlog::logger& log);
};

/// With --load, when no scenario succeeded and some were skipped because the load did
/// not fit them (a benchmark that never calls ctx.serve; under --find-peak, an SLO on
/// tokens that a benchmark never reports): the error that says so, naming the option
/// and the benchmarks (the run then exits 2, as for a wrong option); else empty.
std::string load_problem(const RunOptions& options, const RunRecord& record);

}  // namespace benchhost
