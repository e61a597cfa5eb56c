#include "cli/run_arguments.hpp"

#include <algorithm>
#include <cctype>

#include <CLI/CLI.hpp>

#include <bench/internal/monitors/gpu_clocks.hpp>
#include <bench/internal/params/axes.hpp>

#include "cli/option_values.hpp"
#include "config/load_options.hpp"
#include "config/plugin_folders.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

namespace {

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

/// Each folder of a list separated by ':' exists (an empty entry, the default folders, does).
const CLI::Validator existing_folders(
    [](const std::string& list) -> std::string {
        for (const std::string& entry : folder_list_entries({list})) {
            std::error_code ec;
            if (!entry.empty() && !std::filesystem::is_directory(entry, ec))
                return "plugin folder " + entry + " does not exist or is not a folder";
        }
        return {};
    },
    "DIR[:DIR...]");

/// The options of the command itself: bisect's revisions and build, ab's two folders, the
/// pairs of both; run's plugin folder.
void add_command_options(CLI::App& run, RunArguments& args, RunMode mode) {
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
        run.add_option("--plugins-dir", args.plugins_dirs,
                       "The plugin folder the build makes, relative to the checkout (e.g. build/plugins); several "
                       "separated by ':' or given again (e.g. build/plugins:plugins, the source tree's Python files)")
            ->required()
            ->take_all();
        run.add_option("--repo", args.repo, "A folder in the git checkout to bisect (default: the current folder)");
        run.add_option("--build-timeout", args.build_timeout,
                       "Seconds a build may take; past it the build is killed and the revision skipped (default 0: "
                       "no limit)")
            ->check(CLI::NonNegativeNumber);
        run.add_flag("--keep-checkouts", args.keep_checkouts,
                     "Leave the scratch checkouts and their builds in the temporary folder (default: removed)");
    }
    if (mode == RunMode::ab) {
        run.add_option("--base", args.base_dirs,
                       "Plugin folder of the base side (A), e.g. a main-branch build's plugins/; several separated "
                       "by ':' or given again, as --plugins-dir of run")
            ->required()
            ->take_all()
            ->check(existing_folders);
        run.add_option("--new", args.new_dirs,
                       "Plugin folder of the new side (B), e.g. a pull request's build (may be --base); several as "
                       "--base")
            ->required()
            ->take_all()
            ->check(existing_folders);
        run.add_option("--base-param", args.base_params,
                       "A plugin parameter KEY=VALUE for the base side only; repeatable")
            ->take_all();
        run.add_option("--new-param", args.new_params,
                       "A plugin parameter KEY=VALUE for the new side only (e.g. --new-param threads=8); repeatable")
            ->take_all();
    }
    if (ab) {
        run.add_option("--max-rounds", args.max_rounds,
                       "Pairs at most for a scenario still inconclusive after --rounds (default 40; past --rounds the "
                       "verdict reads a 99% interval)")
            ->check(CLI::Range(2, 1000));
        run.add_option("--time-limit", args.time_limit,
                       "Seconds: no pair beyond --rounds starts once this much of the A/B run has passed; 0: no limit")
            ->check(CLI::NonNegativeNumber);
    } else {
        run.add_option("--plugins-dir", args.plugins_dirs, plugins_dir_help)->take_all();
    }
}

/// The config file, the output folder, which benchmarks run, and --profile.
void add_selection_options(CLI::App& run, RunArguments& args, RunMode mode) {
    const bool ab = mode != RunMode::run;  // ab or bisect
    run.add_option("--config", args.config, "YAML config file; options given here override it")
        ->check(CLI::ExistingFile);
    run.add_option("--output-dir", args.output_dir,
                   mode == RunMode::bisect
                       ? "Write the steps' A/B folders, the build logs and bisect.md into this folder (default: "
                         "benchmark_results/bisect_<timestamp>/)"
                   : ab ? "Write the comparison and the sides' run folders (base/, new/) into this folder (default: "
                          "benchmark_results/ab_<timestamp>/)"
                        : "Write reports into this folder (default: benchmark_results/<timestamp>/)");
    run.add_option("--include", args.include,
                   "Run only ids (category/plugin/benchmark) matching: substring or glob; repeatable")
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
}

/// How each series is measured: its iterations and time, its timer, its cache, throttling.
void add_sampling_options(CLI::App& run, RunArguments& args) {
    run.add_option("--warmup-iterations", args.warmup, "Unmeasured calls before measuring")
        ->check(CLI::Range(0, 100000000));
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
                   "until the GPU monitor sees it stop, at most this long (not counted by --max-time); default 0: "
                   "never")
        ->check(CLI::Range(0.0, 86400.0));
    run.add_option("--target-ci-width", args.target_ci_width,
                   "Measure until the 95% confidence interval of the median is this wide relative to the median "
                   "(e.g. 1%), or --max-time (default 10 s) is spent");
}

