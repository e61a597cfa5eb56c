// A record of the machine and the build, read from /proc, /sys, uname, NVML and the
// compiler, so that two reports can be compared (docs/monitoring.md, "hardware_info").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/run_record.hpp"

namespace benchhost {

/// Sections "cpu" (model, cores, caches, frequency scaling, ...), "memory", "load",
/// "gpu" (through NVML, or why not), "os", "build" (compiler, build type, versions,
/// git commit), "libtorch" (the version benchhost was configured with), "calibration"
/// (the measured peaks cached by the LibTorch layer, when there are any), "host".
/// Reading never fails: a fact that cannot be read is left out.
HardwareInfo collect_hardware_info();

/// The warnings nanobench would give, from a record: the build is not optimized, CPU
/// frequency scaling or turbo is on, the machine is loaded (load average over the
/// CPUs this process may use).
std::vector<std::string> hardware_warnings(const HardwareInfo& info);

/// Adds what a scenario reported about its plugin and its libraries: section
/// "plugins" (name -> version, and the git commit when the plugin recorded info
/// "git_commit") and, in "libtorch", every info key starting with "torch_" (several
/// plugins reporting different values: all of them, " | "-separated).
void add_reported_facts(HardwareInfo& info, const ScenarioOutcome& outcome);

/// Section "calibration" from the LibTorch layer's cache file (bench/internal/
/// calibration_cache.hpp): "file", and each entry as "peak <key>" = "<GFLOP/s> GFLOP/s
/// (<method>, LibTorch <version>)"; "ignored" lists what was not an entry. Empty when
/// there is no file; {"error": ...} when it cannot be read.
std::map<std::string, std::string> read_calibration(const std::filesystem::path& file);

}  // namespace benchhost
