// The comparison of two runs, shown and written: the table on the console, and
// comparison.md / comparison.json. `benchhost compare` calls report_comparison; a run with
// --baseline has the "comparison" reporter, which compares the run with its baseline when
// the run ends.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "analysis/compare.hpp"

namespace benchhost {

/// comparison.json's schema_version (docs/schema/comparison.schema.json). 2 added
/// mode, noise_floor, the rows' "first" figures of a confirmation, notes and load; 3
/// the evidence history; 4 the rows' verdict_level and verdict_ci.
inline constexpr int comparison_schema_version = 5;

/// One row as a line of evidence: "latency 3.36 ms -> 4.41 ms, +31.2%, ratio 95% CI
/// [1.28, 1.35], slower (6 pairs), threshold 5%" (the JUnit failure message).
std::string evidence_line(const SeriesComparison& row, double threshold);

std::string comparison_table(const Comparison& comparison);     // for the console
std::string comparison_markdown(const Comparison& comparison);  // for a PR comment or a job summary
std::string comparison_json(const Comparison& comparison);      // for tools

/// The verdicts counted in boxes (slower in red), as the pages show them first: the A/B
/// page, and a run's report.html with --baseline.
std::string verdict_boxes_html(const Comparison& comparison);

/// A link the comparison's page shows at its top: text, relative address.
using PageLink = std::pair<std::string, std::string>;
/// The comparison as a page (an A/B run's report.html): the verdicts, the load of each
/// side, the table, and a chart of every ratio with its 95% interval against the
/// threshold.
std::string comparison_html(const Comparison& comparison, const std::string& title,
                            const std::vector<PageLink>& links);

/// Prints the comparison's table to `out` and writes the Markdown and JSON files that
/// are not empty paths. Throws std::runtime_error naming a file that cannot be written.
void report_comparison(const Comparison& comparison, std::ostream& out, const std::filesystem::path& markdown,
                       const std::filesystem::path& json);

}  // namespace benchhost
