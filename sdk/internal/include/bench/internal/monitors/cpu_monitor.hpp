// The CPU and memory monitor: samples this process and the machine around it while a
// scenario runs.
//
// Each sample reads, without allocating: the process's CPU time, page faults and
// context switches (getrusage), its resident memory and thread count (/proc/self),
// the frequency of the CPU its main thread last ran on (cpufreq's scaling_cur_freq,
// where the kernel offers it), and the machine's load (/proc/loadavg, /proc/stat).
// report() turns the samples into "cpu_metrics" (README, "Metrics").
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <memory>
#include <vector>

#include <bench/internal/monitors/monitor_options.hpp>
#include <bench/measurement_window.hpp>
#include <bench/monitor_report.hpp>

namespace bench {

class CpuMonitor {
public:
    explicit CpuMonitor(const MonitorOptions& options = {});
    ~CpuMonitor();
    CpuMonitor(const CpuMonitor&) = delete;
    CpuMonitor& operator=(const CpuMonitor&) = delete;

    /// Takes a sample now, then one every interval in a thread, until stop().
    void start();
    /// Stops the thread and takes a last sample. Called by the destructor too.
    void stop();
    /// Takes one sample in the calling thread and returns its time.
    Clock::time_point sample_now();

    MonitorReport report(const std::vector<MeasurementWindow>& windows) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// CPUs this process may run on (its affinity mask); at least 1.
int usable_cpu_count();

}  // namespace bench
