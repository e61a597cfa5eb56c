// `benchhost report DIR [--output-dir OUT]`: writes report.md and report.html
// (rendered_reports.hpp) of an earlier run again, from its folder: with the verdicts of
// its comparison.json when it ran against a baseline.
#pragma once

#include "cli/report_options.hpp"

namespace benchhost {

/// Returns 0; 2 when the run cannot be read (the message names the file and the field);
/// 1 when the reports cannot be written.
int report_command(const ReportCommand& command);

}  // namespace benchhost
