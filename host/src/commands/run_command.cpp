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
#include <set>
#include <sstream>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "discover/discovery.hpp"
#include "discover/plugin_registry.hpp"
#include "execute/executor.hpp"
#include "json/report_reader.hpp"
#include "plan/plan.hpp"
#include "plan/shard.hpp"
#include "report/progress.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_figures.hpp"  // sampling_text
#include "report/report_json.hpp"
#include "report/reporter_registry.hpp"
#include "run/hardware_info.hpp"
#include "run/journal.hpp"
#include "run/run_loop.hpp"
#include "util/join.hpp"
#include "util/text_table.hpp"

namespace benchhost {

extern const char* const build_git_commit;

namespace fs = std::filesystem;

namespace {

std::string format_time(std::time_t when, const char* format, bool utc) {
    std::tm tm{};
    if (utc) gmtime_r(&when, &tm);
    else localtime_r(&when, &tm);
    char text[64];
    std::strftime(text, sizeof text, format, &tm);
    return text;
}

/// Creates the run's output folder and checks that it is writable, before anything
/// runs. Without --output-dir: benchmark_results/<timestamp>/ and a `latest` link.
fs::path prepare_output_dir(const RunOptions& options, const std::string& timestamp) {
    fs::path dir = options.output_dir ? *options.output_dir : fs::path("benchmark_results") / timestamp;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw ConfigError("cannot create output folder " + dir.string() + ": " + ec.message());
    if (access(dir.c_str(), W_OK) != 0)
        throw ConfigError("output folder " + dir.string() + " is not writable: " + std::strerror(errno));
    if (!options.output_dir) {
        // Replace the link atomically: a new link beside it, renamed over it.
        const fs::path latest = dir.parent_path() / "latest";
        const fs::path temporary = dir.parent_path() / (".latest." + std::to_string(getpid()));
        fs::remove(temporary, ec);
        fs::create_directory_symlink(timestamp, temporary, ec);
        if (!ec) fs::rename(temporary, latest, ec);
    }
    return dir;
}

/// The run's logger: the log file gets everything from debug up; the console gets
/// `level` and up (warn with --quiet), through `progress` when it is given.
std::shared_ptr<spdlog::logger> make_logger(const fs::path& log_file, const std::string& level, bool quiet, bool append,
                                            const std::shared_ptr<ProgressSink>& progress) {
    spdlog::sink_ptr console;
    if (progress) {
        console = progress;
    } else {
        auto colored = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        colored->set_pattern("%^[%l]%$ %v");
        console = colored;
    }
    auto console_level = spdlog::level::from_str(level);
    if (quiet) console_level = std::max(console_level, spdlog::level::warn);
    console->set_level(console_level);
    auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file.string(), !append);
    file->set_level(spdlog::level::debug);
    file->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
    auto logger = std::make_shared<spdlog::logger>("benchhost", spdlog::sinks_init_list{console, file});
    logger->set_level(spdlog::level::debug);
    logger->flush_on(spdlog::level::debug);
    return logger;
}

/// One warning per plugin with scenarios to run whose build slows it down (not
/// optimized, assertions on, a sanitizer).
std::vector<std::string> plugin_build_warnings(const Plan& plan) {
    std::vector<std::string> warnings;
    std::set<fs::path> seen;
    for (const PlannedScenario& scenario : plan.scenarios) {
        if (!scenario.skip_reason.empty() || !scenario.reject_reason.empty()) continue;
        if (!seen.insert(scenario.plugin_path).second) continue;
        if (const std::string warning = build_warning(scenario.plugin_build); !warning.empty())
            warnings.push_back("plugin " + scenario.config.category + "/" + scenario.config.plugin + " (" +
                               scenario.plugin_path.string() + ") was " + warning);
    }
    return warnings;
}

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
        << options.plugins_dir.string() << "; " << to_run << " to run";
    if (options.rounds > 1) out << ", " << options.rounds << " rounds each (" << to_run * options.rounds << " runs)";
    out << "\n";
    const bool whole_plan_empty = plan.scenarios.empty() && (!shard || shard->plan_scenarios == 0);
    if (!whole_plan_empty) {
        out << "\n" << render_table({{"SCENARIO", Align::left}, {"SAMPLING", Align::left}, {"ACTION", Align::left}}, rows);
        for (const std::string& note : plan.notes) out << "\nnote: " << note;
        for (const std::string& warning : plan.warnings) out << "\nwarning: " << warning;
        for (const std::string& warning : discovery.warnings) out << "\nwarning: " << warning;
        for (const std::string& warning : plugin_build_warnings(plan)) out << "\nwarning: " << warning;
        out << "\n";
    }
    out << "(dry run: nothing was run or written)\n";
}

/// An empty plan and why: an error (the run exits 1), or with --allow-empty a warning.
void print_empty_plan(const std::vector<std::string>& reasons, bool allowed, std::ostream& out) {
    out << (allowed ? "benchhost: warning: the plan has no scenarios (--allow-empty: not an error)"
                    : "benchhost: error: nothing to run: the plan has no scenarios")
        << "\n";
    for (const std::string& reason : reasons) out << "  " << reason << "\n";
    if (!allowed) out << "  (with --allow-empty an empty plan exits 0)\n";
}

