#include "cli/cli.hpp"

#include "config/load_options.hpp"
#include "report/reporter_registry.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include <bench/internal/params/axes.hpp>
#include <bench/internal/monitors/gpu_clocks.hpp>
#include <bench/internal/statistics/round_bootstrap.hpp>
#include <bench/version.hpp>

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// Options of `run` as given; unset ones leave the config's values alone.
struct RunArguments {
    std::string plugins_dir, config, output_dir, isolation, log_level, model_id;
    std::vector<std::string> include, exclude, categories;
    std::string variants, batch_sizes, dtypes, devices, threads, compile_modes;  // comma-separated
    std::vector<std::string> params, custom_axes, formats;
    std::string resume, model_path, target_ci_width, baseline, threshold, shard, shard_costs;
    bool enable_mock = false, retry_failed = false, allow_untrusted = false, fail_on_regression = false;
    bool dry_run = false, quiet = false, allow_empty = false, profile = false;
    int warmup = 0, measurement = 0, tokens = 0, memory_limit = 0, rounds = 0, confirm = 0;
    double timeout = 0, monitor_interval = 0, min_time = 0, max_time = 0, compile_timeout = 0, throttle_cooldown = 0;
    std::string noise_floor, history, timer, cache, lock_clocks;
    bool history_samples = false;
    // The serving load (config/load_options.hpp), as text: its own parsers say what is wrong.
    std::string load, queries, min_duration, samples_per_query, target_qps, burstiness, concurrency, late_tolerance,
        load_seed, slo, peak_precision, max_batch, max_batch_wait;
    bool find_peak = false, discard_throttled = false;
    // benchhost ab
    std::string base_dir, new_dir;
    std::vector<std::string> base_params, new_params;
    int max_rounds = 0;
    double time_limit = 0;
    // benchhost bisect
    std::string good, bad, build, repo;
    double build_timeout = 0;
    bool keep_checkouts = false;
};

/// Which command the run options are for: `run`, `ab` (two plugin folders in pairs), or
/// `bisect` (A/B runs of revisions against a good one).
enum class RunMode { run, ab, bisect };

