#include "commands/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "commands/run_setup.hpp"
#include "discover/discovery.hpp"
#include "discover/plugin_registry.hpp"
#include "execute/executor.hpp"
#include "execute/slurm_ranks.hpp"
#include "execute/worker.hpp"
#include "history/history_noise.hpp"
#include "history/history_store.hpp"
#include "plan/plan.hpp"
#include "plan/shard.hpp"
#include "report/console/progress_reporter.hpp"
#include "report/files/report_json.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_figures.hpp"  // sampling_text
#include "report/report_reader.hpp"
#include "report/reporter_registry.hpp"
#include "run/confirm.hpp"
#include "run/hardware_info.hpp"
#include "run/journal.hpp"
#include "run/run_loop.hpp"
#include "util/join.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// `run --dry-run`: the plan as a table, what it leaves out, and what would make it fail.
/// An empty plan is only its first line: empty_plan_reasons says the rest.
void print_plan(const Plan& plan, const Discovery& discovery, const RunOptions& options,
                const std::optional<ShardInfo>& shard, std::ostream& out) {
    std::vector<std::vector<std::string>> rows;
    std::size_t to_run = 0;
    for (const PlannedScenario& scenario : plan.scenarios) {
        std::string action = "run";
        if (!scenario.reject_reason.empty()) action = "rejected: " + one_line(scenario.reject_reason, 80);
        else if (!scenario.skip_reason.empty()) action = "skipped: " + one_line(scenario.skip_reason, 80);
        else ++to_run;
        rows.push_back({scenario.config.scenario_id(), action == "run" ? sampling_text(scenario.config) : "-", action});
    }
    if (shard)
        out << "Shard " << shard->index << "/" << shard->count << " of a plan of " << shard->plan_scenarios
            << " scenarios. ";
    out << "Plan: " << plan.scenarios.size() << " scenario" << (plan.scenarios.size() == 1 ? "" : "s") << " from "
        << discovery.plugins.size() << " plugin" << (discovery.plugins.size() == 1 ? "" : "s") << " in "
        << folders_text(discovery) << "; " << to_run << " to run";
    if (options.rounds > 1) out << ", " << options.rounds << " rounds each (" << to_run * options.rounds << " runs)";
    out << "\n";
    const bool whole_plan_empty = plan.scenarios.empty() && (!shard || shard->plan_scenarios == 0);
    if (!whole_plan_empty) {
        out << "\n"
            << render_table({{"SCENARIO", Align::left}, {"SAMPLING", Align::left}, {"ACTION", Align::left}}, rows);
        for (const std::string& note : plan.notes) out << "\nnote: " << note;
        for (const std::string& warning : plan.warnings) out << "\nwarning: " << warning;
        for (const std::string& warning : discovery.warnings) out << "\nwarning: " << warning;
        for (const std::string& warning : plugin_build_warnings(plan)) out << "\nwarning: " << warning;
        out << "\n";
    }
    out << "(dry run: nothing was run or written)\n";
}

/// The record of the run being resumed: from its journal when it has one, else from its
/// report files (a run folder written before runs had journals).
RunRecord read_resumed_run(const fs::path& dir) {
    if (!fs::exists(dir / journal_file_name)) return read_run(dir);  // statistics included
    const JournalContents journal = read_journal(dir);
    RunRecord record;
    record.run_id = journal.header.run_id;
    record.timestamp = journal.header.timestamp;
    record.started_at = journal.header.started_at;
    record.shard = journal.header.shard;
    record.outcomes = replay_journal(journal);
    record.run_config = journal.header.run_config;
    return record;
}

/// A resumed run plans again from the options it is given, not from those the run was
/// started with: each setting that differs is named, with the command line that started it.
void warn_of_other_settings(const fs::path& dir, const std::map<std::string, std::string>& before,
                            const std::map<std::string, std::string>& now, spdlog::logger& log) {
    std::string changes;
    // The settings the run recorded (older folders record fewer: one it lacks is not named).
    for (const auto& [key, old_value] : before) {
        if (key == "command_line" || key == "working_directory" || key == "resumed_from") continue;
        const auto is = now.find(key);
        const std::string new_value = is == now.end() ? "" : is->second;
        if (old_value == new_value) continue;
        changes += (changes.empty() ? "" : "; ") + key + " " + (old_value.empty() ? "(none)" : old_value) + ", now " +
                   (new_value.empty() ? "(none)" : new_value);
    }
    if (changes.empty()) return;
    const auto started = before.find("command_line");
    log.warn(
        "--resume: the run in {} was started with other settings ({}): the scenarios still to run are planned "
        "and measured with the options given now{}",
        dir.string(), changes,
        started == before.end() || started->second.empty() ? "" : "; it was started with: " + started->second);
}

