// `benchhost history add|list|show --history FILE`: the run history
// (history/history_store.hpp) from the command line.
//   add RUN...      adds run folders (merged ones too); a run added before is left alone
//   list            the runs, the newest first, with their machine, commit and branch
//   show PATTERN    a table per scenario, series and machine: the figures of each run,
//                   oldest first, with the change from the run before
//   report [PATTERN] --output-dir DIR
//                   the same histories as a static site: DIR/index.html and a page per
//                   scenario, series and machine with its chart (report/html/history_dashboard.hpp)
#pragma once

#include "cli/history_options.hpp"

namespace benchhost {

/// 0; 1 when a run folder could not be added (the others are); 2 when the history cannot
/// be opened, nothing matches PATTERN, or report's output folder cannot be made.
int history_command(const HistoryCommand& command);

}  // namespace benchhost
