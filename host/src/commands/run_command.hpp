// The two things the host does for a user: run benchmarks (discover, plan, execute,
// report, in that order) and list plugins.
#pragma once

#include "cli/cli.hpp"

namespace benchhost {

/// Returns the exit status: 0 all selected scenarios succeeded or were skipped, 1 at
/// least one failed, 2 the configuration is wrong (nothing ran), 130 interrupted.
int run_benchmarks(const RunOptions& options);

/// Prints every plugin with its benchmarks, and every other file with why it is not a
/// plugin. Returns 0, or 2 when the folder cannot be read.
int list_plugins(const ListCommand& command);

}  // namespace benchhost
