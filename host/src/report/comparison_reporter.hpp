// The comparison of two runs, shown and written: the table on the console, and
// comparison.md / comparison.json. `benchhost compare` calls report_comparison; a run with
// --baseline has the "comparison" reporter, which compares the run with its baseline when
// the run ends.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

#include "analysis/compare.hpp"

namespace benchhost {

std::string comparison_table(const Comparison& comparison);     // for the console
std::string comparison_markdown(const Comparison& comparison);  // for a PR comment or a job summary
std::string comparison_json(const Comparison& comparison);      // for tools

/// Prints the comparison's table to `out` and writes the Markdown and JSON files that
/// are not empty paths. Throws std::runtime_error naming a file that cannot be written.
void report_comparison(const Comparison& comparison, std::ostream& out, const std::filesystem::path& markdown,
                       const std::filesystem::path& json);

}  // namespace benchhost
