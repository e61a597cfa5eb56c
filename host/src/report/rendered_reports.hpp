// Reports for people: report.md (tables, for a pull request or a terminal) and
// report.html (the same tables plus charts, as one self-contained file: inline SVG, CSS
// and a few lines of script, nothing fetched). Both are pure functions of a RunRecord
// (and, at the end of a run with --baseline, its comparison), so that `benchhost report
// DIR` rebuilds them from any run folder (report_command.hpp).
//
// Both open with the summary: the totals, what went wrong, the verdicts against the
// baseline, an overview row per benchmark; then a section per category (unit,
// integration, performance) with one row per scenario that ran: status, the median of
// its headline series with the 95% CI (percentile bootstrap over the raw samples), p95
// and CV, throughput, the speedup over eager with its CI; the skips by reason; how the
// run ran. report.html adds charts: latency and throughput against batch size per
// variant, speedups over eager with their CIs, the distribution of the samples per
// benchmark, and the monitors' timelines (CPU and GPU utilization, memory, power).
#pragma once

#include <filesystem>
#include <string>

#include "analysis/compare.hpp"
#include "model/run_record.hpp"

namespace benchhost {

inline constexpr const char* markdown_report_name = "report.md";
inline constexpr const char* html_report_name = "report.html";

std::string markdown_report(const RunRecord& record, const Comparison* comparison = nullptr);
std::string html_report(const RunRecord& record, const Comparison* comparison = nullptr);

/// Writes dir/report.md and dir/report.html through their reporters (markdown/markdown_reporter.cpp,
/// html/html_reporter.cpp), each atomically; creates `dir` when missing. Throws std::runtime_error naming the file that
/// cannot be written.
void write_rendered_reports(const RunRecord& record, const std::filesystem::path& dir);

}  // namespace benchhost
