#include "commands/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
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

#include <bench/statistics.hpp>
#include <bench/stopping_rule.hpp>

#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "commands/compare_command.hpp"
#include "report/console_table.hpp"
#include "discover/discovery.hpp"
#include "util/atomic_file.hpp"
#include "execute/executor.hpp"
#include "report/gbench_export.hpp"
#include "run/hardware_info.hpp"
#include "plan/plan.hpp"
#include "discover/plugin_registry.hpp"
#include "report/progress.hpp"
#include "json/report_reader.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_writer.hpp"
#include "plan/shard.hpp"
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

std::string join(const std::vector<std::string>& items, const std::string& separator = ",") {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
    return out;
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

/// How a scenario will be sampled, for the plan: "3 warmup, 10 samples".
std::string sampling_text(const bench::ScenarioConfig& config) {
    std::ostringstream text;
    text << config.warmup_iterations << " warmup, ";
    const bool time_rule = config.min_time_s > 0 || config.max_time_s > 0 || config.target_ci_width > 0;
    if (!time_rule) {
        text << config.measurement_iterations << " samples";
        return text.str();
    }
    text << "at least " << config.measurement_iterations << " samples";
    if (config.min_time_s > 0) text << ", at least " << config.min_time_s << " s";
    if (config.target_ci_width > 0) text << ", until the CI is " << config.target_ci_width * 100 << "% wide";
    const double max_time = config.max_time_s > 0                                 ? config.max_time_s
                            : config.target_ci_width > 0 ? bench::default_max_time_s : 0;
    if (max_time > 0) text << ", at most " << max_time << " s";
    return text.str();
}

/// `run --dry-run`: the plan as a table, and what would make it fail.
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
    out << "\n\n" << render_table({{"SCENARIO", Align::left}, {"SAMPLING", Align::left}, {"ACTION", Align::left}}, rows);
    for (const std::string& warning : plan.warnings) out << "\nwarning: " << warning;
    out << "\n(dry run: nothing was run or written)\n";
}

std::map<std::string, std::string> describe_options(const RunOptions& options) {
    std::map<std::string, std::string> out;
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

std::string headline(const ScenarioOutcome& outcome) {
    const bench::ScenarioResult& result = outcome.result;
    std::ostringstream text;
    text << to_string(result.status);
    if (const bench::Series* latency = result.find_series("latency"); latency && !latency->samples.empty()) {
        const bench::Summary summary = bench::summarize(latency->samples);
        text << ", median " << format_figure(summary.median, latency->unit);
    }
    if (!result.reason.empty()) text << ": " << result.reason;
    return text.str();
}

/// Pools the samples of one more round into the outcome of the earlier ones. A round
/// that did not succeed makes the scenario fail with its reason; the cold start, the
/// scalars and the monitors stay those of the first round.
void merge_round(ScenarioOutcome& pooled, ScenarioOutcome&& round) {
    ++pooled.rounds;
    pooled.wall_time_s += round.wall_time_s;
    bench::ScenarioResult& into = pooled.result;
    if (into.status != bench::Status::success) return;
    if (round.result.status != bench::Status::success) {
        into.status = round.result.status;
        into.reason = "round " + std::to_string(pooled.rounds) + ": " + round.result.reason;
        pooled.log_tail = std::move(round.log_tail);
        return;
    }
    for (bench::Series& series : round.result.series) {
        bench::Series* existing = nullptr;
        for (bench::Series& s : into.series)
            if (s.name == series.name && s.unit == series.unit) existing = &s;
        if (existing == nullptr) continue;  // a series only one round measured is not pooled
        existing->samples.insert(existing->samples.end(), series.samples.begin(), series.samples.end());
    }
    for (auto& [name, sampling] : round.result.sampling) {
        auto it = into.sampling.find(name);
        if (it == into.sampling.end()) continue;
        it->second.samples += sampling.samples;
        it->second.elapsed_s += sampling.elapsed_s;
        if (sampling.stop_reason != it->second.stop_reason) it->second.stop_reason += "," + sampling.stop_reason;
    }
    for (std::string& warning : round.result.warnings)
        if (std::find(into.warnings.begin(), into.warnings.end(), warning) == into.warnings.end())
            into.warnings.push_back("round " + std::to_string(pooled.rounds) + ": " + warning);
}

/// Recomputes the pooled series' sampling figures that depend on all their samples.
void finish_rounds(ScenarioOutcome& outcome) {
    for (auto& [name, sampling] : outcome.result.sampling) {
        if (const bench::Series* series = outcome.result.find_series(name))
            sampling.ci_width = bench::relative_median_ci_width(series->samples);
    }
}

}  // namespace

