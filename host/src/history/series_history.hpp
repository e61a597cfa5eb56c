// A scenario's history, as `history show` presents it: one series of one scenario on
// one machine (figures of two machines never mix), its runs oldest first, and where
// its median steps (change points, bench/internal/statistics/change_points.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <bench/internal/statistics/change_points.hpp>

#include "history/history_store.hpp"

namespace benchhost {

struct SeriesHistory {
    std::string scenario_id, series, machine, machine_text;
    std::vector<const HistoryPoint*> points;  // oldest first
    std::map<std::size_t, bench::ChangePoint> steps;  // by the index in points of the run that starts one
    std::size_t steps_from = 0;  // the change points were searched in points[steps_from...]
};

/// How many runs, the newest, the change points of a history are searched in: E-divisive
/// costs O(n^2) per permutation (bench/internal/statistics/change_points.hpp), so that a history of
/// 10,000 runs would take seconds per series; a step older than these is not marked.
inline constexpr std::size_t change_point_runs = 300;

/// The histories in `points` (as HistoryStore::points gives them: oldest run first),
/// one per scenario, series and machine, ordered by them; only the series `series` when
/// it is not empty. Points without a series (a scenario that failed) are left out. The
/// change points are found over each history's medians, over its last `max_runs` runs
/// (0: all), the histories shared out among the cores.
std::vector<SeriesHistory> series_histories(const std::vector<HistoryPoint>& points, const std::string& series = "",
                                            const bench::ChangePointOptions& options = {},
                                            std::size_t max_runs = change_point_runs);

}  // namespace benchhost