/// The rounds; what the results are compared with (--baseline, or ab's base side) and
/// recorded in (--history); the formats they are also written in.
void add_comparison_options(CLI::App& run, RunArguments& args, RunMode mode) {
    const bool ab = mode != RunMode::run;  // ab or bisect
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
    run.add_option(
           "--confirm", args.confirm,
           comparison_help(std::string("run a scenario found slower this many more ") + (ab ? "pairs" : "rounds") +
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
}

/// What each scenario runs with: the model, the axes and parameters, the worker's limits,
/// the GPU's clocks and the monitors.
void add_scenario_options(CLI::App& run, RunArguments& args) {
    run.add_option("--num-tokens-to-generate", args.tokens, "Tokens generative models produce")
        ->check(CLI::Range(1, 1000000));
    run.add_option("--model-id", args.model_id,
                   "Model configuration for plugins that offer several (e.g. gpt2, gpt2-tiny)");
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

/// How the host goes about the run: which plugins it loads, resuming, sharding, what it
/// prints, isolation.
void add_host_options(CLI::App& run, RunArguments& args, RunMode mode) {
    const bool ab = mode != RunMode::run;  // ab or bisect
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

/// Whether the command line gave `name` to `run` (false for an option `run` does not have).
bool given(const CLI::App& run, const std::string& name) {
    const CLI::Option* option = run.get_option_no_throw(name);
    return option != nullptr && option->count() > 0;
}

/// Applies the serving load's options over the config file's load.
void apply_load_arguments(const CLI::App& run, const RunArguments& args, bench::LoadConfig& load) {
    if (given(run, "--load")) load.mode = load_mode_value("option --load", args.load);
    if (given(run, "--queries")) load.queries = count_value("option --queries", args.queries, 1);
    if (given(run, "--min-duration")) load.min_duration_s = seconds_value("option --min-duration", args.min_duration);
    if (given(run, "--samples-per-query"))
        load.samples_per_query = static_cast<int>(count_value("option --samples-per-query", args.samples_per_query, 1));
    if (given(run, "--target-qps")) {
        load.target_qps = rate_value("option --target-qps", args.target_qps);
        load.concurrency = 0;  // over the config's closed loop
    }
    if (given(run, "--concurrency")) {
        load.concurrency = static_cast<int>(count_value("option --concurrency", args.concurrency, 1));
        if (!given(run, "--target-qps")) load.target_qps = 0;  // over the config's open loop
    }
    if (given(run, "--burstiness")) load.burstiness = burstiness_value("option --burstiness", args.burstiness);
    if (given(run, "--late-tolerance"))
        load.late_tolerance_ms = duration_ms_value("option --late-tolerance", args.late_tolerance);
    if (given(run, "--load-seed"))
        load.seed = static_cast<std::uint64_t>(count_value("option --load-seed", args.load_seed, 0));
    if (given(run, "--slo")) slo_value("option --slo", args.slo, load);
    if (given(run, "--max-batch"))
        load.max_batch = static_cast<int>(count_value("option --max-batch", args.max_batch, 1));
    if (given(run, "--max-batch-wait"))
        load.max_batch_wait_ms = duration_ms_value("option --max-batch-wait", args.max_batch_wait);
    if (given(run, "--peak-precision"))
        load.peak_precision = peak_precision_value("option --peak-precision", args.peak_precision);
    if (given(run, "--find-peak")) {
        load.find_peak = true;
        if (!given(run, "--target-qps")) load.target_qps = 0;  // over the config's rate
        if (!given(run, "--concurrency")) load.concurrency = 0;  // and its clients
    } else if (given(run, "--target-qps") || given(run, "--concurrency")) {
        load.find_peak = false;  // over the config's search
    }
    check_load(load);
}

/// Applies the scenario settings given (sampling, model, parameters, axes) over the config
/// file's.
void apply_scenario_arguments(const CLI::App& run, const RunArguments& args, ScenarioSettings& cli) {
    if (given(run, "--warmup-iterations")) cli.warmup_iterations = args.warmup;
    if (given(run, "--measurement-iterations")) cli.measurement_iterations = args.measurement;
    if (given(run, "--num-tokens-to-generate")) cli.num_tokens_to_generate = args.tokens;
    if (given(run, "--model-id")) cli.model_id = args.model_id;
    if (given(run, "--min-time")) cli.min_time_s = args.min_time;
    if (given(run, "--max-time")) cli.max_time_s = args.max_time;
    if (given(run, "--compile-timeout")) cli.compile_timeout_s = args.compile_timeout;
    if (given(run, "--timer")) cli.timer = args.timer;
    if (given(run, "--cache")) cli.cache = args.cache;
    if (given(run, "--discard-throttled")) cli.discard_throttled = args.discard_throttled;
    if (given(run, "--throttle-cooldown")) cli.throttle_cooldown_s = args.throttle_cooldown;
    if (given(run, "--target-ci-width"))
        cli.target_ci_width = relative_option("--target-ci-width", args.target_ci_width, 1);
    if (given(run, "--model-path")) cli.params.set("model_path", args.model_path);
    for (const std::string& param : args.params) {
        auto [key, values] = param_of("--param", param);
        cli.params.set(key, values);
    }
    const std::pair<const char*, const std::string*> axes[] = {
        {"variant", &args.variants}, {"batch_size", &args.batch_sizes}, {"dtype", &args.dtypes},
        {"device", &args.devices},   {"threads", &args.threads},        {"compile_mode", &args.compile_modes}};
    for (const auto& [axis, text] : axes) {
        std::string option = "--" + axis_config_key(axis);
        std::replace(option.begin(), option.end(), '_', '-');
        if (!given(run, option)) continue;
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

}  // namespace

void add_run_options(CLI::App& run, RunArguments& args, RunMode mode) {
    // An option given twice takes the last value, as most tools do (a script can append
    // an override); --include, --exclude, --category and --param collect every value.
    run.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    add_command_options(run, args, mode);
    add_selection_options(run, args, mode);
    add_sampling_options(run, args);
    add_comparison_options(run, args, mode);
    add_scenario_options(run, args);
    add_load_options(run, args);
    add_host_options(run, args, mode);
}

void apply_run_arguments(const CLI::App& run, const RunArguments& args, RunOptions& options) {
    // `ab` and `bisect` have no --profile, --baseline, --history, --resume, --shard or
    // --isolation; `ab` has no --plugins-dir, and bisect's names folders in its checkouts.
    const bool ab = run.get_option_no_throw("--max-rounds") != nullptr;  // ab or bisect
    if (given(run, "--plugins-dir") && !ab)
        options.plugins_dirs = {plugin_folder_list(args.plugins_dirs, default_plugin_folders().paths), "--plugins-dir"};
    if (given(run, "--output-dir")) options.output_dir = args.output_dir;
    if (given(run, "--include")) options.include = args.include;
    if (given(run, "--exclude")) options.exclude = args.exclude;
    if (given(run, "--category")) options.categories = args.categories;
    if (given(run, "--enable-mock")) options.enable_mock = args.enable_mock;
    if (given(run, "--profile")) options.profile = args.profile;
    if (given(run, "--timeout")) options.timeout_s = args.timeout;
    if (given(run, "--monitor-interval")) options.monitor_interval_ms = args.monitor_interval;
    if (given(run, "--lock-clocks")) options.lock_clocks = args.lock_clocks;
    if (given(run, "--isolation")) options.isolation = args.isolation == "none" ? Isolation::none : Isolation::process;
    if (given(run, "--log-level")) options.log_level = args.log_level;
    if (given(run, "--memory-limit")) options.memory_limit_mib = static_cast<std::size_t>(args.memory_limit);
    if (given(run, "--retry-failed")) options.retry_failed = args.retry_failed;
    if (given(run, "--allow-untrusted-plugins")) options.allow_untrusted = args.allow_untrusted;
    if (given(run, "--rounds")) options.rounds = args.rounds;
    if (given(run, "--format")) options.extra_formats = args.formats;
    if (given(run, "--dry-run")) options.dry_run = args.dry_run;
    if (given(run, "--allow-empty")) options.allow_empty = args.allow_empty;
    if (given(run, "--shard")) options.shard = args.shard;
    if (given(run, "--shard-costs")) {
        if (!given(run, "--shard")) throw ConfigError("--shard-costs needs --shard");
        options.shard_costs = args.shard_costs;
    }
    if (given(run, "--quiet")) options.quiet = args.quiet;
    if (given(run, "--baseline")) options.baseline = args.baseline;
    if (given(run, "--threshold")) options.regression_threshold = relative_option("--threshold", args.threshold, 100);
    if (given(run, "--fail-on-regression")) options.fail_on_regression = args.fail_on_regression;
    if (given(run, "--confirm")) options.confirm = args.confirm;
    if (given(run, "--history")) {
        if (args.history.empty()) throw ConfigError("--history: an empty location (an SQLite file)");
        options.history = args.history;
    }
    if (given(run, "--history-samples")) options.history_samples = args.history_samples;
    if (options.history_samples && !options.history)
        throw ConfigError("--history-samples needs --history LOCATION (or the config's history:)");
    if (given(run, "--noise-floor")) options.noise_floor = relative_option("--noise-floor", args.noise_floor, 100);
    const bool compares = given(run, "--threshold") || given(run, "--fail-on-regression") || given(run, "--confirm") ||
                          given(run, "--noise-floor");
    if (!ab && compares && !options.baseline)
        throw ConfigError(
            "--threshold, --fail-on-regression, --confirm and --noise-floor need --baseline DIR (the "
            "run to compare with)");
    if (given(run, "--resume")) {
        if (given(run, "--output-dir") && std::filesystem::path(args.output_dir) != std::filesystem::path(args.resume))
            throw ConfigError("--resume writes into the folder it resumes; leave out --output-dir");
        options.resume_dir = args.resume;
        options.output_dir = args.resume;
    }
    apply_load_arguments(run, args, options.load);
    apply_scenario_arguments(run, args, options.command_line);
}

}  // namespace benchhost
