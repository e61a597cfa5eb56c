// Both monitors around one scenario: what the worker does for each entry point.
//
//   bench::ScenarioMonitors monitors(options);   // starts sampling
//   entry(ctx);
//   monitors.stop();
//   monitors.attach(result, ctx.measurement_windows());
//
// attach() adds result.monitors["gpu_metrics"] and ["cpu_metrics"], and appends their
// warnings to result.warnings.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <bench/internal/monitors/monitor_options.hpp>
#include <bench/measurement_window.hpp>
#include <bench/result.hpp>

namespace bench {

class ScenarioMonitors {
public:
    /// Starts both monitors, unless options.interval_ms <= 0.
    explicit ScenarioMonitors(const MonitorOptions& options);
    ~ScenarioMonitors();
    ScenarioMonitors(const ScenarioMonitors&) = delete;
    ScenarioMonitors& operator=(const ScenarioMonitors&) = delete;

    void stop();
    void attach(ScenarioResult& result, const std::vector<MeasurementWindow>& windows);
    /// For a scenario on a CUDA device: gives each sample of the series in `sample_ends`
    /// (Context::sample_ends) the GPU's state while it ran (result.device_state), and
    /// with `discard_throttled` drops the samples during which the GPU throttled, with
    /// a warning that counts them (all are kept, with a warning, when all throttled).
    void attach_sample_states(ScenarioResult& result,
                              const std::map<std::string, std::vector<Clock::time_point>>& sample_ends,
                              bool discard_throttled);

    /// --throttle-cooldown, before a sample (StoppingRule's pause between samples): when
    /// the GPU monitor's readings since the last call show throttling, waits until a
    /// reading shows none, at most `max_s` seconds, and returns the seconds waited (0
    /// when the GPU did not throttle). Once the throttling outlasts a cool-down, the GPU
    /// throttles steadily (a power cap, say) and no more cool-downs are taken.
    double cool_down(double max_s);
    /// Why cool_down cannot see the GPU throttle (no GPU monitor, no throttle reasons);
    /// empty when it can.
    std::string cool_down_unavailable() const;
    /// What the cool-downs did, as info "throttle_cooldown", and a warning when the
    /// throttling outlasted one; or, when cool_down could not see, a warning saying why.
    void attach_cool_downs(ScenarioResult& result, double max_s) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bench
