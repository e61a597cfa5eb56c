#include <bench/internal/scenario_monitors.hpp>

#include <optional>

#include <bench/internal/cpu_monitor.hpp>
#include <bench/internal/gpu_monitor.hpp>

namespace bench {

struct ScenarioMonitors::Impl {
    MonitorOptions options;
    std::optional<GpuMonitor> gpu;
    std::optional<CpuMonitor> cpu;
};

ScenarioMonitors::ScenarioMonitors(const MonitorOptions& options) : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
    if (options.interval_ms <= 0) return;
    impl_->gpu.emplace(options);
    impl_->cpu.emplace(options);
    impl_->gpu->start();
    impl_->cpu->start();
}

ScenarioMonitors::~ScenarioMonitors() { stop(); }

void ScenarioMonitors::stop() {
    if (impl_->gpu) impl_->gpu->stop();
    if (impl_->cpu) impl_->cpu->stop();
}

void ScenarioMonitors::attach(ScenarioResult& result, const std::vector<MeasurementWindow>& windows) {
    stop();
    if (!impl_->gpu || !impl_->cpu) {
        MonitorReport disabled;
        disabled.reason = "monitoring is disabled (monitor interval 0)";
        result.monitors["gpu_metrics"] = disabled;
        result.monitors["cpu_metrics"] = disabled;
        return;
    }
    for (auto [name, report] : {std::pair{"gpu_metrics", impl_->gpu->report(windows)},
                                std::pair{"cpu_metrics", impl_->cpu->report(windows)}}) {
        result.warnings.insert(result.warnings.end(), report.warnings.begin(), report.warnings.end());
        result.monitors[name] = std::move(report);
    }
}

}  // namespace bench
