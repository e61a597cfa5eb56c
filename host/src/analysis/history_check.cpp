#include "analysis/history_check.hpp"

#include <vector>

#include <bench/internal/change_points.hpp>
#include <bench/internal/distributions.hpp>

namespace benchhost {

HistoryCheck check_against_history(std::span<const double> earlier, double latest, const HistoryCheckOptions& options) {
    HistoryCheck check;
    std::vector<double> logs;
    const std::size_t from = earlier.size() > options.lookback ? earlier.size() - options.lookback : 0;
    for (std::size_t i = from; i < earlier.size(); ++i)
        if (std::isfinite(earlier[i]) && earlier[i] > 0) logs.push_back(std::log(earlier[i]));

    // Only the runs since the last step of the window.
    const std::vector<bench::ChangePoint> steps = bench::e_divisive(logs);
    if (!steps.empty()) {
        check.first = steps.back().index;
        check.after_step = true;
        logs.erase(logs.begin(), logs.begin() + static_cast<std::ptrdiff_t>(check.first));
    }
    check.runs = logs.size();
    if (!(std::isfinite(latest) && latest > 0)) {
        check.note = "no median in the checked run";
        return check;
    }
    if (logs.empty()) {
        check.note = "no earlier run";
        return check;
    }
    double mean = 0;
    for (const double x : logs) mean += x;
    mean /= static_cast<double>(logs.size());
    check.baseline = std::exp(mean);
    check.ratio = latest / check.baseline;
    if (logs.size() < std::max<std::size_t>(options.min_runs, 2)) {
        check.note = std::to_string(logs.size()) + (check.after_step ? " runs since a step" : " earlier runs") +
                     ", fewer than " + std::to_string(std::max<std::size_t>(options.min_runs, 2)) +
                     ": too few to learn the noise from";
        return check;
    }
    double squares = 0;
    for (const double x : logs) squares += (x - mean) * (x - mean);
    const double n = static_cast<double>(logs.size());
    check.noise = std::sqrt(squares / (n - 1));
    const double half = bench::student_t_quantile((1 + options.level) / 2, n - 1) * check.noise * std::sqrt(1 + 1 / n);
    const double change = std::log(latest) - mean;
    check.ratio_ci = {std::exp(change - half), std::exp(change + half)};
    check.verdict = verdict_of(check.ratio, check.ratio_ci, options.threshold);
    return check;
}

}  // namespace benchhost
