// Locking a GPU's SM clock for a run (--lock-clocks), through NVML.
//
// A GPU left to itself boosts its clock as far as power and temperature allow, so the
// same kernel runs at different speeds from one minute to the next. Locked at the base
// clock (what the GPU sustains within its power limit), or at a clock the user names,
// its speed stays put: figures compare across runs, at the cost of not showing the
// boost. Locking needs root (NVML says "Insufficient Permissions" otherwise) and a
// GPU that supports it (Volta and later).
//
// Internal (sdk/internal): for the host; not part of the plugin API.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace bench {

/// What --lock-clocks asks for: "base" or a clock in MHz ("1410"). Throws
/// std::invalid_argument saying what is wrong with any other text.
void check_clock_setting(const std::string& setting);

/// Locks the SM clock of each GPU named in `devices` ("cuda:N", N as CUDA numbers the
/// devices this process may use, CUDA_VISIBLE_DEVICES applied; each GPU once) and
/// unlocks them when destroyed, however the run ended short of being killed: a
/// process killed with SIGKILL leaves them locked (`nvidia-smi --reset-gpu-clocks`).
class GpuClockLock {
public:
    /// Throws std::runtime_error naming the GPU and NVML's reason when one cannot be
    /// locked (those locked already are unlocked first), std::invalid_argument for a bad
    /// setting.
    GpuClockLock(const std::string& setting, const std::vector<std::string>& devices,
                 const std::string& nvml_library = "libnvidia-ml.so.1");
    ~GpuClockLock();
    GpuClockLock(const GpuClockLock&) = delete;
    GpuClockLock& operator=(const GpuClockLock&) = delete;

    /// "base clock on GPU 0 (NVIDIA H100 80GB HBM3)": what was locked, for the record.
    const std::string& description() const;

    /// Unlocks now; the destructor does nothing more. Problems are warnings, returned.
    std::vector<std::string> release();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bench
