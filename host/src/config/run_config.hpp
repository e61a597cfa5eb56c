// The options of a run, layered: built-in defaults, then the YAML config, then the
// command line. Scenario settings can also be set per plugin in the YAML.
//
// YAML layout (every key optional; see configs/*.yaml):
//   warmup_iterations: 3          # scenario settings, for every plugin ...
//   measurement_iterations: 10
//   num_tokens_to_generate: 20
//   min_time: 1                   # seconds: measure at least this long ...
//   max_time: 20                  #   ... stop when this is spent ...
//   target_ci_width: 1%           #   ... or once the median's 95% CI is this narrow
//   model_id: gpt2-tiny
//   variants: [eager, compiled]   # built-in axes: variants, batch_sizes, dtypes,
//   batch_sizes: [1, 8]           #   devices, threads, compile_modes
//   axes: {seq_len: [128, 512]}   # custom axes, set as parameters
//   params: {sizes: [128, 512]}   # free-form parameters
//   timeout: 600                  # run settings ...
//   memory_limit: 4096            # MiB a worker may use (a memory cgroup, else RLIMIT_DATA)
//   monitor_interval: 50          # ms between monitor samples; 0: no monitoring
//   lock_clocks: base             # lock the GPUs' SM clock for the run: base or MHz
//   isolation: process
//   launcher: local               # or slurm: a distributed scenario's ranks by srun
//   rounds: 3                     # run each scenario 3 times, variants interleaved
//   enable_mock: false
//   profile: false                # true: profile one call of each scenario after measuring
//   allow_empty: false            # true: a plan with no scenarios is a success
//   include: [mock]
//   exclude: []
//   categories: [performance]
//   output_dir: results/
//   plugins_dir: [build/plugins, /opt/mine]   # or build/plugins:/opt/mine (plugin_folders.hpp)
//   log_level: info
//   load: server                  # the load of benchmarks that serve (docs/serving.md) ...
//   target_qps: 50                #   ... and its options: queries, min_duration,
//   slo: latency=200ms            #   samples_per_query, burstiness, concurrency,
//                                 #   late_tolerance, load_seed
//   plugins:                      # ... and per plugin, any scenario setting
//     resnet50: {batch_sizes: [1, 8], params: {image_size: 224}}
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bench/load.hpp>
#include <bench/params.hpp>

#include "config/plugin_folders.hpp"

namespace benchhost {

enum class Isolation { process, none };
/// How the ranks of a distributed scenario start: on this machine, or by srun.
enum class Launcher { local, slurm };

/// Invalid configuration or arguments: the run does not start (exit status 2). The
/// message says where: "configs/x.yaml:4:3: unknown key 'warmup' (did you mean ...)".
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Settings that shape each scenario. Unset fields fall through to the layer below.
struct ScenarioSettings {
    std::optional<int> warmup_iterations;
    std::optional<int> measurement_iterations;
    std::optional<int> num_tokens_to_generate;
    std::optional<std::string> model_id;
    std::optional<double> min_time_s, max_time_s, target_ci_width;  // the time rule
    std::optional<double> compile_timeout_s;  // the compiled variant's compile
    std::optional<std::string> timer;  // how measure_device times: auto, host, cuda-events
    std::optional<std::string> cache;  // warm, or cold: flushed before each sample
    std::optional<bool> discard_throttled;  // drop the samples during which the GPU throttled
    std::optional<double> throttle_cooldown_s;  // wait before a sample while the GPU throttles
    std::optional<bool> discard_recompiled;  // drop the samples during which a compile ran
    std::optional<std::string> compile_cache;  // warm, or cold: fresh compile caches per scenario
    /// Axis name ("variant", "batch_size", ... or a parameter) -> values to run.
    std::map<std::string, std::vector<std::string>> axes;
    /// Axis name -> where the user set its values ("configs/x.yaml:3:11", "--variants",
    /// "--axis size"); an axis without an entry has the built-in defaults.
    std::map<std::string, std::string> axis_origins;
    bench::Params params;

    /// Lays `over` on top: its set fields, axes (with their origins) and parameters
    /// replace these.
    void overlay(const ScenarioSettings& over);

