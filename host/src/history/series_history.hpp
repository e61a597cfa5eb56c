// A scenario's history, as `history show` presents it: one series of one scenario on
// one machine (figures of two machines never mix), its runs oldest first, and where
// its median steps (change points, bench/internal/change_points.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <bench/internal/change_points.hpp>

#include "history/history_store.hpp"

namespace benchhost {

struct SeriesHistory {
    std::string scenario_id, series, machine, machine_text;
    std::vector<const HistoryPoint*> points;         // oldest first
    std::map<std::size_t, bench::ChangePoint> steps;  // by the index in points of the run that starts one
};

/// The histories in `points` (as HistoryStore::points gives them: oldest run first),
/// one per scenario, series and machine; only the series `series` when it is not empty.
/// Points without a series (a scenario that failed) are left out. The change points are
/// found over each history's medians.
std::vector<SeriesHistory> series_histories(const std::vector<HistoryPoint>& points, const std::string& series = "",
                                            const bench::ChangePointOptions& options = {});

}  // namespace benchhost
