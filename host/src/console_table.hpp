// The summary table printed at the end of a run.
#pragma once

#include <string>
#include <string_view>

#include "run_record.hpp"

namespace benchhost {

/// One aligned row per scenario (id, status, median and p95 latency, throughput, the
/// reason for skips and failures) and a totals line. Plain text, no colour codes.
std::string format_summary_table(const RunRecord& record);

/// A figure as the table shows it: a time in the unit that suits its size ("845 us",
/// "1.52 s"), anything else with three significant digits and its unit.
std::string format_figure(double value, std::string_view unit);

}  // namespace benchhost
