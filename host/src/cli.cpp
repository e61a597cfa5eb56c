#include "cli.hpp"

#include <algorithm>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include <bench/version.hpp>

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// Options of `run` as given; unset ones leave the config's values alone.
struct RunArguments {
    std::string plugins_dir, config, output_dir, isolation, log_level, model_id;
    std::vector<std::string> include, exclude, categories;
    std::vector<std::string> variants, batch_sizes, dtypes, devices, threads, compile_modes, params;
    std::string resume, model_path;
    bool enable_mock = false, retry_failed = false, allow_untrusted = false;
    int warmup = 0, measurement = 0, tokens = 0, memory_limit = 0;
    double timeout = 0, monitor_interval = 0;
};

void add_run_options(CLI::App& run, RunArguments& args) {
    run.add_option("--plugins-dir", args.plugins_dir, "Plugin folder (default: ../plugins beside the executable)");
    run.add_option("--config", args.config, "YAML config file; options given here override it")->check(CLI::ExistingFile);
    run.add_option("--output-dir", args.output_dir,
                   "Write reports into this folder (default: benchmark_results/<timestamp>/)");
    run.add_option("--include", args.include, "Run only ids (category/plugin/benchmark) matching: substring or glob; repeatable")
        ->take_all();
    run.add_option("--exclude", args.exclude, "Skip ids matching: substring or glob; repeatable")->take_all();
    run.add_option("--category", args.categories, "Run only this category; repeatable")
        ->check(CLI::IsMember({"unit", "integration", "performance"}))
        ->take_all();
    run.add_flag("--enable-mock", args.enable_mock, "Run mock plugins (framework self-tests)");
    run.add_option("--warmup-iterations", args.warmup, "Unmeasured calls before measuring")->check(CLI::Range(0, 100000000));
    run.add_option("--measurement-iterations", args.measurement, "Measured samples per series")
        ->check(CLI::Range(1, 100000000));
    run.add_option("--num-tokens-to-generate", args.tokens, "Tokens generative models produce")->check(CLI::Range(1, 1000000));
    run.add_option("--model-id", args.model_id, "Model configuration for plugins that offer several (e.g. gpt2, gpt2-tiny)");
    run.add_option("--model-path", args.model_path, "A model file for plugins that load one (torchscript_model)")
        ->check(CLI::ExistingFile);
    run.add_option("--variants", args.variants, "Variants: eager, compiled, kernelized (comma-separated)")->delimiter(',');
    run.add_option("--batch-sizes", args.batch_sizes, "Batch sizes (comma-separated)")->delimiter(',');
    run.add_option("--dtypes", args.dtypes, "Data types: float32, bfloat16, float16, ... (comma-separated)")->delimiter(',');
    run.add_option("--devices", args.devices, "Devices: auto, cpu, cuda, cuda:N (comma-separated)")->delimiter(',');
    run.add_option("--threads", args.threads, "Intra-op thread counts, 0 for the library default (comma-separated)")
        ->delimiter(',');
    run.add_option("--compile-modes", args.compile_modes, "Compile modes of the compiled variant (comma-separated)")
        ->delimiter(',');
    run.add_option("--timeout", args.timeout, "Seconds a scenario may run before its worker is killed; 0: no limit")
        ->check(CLI::NonNegativeNumber);
    run.add_option("--memory-limit", args.memory_limit,
                   "MiB of address space a worker may use (RLIMIT_AS); past it the scenario fails as out of memory")
        ->check(CLI::Range(0, 1 << 30));
    run.add_option("--monitor-interval", args.monitor_interval,
                   "Milliseconds between samples of the GPU and CPU monitors (default 50); 0: no monitoring")
        ->check(CLI::Range(0.0, 3600000.0));
    run.add_option("--param", args.params, "A plugin parameter KEY=VALUE (VALUE may be a comma-separated list); repeatable")
        ->take_all();
    run.add_option("--resume", args.resume,
                   "Continue the interrupted run in this folder: scenarios it already reported are not run again")
        ->check(CLI::ExistingDirectory);
    run.add_flag("--retry-failed", args.retry_failed, "Load plugins remembered as crashing while loading");
    run.add_flag("--allow-untrusted-plugins", args.allow_untrusted,
                 "Load plugins from folders or files that others than their owner can write");
    run.add_option("--isolation", args.isolation, "process: each scenario in a worker process; none: in the host (for gdb)")
        ->check(CLI::IsMember({"process", "none"}));
    run.add_option("--log-level", args.log_level, "trace, debug, info, warn, error, critical or off")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
}