/// Everything the run needs before its first scenario; what can be wrong with the
/// invocation is found here, before anything runs.
struct Prepared {
    RunRecord record;
    Discovery discovery;
    Plan plan;
    std::vector<std::string> empty_plan;  // why the whole plan (before --shard) is empty; empty when it is not
    fs::path output_dir;
};

Prepared prepare(const RunOptions& options, const std::string& timestamp, const PluginRegistry& registry) {
    Prepared p;
    if (options.resume_dir) {
        p.record = read_resumed_run(*options.resume_dir);
    } else {
        p.record.timestamp = timestamp;
    }
    p.discovery = discover_plugins(options.plugins_dirs, DiscoveryOptions{options.allow_untrusted});
    if (!options.retry_failed) apply_crash_registry(p.discovery, registry);
    p.plan = make_plan(p.discovery, options);
    // An empty shard of a plan is fine (more shards than benchmarks); an empty plan is not.
    if (p.plan.scenarios.empty()) p.empty_plan = empty_plan_reasons(p.plan, p.discovery, options);
    if (options.shard) {
        const ShardSpec spec = parse_shard(*options.shard);
        std::map<std::string, double> costs;
        if (options.shard_costs) costs = scenario_costs(read_run(run_folder_of(*options.shard_costs)));
        const ShardInfo info{spec.index, spec.count, p.plan.scenarios.size(), plan_fingerprint(p.plan)};
        const auto& resumed = p.record.shard;
        if (resumed && (resumed->index != info.index || resumed->count != info.count ||
                        resumed->plan_fingerprint != info.plan_fingerprint))
            throw ConfigError("--resume: " + options.resume_dir->string() + " is another shard or plan");
        p.plan = shard_plan(p.plan, spec, costs);
        p.record.shard = info;
    }
    return p;
}

}  // namespace

