// The most resident memory a scenario's process had at once, and the part of it its
// timed samples saw.
//
// Linux keeps a process's high-water mark of resident memory (VmHWM in
// /proc/self/status) and lets the process restart it (writing 5 to
// /proc/self/clear_refs). The SDK restarts it right before a scenario's first timed
// sample, keeping what came before (loading, building the model, a float32 reference
// pass, compiling) as the scenario's set-up peak: the peak of the timed samples is then
// theirs alone. The host restarts it before each scenario it runs in its own process
// (--isolation none), so that one scenario's peak never carries into the next.
#pragma once

#include <bench/export.hpp>

namespace bench {

/// The most resident memory (MiB) since the process started or the last restart of the
/// peak (VmHWM); NaN where /proc/self/status cannot be read.
BENCH_EXPORT double resident_peak_mib();

/// The scenario's peak (MiB): the most of resident_peak_mib() before each restart since
/// begin_scenario_resident_peak() (or the process's start) and now.
BENCH_EXPORT double scenario_resident_peak_mib();

/// Restarts the peak from the memory resident now, keeping the one so far in
/// scenario_resident_peak_mib(). False (and nothing restarted) where the kernel does
/// not allow it.
BENCH_EXPORT bool restart_resident_peak();

/// Forgets the peaks so far and restarts the peak: a new scenario in this process.
BENCH_EXPORT void begin_scenario_resident_peak();

}  // namespace bench
