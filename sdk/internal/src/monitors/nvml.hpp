// Private to the SDK: the part of NVML's C API the monitors use, declared here (no
// NVIDIA header is needed to build), and the library loaded at run time with dlopen.
//
// Types and values are those of nvml.h (they are part of NVML's stable ABI). Where
// NVML versioned a function, the versioned name is looked up first (nvmlInit_v2,
// nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetComputeRunningProcesses_v3 then _v2).
#pragma once

#include <cstdint>
#include <string>

namespace bench::detail::nvml {

using Return = int;  // nvmlReturn_t
using Device = struct DeviceOpaque*;  // nvmlDevice_t

inline constexpr Return success = 0;
inline constexpr Return error_not_supported = 3;
inline constexpr Return error_no_permission = 4;
inline constexpr Return error_not_found = 6;
inline constexpr Return error_insufficient_size = 7;
inline constexpr Return error_unknown = 999;

struct Utilization {  // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};

struct Memory {  // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct ProcessInfo {  // nvmlProcessInfo_t of the _v2 and _v3 functions
    unsigned int pid;
    unsigned long long usedGpuMemory;  // bytes; all ones: not available
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

/// nvmlClockLimitId_t: as both bounds of nvmlDeviceSetGpuLockedClocks, the GPU's base
/// (TDP) clock.
inline constexpr unsigned int clock_limit_tdp = 0xffffff01u;

inline constexpr unsigned int temperature_gpu = 0;  // NVML_TEMPERATURE_GPU
inline constexpr unsigned int clock_sm = 1;  // NVML_CLOCK_SM
inline constexpr unsigned int clock_mem = 2;  // NVML_CLOCK_MEM

// nvmlClocksThrottleReason* (nvmlClocksEventReason* in newer headers).
inline constexpr std::uint64_t reason_gpu_idle = 0x1;
inline constexpr std::uint64_t reason_applications_clocks = 0x2;
inline constexpr std::uint64_t reason_sw_power_cap = 0x4;
inline constexpr std::uint64_t reason_hw_slowdown = 0x8;
inline constexpr std::uint64_t reason_sync_boost = 0x10;
inline constexpr std::uint64_t reason_sw_thermal = 0x20;
inline constexpr std::uint64_t reason_hw_thermal = 0x40;
inline constexpr std::uint64_t reason_hw_power_brake = 0x80;
inline constexpr std::uint64_t reason_display_clocks = 0x100;
/// The reasons that lower clocks below what the load asks for: "throttled".
inline constexpr std::uint64_t throttling_reasons = reason_sw_power_cap | reason_hw_slowdown | reason_sync_boost |
                                                    reason_sw_thermal | reason_hw_thermal | reason_hw_power_brake;

/// "sw_power_cap, hw_thermal_slowdown" for a mask of reasons.
std::string describe_reasons(std::uint64_t mask);

/// The functions, resolved with dlsym. Required ones are never null in a loaded
/// library; optional ones are null when this NVML lacks them.
struct Api {
    // Required.
    Return (*init)();  // nvmlInit_v2 (or nvmlInit)
    Return (*shutdown)();
    const char* (*error_string)(Return);
    Return (*device_count)(unsigned int*);  // nvmlDeviceGetCount_v2
    Return (*device_by_index)(unsigned int, Device*);  // nvmlDeviceGetHandleByIndex_v2
    // Optional.
    Return (*device_by_uuid)(const char*, Device*);
    Return (*device_name)(Device, char*, unsigned int);
    Return (*device_uuid)(Device, char*, unsigned int);
    Return (*utilization)(Device, Utilization*);
    Return (*memory)(Device, Memory*);
    Return (*processes)(Device, unsigned int*, ProcessInfo*);  // _v3, else _v2
    Return (*power)(Device, unsigned int*);  // mW
    Return (*power_limit)(Device, unsigned int*);  // mW (enforced limit)
    Return (*energy)(Device, unsigned long long*);  // mJ since the driver loaded
    Return (*temperature)(Device, unsigned int, unsigned int*);
    Return (*clock)(Device, unsigned int, unsigned int*);  // nvmlDeviceGetClockInfo, MHz
    Return (*max_clock)(Device, unsigned int, unsigned int*);  // nvmlDeviceGetMaxClockInfo, MHz
    Return (*memory_bus_width)(Device, unsigned int*);  // nvmlDeviceGetMemoryBusWidth, bits
    Return (*throttle_reasons)(Device, unsigned long long*);  // ...ClocksEventReasons / ...ClocksThrottleReasons
    Return (*driver_version)(char*, unsigned int);
    Return (*nvml_version)(char*, unsigned int);
    Return (*cuda_driver_version)(int*);  // nvmlSystemGetCudaDriverVersion_v2 or without _v2
    Return (*mig_mode)(Device, unsigned int*, unsigned int*);  // nvmlDeviceGetMigMode: current, pending
    Return (*is_mig_device)(Device, unsigned int*);  // nvmlDeviceIsMigDeviceHandle
    Return (*lock_clocks)(Device, unsigned int, unsigned int);  // nvmlDeviceSetGpuLockedClocks: min, max MHz
    Return (*reset_clocks)(Device);  // nvmlDeviceResetGpuLockedClocks

    /// "Unknown Error" for a code, through nvmlErrorString.
    std::string error(Return code) const;
};

/// Loads `library` once per copy of this code (later calls return the same) and
/// resolves the functions. Returns null and sets `error` ("libnvidia-ml.so.1 not found:
/// <dlerror>", "...: nvmlInit_v2 is missing") when it cannot.
///
/// A copy: bench_internal is a static library, so each binary that links it (the host;
/// a test plugin such as monitor_overhead) has its own cache. Two copies in one process
/// are harmless: dlopen of the same library returns the same handle (counted), and
/// NVML counts nvmlInit and nvmlShutdown, so each copy's Session pairs its own.
const Api* load(const std::string& library, std::string& error);

/// nvmlInit and nvmlShutdown, as a scope. `error` is empty when init succeeded.
class Session {
public:
    explicit Session(const Api* api);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    bool ok() const { return ok_; }
    const std::string& error() const { return error_; }

private:
    const Api* api_;
    bool ok_ = false;
    std::string error_;
};

/// The device that MonitorOptions::device names (see there), or an error.
struct Found {
    Device device = nullptr;
    unsigned int index = 0;
    std::string error;
    /// Why the device found may not be the one CUDA calls by that number, when it may not
    /// (several GPUs numbered by CUDA fastest first); empty when it is.
    std::string order_warning;
};
Found find_device(const Api& api, const std::string& device);

}  // namespace bench::detail::nvml