/// `text` as one word for a POSIX shell: as it is when it is safe, else in single quotes.
std::string shell_word(const std::string& text) {
    const bool safe = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-./=,:+@%", c) != nullptr;
    });
    if (safe) return text;
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// The scenario settings `settings` sets, under `prefix`: "warmup_iterations",
/// "axes.batch_size", "params.image_size", ...
void describe_settings(const ScenarioSettings& settings, const std::string& prefix,
                       std::map<std::string, std::string>& out) {
    const auto number = [](double value) {
        std::ostringstream text;
        text << value;
        return text.str();
    };
    if (settings.warmup_iterations) out[prefix + "warmup_iterations"] = std::to_string(*settings.warmup_iterations);
    if (settings.measurement_iterations)
        out[prefix + "measurement_iterations"] = std::to_string(*settings.measurement_iterations);
    if (settings.min_time_s) out[prefix + "min_time_s"] = number(*settings.min_time_s);
    if (settings.max_time_s) out[prefix + "max_time_s"] = number(*settings.max_time_s);
    if (settings.target_ci_width) out[prefix + "target_ci_width"] = number(*settings.target_ci_width);
    if (settings.num_tokens_to_generate)
        out[prefix + "num_tokens_to_generate"] = std::to_string(*settings.num_tokens_to_generate);
    if (settings.model_id) out[prefix + "model_id"] = *settings.model_id;
    for (const auto& [axis, values] : settings.axes) out[prefix + "axes." + axis] = join(values);
    for (const auto& [key, values] : settings.params.all()) out[prefix + "params." + key] = join(values);
}

std::map<std::string, std::string> describe_options(const RunOptions& options) {
    std::map<std::string, std::string> out;
    std::string command_line;
    for (const std::string& word : options.invocation) command_line += (command_line.empty() ? "" : " ") + shell_word(word);
    out["command_line"] = command_line;
    std::error_code ec;
    out["working_directory"] = fs::current_path(ec).string();
    // The scenario settings of every plugin (defaults, the config file, the command line),
    // and what the config file sets for single plugins.
    ScenarioSettings scenario = options.defaults;
    scenario.overlay(options.config);
    scenario.overlay(options.command_line);
    describe_settings(scenario, "", out);
    for (const auto& [plugin, settings] : options.plugin_settings) describe_settings(settings, "plugins." + plugin + ".", out);
    out["plugins_dir"] = options.plugins_dir.string();
    out["config_file"] = options.config_file ? options.config_file->string() : "";
    out["include"] = join(options.include);
    out["exclude"] = join(options.exclude);
    out["categories"] = join(options.categories);
    out["enable_mock"] = options.enable_mock ? "true" : "false";
    out["isolation"] = std::string(to_string(options.isolation));
    std::ostringstream timeout;
    timeout << options.timeout_s;
    out["timeout_s"] = timeout.str();
    std::ostringstream interval;
    interval << options.monitor_interval_ms;
    out["monitor_interval_ms"] = interval.str();
    out["memory_limit_mib"] = std::to_string(options.memory_limit_mib);
    out["retry_failed"] = options.retry_failed ? "true" : "false";
    out["allow_untrusted_plugins"] = options.allow_untrusted ? "true" : "false";
    out["resumed_from"] = options.resume_dir ? options.resume_dir->string() : "";
    out["rounds"] = std::to_string(options.rounds);
    out["formats"] = join(options.extra_formats);
    out["shard"] = options.shard.value_or("");
    out["shard_costs"] = options.shard_costs ? options.shard_costs->string() : "";
    out["baseline"] = options.baseline ? options.baseline->string() : "";
    if (options.baseline) {
        std::ostringstream threshold;
        threshold << options.regression_threshold;
        out["regression_threshold"] = threshold.str();
        out["fail_on_regression"] = options.fail_on_regression ? "true" : "false";
    }
    return out;
}

/// The record of the run being resumed: from its journal when it has one, else from its
/// report files (a run folder written before runs had journals).
RunRecord read_resumed_run(const fs::path& dir) {
    if (!fs::exists(dir / journal_file_name)) return read_run(dir);  // statistics included
    const JournalContents journal = read_journal(dir);
    RunRecord record;
    record.timestamp = journal.header.timestamp;
    record.started_at = journal.header.started_at;
    record.shard = journal.header.shard;
    record.outcomes = replay_journal(journal);
    return record;
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
    p.discovery = discover_plugins(options.plugins_dir, DiscoveryOptions{options.allow_untrusted});
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

/// The reporters of a run: its files, the formats asked for, the table, the comparison.
ReporterMultiplex make_run_reporters(const RunOptions& options, const fs::path& output_dir, spdlog::logger& log,
                                     ProgressSink* progress) {
    ReporterSettings settings;
    settings.output_dir = output_dir;
    settings.log = &log;
    settings.progress = progress;
    std::vector<std::string> names = file_reporter_names(options.extra_formats);
    names.emplace_back("progress");
    names.emplace_back("console");
    if (options.baseline) {
        names.emplace_back("comparison");
        settings.baseline = *options.baseline;
        settings.regression_threshold = options.regression_threshold;
        settings.fail_on_regression = options.fail_on_regression;
    }
    return make_reporters(names, settings);
}

bool log_reporter_errors(ReporterMultiplex& reporters, spdlog::logger& log) {
    const std::vector<std::string> errors = reporters.take_errors();
    for (const std::string& error : errors) log.error("{}", error);
    return errors.empty();
}

}  // namespace

