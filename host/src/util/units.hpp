// Units the reports use, conversions between them, and how a figure is scaled for
// people: every output (console, report.md, report.html, comparisons) shows figures
// through display_scale (format_figure in util/text_table.hpp).
#pragma once

#include <string>
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

/// `value` rounded to three significant digits (what the reports show).
double round3(double value);

/// How to show a figure of `unit` whose size is about `value`: multiply by `factor`, then
/// write `suffix` after the number. `value` is rounded to three significant digits before
/// the scale is chosen, so that 999.96 ms reads "1.00 s", not "1000 ms".
///   times (s, ms, us, ns):           " ns", " us", " ms" or " s"
///   sizes (B, KiB, MiB, GiB, TiB):   the binary unit that keeps the number under 1024;
///         (kB, MB, GB, TB):          the decimal one that keeps it under 1000
///   a unit with an SI prefix before a capital ("GFLOP/s", "MHz"): the prefix that suits
///                                    the value, from none up to P ("312 TFLOP/s")
///   "%" and "x":                     unscaled
///   anything else (rates, counts):   k, M, G, T on the number ("22.8M elements/s",
///                                    "1.50k" without a unit) from 1000 up; unscaled below.
struct DisplayScale {
    double factor = 1;
    std::string suffix;  // with its leading space when there is a unit: " ms", "M elements/s"
};
DisplayScale display_scale(double value, std::string_view unit);

}  // namespace benchhost
