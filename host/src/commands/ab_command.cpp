#include "commands/ab_command.hpp"

#include <algorithm>
#include <iostream>

#include "analysis/thread_contention.hpp"
#include "commands/run_setup.hpp"
#include "discover/discovery.hpp"
#include "discover/plugin_registry.hpp"
#include "execute/executor.hpp"
#include "plan/ab_pairs.hpp"
#include "report/comparison_reporter.hpp"
#include "report/files/junit_reporter.hpp"
#include "report/files/report_json.hpp"
#include "report/html/comparison_page.hpp"
#include "report/markdown/summary_md_reporter.hpp"
#include "report/rendered_reports.hpp"
#include "report/reporter_registry.hpp"
#include "run/ab_loop.hpp"
#include "run/journal.hpp"
#include "util/atomic_file.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// One side of the A/B run: its options, plugins, plan, record and files.
struct AbRunSide {
    std::string name;  // "base" or "new"
    RunOptions options;
    Discovery discovery;
    Plan plan;
    std::vector<std::string> empty_plan;
    RunRecord record;
    fs::path dir;
    std::shared_ptr<spdlog::logger> log;
    RunFolderWriter folder;
};

RunOptions side_options(const AbCommand& command, const PluginFolders& plugins_dirs,
                        const std::vector<std::pair<std::string, std::vector<std::string>>>& params) {
    RunOptions options = command.options;
    options.plugins_dirs = plugins_dirs;
    for (const auto& [key, values] : params) options.command_line.params.set(key, values);
    return options;
}

void prepare_side(AbRunSide& side, PluginRegistry& registry) {
    side.discovery = discover_plugins(side.options.plugins_dirs, DiscoveryOptions{side.options.allow_untrusted});
    if (!side.options.retry_failed) apply_crash_registry(side.discovery, registry);
    side.plan = make_plan(side.discovery, side.options);
    if (side.plan.scenarios.empty()) side.empty_plan = empty_plan_reasons(side.plan, side.discovery, side.options);
}

/// `ab --dry-run`: the pairs, and how many rounds they may take.
void print_pairs(const std::vector<AbPair>& pairs, const AbCommand& command, std::ostream& out) {
    std::vector<std::vector<std::string>> rows;
    for (const AbPair& pair : pairs) rows.push_back({pair.scenario_id});
    out << "A/B plan: " << pairs.size() << " scenario" << (pairs.size() == 1 ? "" : "s") << " on both sides (base "
        << command.base_dirs.text() << ", new " << command.new_dirs.text() << "); " << command.options.rounds
        << " pairs of rounds each, up to " << command.max_rounds << " while inconclusive\n\n"
        << render_table({{"SCENARIO", Align::left}}, rows) << "(dry run: nothing was run or written)\n";
}

}  // namespace

int ab_command(const AbCommand& command) { return run_ab_command(command).exit_status; }