    /// Where the user set `axis`'s values; empty when they are the built-in defaults.
    std::string axis_origin(const std::string& axis) const;
};

struct RunOptions {
    PluginFolders plugins_dirs;  // where the plugins are (config/plugin_folders.hpp)
    std::optional<std::filesystem::path> config_file;
    std::optional<std::filesystem::path> output_dir;
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    std::vector<std::string> categories;
    bool enable_mock = false;
    /// After each scenario's measurement, a profiled pass of one call (docs/profiling.md).
    bool profile = false;
    Isolation isolation = Isolation::process;
    /// --worker-preload: workers of plugins that link LibTorch or import torch are forked
    /// from a parent that loaded it (execute/worker_server.hpp); off: each loads its own.
    bool worker_preload = true;
    Launcher launcher = Launcher::local;  // how a distributed scenario's ranks start
    double timeout_s = 600;  // per scenario; 0 disables
    std::size_t memory_limit_mib = 0;  // what each worker may use (a memory cgroup, else RLIMIT_DATA); 0 disables
    double monitor_interval_ms = 50;  // between samples of the GPU and CPU monitors; 0 disables
    /// Lock the SM clock of the GPUs the plan runs on for the run: "base" or MHz; empty:
    /// leave them be (bench/internal/monitors/gpu_clocks.hpp).
    std::string lock_clocks;
    std::string log_level = "info";
    bool retry_failed = false;  // load plugins the registry remembers as crashing
    bool allow_untrusted = false;  // load plugins others than their owner may write
    std::optional<std::filesystem::path> resume_dir;  // continue the run in this folder
    /// Each scenario is run this many times, in a fresh worker each time; the variants of
    /// a benchmark are interleaved in rotating order, and samples of all rounds pooled.
    int rounds = 1;
    std::optional<std::filesystem::path> baseline;  // compare with this earlier run at the end
    double regression_threshold = 0.05;  // relative change that counts as a regression
    bool fail_on_regression = false;  // exit 1 when the comparison finds one
    /// How far apart single runs of the same build may be: with one run a side, a change
    /// within it is "inconclusive" (CompareOptions::noise_floor).
    double noise_floor = 0.10;
    /// A scenario the comparison finds slower is run this many more rounds before the
    /// verdict stands; the report keeps the first figures beside the confirmed ones.
    int confirm = 0;
    /// Record the run, when it ends, in this history (an SQLite file): history/history_store.hpp.
    std::optional<std::string> history;
    bool history_samples = false;  // with the raw samples
    std::vector<std::string> extra_formats;  // also write: "gbench-json" (gbench.json)
    std::optional<std::string> shard;  // "K/N" or "slurm": run only this part of the plan
    std::optional<std::filesystem::path> shard_costs;  // an earlier run whose wall times balance the shards
    bool dry_run = false;  // print the plan, run nothing, write nothing
    bool allow_empty = false;  // a plan with no scenarios is a success, not an error
    bool quiet = false;  // no progress and no informational log lines on the console
    std::vector<std::string> invocation;  // the command line as given (argv), for the record
    /// The load of the benchmarks that serve (--load ...; config/load_options.hpp): every
    /// scenario gets it.
    bench::LoadConfig load;

    ScenarioSettings defaults;  // built in
    ScenarioSettings config;  // the YAML's top level
    std::map<std::string, ScenarioSettings> plugin_settings;  // the YAML's plugins: section
    std::map<std::string, std::string> plugin_settings_where;  // plugin name -> "file:line:column" of its entry
    ScenarioSettings command_line;  // options given on the command line

    /// defaults, then config, then plugin_settings[plugin], then command_line.
    ScenarioSettings effective_for(const std::string& plugin) const;
};

/// The built-in defaults: warmup 3, measurement 10, 20 tokens, variants eager,
/// compiled and kernelized, batch size 1, float32 on cpu.
ScenarioSettings builtin_scenario_defaults();

/// Reads a YAML config file onto `options`: what the file sets replaces what is there.
void load_config_file(const std::filesystem::path& file, RunOptions& options);
/// The same for YAML text; `origin` names it in error messages.
void load_config_text(std::string_view yaml, const std::string& origin, RunOptions& options);

/// Checks a list of values for a built-in axis; throws ConfigError prefixed by `where`.
void validate_axis_values(const std::string& axis, const std::vector<std::string>& values, const std::string& where);

/// The YAML key of a built-in axis ("batch_sizes" for "batch_size"), and back.
std::string axis_config_key(const std::string& axis);

/// A relative amount: "5%" or "0.05" give 0.05. Empty when `text` is neither, or negative.
std::optional<double> parse_relative(std::string_view text);

/// A relative amount from the command line ("5%" or 0.05), below `below`, or ConfigError
/// naming the option.
double relative_option(const std::string& option, const std::string& text, double below);

/// `--param KEY=VALUE[,VALUE...]` as the key and its values, or ConfigError naming `option`.
std::pair<std::string, std::vector<std::string>> param_of(const std::string& option, const std::string& param);

/// The closest of `candidates` to `word` when it is a likely typo, else empty.
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace benchhost
