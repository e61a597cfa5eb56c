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

/// Change points are looked for among the last this many runs of a history: E-divisive
/// costs O(n^2) per permutation (bench/internal/change_points.hpp), about 20 ms at 200
/// runs and a few hundred at 1000 on the development VM, and `history show` of one
/// scenario should answer within 200 ms however long its history.
inline constexpr std::size_t change_point_window = 300;

struct SeriesHistory {
    std::string scenario_id, series, machine, machine_text;
    std::vector<const HistoryPoint*> points;         // oldest first
    std::map<std::size_t, bench::ChangePoint> steps;  // by the index in points of the run that starts one
    std::size_t searched_from = 0;  // the index of the first run the steps were looked for in
};

/// The histories in `points` (as HistoryStore::points gives them: oldest run first),
/// one per scenario, series and machine; only the series `series` when it is not empty.
/// Points without a series (a scenario that failed) are left out. The change points are
/// found over each history's medians, its last `window` runs.
std::vector<SeriesHistory> series_histories(const std::vector<HistoryPoint>& points, const std::string& series = "",
                                            const bench::ChangePointOptions& options = {},
                                            std::size_t window = change_point_window);

}  // namespace benchhost
