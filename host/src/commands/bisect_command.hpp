// `benchhost bisect --good REV --bad REV --build CMD --plugins-dir DIR [ab options]`:
// the first commit between two revisions that made the plugins slower.
//
// Each revision is checked out and built in a scratch clone of the repository (never the
// user's checkout), and its plugins are run against --good's as `benchhost ab` runs two
// folders: in pairs, more while a verdict is inconclusive. First --bad is run against
// --good, and the series it finds slower are the regression bisected; then each step
// halves the revisions in doubt, from the verdicts of those series. A revision that does
// not build, or whose verdict stays open, is skipped (as `git bisect skip`).
//
// The output folder holds each step's A/B folder (steps/), the build logs (builds/),
// bisect.md (the steps with their evidence, and the outcome) and bisect.log.
#pragma once

#include "cli/run_options.hpp"

namespace benchhost {

/// Returns the exit status: 0 the first bad commit was found; 1 it could not be pinned
/// (skipped revisions leave several candidates), or --bad is not slower than --good;
/// 2 wrong input, nothing measured (no repository, a revision that does not exist, a
/// dirty checkout, --good not before --bad or slower than it, a build that fails at
/// either end); 130 interrupted.
int bisect_command(const BisectCommand& command);

}  // namespace benchhost
