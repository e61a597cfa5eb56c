#include <bench/internal/monitors/scenario_monitors.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include <bench/internal/monitors/cpu_monitor.hpp>
#include <bench/internal/monitors/gpu_monitor.hpp>

namespace bench {

struct ScenarioMonitors::Impl {
    MonitorOptions options;
    std::optional<GpuMonitor> gpu;
    std::optional<CpuMonitor> cpu;
    // What cool_down did.
    long long cool_downs = 0;
    double cooled_s = 0;
    std::uint64_t cooled_reasons = 0;
    bool outlasted = false;  // the throttling outlasted a cool-down: none are taken since
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

void ScenarioMonitors::attach_sample_states(ScenarioResult& result,
                                            const std::map<std::string, std::vector<Clock::time_point>>& sample_ends,
                                            bool discard_throttled) {
    if (!impl_->gpu || !impl_->gpu->available()) return;
    for (const auto& [name, ends] : sample_ends) {
        // Not captured as the structured binding itself: clang before 16 cannot (the fuzz build).
        const std::string& series_name = name;
        auto series = std::find_if(result.series.begin(), result.series.end(),
                                   [&](const Series& s) { return s.name == series_name; });
        if (series == result.series.end() || series->samples.size() != ends.size()) continue;
        // A sample started its own length (all its calls) before it ended.
        std::vector<Clock::time_point> starts;
        starts.reserve(ends.size());
        for (std::size_t i = 0; i < ends.size(); ++i)
            starts.push_back(ends[i] -
                             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(
                                 series->samples[i] * static_cast<double>(series->inner_iterations))));
        SampleDeviceState states = impl_->gpu->sample_states(starts, ends);
        if (states.throttle_reasons.size() != ends.size()) continue;
        if (discard_throttled) {
            std::vector<double> samples, clocks;
            std::vector<std::uint64_t> reasons;
            std::uint64_t dropped_reasons = 0;
            for (std::size_t i = 0; i < ends.size(); ++i) {
                if (is_throttling(states.throttle_reasons[i])) {
                    dropped_reasons |= states.throttle_reasons[i];
                    continue;
                }
                samples.push_back(series->samples[i]);
                clocks.push_back(states.sm_clock_mhz[i]);
                reasons.push_back(states.throttle_reasons[i]);
            }
            const std::size_t dropped = ends.size() - samples.size();
            if (dropped > 0 && samples.empty()) {
                result.warnings.push_back(name + ": the GPU throttled during every sample (" +
                                          describe_throttling(dropped_reasons) +
                                          "); --discard-throttled kept them all, as nothing would be left");
            } else if (dropped > 0) {
                result.warnings.push_back(name + ": " + std::to_string(dropped) + " of " + std::to_string(ends.size()) +
                                          " samples discarded (--discard-throttled): the GPU throttled during them (" +
                                          describe_throttling(dropped_reasons) + ")");
                series->samples = std::move(samples);
                // The samples' times, when recorded, lose the same samples.
                if (auto times = result.sample_times.find(name);
                    times != result.sample_times.end() && times->second.size() == ends.size()) {
                    std::vector<double> kept;
                    for (std::size_t i = 0; i < ends.size(); ++i)
                        if (!is_throttling(states.throttle_reasons[i])) kept.push_back(times->second[i]);
                    times->second = std::move(kept);
                }
                states.sm_clock_mhz = std::move(clocks);
                states.throttle_reasons = std::move(reasons);
                states.discarded_throttled = static_cast<long long>(dropped);
                states.discarded_reasons = describe_throttling(dropped_reasons);
            }
        }
        result.device_state[name] = std::move(states);
    }
}

std::string ScenarioMonitors::cool_down_unavailable() const {
    if (!impl_->gpu) return "monitoring is disabled (monitor interval 0)";
    if (!impl_->gpu->available()) return impl_->gpu->reason();
    if (!impl_->gpu->reads_throttling()) return "NVML does not give this GPU's clock event reasons";
    return {};
}

double ScenarioMonitors::cool_down(double max_s) {
    if (max_s <= 0 || impl_->outlasted || !cool_down_unavailable().empty()) return 0;
    GpuMonitor& gpu = *impl_->gpu;
    const GpuMonitor::Throttling seen = gpu.take_throttling();
    if (!is_throttling(seen.reasons)) return 0;
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_s));
    const auto poll = std::chrono::duration<double, std::milli>(std::clamp(impl_->options.interval_ms, 1.0, 100.0));
    bool cleared = false;
    for (auto now = start; now < deadline && !cleared; now = Clock::now()) {
        std::this_thread::sleep_for(
            std::min<Clock::duration>(std::chrono::duration_cast<Clock::duration>(poll), deadline - now));
        const GpuMonitor::Throttling since = gpu.take_throttling();
        cleared = since.readings > 0 && !is_throttling(since.reasons);
    }
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    ++impl_->cool_downs;
    impl_->cooled_s += waited;
    impl_->cooled_reasons |= seen.reasons;
    impl_->outlasted = !cleared;
    return waited;
}

void ScenarioMonitors::attach_cool_downs(ScenarioResult& result, double max_s) const {
    if (max_s <= 0) return;
    if (const std::string why = cool_down_unavailable(); !why.empty()) {
        result.warnings.push_back("--throttle-cooldown: no cool-downs, the GPU monitor cannot see the GPU throttle (" +
                                  why + ")");
        return;
    }
    const auto seconds = [](double s) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g s", s);
        return std::string(text);
    };
    const std::string reasons = describe_throttling(impl_->cooled_reasons);
    result.info["throttle_cooldown"] =
        impl_->cool_downs == 0
            ? "none: the GPU did not throttle before a sample (at most " + seconds(max_s) + " each)"
            : std::to_string(impl_->cool_downs) + ", " + seconds(impl_->cooled_s) + " in all (at most " +
                  seconds(max_s) + " each, after the GPU throttled: " + reasons + ")";
    if (impl_->outlasted)
        result.warnings.push_back("--throttle-cooldown: the GPU still throttled after a cool-down of " +
                                  seconds(max_s) + " (" + reasons +
                                  "): it throttles steadily, so no more cool-downs were taken");
}

}  // namespace bench
