// `benchhost compare BASE NEW` and the comparison at the end of `run --baseline`:
// read, compare (compare.hpp), print the table, write Markdown and JSON if asked.
#pragma once

#include <filesystem>
#include <ostream>

#include "cli/cli.hpp"
#include "analysis/compare.hpp"

namespace benchhost {

/// Prints the comparison's table to `out` and writes the Markdown and JSON files that
/// are not empty paths. Throws std::runtime_error naming a file that cannot be written.
void report_comparison(const Comparison& comparison, std::ostream& out, const std::filesystem::path& markdown,
                       const std::filesystem::path& json);

/// Exit status: 0; 1 with --fail-on-regression when a scenario got slower, or when an
/// output file cannot be written; 2 when a run cannot be read.
int compare_command(const CompareCommand& command);

}  // namespace benchhost
