// The options of `run`, `ab` and `bisect` (cli/run_options.hpp): the plan, the sampling,
// the comparison, the serving load and the rest that the three share, and those that only
// some of them have; declared on the command's subcommand, then applied over the options
// the config file gave.
#pragma once

#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace benchhost {

/// The options of `run`, `ab` or `bisect` as given; unset ones leave the config's values alone.
struct RunArguments {
    std::vector<std::string> plugins_dirs;  // each one folder or several separated by ':'
    std::string config, output_dir, isolation, log_level, model_id;
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
    // benchhost ab: each one folder or several separated by ':'
    std::vector<std::string> base_dirs, new_dirs;
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

/// Declares the options of `mode` on its subcommand `run`, bound to `args`.
void add_run_options(CLI::App& run, RunArguments& args, RunMode mode);

/// Applies what was given on the command line (parsed into `args` by `run`) over the
/// config file's values. Throws ConfigError for values that are wrong.
void apply_run_arguments(const CLI::App& run, const RunArguments& args, RunOptions& options);

}  // namespace benchhost