/// The comma-separated values of an axis option, each once, in order; ConfigError
/// naming the option for an empty one. `text` is the values, `given` what was typed.
std::vector<std::string> axis_values(const std::string& option, const std::string& text, const std::string& given) {
    std::vector<std::string> values;
    for (std::size_t start = 0;;) {
        const auto comma = text.find(',', start);
        std::string value = text.substr(start, comma - start);
        if (value.empty()) throw ConfigError("option " + option + ": an empty value in '" + given + "'");
        if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(std::move(value));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return values;
}

/// `--axis NAME=V1,V2`: a custom axis and its values, or ConfigError saying what is wrong.
std::pair<std::string, std::vector<std::string>> custom_axis(const std::string& given) {
    const auto equals = given.find('=');
    if (equals == std::string::npos)
        throw ConfigError("option --axis: '" + given + "' is not NAME=V1,V2 (e.g. --axis seq_len=128,512)");
    const std::string name = given.substr(0, equals);
    if (name.empty()) throw ConfigError("option --axis: '" + given + "' has no axis name before '='");
    if (bench::is_builtin_axis(name)) {
        std::string option = "--" + axis_config_key(name);
        std::replace(option.begin(), option.end(), '_', '-');
        throw ConfigError("option --axis: '" + name + "' is a built-in axis: set it with " + option);
    }
    return {name, axis_values("--axis", given.substr(equals + 1), given)};
}

/// `--param KEY=VALUE[,VALUE...]` as the key and its values, or ConfigError naming `option`.
std::pair<std::string, std::vector<std::string>> param_of(const std::string& option, const std::string& param) {
    const auto equals = param.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("option " + option + ": '" + param + "' is not KEY=VALUE");
    std::vector<std::string> values;
    const std::string value = param.substr(equals + 1);
    for (std::size_t start = 0;;) {
        const auto comma = value.find(',', start);
        values.push_back(value.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return {param.substr(0, equals), values};
}

/// A relative amount from the command line ("5%" or 0.05), or ConfigError naming the option.
double relative_option(const std::string& option, const std::string& text, double below) {
    const auto value = parse_relative(text);
    if (!value || *value >= below)
        throw ConfigError("option " + option + ": expected a relative amount such as 5% or 0.05, got '" + text + "'");
    return *value;
}

/// The serving load's options (docs/serving.md).
void add_load_options(CLI::App& run, RunArguments& args) {
    run.add_option("--load", args.load,
                   "Run the benchmarks that serve (ctx.serve) under this load: single-stream (one query after "
                   "another, p90), multi-stream (queries of --samples-per-query samples, p99), server (arrivals at "
                   "--target-qps or --concurrency clients, queued, p99) or offline (every query at once, throughput)")
        ->type_name("MODE");
    run.add_option("--queries", args.queries,
                   "With --load: queries to issue (default " + std::to_string(bench::default_queries) + ")")
        ->type_name("N");
    run.add_option("--min-duration", args.min_duration,
                   "With --load: seconds the load lasts at least, issuing more than --queries if need be")
        ->type_name("SECONDS");
    run.add_option("--samples-per-query", args.samples_per_query,
                   "With --load multi-stream: samples in each query (default " +
                       std::to_string(bench::default_samples_per_query) + ")")
        ->type_name("N");
    run.add_option("--target-qps", args.target_qps,
                   "With --load server: the arrival rate, queries/s (above 0), of a seeded Poisson process, or a "
                   "gamma one with --burstiness")
        ->type_name("QPS");
    run.add_option("--burstiness", args.burstiness,
                   "With --target-qps: the gamma shape of the gaps between arrivals (default 1: Poisson; below 1: "
                   "burstier)")
        ->type_name("SHAPE");
    run.add_option("--concurrency", args.concurrency,
                   "With --load server, instead of --target-qps: this many closed-loop clients, each issuing its next "
                   "query as its last one completes")
        ->type_name("N");
    run.add_option("--late-tolerance", args.late_tolerance,
                   "With --load: a query issued more than this after its scheduled time counts as late (default 1ms)")
        ->type_name("DURATION");
    run.add_option("--load-seed", args.load_seed, "With --target-qps: the seed of the arrival times (default 1)")
        ->type_name("N");
    run.add_option("--slo", args.slo,
                   "With --load: the bounds a query must meet to count in the goodput, METRIC=DURATION with a unit, "
                   "comma-separated; metrics latency, ttft, tpot, itl (e.g. latency=200ms or ttft=500ms,tpot=50ms); "
                   "with --find-peak, pNN: before them names the percentile each rate is judged by (default p99)")
        ->type_name("[pNN:]METRIC=DURATION,...");
    run.add_flag("--find-peak", args.find_peak,
                 "With --load server and --slo: search the highest rate of arrivals whose p99 (or the --slo's pNN) of "
                 "each bounded metric meets its bound, doubling the rate until one fails, then a binary search "
                 "(docs/serving.md)");
    run.add_option("--max-batch", args.max_batch,
                   "With --load: the most queries a benchmark that batches (ctx.serve_batches, ctx.serve_steps) serves "
                   "together (default 1: no batching)")
        ->type_name("N");
    run.add_option("--max-batch-wait", args.max_batch_wait,
                   "With --max-batch: how long a batch that is not full waits for more queries after its first, while "
                   "arrivals may come (default 0: it does not wait)")
        ->type_name("DURATION");
    run.add_option("--peak-precision", args.peak_precision,
                   "With --find-peak: end when the lowest rate that failed is within this of the highest that passed "
                   "(default 5%)")
        ->type_name("FRACTION");
}

void add_run_options(CLI::App& run, RunArguments& args, RunMode mode) {
    // An option given twice takes the last value, as most tools do (a script can append
    // an override); --include, --exclude, --category and --param collect every value.
    run.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    // ab and bisect compare in pairs; their options differ only in the folders compared.
    const bool ab = mode != RunMode::run;
    if (mode == RunMode::bisect) {
        run.add_option("--good", args.good, "A revision whose plugins are fast (a commit, tag or branch)")->required();
        run.add_option("--bad", args.bad, "A later revision whose plugins are slower (--good must be its ancestor)")
            ->required();
        run.add_option("--build", args.build,
                       "The command that builds a revision's plugins, run by /bin/sh in its scratch checkout "
                       "(e.g. 'cmake -S . -B build && cmake --build build')")
            ->required();
        run.add_option("--plugins-dir", args.plugins_dir,
                       "The plugin folder the build makes, relative to the checkout (e.g. build/plugins)")
            ->required();
        run.add_option("--repo", args.repo, "A folder in the git checkout to bisect (default: the current folder)");
        run.add_option("--build-timeout", args.build_timeout,
                       "Seconds a build may take; past it the build is killed and the revision skipped (default 0: "
                       "no limit)")
            ->check(CLI::NonNegativeNumber);
        run.add_flag("--keep-checkouts", args.keep_checkouts,
                     "Leave the scratch checkouts and their builds in the temporary folder (default: removed)");
    }
    if (mode == RunMode::ab) {
        run.add_option("--base", args.base_dir, "Plugin folder of the base side (A), e.g. a main-branch build's plugins/")
            ->required()
            ->check(CLI::ExistingDirectory);
        run.add_option("--new", args.new_dir, "Plugin folder of the new side (B), e.g. a pull request's build (may be --base)")
            ->required()
            ->check(CLI::ExistingDirectory);
        run.add_option("--base-param", args.base_params, "A plugin parameter KEY=VALUE for the base side only; repeatable")
            ->take_all();
        run.add_option("--new-param", args.new_params,
                       "A plugin parameter KEY=VALUE for the new side only (e.g. --new-param threads=8); repeatable")
            ->take_all();
    }
    if (ab) {
        run.add_option("--max-rounds", args.max_rounds,
                       "Pairs at most for a scenario still inconclusive after --rounds (default 40; past --rounds the verdict "
                       "reads a 99% interval)")
            ->check(CLI::Range(2, 1000));
        run.add_option("--time-limit", args.time_limit,
                       "Seconds: no pair beyond --rounds starts once this much of the A/B run has passed; 0: no limit")
            ->check(CLI::NonNegativeNumber);
    } else {
        run.add_option("--plugins-dir", args.plugins_dir, "Plugin folder (default: ../plugins beside the executable)");
    }
    run.add_option("--config", args.config, "YAML config file; options given here override it")->check(CLI::ExistingFile);
    run.add_option("--output-dir", args.output_dir,
                   mode == RunMode::bisect
                       ? "Write the steps' A/B folders, the build logs and bisect.md into this folder (default: "
                         "benchmark_results/bisect_<timestamp>/)"
                   : ab ? "Write the comparison and the sides' run folders (base/, new/) into this folder (default: "
                        "benchmark_results/ab_<timestamp>/)"
                      : "Write reports into this folder (default: benchmark_results/<timestamp>/)");
    run.add_option("--include", args.include, "Run only ids (category/plugin/benchmark) matching: substring or glob; repeatable")
        ->take_all();
    run.add_option("--exclude", args.exclude, "Skip ids matching: substring or glob; repeatable")->take_all();
    run.add_option("--category", args.categories, "Run only this category; repeatable")
        ->check(CLI::IsMember({"unit", "integration", "performance"}))
        ->take_all();
    run.add_flag("--enable-mock", args.enable_mock, "Run mock plugins (framework self-tests)");
    if (!ab)
        run.add_flag("--profile", args.profile,
                     "After each scenario's measurement, profile one call apart: operators, modules, flame graphs, "
                     "a trace (docs/profiling.md)");
    run.add_option("--warmup-iterations", args.warmup, "Unmeasured calls before measuring")->check(CLI::Range(0, 100000000));
    run.add_option("--measurement-iterations", args.measurement, "Measured samples per series")
        ->check(CLI::Range(1, 100000000));
    run.add_option("--min-time", args.min_time,
                   "Seconds: measure each series at least this long (with at least --measurement-iterations samples)")
        ->check(CLI::Range(0.0, 86400.0));
    run.add_option("--max-time", args.max_time,
                   "Seconds: stop measuring a series when this is spent, even if --target-ci-width is not reached")
        ->check(CLI::Range(0.0, 86400.0));
    run.add_option("--compile-timeout", args.compile_timeout,
                   "Seconds the compiled variant's compile may take (the AOTInductor compile); past it the scenario "
                   "fails, naming the package (default 0: no limit but the scenario's --timeout)")
        ->check(CLI::Range(0.0, 86400.0));
    run.add_option("--timer", args.timer,
                   "How work on a CUDA device is timed (ctx.measure_device): auto (CUDA events where a device is, "
                   "else the host's clock; the default), host, or cuda-events (a scenario without a device fails)")
        ->check(CLI::IsMember({"auto", "host", "cuda-events"}));
    run.add_option("--cache", args.cache,
                   "warm (the default), or cold: the caches are flushed before each sample, outside the timed "
                   "region (a device's L2 with ctx.measure_device, else the CPU's), one call a sample")
        ->check(CLI::IsMember({"warm", "cold"}));
    run.add_flag("--discard-throttled", args.discard_throttled,
                 "On a CUDA device: drop the samples during which the GPU throttled (from the GPU monitor's "
                 "readings at --monitor-interval), counted and reported; every sample keeps its SM clock and "
                 "throttle reasons in the report either way");
    run.add_option("--throttle-cooldown", args.throttle_cooldown,
                   "Seconds: on a CUDA device, before each sample, when the GPU throttled since the last one, wait "
                   "until the GPU monitor sees it stop, at most this long (not counted by --max-time); default 0: never")
        ->check(CLI::Range(0.0, 86400.0));
    run.add_option("--target-ci-width", args.target_ci_width,
                   "Measure until the 95% confidence interval of the median is this wide relative to the median "
                   "(e.g. 1%), or --max-time (default 10 s) is spent");
    if (ab) {
        run.add_option("--rounds", args.rounds,
                       "Pairs of rounds every scenario runs, a round of each side back to back in fresh workers, "
                       "alternating which goes first (default 6, the fewest with a 95% interval)")
            ->check(CLI::Range(2, 1000));
    } else {
        run.add_option("--rounds", args.rounds,
                       "Run each scenario this many times, each in a fresh worker, the variants of a benchmark "
                       "interleaved in rotating order; samples are pooled, and a comparison judges by rounds")
            ->check(CLI::Range(1, 1000));
        run.add_option("--baseline", args.baseline,
                       "After the run, compare it with this earlier run folder (as `benchhost compare`)")
            ->check(CLI::ExistingPath);
        run.add_option("--history", args.history,
                       "Record the run, when it ends, in this history (an SQLite file, made when missing, or "
                       "postgresql://HOST[:PORT]/DATABASE); "
                       "`benchhost history` reads it");
        run.add_flag("--history-samples", args.history_samples, "With --history: record the raw samples too");
    }
    // The comparison's options: for run, of the comparison with --baseline.
    const auto comparison_help = [ab](std::string text) {
        if (ab) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
        return ab ? text : "With --baseline: " + text;
    };
    run.add_option("--threshold", args.threshold,
                   comparison_help("a change smaller than this is not a regression (default 5%)"));
    run.add_flag("--fail-on-regression", args.fail_on_regression,
                 comparison_help("exit 1 when a scenario is slower by more than --threshold (not when inconclusive)"));
    run.add_option("--confirm", args.confirm,
                   comparison_help(std::string("run a scenario found slower this many more ") +
                                   (ab ? "pairs" : "rounds") +
                                   " before the verdict stands; the comparison shows the first figures beside the "
                                   "confirmed ones" +
                                   (ab ? "; one left inconclusive runs more pairs, within --max-rounds" : "")))
        ->check(CLI::Range(1, 1000));
    run.add_option("--noise-floor", args.noise_floor,
                   comparison_help("how far apart single runs of the same build can be (default 10%): with one run "
                                   "a side, a change within it is inconclusive"));
    run.add_option("--format", args.formats,
                   "Also write the results in this format: gbench-json (gbench.json, Google Benchmark's JSON), "
                   "junit (junit.xml, for CI test reports: a test case per scenario, failed when slower than "
                   "--baseline or, in ab, the base side), summary-md (summary.md, the run on one page for a CI job "
                   "summary or a pull-request comment; appended to $GITHUB_STEP_SUMMARY when set); repeatable")
        ->check(CLI::IsMember(optional_format_names()))
        ->take_all();
    run.add_option("--num-tokens-to-generate", args.tokens, "Tokens generative models produce")->check(CLI::Range(1, 1000000));
    run.add_option("--model-id", args.model_id, "Model configuration for plugins that offer several (e.g. gpt2, gpt2-tiny)");
    run.add_option("--model-path", args.model_path, "A model file for plugins that load one (torchscript_model)")
        ->check(CLI::ExistingFile);
    run.add_option("--variants", args.variants, "Variants: eager, compiled, kernelized (comma-separated)");
    run.add_option("--batch-sizes", args.batch_sizes, "Batch sizes (comma-separated)");
    run.add_option("--dtypes", args.dtypes, "Data types: float32, bfloat16, float16, ... (comma-separated)");
    run.add_option("--devices", args.devices, "Devices: auto, cpu, cuda, cuda:N (comma-separated)");
    run.add_option("--threads", args.threads, "Intra-op thread counts, 0 for the library default (comma-separated)");
    run.add_option("--compile-modes", args.compile_modes, "Compile modes of the compiled variant (comma-separated)");
    run.add_option("--timeout", args.timeout, "Seconds a scenario may run before its worker is killed; 0: no limit")
        ->check(CLI::NonNegativeNumber);
    run.add_option("--memory-limit", args.memory_limit,
                   "MiB of memory a worker may use: a memory cgroup of its own where the host can make one (what the "
                   "kernel charges it, swap excluded), else RLIMIT_DATA (heap and private writable mappings); never "
                   "reserved address space. Past it the scenario fails as out of memory, naming the limit")
        ->check(CLI::Range(0, 1 << 30));
    run.add_option("--lock-clocks", args.lock_clocks,
                   "Lock the SM clock of the GPUs the scenarios run on for the whole run, and unlock them at its "
                   "end: base (the GPU's base clock, which it sustains) or MHz; needs root")
        ->check([](const std::string& value) {
            try {
                bench::check_clock_setting(value);
                return std::string();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
        });
    run.add_option("--monitor-interval", args.monitor_interval,
                   "Milliseconds between samples of the GPU and CPU monitors (default 50); 0: no monitoring")
        ->check(CLI::Range(0.0, 3600000.0));
    run.add_option("--param", args.params,
                   "A plugin parameter KEY=VALUE (VALUE may be a comma-separated list, passed whole to every scenario; "
                   "to run one scenario per value, use --axis); repeatable")
        ->take_all();
    run.add_option("--axis", args.custom_axes,
                   "A custom axis NAME=V1,V2: one scenario per value for plugins that declare NAME in their axes, "
                   "each value passed as the parameter NAME (as the YAML's axes:); repeatable")
        ->take_all();
    add_load_options(run, args);
    run.add_flag("--retry-failed", args.retry_failed, "Load plugins remembered as crashing while loading");
    run.add_flag("--allow-untrusted-plugins", args.allow_untrusted,
                 "Load plugins from folders or files that others than their owner can write");
    if (!ab) {
        run.add_option("--resume", args.resume,
                       "Continue the interrupted run in this folder: scenarios it already reported are not run again")
            ->check(CLI::ExistingDirectory);
        run.add_option("--shard", args.shard,
                       "Run only part K of N of the plan (K/N, 1-based), or `slurm` to take K and N from the SLURM "
                       "job array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT); `benchhost merge` joins the shards' folders");
        run.add_option("--shard-costs", args.shard_costs,
                       "With --shard: an earlier run folder whose scenario times balance the shards (the same on "
                       "every shard)")
            ->check(CLI::ExistingPath);
    }
    run.add_flag("--dry-run", args.dry_run, "Print the scenarios the run would execute, and run nothing");
    run.add_flag("--allow-empty", args.allow_empty,
                 "A plan with no scenarios (filters that match nothing, no plugins) is a success, not exit 1");
    run.add_flag("--quiet,-q", args.quiet,
                 "Print only warnings, errors and the summary: no progress, no informational lines");
    if (!ab)
        run.add_option("--isolation", args.isolation,
                       "process: each scenario in a worker process; none: in the host (for gdb)")
            ->check(CLI::IsMember({"process", "none"}));
    run.add_option("--log-level", args.log_level, "trace, debug, info, warn, error, critical or off")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
}

/// Applies what was given on the command line over the config file's values.
void apply_run_arguments(const CLI::App& run, const RunArguments& args, RunOptions& options) {
    // `ab` and `bisect` have no --baseline, --baseline, --resume, --shard or --isolation.
    auto given = [&](const char* name) {
        const CLI::Option* option = run.get_option_no_throw(name);
        return option != nullptr && option->count() > 0;
    };
    if (given("--plugins-dir")) options.plugins_dir = args.plugins_dir;
    if (given("--output-dir")) options.output_dir = args.output_dir;
    if (given("--include")) options.include = args.include;
    if (given("--exclude")) options.exclude = args.exclude;
    if (given("--category")) options.categories = args.categories;
    if (given("--enable-mock")) options.enable_mock = args.enable_mock;
    if (given("--profile")) options.profile = args.profile;
    if (given("--timeout")) options.timeout_s = args.timeout;
    if (given("--monitor-interval")) options.monitor_interval_ms = args.monitor_interval;
    if (given("--lock-clocks")) options.lock_clocks = args.lock_clocks;
    if (given("--isolation")) options.isolation = args.isolation == "none" ? Isolation::none : Isolation::process;
    if (given("--log-level")) options.log_level = args.log_level;
    if (given("--memory-limit")) options.memory_limit_mib = static_cast<std::size_t>(args.memory_limit);
    if (given("--retry-failed")) options.retry_failed = args.retry_failed;
    if (given("--allow-untrusted-plugins")) options.allow_untrusted = args.allow_untrusted;
    if (given("--rounds")) options.rounds = args.rounds;
    if (given("--format")) options.extra_formats = args.formats;
    if (given("--dry-run")) options.dry_run = args.dry_run;
    if (given("--allow-empty")) options.allow_empty = args.allow_empty;
    if (given("--shard")) options.shard = args.shard;
    if (given("--shard-costs")) {
        if (!given("--shard")) throw ConfigError("--shard-costs needs --shard");
        options.shard_costs = args.shard_costs;
    }
    if (given("--quiet")) options.quiet = args.quiet;
    if (given("--baseline")) options.baseline = args.baseline;
    if (given("--threshold")) options.regression_threshold = relative_option("--threshold", args.threshold, 100);
    if (given("--fail-on-regression")) options.fail_on_regression = args.fail_on_regression;
    if (given("--confirm")) options.confirm = args.confirm;
    if (given("--history")) {
        if (args.history.empty()) throw ConfigError("--history: an empty location (an SQLite file)");
        options.history = args.history;
    }
    if (given("--history-samples")) options.history_samples = args.history_samples;
    if (options.history_samples && !options.history)
        throw ConfigError("--history-samples needs --history LOCATION (or the config's history:)");
    if (given("--noise-floor")) options.noise_floor = relative_option("--noise-floor", args.noise_floor, 100);
    const bool ab = run.get_option_no_throw("--max-rounds") != nullptr;  // ab or bisect
    if (!ab && (given("--threshold") || given("--fail-on-regression") || given("--confirm") || given("--noise-floor")) &&
        !options.baseline)
        throw ConfigError(
            "--threshold, --fail-on-regression, --confirm and --noise-floor need --baseline DIR (the run to compare with)");
    if (given("--resume")) {
        if (given("--output-dir") && fs::path(args.output_dir) != fs::path(args.resume))
            throw ConfigError("--resume writes into the folder it resumes; leave out --output-dir");
        options.resume_dir = args.resume;
        options.output_dir = args.resume;
    }

    bench::LoadConfig& load = options.load;
    if (given("--load")) load.mode = load_mode_value("option --load", args.load);
    if (given("--queries")) load.queries = count_value("option --queries", args.queries, 1);
    if (given("--min-duration")) load.min_duration_s = seconds_value("option --min-duration", args.min_duration);
    if (given("--samples-per-query"))
        load.samples_per_query = static_cast<int>(count_value("option --samples-per-query", args.samples_per_query, 1));
    if (given("--target-qps")) {
        load.target_qps = rate_value("option --target-qps", args.target_qps);
        load.concurrency = 0;  // over the config's closed loop
    }
    if (given("--concurrency")) {
        load.concurrency = static_cast<int>(count_value("option --concurrency", args.concurrency, 1));
        if (!given("--target-qps")) load.target_qps = 0;  // over the config's open loop
    }
    if (given("--burstiness")) load.burstiness = burstiness_value("option --burstiness", args.burstiness);
    if (given("--late-tolerance")) load.late_tolerance_ms = duration_ms_value("option --late-tolerance", args.late_tolerance);
    if (given("--load-seed")) load.seed = static_cast<std::uint64_t>(count_value("option --load-seed", args.load_seed, 0));
    if (given("--slo")) slo_value("option --slo", args.slo, load);
    if (given("--max-batch")) load.max_batch = static_cast<int>(count_value("option --max-batch", args.max_batch, 1));
    if (given("--max-batch-wait"))
        load.max_batch_wait_ms = duration_ms_value("option --max-batch-wait", args.max_batch_wait);
    if (given("--peak-precision"))
        load.peak_precision = peak_precision_value("option --peak-precision", args.peak_precision);
    if (given("--find-peak")) {
        load.find_peak = true;
        if (!given("--target-qps")) load.target_qps = 0;    // over the config's rate
        if (!given("--concurrency")) load.concurrency = 0;  // and its clients
    } else if (given("--target-qps") || given("--concurrency")) {
        load.find_peak = false;  // over the config's search
    }
    check_load(load);

    ScenarioSettings& cli = options.command_line;
    if (given("--warmup-iterations")) cli.warmup_iterations = args.warmup;
    if (given("--measurement-iterations")) cli.measurement_iterations = args.measurement;
    if (given("--num-tokens-to-generate")) cli.num_tokens_to_generate = args.tokens;
    if (given("--model-id")) cli.model_id = args.model_id;
    if (given("--min-time")) cli.min_time_s = args.min_time;
    if (given("--max-time")) cli.max_time_s = args.max_time;
    if (given("--compile-timeout")) cli.compile_timeout_s = args.compile_timeout;
    if (given("--timer")) cli.timer = args.timer;
    if (given("--cache")) cli.cache = args.cache;
    if (given("--discard-throttled")) cli.discard_throttled = args.discard_throttled;
    if (given("--throttle-cooldown")) cli.throttle_cooldown_s = args.throttle_cooldown;
    if (given("--target-ci-width")) cli.target_ci_width = relative_option("--target-ci-width", args.target_ci_width, 1);
    if (given("--model-path")) cli.params.set("model_path", args.model_path);
    for (const std::string& param : args.params) {
        auto [key, values] = param_of("--param", param);
        cli.params.set(key, values);
    }
    const std::pair<const char*, const std::string*> axes[] = {
        {"variant", &args.variants}, {"batch_size", &args.batch_sizes}, {"dtype", &args.dtypes},
        {"device", &args.devices},   {"threads", &args.threads},         {"compile_mode", &args.compile_modes}};
    for (const auto& [axis, text] : axes) {
        std::string option = "--" + axis_config_key(axis);
        std::replace(option.begin(), option.end(), '_', '-');
        if (!given(option.c_str())) continue;
        std::vector<std::string> values = axis_values(option, *text, *text);
        validate_axis_values(axis, values, "option " + option + ": ");
        cli.axes[axis] = std::move(values);
        cli.axis_origins[axis] = option;
    }
    for (const std::string& given_axis : args.custom_axes) {  // a name given twice: the last one counts
        auto [name, values] = custom_axis(given_axis);
        cli.axes[name] = std::move(values);
        cli.axis_origins[name] = "--axis " + name;
    }
}

/// The A/B run of `ab`, or of every step of `bisect`, from their options.
AbCommand ab_command_of(const CLI::App& app, const RunArguments& args, int argc, const char* const* argv) {
    AbCommand ab;
    ab.options.invocation.assign(argv, argv + argc);
    ab.options.defaults = builtin_scenario_defaults();
    ab.options.rounds = 6;
    if (app.count("--config") > 0) load_config_file(args.config, ab.options);
    apply_run_arguments(app, args, ab.options);
    ab.base_dir = args.base_dir;
    ab.new_dir = args.new_dir;
    for (const std::string& param : args.base_params) ab.base_params.push_back(param_of("--base-param", param));
    for (const std::string& param : args.new_params) ab.new_params.push_back(param_of("--new-param", param));
    if (ab.options.rounds < 2)
        throw ConfigError("ab: rounds " + std::to_string(ab.options.rounds) +
                          ": an A/B run needs at least 2 pairs (--rounds 2) to see the spread between them");
    if (app.count("--max-rounds") > 0) ab.max_rounds = args.max_rounds;
    if (ab.max_rounds < ab.options.rounds)
        throw ConfigError("--max-rounds " + std::to_string(ab.max_rounds) + " is fewer than --rounds " +
                          std::to_string(ab.options.rounds) + " (the pairs every scenario runs)");
    if (const std::size_t fewest = bench::fewest_pairs(0.95); static_cast<std::size_t>(ab.max_rounds) < fewest)
        throw ConfigError("--max-rounds " + std::to_string(ab.max_rounds) + ": an A/B verdict needs at least " +
                          std::to_string(fewest) + " pairs (the fewest with a 95% interval); give --max-rounds " +
                          std::to_string(fewest) + " or more");
    ab.time_limit_s = args.time_limit;
    return ab;
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
               "Exit status: 0 all selected scenarios succeeded or were skipped, 1 at least one failed\n"
               "(or, with --fail-on-regression, one got slower; or nothing was selected, unless --allow-empty),\n"
               "2 wrong arguments or configuration (nothing ran), or a --load that no selected benchmark served,\n"
               "130 interrupted.");

    RunArguments run_args;
    CLI::App* run = app.add_subcommand("run", "Discover, run and report benchmarks (the default)");
    add_run_options(*run, run_args, RunMode::run);

    RunArguments ab_args;
    CLI::App* ab_app = app.add_subcommand(
        "ab", "A/B: the same plan over two plugin folders, each scenario in pairs of rounds (A B, B A, ...) until "
              "the comparison decides; writes comparison.md, comparison.json and report.html");
    add_run_options(*ab_app, ab_args, RunMode::ab);

    RunArguments bisect_args;
    CLI::App* bisect_app = app.add_subcommand(
        "bisect", "Find the first commit between --good and --bad that made the plugins slower: each step builds a "
                  "revision in a scratch checkout and runs it against --good's build as `ab` does");
    add_run_options(*bisect_app, bisect_args, RunMode::bisect);

    std::string list_dir;
    CLI::App* list = app.add_subcommand("list", "List plugins and their benchmarks, and files that are not plugins");
    list->add_option("--plugins-dir", list_dir, "Plugin folder (default: ../plugins beside the executable)");

    std::string export_source, export_format, export_output;
    CLI::App* export_app = app.add_subcommand("export", "Write a run's results in a format other tools read");
    export_app->add_option("dir", export_source, "Run folder, or its benchmark_summary.json")->required();
    export_app->add_option("--format", export_format, "gbench-json: Google Benchmark's JSON (e.g. for its compare.py)")
        ->required()
        ->check(CLI::IsMember(optional_format_names()));
    export_app->add_option("--output,-o", export_output, "Write to this file instead of standard output");

    std::string merge_out;
    std::vector<std::string> merge_dirs;
    CLI::App* merge_app =
        app.add_subcommand("merge", "Join the run folders of the shards of one plan (run --shard K/N) into one");
    merge_app->add_option("out", merge_out, "The merged run folder to write")->required();
    merge_app->add_option("shards", merge_dirs, "The shards' run folders (or their benchmark_summary.json)")
        ->required()
        ->check(CLI::ExistingPath);

    CompareCommand compare;
    std::string compare_base, compare_new, compare_threshold, compare_markdown, compare_json, compare_junit;
    CLI::App* compare_app =
        app.add_subcommand("compare", "Compare two runs: medians, ratios with 95% CIs, and a Mann-Whitney U verdict");
    compare_app->add_option("base", compare_base, "The baseline: a run folder or its benchmark_summary.json")
        ->required()
        ->check(CLI::ExistingPath);
    compare_app->add_option("new", compare_new, "The run to judge: a run folder or its benchmark_summary.json")
        ->required()
        ->check(CLI::ExistingPath);
    compare_app->add_option("--threshold", compare_threshold,
                            "A change smaller than this is 'same' however significant (default 5%)");
    compare_app->add_option("--alpha", compare.alpha, "Significance level of the U test (default 0.05)")
        ->check(CLI::Range(0.0, 1.0));
    compare_app->add_flag("--fail-on-regression", compare.fail_on_regression,
                          "Exit 1 when a scenario is slower by more than --threshold (not when inconclusive)");
    std::string compare_noise_floor;
    compare_app->add_option("--noise-floor", compare_noise_floor,
                            "How far apart single runs of the same build can be (default 10%): with one run a side, "
                            "a change within it is inconclusive");
    compare_app->add_option("--markdown", compare_markdown, "Also write the comparison as Markdown to this file");
    compare_app->add_option("--json", compare_json, "Also write the comparison as JSON to this file");
    compare_app->add_option("--junit", compare_junit,
                            "Also write JUnit XML to this file, for CI test reports: a test case per scenario of the "
                            "new run, a failure where it is slower");
    compare_app->add_option("--history", compare.history,
                            "A run history (SQLite file or postgresql://...): a series with one run a side is judged by "
                            "how far apart the new run's machine's earlier runs of it are, not by the noise floor");

    std::string report_source, report_output;
    CLI::App* report_app =
        app.add_subcommand("report", "Write report.md and report.html (tables and charts) of an earlier run again");
    report_app->add_option("dir", report_source, "Run folder, or its benchmark_summary.json")->required();
    report_app->add_option("--output-dir", report_output, "Write the reports into this folder (default: the run folder)");

    HistoryCommand history;
    std::vector<std::string> history_runs;
    CLI::App* history_app =
        app.add_subcommand("history", "The run history: add runs to it, list them, show a scenario over commits, "
                                      "check a run against it, write a dashboard of it");
    history_app->require_subcommand(1, 1);
    const auto history_location = [&](CLI::App* sub) {
        sub->add_option("--history", history.location, "The history: an SQLite file, or postgresql://HOST[:PORT]/DATABASE")->required();
    };
    const auto history_filter = [&](CLI::App* sub) {
        sub->add_option("--machine", history.machine, "Only runs on this machine: its fingerprint (or a prefix) or host name");
        sub->add_option("--branch", history.branch, "Only runs of this branch");
        sub->add_option("--since", history.since, "Only runs started at or after this UTC date or time (2026-11-24, 2026-11-24T10:00)");
        sub->add_option("--until", history.until, "Only runs started at or before this UTC date or time (a date: to its end)");
    };
    CLI::App* history_add = history_app->add_subcommand("add", "Add run folders (merged ones too); a run added before is left as it is");
    history_location(history_add);
    history_add->add_option("runs", history_runs, "Run folders, or their benchmark_summary.json")->required()->check(CLI::ExistingPath);
    history_add->add_flag("--samples", history.samples, "Record the raw samples too");
    CLI::App* history_list = history_app->add_subcommand("list", "The runs in the history, the newest first");
    history_location(history_list);
    history_filter(history_list);
    history_list->add_option("--limit", history.limit, "Only the newest N runs");
    CLI::App* history_show =
        history_app->add_subcommand("show", "A table per scenario, series and machine: its figures in each run, over commits");
    history_location(history_show);
    history_show->add_option("pattern", history.pattern, "Scenario ids: a substring, or a glob with * ? [")->required();
    history_show->add_option("--series", history.series, "Only this series (default: every series)");
    history_filter(history_show);
    history_show->add_option("--limit", history.limit, "Only the last N runs of each table");
    std::string check_threshold;
    CLI::App* history_check = history_app->add_subcommand(
        "check", "Gate: a run against the runs before it on the same machine, by their noise; exit 1 when slower");
    history_location(history_check);
    history_check->add_option("pattern", history.pattern, "Only scenario ids like this: a substring, or a glob (default: all)");
    history_check->add_option("--junit", history.junit,
                              "Also write JUnit XML to this file, for CI test reports: a test case per scenario, a "
                              "failure where a series is slower than its history");
    history_check->add_option("--run", history.run_id, "The run to check, by its number (history list); default: the newest the filters select")
        ->check(CLI::PositiveNumber);
    history_check->add_option("--series", history.series, "Only this series (default: every series)");
    history_filter(history_check);
    history_check->add_option("--baseline-branch", history.baseline_branch,
                              "Learn from earlier runs of this branch only (default: any branch)");
    history_check->add_option("--threshold", check_threshold,
                              "Smallest change that counts, as 5% or 0.05 (default 5%): smaller is `same`");
    history_check->add_option("--lookback", history.lookback, "Learn the noise from at most the last N earlier runs (default 30)")
        ->check(CLI::PositiveNumber);
    history_check->add_option("--min-runs", history.min_runs,
                              "Fewest earlier runs to judge by (default 5); fewer: inconclusive")
        ->check(CLI::Range(2, 1000000));
    std::string report_dir;
    CLI::App* history_report = history_app->add_subcommand(
        "report", "Write a static dashboard: DIR/index.html and a page per scenario, series and machine with a chart "
                  "of its medians over commits, their 95% intervals and change points, and its table");
    history_location(history_report);
    history_report->add_option("--output-dir", report_dir, "Write the pages into this folder (made when missing)")
        ->required();
    history_report->add_option("pattern", history.pattern,
                               "Scenario ids: a substring, or a glob with * ? [ (default: every scenario)");
    history_report->add_option("--series", history.series, "Only this series (default: every series)");
    history_filter(history_report);
    history_report->add_option("--limit", history.limit, "Only the last N runs on each page");

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
        } else if (*merge_app) {
            parsed.command = MergeCommand{merge_out, {merge_dirs.begin(), merge_dirs.end()}};
        } else if (*compare_app) {
            compare.base = compare_base;
            compare.next = compare_new;
            if (!compare_threshold.empty()) compare.threshold = relative_option("--threshold", compare_threshold, 100);
            if (!compare_noise_floor.empty())
                compare.noise_floor = relative_option("--noise-floor", compare_noise_floor, 100);
            compare.markdown = compare_markdown;
            compare.json = compare_json;
            compare.junit = compare_junit;
            parsed.command = compare;
        } else if (*export_app) {
            parsed.command = ExportCommand{export_source, export_format, export_output};
        } else if (*report_app) {
            parsed.command = ReportCommand{report_source, report_output};
        } else if (*history_app) {
            history.action = *history_add    ? "add"
                             : *history_list   ? "list"
                             : *history_show   ? "show"
                             : *history_report ? "report"
                                               : "check";
            history.output_dir = report_dir;
            if (!check_threshold.empty()) history.threshold = relative_option("--threshold", check_threshold, 100);
            history.runs.assign(history_runs.begin(), history_runs.end());
            // --until takes in the whole of the day, hour or minute it names: start times
            // are compared as text, and 2026-11-24T10:00:00Z is after "2026-11-24".
            if (constexpr std::string_view latest = "0000-12-31T23:59:59Z";
                !history.until.empty() && history.until.size() < latest.size())
                history.until += latest.substr(history.until.size());
            parsed.command = history;
        } else if (*ab_app) {
            parsed.command = ab_command_of(*ab_app, ab_args, argc, argv);
        } else if (*bisect_app) {
            BisectCommand bisect;
            bisect.ab = ab_command_of(*bisect_app, bisect_args, argc, argv);
            bisect.good = bisect_args.good;
            bisect.bad = bisect_args.bad;
            bisect.build = bisect_args.build;
            bisect.plugins_dir = bisect_args.plugins_dir;
            if (bisect.plugins_dir.is_absolute())
                throw ConfigError("--plugins-dir " + bisect_args.plugins_dir +
                                  ": give the folder relative to the checkout (each revision is built in a scratch "
                                  "checkout of its own)");
            if (bisect_app->count("--repo") > 0) bisect.repo = bisect_args.repo;
            bisect.build_timeout_s = bisect_args.build_timeout;
            bisect.keep_checkouts = bisect_args.keep_checkouts;
            parsed.command = std::move(bisect);
        } else {
            RunOptions options;
            options.invocation.assign(argv, argv + argc);
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
