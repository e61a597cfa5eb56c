// A scenario that runs a thread on every CPU the process may use, while other processes
// keep CPUs busy: whichever of its threads the load pushes off its core, every call
// waits for at its end, so a short call costs many times its length at random. Two
// rounds of an A/B pair then see different shares of that, the pairs scatter, and on
// the 2-core VM the gate stopped telling even a 10% change (docs/statistics.md, A/B
// runs: LibTorch's default of two threads on two cores, beside --threads 1). One thread
// fewer than the CPUs leaves the load a core of its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "model/run_record.hpp"

namespace benchhost {

/// The intra-op threads one scenario ran with.
struct ScenarioThreads {
    std::string scenario_id;
    int threads = 0;
};

/// CPUs other processes must keep busy, on average over a side's scenarios
/// (SideLoad::other_cpus), for a thread on every CPU to be worth a warning: a monitor
/// sees a few hundredths of a CPU on a quiet machine (the A/B example of
/// docs/statistics.md saw 0.00 to 0.03), and a fifth of a CPU is a load that comes and
/// goes often enough to land in a pair's rounds unevenly.
inline constexpr double competing_cpus_bar = 0.2;

/// The warning for the scenarios that ran at least as many threads as the `cpus` the
/// process may use while, on either side, other processes kept more than `bar` CPUs
/// busy: it names them and suggests --threads cpus-1. nullopt when none did, when the
/// load is under the bar or was not monitored, or with fewer than two CPUs (where no
/// number of threads leaves one free).
std::optional<std::string> thread_per_cpu_warning(const std::vector<ScenarioThreads>& scenarios, int cpus,
                                                  const SideLoad& base, const SideLoad& next,
                                                  double bar = competing_cpus_bar);

/// The scenarios of a run whose threads are known: as the plugin reported running them
/// (info "threads", LibTorch's after the axis was applied), else as the threads axis set
/// them; a scenario that kept a library's default unreported is left out.
std::vector<ScenarioThreads> scenario_threads(const RunRecord& record);

/// The same warning for the two sides of an A/B run: their scenarios' threads (the most
/// either side ran), the CPUs the base side's machine facts say the process may use, and
/// each side's load.
std::optional<std::string> thread_per_cpu_warning(const RunRecord& base, const RunRecord& next,
                                                  const SideLoad& base_load, const SideLoad& new_load);

}  // namespace benchhost