int run_benchmarks(const RunOptions& options) {
    const std::time_t start_time = std::time(nullptr);
    std::string timestamp = format_time(start_time, "%Y%m%d_%H%M%S", false);

    // Everything that can be wrong with the invocation is found before anything runs.
    RunRecord record;
    Discovery discovery;
    Plan plan;
    fs::path output_dir;
    PluginRegistry registry(PluginRegistry::default_path());
    try {
        if (options.resume_dir) {
            record = read_run(*options.resume_dir);
            timestamp = record.timestamp;  // the resumed run keeps its file names
        }
        discovery = discover_plugins(options.plugins_dir, DiscoveryOptions{options.allow_untrusted});
        if (!options.retry_failed) apply_crash_registry(discovery, registry);
        plan = make_plan(discovery, options);
        if (options.shard) {
            const ShardSpec spec = parse_shard(*options.shard);
            std::map<std::string, double> costs;
            if (options.shard_costs) costs = scenario_costs(read_run(run_folder_of(*options.shard_costs)));
            const ShardInfo info{spec.index, spec.count, plan.scenarios.size(), plan_fingerprint(plan)};
            if (record.shard && (record.shard->index != info.index || record.shard->count != info.count ||
                                 record.shard->plan_fingerprint != info.plan_fingerprint))
                throw ConfigError("--resume: " + options.resume_dir->string() + " is another shard or plan");
            plan = shard_plan(plan, spec, costs);
            record.shard = info;
        }
        if (options.dry_run) {
            print_plan(plan, discovery, options, record.shard, std::cout);
            return 0;
        }
        output_dir = prepare_output_dir(options, timestamp);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }

    const bool interactive = !options.quiet && interactive_terminal();
    const std::shared_ptr<ProgressSink> progress = interactive ? std::make_shared<ProgressSink>() : nullptr;
    auto log = make_logger(output_dir / ("benchmark_run_" + timestamp + ".log"), options.log_level, options.quiet,
                           options.resume_dir.has_value(), progress);
    log->info("benchhost {}: {} plugins in {}, {} scenarios planned, reports in {}", BENCHHOST_VERSION,
              discovery.plugins.size(), options.plugins_dir.string(), plan.scenarios.size(), output_dir.string());
    for (const RejectedFile& file : discovery.rejected)
        log->log(file.is_broken_plugin() ? spdlog::level::warn : spdlog::level::debug, "not a plugin: {}: {}",
                 file.path.string(), file.reason);
    for (const std::string& warning : plan.warnings) log->warn("{}", warning);

    char scratch_template[] = "/tmp/benchhost-XXXXXX";
    const char* scratch = mkdtemp(scratch_template);
    if (scratch == nullptr) {
        log->error("cannot create a scratch folder in /tmp: {}", std::strerror(errno));
        return 2;
    }
    ExecutionOptions execution;
    execution.isolation = options.isolation;
    execution.timeout_s = options.timeout_s;
    execution.memory_limit_mib = options.memory_limit_mib;
    execution.scratch_dir = scratch;
    execution.worker_log_level = options.log_level;
    execution.monitor_interval_ms = options.monitor_interval_ms;

    std::set<std::string> already_reported;
    for (const ScenarioOutcome& outcome : record.outcomes) already_reported.insert(outcome.config.scenario_id());
    if (!options.resume_dir) {
        record.timestamp = timestamp;
        record.started_at = format_time(start_time, "%Y-%m-%dT%H:%M:%SZ", true);
    }
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

    // Writes what changed after each scenario, so that a run killed at any point
    // leaves complete reports of everything it finished.
    auto write_progress = [&](const std::string* plugin) {
        try {
            write_reports(record, output_dir, plugin);
            for (const std::string& format : options.extra_formats)
                if (format == "gbench-json") write_file_atomically(output_dir / "gbench.json", to_gbench_json(record));
        } catch (const std::exception& e) {
            log->error("{}", e.what());
            return false;
        }
        return true;
    };

    install_interrupt_handlers();
    std::map<fs::path, std::string> crashed_while_loading;  // in this run
    const std::vector<std::size_t> order = execution_order(plan, options.rounds);
    std::map<std::size_t, std::size_t> rounds_left;             // plan index -> executions still to come
    std::map<std::size_t, std::size_t> outcome_index;           // plan index -> its place in record.outcomes
    for (const std::size_t index : order) ++rounds_left[index];
    const std::size_t total = order.size();
    ProgressClock clock(total);
    // On a terminal the status line shows what runs; elsewhere a line says so.
    const auto start_level = progress ? spdlog::level::debug : spdlog::level::info;
    for (std::size_t i = 0; i < total; ++i) {
        const std::size_t index = order[i];
        PlannedScenario scenario = plan.scenarios[index];
        const std::string id = scenario.config.scenario_id();
        const bool last_round = --rounds_left[index] == 0;
        const bool first_round = outcome_index.count(index) == 0;
        if (already_reported.count(id) > 0) {
            if (first_round && last_round) log->info("[{}/{}] {}: already reported in {}", i + 1, total, id, output_dir.string());
            clock.skipped_one();
            continue;
        }
        if (!first_round && record.outcomes[outcome_index[index]].result.status != bench::Status::success) {
            clock.skipped_one();  // a round failed: the scenario has failed, its later rounds are not run
            continue;
        }
        if (auto crash = crashed_while_loading.find(scenario.plugin_path); crash != crashed_while_loading.end())
            scenario.reject_reason = scenario.plugin_path.string() + ": " + crash->second +
                                     "; its other scenarios are not run";
        log->log(start_level, "[{}/{}] {}", i + 1, total, id);
        if (progress) progress->set_status(id, &clock);
        ScenarioOutcome outcome = execute_scenario(scenario, execution, *log);
        clock.finished_one();
        if (interrupt_requested()) {
            log->warn("interrupted: {} was stopped; writing the {} finished scenarios", id, record.outcomes.size());
            record.interrupted = true;
            break;
        }
        if (outcome.crashed_while_loading) {
            crashed_while_loading[scenario.plugin_path] = outcome.result.reason;
            registry.record_crash(scenario.plugin_path, outcome.result.reason);
        } else if (outcome.result.status != bench::Status::rejected && options.retry_failed) {
            registry.forget(scenario.plugin_path);  // it loads now
        }
        const bool ok = outcome.result.status == bench::Status::success || outcome.result.status == bench::Status::skipped;
        log->log(ok ? spdlog::level::info : spdlog::level::err, "[{}/{}] {}: {} ({:.2f} s; {})", i + 1, total, id,
                 headline(outcome), outcome.wall_time_s, progress_text(clock.state()));
        if (!ok && !outcome.log_tail.empty()) log->debug("last output of the worker:\n{}", outcome.log_tail);
        for (const std::string& warning : outcome.result.warnings) log->warn("{}: {}", id, warning);
        add_reported_facts(record.hardware, outcome);
        if (first_round) {
            outcome_index[index] = record.outcomes.size();
            record.outcomes.push_back(std::move(outcome));
        } else {
            merge_round(record.outcomes[outcome_index[index]], std::move(outcome));
        }
        ScenarioOutcome& current = record.outcomes[outcome_index[index]];
        if (last_round) {
            if (current.rounds > 1) finish_rounds(current);
            if (current.result.status == bench::Status::success) {
                for (std::string& warning : statistical_warnings(current.result)) {
                    log->warn("{}: {}", id, warning);
                    current.result.warnings.push_back(std::move(warning));
                }
            }
        }
        if (!write_progress(&current.config.plugin)) {
            if (current.result.status == bench::Status::success) {
                current.result.status = bench::Status::failed;
                current.result.reason = "measured, but its report could not be written (see the log)";
            }
        }
    }
    if (progress) progress->finish();
    record.finished = !record.interrupted;
    record.finished_at = format_time(std::time(nullptr), "%Y-%m-%dT%H:%M:%SZ", true);
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    if (auto problem = registry.save()) log->warn("cannot save the plugin registry: {}", *problem);

    bool written = write_progress(nullptr);
    // The reports for people, once at the end (charts over every scenario).
    try {
        write_rendered_reports(record, output_dir);
    } catch (const std::exception& e) {
        log->error("{}", e.what());
        written = false;
    }
    std::cout << format_summary_table(record) << std::flush;
    if (written)
        log->info("summary: {}; report: {}", (output_dir / "benchmark_summary.json").string(),
                  (output_dir / html_report_name).string());

    if (record.interrupted) return 130;
    int status = !written || count_totals(record).failed > 0 ? 1 : 0;
    if (options.baseline) {
        try {
            const fs::path base_dir = run_folder_of(*options.baseline);
            Comparison comparison =
                compare_runs(read_run(base_dir), record, CompareOptions{options.regression_threshold, 0.05});
            comparison.base_label = base_dir.string();
            comparison.new_label = output_dir.string();
            std::cout << "\n";
            report_comparison(comparison, std::cout, output_dir / "comparison.md", output_dir / "comparison.json");
            log->info("comparison with {}: {} slower, {} faster", base_dir.string(), comparison.count(Verdict::slower),
                      comparison.count(Verdict::faster));
            if (options.fail_on_regression && comparison.regressions() > 0) {
                log->error("{} regression{} beyond the threshold of {:.3g}%", comparison.regressions(),
                           comparison.regressions() == 1 ? "" : "s", options.regression_threshold * 100);
                status = 1;
            }
        } catch (const std::exception& e) {
            log->error("cannot compare with the baseline {}: {}", options.baseline->string(), e.what());
            status = 1;
        }
    }
    return status;
}

