// The comparison of two runs, shown and written: the table on the console, and
// comparison.md / comparison.json (its page: html/comparison_page.hpp; its words:
// comparison_text.hpp). `benchhost compare` calls report_comparison; a run with
// --baseline has the "comparison" reporter, which compares the run with its baseline when
// the run ends.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "analysis/compare.hpp"
#include "report/comparison_text.hpp"

namespace benchhost {

/// comparison.json's schema_version (docs/schema/comparison.schema.json). 2 added
/// mode, noise_floor, the rows' "first" figures of a confirmation, notes and load; 3
/// the evidence history; 4 the rows' verdict_level and verdict_ci; 5 p_value null where
/// the samples are not the evidence; 6 differences.
inline constexpr int comparison_schema_version = 6;

std::string comparison_table(const Comparison& comparison);  // for the console
std::string comparison_markdown(const Comparison& comparison);  // for a PR comment or a job summary
std::string comparison_json(const Comparison& comparison);  // for tools

/// Prints the comparison's table to `out` and writes the Markdown and JSON files that
/// are not empty paths. Throws std::runtime_error naming a file that cannot be written.
void report_comparison(const Comparison& comparison, std::ostream& out, const std::filesystem::path& markdown,
                       const std::filesystem::path& json);

}  // namespace benchhost