/// Applies what was given on the command line over the config file's values.
void apply_run_arguments(const CLI::App& run, const RunArguments& args, RunOptions& options) {
    auto given = [&](const char* name) { return run.count(name) > 0; };
    if (given("--plugins-dir")) options.plugins_dir = args.plugins_dir;
    if (given("--output-dir")) options.output_dir = args.output_dir;
    if (given("--include")) options.include = args.include;
    if (given("--exclude")) options.exclude = args.exclude;
    if (given("--category")) options.categories = args.categories;
    if (given("--enable-mock")) options.enable_mock = args.enable_mock;
    if (given("--timeout")) options.timeout_s = args.timeout;
    if (given("--monitor-interval")) options.monitor_interval_ms = args.monitor_interval;
    if (given("--isolation")) options.isolation = args.isolation == "none" ? Isolation::none : Isolation::process;
    if (given("--log-level")) options.log_level = args.log_level;
    if (given("--memory-limit")) options.memory_limit_mib = static_cast<std::size_t>(args.memory_limit);
    if (given("--retry-failed")) options.retry_failed = args.retry_failed;
    if (given("--allow-untrusted-plugins")) options.allow_untrusted = args.allow_untrusted;
    if (given("--resume")) {
        if (given("--output-dir") && fs::path(args.output_dir) != fs::path(args.resume))
            throw ConfigError("--resume writes into the folder it resumes; leave out --output-dir");
        options.resume_dir = args.resume;
        options.output_dir = args.resume;
    }

    ScenarioSettings& cli = options.command_line;
    if (given("--warmup-iterations")) cli.warmup_iterations = args.warmup;
    if (given("--measurement-iterations")) cli.measurement_iterations = args.measurement;
    if (given("--num-tokens-to-generate")) cli.num_tokens_to_generate = args.tokens;
    if (given("--model-id")) cli.model_id = args.model_id;
    if (given("--model-path")) cli.params.set("model_path", args.model_path);
    for (const std::string& param : args.params) {
        const auto equals = param.find('=');
        if (equals == std::string::npos || equals == 0)
            throw ConfigError("option --param: '" + param + "' is not KEY=VALUE");
        std::vector<std::string> values;
        const std::string value = param.substr(equals + 1);
        for (std::size_t start = 0;;) {
            const auto comma = value.find(',', start);
            values.push_back(value.substr(start, comma - start));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        cli.params.set(param.substr(0, equals), values);
    }
    const std::pair<const char*, const std::vector<std::string>*> axes[] = {
        {"variant", &args.variants}, {"batch_size", &args.batch_sizes}, {"dtype", &args.dtypes},
        {"device", &args.devices},   {"threads", &args.threads},         {"compile_mode", &args.compile_modes}};
    for (const auto& [axis, values] : axes) {
        if (values->empty()) continue;
        std::string option = "--" + axis_config_key(axis);
        std::replace(option.begin(), option.end(), '_', '-');
        validate_axis_values(axis, *values, "option " + option + ": ");
        cli.axes[axis] = *values;
    }
}

}  // namespace

fs::path default_plugins_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return fs::path("plugins");
    return (exe.parent_path().parent_path() / "plugins").lexically_normal();
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
    CLI::App app{"benchhost: discovers benchmark plugins and runs them, each scenario in its own worker process.",
                 "benchhost"};
    app.set_version_flag("--version", std::string("benchhost ") + BENCHHOST_VERSION + " (SDK ABI " +
                                          std::to_string(BENCH_SDK_ABI_MAJOR) + "." +
                                          std::to_string(BENCH_SDK_ABI_MINOR) + ")");
    app.require_subcommand(0, 1);
    app.footer("Without a subcommand, benchhost runs: `benchhost --enable-mock` is `benchhost run --enable-mock`.\n"
               "Exit status: 0 all selected scenarios succeeded or were skipped, 1 at least one failed,\n"
               "2 wrong arguments or configuration (nothing ran), 130 interrupted.");

    RunArguments run_args;
    CLI::App* run = app.add_subcommand("run", "Discover, run and report benchmarks (the default)");
    add_run_options(*run, run_args);

    std::string list_dir;
    CLI::App* list = app.add_subcommand("list", "List plugins and their benchmarks, and files that are not plugins");
    list->add_option("--plugins-dir", list_dir, "Plugin folder (default: ../plugins beside the executable)");

    WorkerCommand worker;
    std::string worker_plugin, worker_config, worker_result;
    CLI::App* worker_app = app.add_subcommand("worker", "Internal: run one scenario (started by the host)");
    worker_app->group("");  // hidden from --help
    worker_app->add_option("--plugin", worker_plugin)->required();
    worker_app->add_option("--symbol", worker.symbol)->required();
    worker_app->add_option("--config", worker_config)->required();
    worker_app->add_option("--result", worker_result)->required();
    worker_app->add_option("--log-level", worker.log_level);
    worker_app->add_option("--monitor-interval", worker.monitor_interval_ms)->check(CLI::NonNegativeNumber);

    // `benchhost [options]` means `benchhost run [options]`.
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);
    const bool needs_run = args.empty() || (args.back().starts_with("-") && args.back() != "--help" &&
                                            args.back() != "-h" && args.back() != "--version");
    if (needs_run) args.emplace_back("run");

    ParsedCommandLine parsed;
    try {
        app.parse(args);
        if (*worker_app) {
            worker.plugin = worker_plugin;
            worker.config = worker_config;
            worker.result = worker_result;
            parsed.command = worker;
        } else if (*list) {
            parsed.command = ListCommand{list_dir.empty() ? default_plugins_dir() : fs::path(list_dir)};
        } else {
            RunOptions options;
            options.plugins_dir = default_plugins_dir();
            options.defaults = builtin_scenario_defaults();
            if (run->count("--config") > 0) load_config_file(run_args.config, options);
            apply_run_arguments(*run, run_args, options);
            parsed.command = RunCommand{std::move(options)};
        }
    } catch (const CLI::ParseError& e) {
        parsed.exit_code = app.exit(e) == 0 ? 0 : 2;
    } catch (const ConfigError& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        parsed.exit_code = 2;
    }
    return parsed;
}

}  // namespace benchhost