int list_plugins(const ListCommand& command) {
    Discovery discovery;
    try {
        discovery = discover_plugins(command.plugins_dir);
        apply_crash_registry(discovery, PluginRegistry(PluginRegistry::default_path()));
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    std::cout << "Plugins in " << command.plugins_dir.string() << ":\n";
    if (discovery.plugins.empty()) std::cout << "  (none)\n";
    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        const std::vector<std::string> variants = plugin.variants();
        std::cout << "\n  " << plugin.category << "/" << plugin.name << "  version " << plugin.info.version
                  << (plugin.mock() ? "  (mock: runs with --enable-mock)" : "") << "\n"
                  << "    SDK:        " << plugin.info.sdk_version << " (ABI " << plugin.info.abi_major << "."
                  << plugin.info.abi_minor << ")\n"
                  << "    variants:   " << (variants.empty() ? "- (no variant axis)" : join(variants, ", ")) << "\n"
                  << "    axes:       " << (plugin.axes.empty() ? "-" : join(plugin.axes, ", ")) << "\n"
                  << "    benchmarks:";
        for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) std::cout << " " << plugin.id(benchmark);
        std::cout << "\n    file:       " << plugin.path.string() << "\n";
    }
    if (!discovery.rejected.empty()) {
        std::cout << "\nNot plugins:\n";
        for (const RejectedFile& file : discovery.rejected)
            std::cout << "  " << file.path.string() << ": " << file.reason << "\n";
    }
    return 0;
}

}  // namespace benchhost
