#include "commands/run_setup.hpp"

#include "config/load_options.hpp"
#include "config/run_option_table.hpp"

#include <bench/internal/load/peak_search.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ostream>
#include <set>
#include <sstream>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include "execute/memory_cgroup.hpp"
#include "execute/worker.hpp"
#include "report/reporter_registry.hpp"
#include "run/hardware_info.hpp"
#include "util/append_unique.hpp"
#include "util/join.hpp"
#include "util/run_id.hpp"
#include "util/shell_word.hpp"

namespace benchhost {

extern const char* const build_git_commit;

namespace fs = std::filesystem;

namespace {

/// The scenario settings `settings` sets, under `prefix`: "warmup_iterations",
/// "axes.batch_size", "params.image_size", ...
void describe_settings(const ScenarioSettings& settings, const std::string& prefix,
                       std::map<std::string, std::string>& out) {
    for (const RunOption& option : run_option_table())
        if (option.describe_scenario && !option.describe_key.empty())
            if (auto text = option.describe_scenario(settings)) out[prefix + option.describe_key] = *text;
    for (const auto& [axis, values] : settings.axes) out[prefix + "axes." + axis] = join(values);
    for (const auto& [key, values] : settings.params.all()) out[prefix + "params." + key] = join(values);
}

}  // namespace

std::string format_time(std::time_t when, const char* format, bool utc) {
    std::tm tm{};
    if (utc) gmtime_r(&when, &tm);
    else localtime_r(&when, &tm);
    char text[64];
    std::strftime(text, sizeof text, format, &tm);
    return text;
}

fs::path prepare_output_dir(const std::optional<fs::path>& output_dir, const std::string& timestamp) {
    fs::path dir = output_dir ? *output_dir : fs::path("benchmark_results") / timestamp;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw ConfigError("cannot create output folder " + dir.string() + ": " + ec.message());
    if (access(dir.c_str(), W_OK) != 0)
        throw ConfigError("output folder " + dir.string() + " is not writable: " + std::strerror(errno));
    if (!output_dir) {
        // Replace the link atomically: a new link beside it, renamed over it.
        const fs::path latest = dir.parent_path() / "latest";
        const fs::path temporary = dir.parent_path() / (".latest." + std::to_string(getpid()));
        fs::remove(temporary, ec);
        fs::create_directory_symlink(timestamp, temporary, ec);
        if (!ec) fs::rename(temporary, latest, ec);
    }
    return dir;
}

spdlog::sink_ptr make_console_sink(const std::string& level, bool quiet,
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
    return console;
}

spdlog::sink_ptr make_log_file_sink(const fs::path& log_file, bool append) {
    auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file.string(), !append);
    file->set_level(spdlog::level::debug);
    file->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
    return file;
}

std::shared_ptr<spdlog::logger> make_logger(std::vector<spdlog::sink_ptr> sinks) {
    auto logger = std::make_shared<spdlog::logger>("benchhost", sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::debug);
    logger->flush_on(spdlog::level::debug);
    return logger;
}

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

void print_empty_plan(const std::vector<std::string>& reasons, bool allowed, std::ostream& out) {
    out << (allowed ? "benchhost: warning: the plan has no scenarios (--allow-empty: not an error)"
                    : "benchhost: error: nothing to run: the plan has no scenarios")
        << "\n";
    for (const std::string& reason : reasons) out << "  " << reason << "\n";
    if (!allowed) out << "  (with --allow-empty an empty plan exits 0)\n";
}

std::map<std::string, std::string> describe_options(const RunOptions& options) {
    std::map<std::string, std::string> out;
    std::string command_line;
    for (const std::string& word : options.invocation)
        command_line += (command_line.empty() ? "" : " ") + shell_word(word);
    out["command_line"] = command_line;
    std::error_code ec;
    out["working_directory"] = fs::current_path(ec).string();
    // The scenario settings of every plugin (defaults, the config file, the command line),
    // and what the config file sets for single plugins.
    ScenarioSettings scenario = options.defaults;
    scenario.overlay(options.config);
    scenario.overlay(options.command_line);
    describe_settings(scenario, "", out);
    for (const auto& [plugin, settings] : options.plugin_settings)
        describe_settings(settings, "plugins." + plugin + ".", out);
    // Each option the record describes (config/run_option_table.hpp).
    for (const RunOption& option : run_option_table())
        if (option.describe && !option.describe_key.empty())
            if (auto text = option.describe(options)) out[option.describe_key] = *text;
    if (options.memory_limit_mib > 0 && options.isolation == Isolation::process) {
        const MemoryCgroups& cgroups = MemoryCgroups::system();
        out["memory_limit_by"] = cgroups.available() ? cgroups.limit_file() + " under " + cgroups.parent().string()
                                                     : "RLIMIT_DATA (" + cgroups.why_not() + ")";
    }
    for (const auto& [name, value] : describe_load(options.load)) out["load." + name] = value;
    return out;
}

