// Options shared by the monitors (<bench/internal/monitors/gpu_monitor.hpp>,
// <bench/internal/monitors/cpu_monitor.hpp>).
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <string>

namespace bench {

struct MonitorOptions {
    /// Milliseconds between samples; 0 or less: no monitoring (the reports say so).
    double interval_ms = 50;
    /// Samples kept in memory, allocated before sampling starts. Past it, neighbouring
    /// samples are merged in place (the time resolution halves): nothing is allocated
    /// while sampling, however long the scenario runs.
    std::size_t capacity = 8192;
    /// GPU monitor: the NVML library to dlopen. The default is the name the NVIDIA
    /// driver installs, found the way the dynamic loader finds any library
    /// (LD_LIBRARY_PATH, then the system's folders).
    std::string nvml_library = "libnvidia-ml.so.1";
    /// GPU monitor: which GPU. "auto", "cpu" or "cuda": the first GPU the process may
    /// use; "cuda:N": the N-th. CUDA_VISIBLE_DEVICES (indices or UUIDs) maps these
    /// to NVML's devices as CUDA does.
    std::string device = "auto";
};

}  // namespace bench
