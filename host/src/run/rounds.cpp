#include "run/rounds.hpp"

#include <algorithm>

#include <bench/stopping_rule.hpp>

namespace benchhost {

void pool_round(ScenarioOutcome& pooled, ScenarioOutcome&& round) {
    ++pooled.rounds;
    pooled.wall_time_s += round.wall_time_s;
    if (round.first_rounds > 0) pooled.first_rounds = round.first_rounds;  // a confirmation round
    bench::ScenarioResult& into = pooled.result;
    if (into.status != bench::Status::success) return;
    if (round.result.status != bench::Status::success) {
        into.status = round.result.status;
        into.reason = "round " + std::to_string(pooled.rounds) + ": " + round.result.reason;
        pooled.log_tail = std::move(round.log_tail);
        return;
    }
    for (bench::Series& series : round.result.series) {
        bench::Series* existing = nullptr;
        for (bench::Series& s : into.series)
            if (s.name == series.name && s.unit == series.unit) existing = &s;
        if (existing == nullptr) continue;  // a series only one round measured is not pooled
        std::vector<std::size_t>& sizes = pooled.round_sizes[series.name];
        if (sizes.empty()) sizes.push_back(existing->samples.size());  // the first round's
        sizes.push_back(series.samples.size());
        existing->samples.insert(existing->samples.end(), series.samples.begin(), series.samples.end());
    }
    for (auto& [name, sampling] : round.result.sampling) {
        auto it = into.sampling.find(name);
        if (it == into.sampling.end()) continue;
        it->second.samples += sampling.samples;
        it->second.elapsed_s += sampling.elapsed_s;
        if (sampling.stop_reason != it->second.stop_reason) it->second.stop_reason += "," + sampling.stop_reason;
    }
    for (std::string& warning : round.result.warnings)
        if (std::find(into.warnings.begin(), into.warnings.end(), warning) == into.warnings.end())
            into.warnings.push_back("round " + std::to_string(pooled.rounds) + ": " + warning);
}

void finish_rounds(ScenarioOutcome& outcome) {
    for (auto& [name, sampling] : outcome.result.sampling) {
        if (const bench::Series* series = outcome.result.find_series(name))
            sampling.ci_width = bench::relative_median_ci_width(series->samples);
    }
}

}  // namespace benchhost
