// A run on one Markdown page, for a CI job summary or a pull-request comment
// (summary.md: `run --format summary-md`, `ab --format summary-md`).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/compare.hpp"
#include "model/run_record.hpp"

namespace benchhost {

/// The page: a title, the counts, the verdicts of `comparison` (when given; `record` is
/// its new side) with their evidence, the scenarios that did not run to the end, a table
/// of every scenario (status, headline median, its change), and `links` (text, address).
std::string summary_markdown(const RunRecord& record, const Comparison* comparison, std::string_view title,
                             const std::vector<std::pair<std::string, std::string>>& links);

/// Appends `page` to the file GITHUB_STEP_SUMMARY names, when it names one (a GitHub
/// Actions step: the job's summary page). Throws std::runtime_error when it cannot.
void append_to_step_summary(const std::string& page);

}  // namespace benchhost