RunReporters make_run_reporters(const RunOptions& options, const CompareOptions& compare, const fs::path& output_dir,
                                spdlog::logger& log, ProgressSink* progress) {
    ReporterSettings settings;
    settings.output_dir = output_dir;
    settings.log = &log;
    settings.progress = progress;
    std::vector<std::string> names = reporter_names({ReporterKind::file, ReporterKind::console}, options.extra_formats);
    if (options.baseline) {
        for (std::string& name : reporter_names({ReporterKind::end_of_run})) names.push_back(std::move(name));
        settings.baseline = *options.baseline;
        settings.compare = compare;
        settings.fail_on_regression = options.fail_on_regression;
    }
    return make_reporters(names, settings);
}

void log_plan(spdlog::logger& log, const Discovery& discovery, const Plan& plan,
              const std::vector<std::string>& empty_plan) {
    for (const RejectedFile& file : discovery.rejected)
        log.log(file.is_broken_plugin() ? spdlog::level::warn : spdlog::level::debug, "not a plugin: {}", file.text());
    for (const std::string& note : plan.notes) log.info("{}", note);
    for (const std::string& warning : plugin_build_warnings(plan)) log.warn("{}", warning);
    if (empty_plan.empty()) {
        // An empty plan's reasons hold these warnings too.
        for (const std::string& warning : plan.warnings) log.warn("{}", warning);
        for (const std::string& warning : discovery.warnings) log.warn("{}", warning);
    } else {
        log.warn("the plan has no scenarios (--allow-empty: not an error)");
        for (const std::string& reason : empty_plan) log.warn("  {}", reason);
    }
}

void begin_record(RunRecord& record, const RunOptions& options, std::time_t start_time, bool new_run,
                  spdlog::logger& log) {
    if (new_run) record.started_at = format_time(start_time, "%Y-%m-%dT%H:%M:%SZ", true);
    // A resumed run is the same run and keeps its id; a folder written before runs had
    // ids gets one now.
    if (new_run || record.run_id.empty()) record.run_id = random_run_id();
    record.interrupted = false;
    record.finished = false;
    record.commit_id = build_git_commit;
    record.host_version = BENCHHOST_VERSION;
    record.hardware = collect_hardware_info();
    record.hardware_warnings = hardware_warnings(record.hardware);
    for (const std::string& warning : record.hardware_warnings) log.warn("{}", warning);
    for (const ScenarioOutcome& outcome : record.outcomes) add_reported_facts(record.hardware, outcome);
    record.host_name = record.hardware["host"]["hostname"];
    record.run_config = describe_options(options);
}

std::unique_ptr<bench::GpuClockLock> lock_gpu_clocks(const RunOptions& options, const Plan& plan, RunRecord& record,
                                                     spdlog::logger& log) {
    if (options.lock_clocks.empty()) return nullptr;
    const bool gpu = record.hardware["gpu"]["available"] == "yes";
    std::vector<std::string> devices;
    for (const PlannedScenario& scenario : plan.scenarios) {
        if (!scenario.skip_reason.empty() || !scenario.reject_reason.empty()) continue;
        const std::string& device = scenario.config.device;
        std::string name;
        if (device.rfind("cuda:", 0) == 0) name = device;
        else if (device == "cuda" || ((device.empty() || device == "auto") && gpu)) name = "cuda:0";
        if (!name.empty()) append_unique(devices, name);
    }
    if (devices.empty()) {
        log.warn("--lock-clocks {}: no scenario runs on a GPU{}, so no clock was locked", options.lock_clocks,
                 gpu ? "" : " (" + record.hardware["gpu"]["reason"] + ")");
        return nullptr;
    }
    try {
        auto lock = std::make_unique<bench::GpuClockLock>(options.lock_clocks, devices);
        log.info("GPU clocks locked for the run: {}", lock->description());
        record.hardware["gpu"]["locked_clocks"] = lock->description();
        return lock;
    } catch (const std::exception& e) {
        throw ConfigError(std::string("--lock-clocks: ") + e.what());
    }
}

