#include "history/series_history.hpp"

#include <tuple>

namespace benchhost {

std::vector<SeriesHistory> series_histories(const std::vector<HistoryPoint>& points, const std::string& series,
                                            const bench::ChangePointOptions& options, std::size_t window) {
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
        const std::size_t n = history.points.size();
        history.searched_from = n > window ? n - window : 0;
        std::vector<double> medians;
        for (std::size_t i = history.searched_from; i < n; ++i) medians.push_back(history.points[i]->series.summary.median);
        for (bench::ChangePoint step : bench::e_divisive(medians, options)) {
            step.index += history.searched_from;
            history.steps.emplace(step.index, step);
        }
        out.push_back(std::move(history));
    }
    return out;
}

}  // namespace benchhost
