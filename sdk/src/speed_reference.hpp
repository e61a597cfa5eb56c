// The C++ speed reference (bench/speed_reference.hpp) and the process's current one.
//
// The loop calls through a table of 512 distinct functions with data-dependent branches,
// as an interpreter does: the kind of code the machine's speed states slow clearly, in a
// few milliseconds.
//
// Private to libbench_sdk (not installed, not exported).
#pragma once

#include <string>
#include <utility>

namespace bench::detail {

/// Times the C++ reference loop: the median of five repetitions of about a millisecond,
/// in ns a step (the first call calibrates the steps once for the process).
double speed_reference_ns();

/// The process's reference, timed now: (ns a step, its kind).
std::pair<double, std::string> read_speed_reference();

}  // namespace bench::detail