void warn_of_gpu_only_settings(const Plan& plan, spdlog::logger& log) {
    bool cooldown = false, cooldown_on_cuda = false, discard = false, discard_on_cuda = false;
    for (const PlannedScenario& scenario : plan.scenarios) {
        if (!scenario.skip_reason.empty() || !scenario.reject_reason.empty()) continue;
        const bool cuda = scenario.config.device.rfind("cuda", 0) == 0;  // as the worker decides
        if (scenario.config.throttle_cooldown_s > 0) {
            cooldown = true;
            cooldown_on_cuda = cooldown_on_cuda || cuda;
        }
        if (scenario.config.discard_throttled) {
            discard = true;
            discard_on_cuda = discard_on_cuda || cuda;
        }
    }
    if (cooldown && !cooldown_on_cuda)
        log.warn("--throttle-cooldown: no scenario runs on a CUDA device (--devices cuda), so no cool-down is taken");
    if (discard && !discard_on_cuda)
        log.warn("--discard-throttled: no scenario runs on a CUDA device (--devices cuda), so no sample is discarded");
}

RunLoopOptions run_loop_options(const RunOptions& options) {
    RunLoopOptions loop;
    loop.rounds = options.rounds;
    loop.retry_failed = options.retry_failed;
    loop.execution.isolation = options.isolation;
    loop.execution.worker_preload = options.worker_preload;
    loop.execution.launcher = options.launcher;
    loop.execution.timeout_s = options.timeout_s;
    loop.execution.memory_limit_mib = options.memory_limit_mib;
    loop.execution.worker_log_level = options.log_level;
    loop.execution.monitor_interval_ms = options.monitor_interval_ms;
    return loop;
}

CompareOptions comparison_options(const RunOptions& options) {
    CompareOptions compare;
    compare.threshold = options.regression_threshold;
    compare.noise_floor = options.noise_floor;
    return compare;
}

bool log_reporter_errors(RunReporters& reporters, spdlog::logger& log) {
    const std::vector<std::string> errors = reporters.take_errors();
    for (const std::string& error : errors) log.error("{}", error);
    return errors.empty();
}

void RunFolderWriter::start(const std::filesystem::path& dir, const RunRecord& record, RunReporters made) {
    journal = std::make_unique<RunJournal>(
        dir, JournalHeader{record.timestamp, record.started_at, record.commit_id, record.host_version,
                           record.run_config, record.shard, record.run_id});
    reporters = std::move(made);
    reporters.run_started(record);
}

bool RunFolderWriter::finish(ScenarioRunner& runner, RunRecord& record, spdlog::logger& log) {
    bool written = runner.finish();
    written = log_reporter_errors(reporters, log) && written;
    record.finished = !record.interrupted;
    record.finished_at = format_time(std::time(nullptr), "%Y-%m-%dT%H:%M:%SZ", true);
    reporters.run_finished(record);
    return log_reporter_errors(reporters, log) && written;
}

std::string load_problem(const RunOptions& options, const RunRecord& record) {
    if (options.load.mode == bench::LoadMode::none) return {};
    std::vector<std::string> not_serving, unjudged;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        const bench::ScenarioResult& result = outcome.result;
        if (result.status == bench::Status::success) return {};
        if (result.status != bench::Status::skipped) continue;
        if (result.reason == not_serving_reason(outcome.config)) not_serving.push_back(outcome.config.benchmark_id());
        for (const bench::Slo& slo : options.load.slos)
            if (options.load.find_peak && result.reason == bench::peak_unjudged_reason(outcome.config, slo.metric))
                unjudged.push_back(result.reason);
    }
    std::vector<std::string> problems = unjudged;
    if (!not_serving.empty())
        problems.push_back("--load " + std::string(bench::to_string(options.load.mode)) +
                           ": no selected benchmark serves (none of " + join(not_serving, ", ") +
                           " calls ctx.serve): select a benchmark that serves, e.g. --include mock_server");
    return join(problems, "; ");
}

}  // namespace benchhost
