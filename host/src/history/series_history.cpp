#include "history/series_history.hpp"

#include <tuple>

namespace benchhost {

std::vector<SeriesHistory> series_histories(const std::vector<HistoryPoint>& points, const std::string& series,
                                            const bench::ChangePointOptions& options) {
    std::map<std::tuple<std::string, std::string, std::string>, SeriesHistory> by_key;
    for (const HistoryPoint& point : points) {
        if (point.series.name.empty()) continue;
        if (!series.empty() && point.series.name != series) continue;
        SeriesHistory& history = by_key[{point.scenario_id, point.series.name, point.run.machine}];
        history.scenario_id = point.scenario_id;
        history.series = point.series.name;
        history.machine = point.run.machine;
        history.machine_text = point.run.machine_text;
        history.points.push_back(&point);
    }
    std::vector<SeriesHistory> out;
    for (auto& [key, history] : by_key) {
        std::vector<double> medians;
        for (const HistoryPoint* point : history.points) medians.push_back(point->series.summary.median);
        for (const bench::ChangePoint& step : bench::e_divisive(medians, options)) history.steps.emplace(step.index, step);
        out.push_back(std::move(history));
    }
    return out;
}

}  // namespace benchhost
