#include "analysis/analysis.hpp"

#include <cmath>
#include <span>

#include <fmt/format.h>

#include <bench/internal/series_analysis.hpp>
#include <bench/statistics.hpp>

#include "plan/plan.hpp"
#include "util/units.hpp"

namespace benchhost {

std::vector<std::string> statistical_warnings(const bench::ScenarioResult& result) {
    std::vector<std::string> warnings;
    for (const bench::Series& series : result.series) {
        // Times only: a rate derived from them (throughput) would repeat the warning.
        if (series.samples.size() < 4 || !is_time_unit(series.unit)) continue;
        const bench::SeriesAnalysis analysis = bench::analyze_series(series.samples, {.resamples = 0});
        if (!analysis.stable) warnings.push_back(series.name + " is unstable: " + analysis.instability);
    }
    for (const auto& [name, sampling] : result.sampling) {
        if (sampling.stop_reason != "max_time" || !(sampling.target_ci_width > 0)) continue;
        warnings.push_back(fmt::format("{}: the time budget ({:.3g} s) ran out before the 95% confidence interval of the "
                                       "median was {:.3g}% wide; it is {:.3g}% wide after {} samples",
                                       name, sampling.elapsed_s, sampling.target_ci_width * 100, sampling.ci_width * 100,
                                       sampling.samples));
    }
    return warnings;
}

const ScenarioOutcome* eager_counterpart(const RunRecord& record, const ScenarioOutcome& outcome) {
    if (outcome.config.variant == bench::Variant::eager) return nullptr;
    for (const ScenarioOutcome& other : record.outcomes) {
        if (other.config.variant == bench::Variant::eager && other.result.status == bench::Status::success &&
            differ_only_in_variant(other.config, outcome.config))
            return &other;
    }
    return nullptr;
}

std::vector<Speedup> speedups_over_eager(const RunRecord& record, const ScenarioOutcome& outcome) {
    std::vector<Speedup> speedups;
    if (outcome.result.status != bench::Status::success) return speedups;
    const ScenarioOutcome* eager = eager_counterpart(record, outcome);
    if (eager == nullptr) return speedups;
    for (const char* name : speedup_series) {
        const bench::Series* mine = outcome.result.find_series(name);
        const bench::Series* theirs = eager->result.find_series(name);
        if (mine == nullptr || theirs == nullptr || mine->unit != theirs->unit) continue;
        if (mine->samples.empty() || theirs->samples.empty()) continue;
        Speedup speedup;
        speedup.series = name;
        speedup.value = bench::summarize(theirs->samples).median / bench::summarize(mine->samples).median;
        speedup.ci = bench::bootstrap_ratio_interval(theirs->samples, mine->samples);
        speedup.baseline_scenario_id = eager->config.scenario_id();
        speedups.push_back(std::move(speedup));
    }
    return speedups;
}

}  // namespace benchhost
