// The machine's speed, read off a reference of fixed work right before a scenario's first
// timed sample and after its last.
//
// Some machines (virtual ones above all) run at two speeds that flip every few seconds,
// machine-wide, whatever a process does: interpreted and branchy code slows most, up to
// 2x, a tight arithmetic loop hardly at all (docs/statistics.md, "The machine's speed
// states"). Two runs of the same build that caught different speeds differ by that much,
// and no statistic of one run's samples can tell. So the SDK times a reference twice per
// scenario and records it (the scalars speed_reference_start and speed_reference_end, in
// ns a step, and the info speed_reference naming the reference); comparing two runs, a
// verdict is withheld when their references differ (analysis/compare in the host).
//
// The default reference is a C++ loop that calls through 512 functions with
// data-dependent branches. A worker that embeds an interpreter sets one of that
// interpreter's own, which the states slow as they slow the plugin's code: the Python
// worker sets a loop of Python (ABI 2.13).
#pragma once

#include <functional>
#include <string>

#include <bench/export.hpp>

namespace bench {

/// Times a reference of fixed work: ns a step (the median of a few repetitions).
using SpeedReference = std::function<double()>;

/// The process's reference from now on, called `kind` in the reports ("python"). An empty
/// `reference` restores the C++ loop ("c++").
BENCH_EXPORT void set_speed_reference(SpeedReference reference, std::string kind);

}  // namespace bench
