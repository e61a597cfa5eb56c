// The GPU monitor: samples an NVIDIA GPU through NVML while a scenario runs.
//
// NVML is loaded at run time (dlopen of MonitorOptions::nvml_library, by default
// "libnvidia-ml.so.1", the library the driver installs): nothing links against it,
// and without it, or without a GPU, the monitor reports why instead of failing.
//
// Each sample reads: GPU and memory utilization, memory used on the device and by
// this process, power, the total energy counter (where the GPU has one; otherwise
// energy is integrated from power), temperature, SM and memory clocks, and the
// clock throttle reasons. Sampling runs in a thread of its own into memory allocated
// beforehand; report() turns the samples into "gpu_metrics" (README, "Metrics").
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
#include <bench/monitor_report.hpp>
#include <bench/result.hpp>

namespace bench {

class GpuMonitor {
public:
    /// Loads NVML and finds the device. Never throws: see available() and reason().
    explicit GpuMonitor(const MonitorOptions& options = {});
    ~GpuMonitor();
    GpuMonitor(const GpuMonitor&) = delete;
    GpuMonitor& operator=(const GpuMonitor&) = delete;

    bool available() const;
    /// Why the monitor is not available: "libnvidia-ml.so.1 not found: ...",
    /// "nvmlInit_v2 failed: Driver Not Loaded", "no GPU: NVML reports 0 devices", ...
    const std::string& reason() const;

    /// Takes a sample now, then one every interval in a thread, until stop().
    void start();
    /// Stops the thread and takes a last sample. Called by the destructor too.
    void stop();
    /// Takes one sample in the calling thread and returns its time (tests drive the
    /// monitor with this; start() and stop() use it too).
    Clock::time_point sample_now();

    /// The report: statistics over the samples taken during `windows` (all samples
    /// when there are none), energy per iteration, throttling, warnings, timeline.
    MonitorReport report(const std::vector<MeasurementWindow>& windows) const;

    /// The GPU's state during each of the samples that ran from `starts[i]` to `ends[i]`:
    /// the lowest SM clock and the throttle reasons of the readings taken while it ran
    /// and of the last one before it (the state it started in). Empty when the monitor
    /// is not available or does not read clocks and reasons.
    SampleDeviceState sample_states(const std::vector<Clock::time_point>& starts,
                                    const std::vector<Clock::time_point>& ends) const;

    /// The clock event reasons of the readings taken since the last call (or the
    /// start), OR'ed, and how many readings read them: for a pause between samples
    /// (--throttle-cooldown), asked from another thread while the monitor samples.
    struct Throttling {
        std::uint64_t reasons = 0;
        long long readings = 0;
    };
    Throttling take_throttling();
    /// Whether the readings hold throttle reasons (NVML and the GPU support them).
    bool reads_throttling() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Whether NVML's clock event `reasons` hold throttling (power, thermal, sync boost, ...;
/// not the GPU being idle or the clocks set by the user), and those reasons as words.
bool is_throttling(std::uint64_t reasons);
std::string describe_throttling(std::uint64_t reasons);

/// What NVML says about the machine's GPUs, for the hardware record: "count",
/// "driver_version", "cuda_driver_version", "nvml_version", and per device N
/// "gpuN_name", "gpuN_memory_mib", "gpuN_uuid", "gpuN_power_limit_w",
/// "gpuN_max_sm_clock_mhz". Without NVML or a GPU: available false and the reason.
struct GpuSystemInfo {
    bool available = false;
    std::string reason;
    std::map<std::string, std::string> facts;
};
GpuSystemInfo describe_gpus(const std::string& nvml_library = "libnvidia-ml.so.1");

}  // namespace bench