int run_command(const RunCommand& command) {
    const RunOptions& options = command.options;
    const std::time_t start_time = std::time(nullptr);
    const std::string timestamp = format_time(start_time, "%Y%m%d_%H%M%S", false);

    PluginRegistry registry(PluginRegistry::default_path());
    Prepared prepared;
    std::unique_ptr<HistoryStore> history;
    try {
        prepared = prepare(options, timestamp, registry);
        // A history that cannot be written is found before anything runs.
        if (options.history) {
            if (options.dry_run) check_history_location(*options.history);
            else history = open_history(*options.history, true);
        }
        // So is a baseline that is not a run: the comparison at the end could not be made.
        if (options.baseline) {
            try {
                read_run(run_folder_of(*options.baseline));
            } catch (const std::exception& e) {
                throw ConfigError("--baseline " + options.baseline->string() + ": " + e.what());
            }
        }
        const bool empty = !prepared.empty_plan.empty();
        if (options.dry_run) {
            print_plan(prepared.plan, prepared.discovery, options, prepared.record.shard, std::cout);
            if (empty) print_empty_plan(prepared.empty_plan, options.allow_empty, std::cerr);
            return empty && !options.allow_empty ? 1 : 0;
        }
        if (empty && !options.allow_empty) {
            print_empty_plan(prepared.empty_plan, false, std::cerr);
            return 1;
        }
        // Outside an allocation srun has nothing to start ranks in (a dry run, as
        // scripts/slurm/submit's check on the submitting machine, may be anywhere).
        if (options.launcher == Launcher::slurm)
            if (const std::string problem = slurm_allocation_problem(); !problem.empty()) throw ConfigError(problem);
        // The resumed run keeps its folder's file names.
        prepared.output_dir = prepare_output_dir(options.output_dir, prepared.record.timestamp);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    RunRecord& record = prepared.record;
    const Plan& plan = prepared.plan;
    const fs::path& output_dir = prepared.output_dir;

    const bool interactive = !options.quiet && interactive_terminal();
    const std::shared_ptr<ProgressSink> progress = interactive ? std::make_shared<ProgressSink>() : nullptr;
    auto log = make_logger({make_console_sink(options.log_level, options.quiet, progress),
                            make_log_file_sink(output_dir / ("benchmark_run_" + record.timestamp + ".log"),
                                               options.resume_dir.has_value())});
    log->info("benchhost {}: {} plugins in {}, {} scenarios planned, reports in {}", BENCHHOST_VERSION,
              prepared.discovery.plugins.size(), folders_text(prepared.discovery), plan.scenarios.size(),
              output_dir.string());
    log_plan(*log, prepared.discovery, plan, prepared.empty_plan);
    const std::map<std::string, std::string> resumed_config = record.run_config;
    begin_record(record, options, start_time, !options.resume_dir, *log);
    if (options.resume_dir) warn_of_other_settings(*options.resume_dir, resumed_config, record.run_config, *log);
    std::unique_ptr<bench::GpuClockLock> clocks;  // unlocked below, or when this returns early
    try {
        clocks = lock_gpu_clocks(options, plan, record, *log);
    } catch (const std::exception& e) {
        log->error("{}", e.what());
        return 2;
    }
    warn_of_gpu_only_settings(plan, *log);

    // With a history, a series with one run a side is judged against the baseline by the
    // spread between the earlier runs on this machine (as compare --history does).
    CompareOptions compare = comparison_options(options);
    if (history && options.baseline) {
        try {
            compare.history_noise = history_noise_for(*history, record);
            log->info("history: the noise between runs of {} series from the earlier runs on this machine",
                      compare.history_noise.size());
        } catch (const std::exception& e) {
            log->warn("history: cannot read the noise between runs ({}): the baseline is compared without it",
                      e.what());
        }
    }

    RunFolderWriter folder;
    try {
        folder.start(output_dir, record, make_run_reporters(options, compare, output_dir, *log, progress.get()));
    } catch (const std::exception& e) {
        log->error("{}", e.what());
        return 2;
    }

    RunLoopOptions loop = run_loop_options(options);
    loop.execution.rank_files_dir = output_dir;  // --launcher slurm: on the nodes' shared file system
    install_interrupt_handlers();
    ScenarioRunner runner(plan, loop, record, folder.parts(*log, registry));
    run_rounds(runner, plan, options.rounds, record);
    if (options.baseline && options.confirm > 0 && !record.interrupted) {
        try {
            const RunRecord base = read_run(run_folder_of(*options.baseline));
            confirm_regressions(runner, plan, base, compare, options.confirm, record, *log);
        } catch (const std::exception& e) {  // the comparison at the end says it again
            log->error("--confirm: cannot read the baseline {}: {}", options.baseline->string(), e.what());
        }
    }
    if (clocks)
        for (const std::string& problem : clocks->release()) log->warn("{}", problem);
    if (auto problem = registry.save()) log->warn("cannot save the plugin registry: {}", *problem);
    bool written = folder.finish(runner, record, *log);
    if (history) {
        // The run's own files are written: a history that fails now loses nothing.
        try {
            const AddResult added =
                history->add_run(record, fs::absolute(output_dir).lexically_normal().string(), options.history_samples);
            log->info("history: {} as run {} in {}",
                      added.added      ? "recorded"
                      : added.replaced ? "updated (stored before it was resumed)"
                                       : "already recorded",
                      added.run_id, history->where());
        } catch (const std::exception& e) {
            log->error("history: the run was not recorded: {}", e.what());
            written = false;
        }
    }
    if (written)
        log->info("summary: {}; report: {}", (output_dir / summary_file_name).string(),
                  (output_dir / html_report_name).string());

    if (record.interrupted) return 130;
    if (const std::string problem = load_problem(options, record); !problem.empty()) {
        log->error("{}", problem);
        return 2;
    }
    return !written || folder.reporters.exit_status() != 0 || count_totals(record).failed > 0 ? 1 : 0;
}

}  // namespace benchhost