int run_benchmarks(const RunOptions& options) {
    const std::time_t start_time = std::time(nullptr);
    const std::string timestamp = format_time(start_time, "%Y%m%d_%H%M%S", false);

    PluginRegistry registry(PluginRegistry::default_path());
    Prepared prepared;
    try {
        prepared = prepare(options, timestamp, registry);
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
        // The resumed run keeps its folder's file names.
        prepared.output_dir = prepare_output_dir(options, prepared.record.timestamp);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    RunRecord& record = prepared.record;
    const Plan& plan = prepared.plan;
    const fs::path& output_dir = prepared.output_dir;

    const bool interactive = !options.quiet && interactive_terminal();
    const std::shared_ptr<ProgressSink> progress = interactive ? std::make_shared<ProgressSink>() : nullptr;
    auto log = make_logger(output_dir / ("benchmark_run_" + record.timestamp + ".log"), options.log_level,
                           options.quiet, options.resume_dir.has_value(), progress);
    log->info("benchhost {}: {} plugins in {}, {} scenarios planned, reports in {}", BENCHHOST_VERSION,
              prepared.discovery.plugins.size(), options.plugins_dir.string(), plan.scenarios.size(),
              output_dir.string());
    for (const RejectedFile& file : prepared.discovery.rejected)
        log->log(file.is_broken_plugin() ? spdlog::level::warn : spdlog::level::debug, "not a plugin: {}: {}",
                 file.path.string(), file.reason);
    for (const std::string& note : plan.notes) log->info("{}", note);
    for (const std::string& warning : plugin_build_warnings(plan)) log->warn("{}", warning);
    if (prepared.empty_plan.empty()) {
        // An empty plan's reasons hold these warnings too.
        for (const std::string& warning : plan.warnings) log->warn("{}", warning);
        for (const std::string& warning : prepared.discovery.warnings) log->warn("{}", warning);
    } else {
        log->warn("the plan has no scenarios (--allow-empty: not an error)");
        for (const std::string& reason : prepared.empty_plan) log->warn("  {}", reason);
    }

    if (!options.resume_dir) record.started_at = format_time(start_time, "%Y-%m-%dT%H:%M:%SZ", true);
    record.interrupted = false;
    record.finished = false;
    record.commit_id = build_git_commit;
    record.host_version = BENCHHOST_VERSION;
    record.hardware = collect_hardware_info();
    record.hardware_warnings = hardware_warnings(record.hardware);
    for (const std::string& warning : record.hardware_warnings) log->warn("{}", warning);
    for (const ScenarioOutcome& outcome : record.outcomes) add_reported_facts(record.hardware, outcome);
    record.host_name = record.hardware["host"]["hostname"];
    record.run_config = describe_options(options);

    std::unique_ptr<RunJournal> journal;
    ReporterMultiplex reporters;
    try {
        journal = std::make_unique<RunJournal>(
            output_dir, JournalHeader{record.timestamp, record.started_at, record.commit_id, record.host_version,
                                      record.run_config, record.shard});
        reporters = make_run_reporters(options, output_dir, *log, progress.get());
    } catch (const std::exception& e) {
        log->error("{}", e.what());
        return 2;
    }
    reporters.run_started(record);

    RunLoopOptions loop;
    loop.rounds = options.rounds;
    loop.retry_failed = options.retry_failed;
    loop.execution.isolation = options.isolation;
    loop.execution.timeout_s = options.timeout_s;
    loop.execution.memory_limit_mib = options.memory_limit_mib;
    loop.execution.worker_log_level = options.log_level;
    loop.execution.monitor_interval_ms = options.monitor_interval_ms;

    install_interrupt_handlers();
    const bool journaled = run_plan(plan, loop, record, RunLoopParts{*log, registry, *journal, reporters});
    bool written = log_reporter_errors(reporters, *log);

    record.finished = !record.interrupted;
    record.finished_at = format_time(std::time(nullptr), "%Y-%m-%dT%H:%M:%SZ", true);
    if (auto problem = registry.save()) log->warn("cannot save the plugin registry: {}", *problem);

    reporters.run_finished(record);
    written = log_reporter_errors(reporters, *log) && written;
    if (written)
        log->info("summary: {}; report: {}", (output_dir / summary_file_name).string(),
                  (output_dir / html_report_name).string());

    if (record.interrupted) return 130;
    return !written || !journaled || reporters.exit_status() != 0 || count_totals(record).failed > 0 ? 1 : 0;
}

}  // namespace benchhost
