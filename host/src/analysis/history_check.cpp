#include "analysis/history_check.hpp"

#include <vector>

#include <fmt/format.h>

#include <bench/internal/statistics/change_points.hpp>
#include <bench/internal/statistics/distributions.hpp>

namespace benchhost {

HistoryBaseline history_baseline(std::span<const double> earlier, const HistoryCheckOptions& options) {
    HistoryBaseline baseline;
    std::vector<double> logs;
    const std::size_t from = earlier.size() > options.lookback ? earlier.size() - options.lookback : 0;
    for (std::size_t i = from; i < earlier.size(); ++i)
        if (std::isfinite(earlier[i]) && earlier[i] > 0) logs.push_back(std::log(earlier[i]));

    // Only the runs since the last step of the window.
    const std::vector<bench::ChangePoint> steps = bench::e_divisive(logs);
    if (!steps.empty()) {
        baseline.first = steps.back().index;
        baseline.after_step = true;
        logs.erase(logs.begin(), logs.begin() + static_cast<std::ptrdiff_t>(baseline.first));
    }
    baseline.runs = logs.size();
    if (logs.empty()) return baseline;
    double mean = 0;
    for (const double x : logs) mean += x;
    mean /= static_cast<double>(logs.size());
    baseline.mean_log = mean;
    if (logs.size() < std::max<std::size_t>(options.min_runs, 2)) return baseline;
    double squares = 0;
    for (const double x : logs) squares += (x - mean) * (x - mean);
    baseline.noise = std::sqrt(squares / static_cast<double>(logs.size() - 1));
    return baseline;
}

HistoryCheck check_against_history(std::span<const double> earlier, double latest, const HistoryCheckOptions& options) {
    const HistoryBaseline baseline = history_baseline(earlier, options);
    HistoryCheck check;
    check.runs = baseline.runs;
    check.first = baseline.first;
    check.after_step = baseline.after_step;
    if (!(std::isfinite(latest) && latest > 0)) {
        check.note = "no median in the checked run";
        return check;
    }
    if (baseline.runs == 0) {
        check.note = "no earlier run";
        return check;
    }
    check.baseline = std::exp(baseline.mean_log);
    check.ratio = latest / check.baseline;
    if (!std::isfinite(baseline.noise)) {
        const bool one = baseline.runs == 1;
        check.note = std::to_string(baseline.runs) +
                     (baseline.after_step ? (one ? " run since a step" : " runs since a step")
                                          : (one ? " earlier run" : " earlier runs")) +
                     ", fewer than " + std::to_string(std::max<std::size_t>(options.min_runs, 2)) +
                     ": too few to learn the noise from";
        return check;
    }
    check.noise = baseline.noise;
    const double n = static_cast<double>(baseline.runs);
    const double half = bench::student_t_quantile((1 + options.level) / 2, n - 1) * check.noise * std::sqrt(1 + 1 / n);
    const double change = std::log(latest) - baseline.mean_log;
    check.ratio_ci = {std::exp(change - half), std::exp(change + half)};
    check.verdict = verdict_of(check.ratio, check.ratio_ci, options.threshold);
    return check;
}

HistoryCheck check_count_against_history(std::span<const double> earlier, double latest, const std::string& name,
                                         const std::string& reasons) {
    HistoryCheck check;
    if (!std::isfinite(latest)) {
        check.note = "no count in the checked run";
        return check;
    }
    if (earlier.empty() || !std::isfinite(earlier.back())) {
        check.note = "no earlier run";
        return check;
    }
    check.runs = 1;
    check.first = earlier.size() - 1;
    check.baseline = earlier.back();
    check.ratio = check.baseline > 0 ? latest / check.baseline : latest == 0 ? 1.0 : NAN;
    check.verdict = latest > check.baseline   ? Verdict::slower
                    : latest < check.baseline ? Verdict::faster
                                              : Verdict::same;
    if (check.verdict != Verdict::same)
        check.note = fmt::format("{} {:g} -> {:g} since the run before", name, check.baseline, latest);
    if (check.verdict == Verdict::slower && !reasons.empty()) check.note += ": " + reasons;
    return check;
}

}  // namespace benchhost
