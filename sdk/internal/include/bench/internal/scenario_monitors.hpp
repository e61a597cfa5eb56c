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

#include <memory>
#include <vector>

#include <bench/internal/monitor_options.hpp>
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

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bench
