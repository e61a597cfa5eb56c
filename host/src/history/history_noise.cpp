#include "history/history_noise.hpp"

#include <vector>

#include "analysis/history_check.hpp"

namespace benchhost {

RunFilter recent_runs_filter(HistoryStore& store, const HistoryRun& run, std::size_t lookback) {
    RunFilter filter;
    filter.machine = run.machine;
    filter.until = run.started_at;
    RunFilter window = filter;
    window.limit = 3 * lookback + 1;
    if (const std::vector<HistoryRun> newest = store.runs(window); newest.size() == window.limit)
        filter.since = newest.back().started_at;
    return filter;
}

std::map<std::string, HistoryNoise> history_noise_for(HistoryStore& store, const RunRecord& next) {
    const HistoryRun me = history_run_of(next, "");
    const HistoryCheckOptions options;
    const RunFilter filter = recent_runs_filter(store, me, options.lookback);
    std::map<std::string, std::vector<double>> medians;
    for (const HistoryPoint& point : store.points("*", filter)) {
        if (point.series.name.empty() || point.run->key == me.key || point.run->machine != me.machine ||
            point.run->config_hash != me.config_hash)
            continue;
        medians[history_noise_key(point.scenario_id, point.series.name)].push_back(point.series.summary.median);
    }
    std::map<std::string, HistoryNoise> out;
    for (const auto& [key, values] : medians)
        if (const HistoryBaseline baseline = history_baseline(values, options); std::isfinite(baseline.noise))
            out[key] = HistoryNoise{baseline.noise, baseline.runs};
    return out;
}

}  // namespace benchhost
