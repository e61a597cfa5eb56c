#include "history/series_history.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <tuple>

namespace benchhost {

namespace {

void find_steps(SeriesHistory& history, const bench::ChangePointOptions& options, std::size_t max_runs) {
    const std::size_t n = history.points.size();
    history.steps_from = max_runs > 0 && n > max_runs ? n - max_runs : 0;
    std::vector<double> medians;
    medians.reserve(n - history.steps_from);
    for (std::size_t i = history.steps_from; i < n; ++i) medians.push_back(history.points[i]->series.summary.median);
    for (bench::ChangePoint step : bench::e_divisive(medians, options)) {
        step.index += history.steps_from;
        history.steps.emplace(step.index, step);
    }
}

}  // namespace

std::vector<SeriesHistory> series_histories(const std::vector<HistoryPoint>& points, const std::string& series,
                                            const bench::ChangePointOptions& options, std::size_t max_runs) {
    std::map<std::tuple<std::string, std::string, std::string>, SeriesHistory> by_key;
    for (const HistoryPoint& point : points) {
        if (point.series.name.empty()) continue;
        if (!series.empty() && point.series.name != series) continue;
        SeriesHistory& history = by_key[{point.scenario_id, point.series.name, point.run->machine}];
        if (history.points.empty()) {
            history.scenario_id = point.scenario_id;
            history.series = point.series.name;
            history.machine = point.run->machine;
            history.machine_text = point.run->machine_text;
        }
        history.points.push_back(&point);
    }
    std::vector<SeriesHistory> out;
    out.reserve(by_key.size());
    for (auto& [key, history] : by_key) out.push_back(std::move(history));

    // Each history's change points are its own: the cores take the histories in turn.
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    const auto work = [&] {
        for (std::size_t i = next++; i < out.size() && !failed; i = next++) {
            try {
                find_steps(out[i], options, max_runs);
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
        }
    };
    const std::size_t workers = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), out.size());
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    return out;
}

}  // namespace benchhost
