// `benchhost history check`: the CI gate over the run history. One run (the newest the
// filters select, or --run N) against the runs before it on the same machine and with
// the same configuration, each scenario's series judged by the spread between the
// earlier runs' medians (analysis/history_check.hpp). Prints a row per series with its
// evidence (how many runs, their level and spread, since which step).
#pragma once

#include "cli/history_options.hpp"
#include "history/history_store.hpp"

namespace benchhost {

/// 0; 1 when a series is slower; 2 when there is no such run, or nothing of it matches.
int history_check_command(HistoryStore& store, const HistoryCommand& command);

}  // namespace benchhost
