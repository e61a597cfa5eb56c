// `benchhost export DIR --format gbench-json [--output FILE]`: a finished (or
// interrupted) run's results in a format other tools read.
#pragma once

#include "cli/export_options.hpp"

namespace benchhost {

/// Returns 0; 2 when the run folder cannot be read (its summary or a report is missing
/// or malformed); 1 when the output cannot be written.
int export_command(const ExportCommand& command);

}  // namespace benchhost
