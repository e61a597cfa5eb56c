// The worker side: loading a plugin with Boost.DLL and calling one entry point. In
// process isolation this runs in a worker process, forked for the scenario by the
// worker server (worker_server.hpp), or started as `benchhost worker ...` by hand; with
// --isolation none, in the host itself.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <spdlog/logger.h>

#include <bench/abi.hpp>
#include <bench/config.hpp>
#include <bench/internal/monitors/monitor_options.hpp>
#include <bench/result.hpp>

namespace benchhost {

/// An entry point of a loaded plugin, or why it could not be had: "<path>: cannot
/// load: libfoo.so.1: cannot open shared object file: ...", a handshake mismatch, ...
/// A Python plugin's is a call of the Python loader (bench/python_plugin.hpp).
struct LoadedEntryPoint {
    std::function<void(bench::Context&)> entry;
    std::string error;
};

/// Thrown by an entry point whose failure has a complete reason of its own (a Python
/// plugin's "raised ValueError: ... (file:line in function)"): the result's reason is
/// what() as it is.
struct EntryFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Whether the worker runs `plugin` as Python: a .py file, or a package's folder.
bool is_python_plugin(const std::filesystem::path& plugin);

/// The Python loader, libbench_python.so: beside the SDK's library, <bin>/../<libdir>
/// of this executable (installed) or <bin>/../lib (the build tree).
std::filesystem::path python_loader_path();

/// Why a scenario run with --load was skipped when its benchmark never served
/// (Context::serve): the same text in the worker, which skips it, and in the run, which
/// exits 2 when no scenario served.
std::string not_serving_reason(const bench::ScenarioConfig& config);

/// The warning of a scenario run with --profile whose benchmark succeeded without handing
/// a call to Context::profile, so that its report has no profile.
std::string not_profiled_warning(const bench::ScenarioConfig& config);

/// Loads `plugin` (RTLD_NOW) and looks up `symbol` after checking the handshake; for a
/// Python plugin, loads the Python loader (libbench_python.so beside the SDK's library)
/// and makes an entry that runs the function `symbol` with plugin_python()'s
/// environment. Never throws. The library stays loaded until the process ends.
LoadedEntryPoint load_entry_point(const std::filesystem::path& plugin, const std::string& symbol);

/// Calls a loaded entry point with a Context for `config`; an exception becomes a
/// failed result, bench::SkipScenario a skipped one, and a benchmark run under a
/// --load that never served a skipped one (not_serving_reason); under --profile, a success
/// without a profile warns (not_profiled_warning). Never throws. The GPU and CPU
/// monitors sample around the call (every monitoring.interval_ms; 0: not at all) and
/// their reports go into the result's "gpu_metrics" and "cpu_metrics", their
/// warnings into its warnings (and the log), unless the scenario was skipped.
bench::ScenarioResult call_entry_point(const std::function<void(bench::Context&)>& entry,
                                       const bench::ScenarioConfig& config, std::shared_ptr<spdlog::logger> logger,
                                       const bench::MonitorOptions& monitoring = {});

/// Loads `plugin` (RTLD_NOW, so a missing symbol fails here and not at first call),
/// checks its handshake, and calls `symbol` with a Context for `config`. Never throws:
/// a load failure, a handshake mismatch or an exception from the plugin becomes a
/// failed result with the reason; bench::SkipScenario becomes a skipped one. The
/// library stays loaded until the process ends (unloading LibTorch is not safe).
bench::ScenarioResult run_entry_point(const std::filesystem::path& plugin, const std::string& symbol,
                                      const bench::ScenarioConfig& config, std::shared_ptr<spdlog::logger> logger,
                                      const bench::MonitorOptions& monitoring = {});

/// Adds scalar "peak_rss" to `result`, unless it has one: the most resident memory the
/// process had at once during the scenario, set-up included (bench/memory_peak.hpp).
void add_peak_rss(bench::ScenarioResult& result);

/// What a worker process does with one scenario, wherever its config comes from and its
/// result goes: parses `config_json`, loads the plugin, calls `loaded()` once the
/// plugin is loaded (so that the host can tell a crash while loading, in a static
/// initializer, from one while running), runs the entry point with the monitors around
/// it, and returns the result with the plugin's load time ("plugin_load") and the
/// scenario's peak RSS ("peak_rss") added. The plugin's log lines go to stderr as
/// "[level] text". Never throws: a bad config becomes a failed result.
bench::ScenarioResult run_worker_scenario(const std::filesystem::path& plugin, const std::string& symbol,
                                          const std::string& config_json, const std::string& log_level,
                                          double monitor_interval_ms, const std::function<void()>& loaded);

/// main() of `benchhost worker` (kept for debugging a plugin by hand): reads the scenario config (JSON) from
/// `config_file`, runs it, adds the worker's peak RSS, and writes the result (JSON) to `result_file`. Once the plugin
/// is loaded it creates `<result_file>.loaded`, so that the host can tell a crash while loading (a static initializer)
/// from one while running. `monitor_interval_ms` is the monitors' sampling interval (0: no monitoring). Returns the
/// process exit status: 0 when a result was written.
int worker_main(const std::filesystem::path& plugin, const std::string& symbol,
                const std::filesystem::path& config_file, const std::filesystem::path& result_file,
                const std::string& log_level, double monitor_interval_ms = 50);

}  // namespace benchhost
