// Units the reports use, and conversions between them.
#pragma once

#include <string_view>

namespace benchhost {

/// Factor from a time unit ("s", "ms", "us", "µs", "ns") to milliseconds; NaN for a unit
/// that is not a time.
double to_ms_factor(std::string_view unit);

/// Factor from a memory unit ("B", "KiB", "MiB", "GiB", "kB", "MB", "GB") to MiB; NaN for
/// a unit that is not a size.
double to_mib_factor(std::string_view unit);

/// Whether a series in `unit` is a time (lower is better).
inline bool is_time_unit(std::string_view unit) { return to_ms_factor(unit) == to_ms_factor(unit); }

}  // namespace benchhost
