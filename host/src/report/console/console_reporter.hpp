// The summary table printed at the end of a run.
#pragma once

#include <string>

#include "model/run_record.hpp"

namespace benchhost {

/// One aligned row per scenario (id, status, median and p95 latency, throughput, the
/// reason for skips and failures) and a totals line. Plain text, no colour codes.
std::string format_summary_table(const RunRecord& record);

}  // namespace benchhost
