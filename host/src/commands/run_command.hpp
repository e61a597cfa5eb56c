// `benchhost run`: discover, plan, execute, report, in that order. This file prepares
// the run (resume, discovery, plan, shard, output folder, log, journal, reporters) and
// hands it to the run loop (run/run_loop.hpp); the reporters write what it produced.
#pragma once

#include "cli/run_options.hpp"

namespace benchhost {

/// Returns the exit status: 0 all selected scenarios succeeded or were skipped, 1 at
/// least one failed (or a report could not be written, or a regression with
/// --fail-on-regression), 2 the configuration is wrong (nothing ran), 130 interrupted.
int run_command(const RunCommand& command);

}  // namespace benchhost
