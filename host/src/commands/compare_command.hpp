// `benchhost compare BASE NEW`: read both runs, compare them (analysis/compare.hpp), print
// the table and write Markdown, JSON and JUnit XML if asked (report/comparison_reporter.hpp,
// report/files/junit_reporter.hpp).
#pragma once

#include "cli/compare_options.hpp"

namespace benchhost {

/// Exit status: 0; 1 with --fail-on-regression when a scenario got slower, or when an
/// output file cannot be written; 2 when a run cannot be read.
int compare_command(const CompareCommand& command);

}  // namespace benchhost