AbOutcome run_ab_command(const AbCommand& command) {
    AbOutcome outcome;
    auto done = [&outcome](int status) {
        outcome.exit_status = status;
        return std::move(outcome);
    };
    const std::time_t start_time = std::time(nullptr);
    const std::string timestamp = format_time(start_time, "%Y%m%d_%H%M%S", false);
    PluginRegistry registry(PluginRegistry::default_path());
    AbRunSide base, next;
    base.name = "base";
    base.options = side_options(command, command.base_dirs, command.base_params);
    next.name = "new";
    next.options = side_options(command, command.new_dirs, command.new_params);
    std::vector<AbPair> pairs;
    fs::path output_dir;
    try {
        prepare_side(base, registry);
        prepare_side(next, registry);
        for (AbRunSide* side : {&base, &next}) {
            if (side->empty_plan.empty()) continue;
            std::cerr << "--" << side->name << " " << side->options.plugins_dirs.text() << ":\n";
            print_empty_plan(side->empty_plan, command.options.allow_empty, std::cerr);
            if (!command.options.allow_empty) return done(1);
        }
        pairs = pair_plans(base.plan, next.plan, command.base_dirs.text(), command.new_dirs.text());
        if (command.options.dry_run) {
            print_pairs(pairs, command, std::cout);
            return done(0);
        }
        output_dir = prepare_output_dir(command.options.output_dir, "ab_" + timestamp);
        outcome.output_dir = output_dir;
        for (AbRunSide* side : {&base, &next}) side->dir = prepare_output_dir(output_dir / side->name, timestamp);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return done(2);
    }

    std::unique_ptr<bench::GpuClockLock> clocks;  // unlocked when the pairs have run, or this returns early
    // One log for the A/B run, and each side's in its folder; the console sees each line once.
    const spdlog::sink_ptr console = make_console_sink(command.options.log_level, command.options.quiet, nullptr);
    const spdlog::sink_ptr ab_file = make_log_file_sink(output_dir / ("benchmark_ab_" + timestamp + ".log"), false);
    auto log = make_logger({console, ab_file});
    log->info("benchhost {} ab: {} scenarios, base {}, new {}; {} to {} pairs of rounds each; reports in {}",
              BENCHHOST_VERSION, pairs.size(), command.base_dirs.text(), command.new_dirs.text(),
              command.options.rounds, command.max_rounds, output_dir.string());
    try {
        for (AbRunSide* side : {&base, &next}) {
            side->log = make_logger(
                {console, ab_file, make_log_file_sink(side->dir / ("benchmark_run_" + timestamp + ".log"), false)});
            log_plan(*side->log, side->discovery, side->plan, side->empty_plan);
            side->record.timestamp = timestamp;
            begin_record(side->record, side->options, start_time, true, *side->log);
            side->record.run_config["ab_side"] = side->name;
            side->record.run_config["ab_other_side"] = (side == &base ? command.new_dirs : command.base_dirs).text();
            ReporterSettings settings;
            settings.output_dir = side->dir;
            settings.log = side->log.get();
            // The page for people is the A/B run's (below), not each side's.
            std::vector<std::string> formats = side->options.extra_formats;
            std::erase(formats, std::string("summary-md"));
            side->folder.start(side->dir, side->record,
                               make_reporters(reporter_names({ReporterKind::file}, formats), settings));
        }
        // Both sides run on the same GPUs: locked once, recorded on both.
        clocks = lock_gpu_clocks(command.options, base.plan, base.record, *log);
        warn_of_gpu_only_settings(base.plan, *log);
        if (clocks) next.record.hardware["gpu"]["locked_clocks"] = base.record.hardware["gpu"]["locked_clocks"];
    } catch (const std::exception& e) {
        log->error("{}", e.what());
        return done(2);
    }

    install_interrupt_handlers();
    const RunLoopOptions loop = run_loop_options(command.options);
    ScenarioRunner base_runner(base.plan, loop, base.record, base.folder.parts(*base.log, registry));
    ScenarioRunner new_runner(next.plan, loop, next.record, next.folder.parts(*next.log, registry));
    AbLoopOptions ab;
    ab.min_rounds = command.options.rounds;
    ab.max_rounds = command.max_rounds;
    ab.time_limit_s = command.time_limit_s;
    ab.confirm = command.options.confirm;
    ab.compare = comparison_options(command.options);
    ab.compare.first_look_pairs = static_cast<std::size_t>(command.options.rounds);
    std::vector<std::string> notes = run_ab(pairs, ab, AbSide{base.plan, base_runner, base.record},
                                            AbSide{next.plan, new_runner, next.record}, *log);
    if (clocks)
        for (const std::string& problem : clocks->release()) log->warn("{}", problem);
    const bool interrupted = base.record.interrupted || next.record.interrupted;
    bool written = true;
    for (auto [side, runner] : {std::pair{&base, &base_runner}, std::pair{&next, &new_runner}}) {
        side->record.interrupted = interrupted;
        written = side->folder.finish(*runner, side->record, *side->log) && written;
    }
    if (auto problem = registry.save()) log->warn("cannot save the plugin registry: {}", *problem);

    CompareOptions compare = ab.compare;
    compare.paired = true;
    Comparison comparison = compare_runs(base.record, next.record, compare);
    comparison.differences = side_differences(base.record, next.record);
    comparison.base_label = command.base_dirs.text();
    comparison.new_label = command.new_dirs.text();
    if (interrupted) notes.insert(notes.begin(), "interrupted: the figures are those of the pairs that ran");
    // An A/B run that compared nothing has not answered its question: it fails.
    const bool nothing_compared = comparison.rows.empty() && !interrupted;
    if (nothing_compared)
        notes.insert(notes.begin(), "nothing was compared: no scenario succeeded on both sides (see Not compared)");
    if (const auto crowded =
            thread_per_cpu_warning(base.record, next.record, comparison.base_load, comparison.new_load)) {
        log->warn("{}", *crowded);
        notes.push_back(*crowded);
    }
    comparison.notes = std::move(notes);
    outcome.comparison = comparison;
    std::cout << "\n";
    try {
        report_comparison(comparison, std::cout, output_dir / "comparison.md", output_dir / "comparison.json");
        write_file_atomically(output_dir / html_report_name,
                              comparison_html(comparison, "benchhost A/B " + timestamp,
                                              {{"base side: report", "base/" + std::string(html_report_name)},
                                               {"new side: report", "new/" + std::string(html_report_name)},
                                               {"comparison.md", "comparison.md"},
                                               {"comparison.json", "comparison.json"}}));
        // The A/B verdicts on the new side's scenarios, for CI test reports and job summaries.
        const auto& formats = command.options.extra_formats;
        if (std::find(formats.begin(), formats.end(), "junit") != formats.end())
            write_file_atomically(output_dir / "junit.xml", junit_xml(junit_cases(next.record, &comparison),
                                                                      "benchhost ab", next.record.started_at));
        if (std::find(formats.begin(), formats.end(), "summary-md") != formats.end()) {
            const std::string page = summary_markdown(next.record, &comparison, "benchhost A/B " + timestamp,
                                                      {{"A/B report", html_report_name},
                                                       {"comparison", "comparison.md"},
                                                       {"base side", "base/" + std::string(html_report_name)},
                                                       {"new side", "new/" + std::string(html_report_name)}});
            write_file_atomically(output_dir / "summary.md", page);
            append_to_step_summary(page);
        }
    } catch (const std::exception& e) {
        log->error("{}", e.what());
        written = false;
    }
    log->info("comparison: {}; report: {}", (output_dir / "comparison.md").string(),
              (output_dir / html_report_name).string());

    if (interrupted) return done(130);
    // A --load that no selected benchmark served was wrong for the selection, as in `run`.
    for (const AbRunSide* side : {&base, &next}) {
        if (const std::string problem = load_problem(side->options, side->record); !problem.empty()) {
            log->error("{} side: {}", side->name, problem);
            return done(2);
        }
    }
    const std::size_t slower = comparison.regressions();
    if (command.options.fail_on_regression && slower > 0)
        log->error("{} regression{} beyond the threshold of {:.3g}%", slower, slower == 1 ? "" : "s",
                   command.options.regression_threshold * 100);
    const bool failed = count_totals(base.record).failed > 0 || count_totals(next.record).failed > 0;
    if (nothing_compared) log->error("nothing was compared: no scenario succeeded on both sides");
    return done(!written || failed || nothing_compared || (command.options.fail_on_regression && slower > 0) ? 1 : 0);
}

}  // namespace benchhost
