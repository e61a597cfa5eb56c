// What the host concludes from a run's samples, beyond summaries: warnings about
// figures that should not be trusted, speedups of variants over eager with their
// confidence intervals, and the cold start. The reporters show these; nothing here
// changes a result.
#pragma once

#include <string>
#include <vector>

#include <bench/internal/bootstrap.hpp>
#include <bench/result.hpp>

#include "run/run_record.hpp"

namespace benchhost {

/// Series whose speedup over eager a report gives, when the scenario has them.
inline constexpr const char* speedup_series[] = {"latency", "time_to_first_token", "time_per_output_token"};

/// Scalars that make a scenario's cold start, in the order a report lists them: what
/// happens before the first measured call.
inline constexpr const char* cold_start_scalars[] = {"plugin_load", "model_load", "load_time", "compile_time",
                                                     "kernelize_time", "first_call"};

/// Warnings about the figures of a finished scenario: a time series that is unstable, a
/// confidence-interval target that the time budget did not reach.
std::vector<std::string> statistical_warnings(const bench::ScenarioResult& result);

struct Speedup {
    std::string series;
    double value = 0;     // median of eager / median of this variant: above 1 is faster
    bench::Interval ci;   // 95%, bootstrap of the ratio of medians
    std::string baseline_scenario_id;
};

/// The speedups of `outcome` over the eager scenario of the same benchmark with the
/// same other axes in `record`; none for eager itself, or without such a scenario.
std::vector<Speedup> speedups_over_eager(const RunRecord& record, const ScenarioOutcome& outcome);

/// The eager scenario `outcome` is compared with, or nullptr.
const ScenarioOutcome* eager_counterpart(const RunRecord& record, const ScenarioOutcome& outcome);

}  // namespace benchhost
