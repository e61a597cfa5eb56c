// The spread between runs, learned from a run history, for comparing two single runs:
// per scenario and series of `next`, the noise of the earlier runs on its machine with
// its configuration (analysis/history_check.hpp: history_baseline), for
// CompareOptions::history_noise.
#pragma once

#include <map>
#include <string>

#include "analysis/compare.hpp"
#include "history/history_store.hpp"

namespace benchhost {

/// The runs on `run`'s machine up to it (RunFilter::until) that a look back over the
/// last `lookback` runs reads: the newest 3 x lookback + 1 of them (RunFilter::since set
/// to the oldest), to leave room for runs of other configurations or branches and for
/// scenarios that not every run has.
RunFilter recent_runs_filter(HistoryStore& store, const HistoryRun& run, std::size_t lookback);

/// The noise of every series of `next` that the history has enough earlier runs of
/// (the last 30 on its machine and configuration, since their last step; 5 at least).
/// `next` itself is left out when the history holds it.
std::map<std::string, HistoryNoise> history_noise_for(HistoryStore& store, const RunRecord& next);

}  // namespace benchhost
