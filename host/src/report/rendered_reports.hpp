// Reports for people: report.md (tables, for a pull request or a terminal) and
// report.html (the same tables plus charts, as one self-contained file: inline SVG and
// CSS, no script, nothing fetched). Both are pure functions of a RunRecord, so that
// `benchhost report DIR` rebuilds them from any run folder (report_command.hpp).
//
// Both have: the run (when, host, commit, the machine, its warnings), the totals, then a
// section per category (unit, integration, performance) with one row per scenario:
// status, the median of its headline series with the 95% CI (percentile bootstrap over
// the raw samples), p95 and CV, throughput, the speedup over eager with its CI, and the
// reasons of failures and skips. report.html adds charts: latency and throughput against
// batch size per variant, speedups over eager with their CIs, the distribution of the
// samples per scenario, and the monitors' timelines (CPU and GPU utilization, memory,
// power).
#pragma once

#include <filesystem>
#include <string>

#include "run/run_record.hpp"

namespace benchhost {

inline constexpr const char* markdown_report_name = "report.md";
inline constexpr const char* html_report_name = "report.html";

std::string markdown_report(const RunRecord& record);
std::string html_report(const RunRecord& record);

/// Writes dir/report.md and dir/report.html through their reporters (markdown_report.cpp,
/// html_report.cpp), each atomically; creates `dir` when missing. Throws std::runtime_error naming the file that cannot be written.
void write_rendered_reports(const RunRecord& record, const std::filesystem::path& dir);

}  // namespace benchhost
