#include "analysis/scenario_statistics.hpp"

#include "model/variant_group.hpp"

#include <cmath>
#include <set>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include <bench/internal/statistics/block_bootstrap.hpp>
#include <bench/internal/statistics/series_analysis.hpp>
#include <bench/statistics.hpp>

#include "analysis/stragglers.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

bool eager_success(const ScenarioOutcome& outcome) {
    return outcome.config.variant == bench::Variant::eager && outcome.result.status == bench::Status::success;
}

/// The speedups of `outcome` over `eager`, both with their statistics computed.
std::vector<Speedup> speedups_between(const ScenarioOutcome& eager, const ScenarioOutcome& outcome) {
    std::vector<Speedup> speedups;
    for (const char* name : speedup_series)
        if (std::optional<Speedup> speedup = series_speedup(eager, outcome, name))
            speedups.push_back(std::move(*speedup));
    return speedups;
}

}  // namespace

std::optional<Speedup> series_speedup(const ScenarioOutcome& baseline, const ScenarioOutcome& outcome,
                                      const std::string& name) {
    const SeriesStatistics* mine = outcome.statistics.find(name);
    const SeriesStatistics* theirs = baseline.statistics.find(name);
    if (mine == nullptr || theirs == nullptr || mine->unit != theirs->unit) return std::nullopt;
    if (mine->analysis.summary.count == 0 || theirs->analysis.summary.count == 0) return std::nullopt;
    const bench::Series* mine_series = outcome.result.find_series(name);
    const bench::Series* their_series = baseline.result.find_series(name);
    Speedup speedup;
    speedup.series = name;
    speedup.value = theirs->analysis.summary.median / mine->analysis.summary.median;
    // Each side resampled in blocks of its own length: samples close in time share the
    // machine's state of that moment.
    speedup.ci = bench::block_bootstrap_ratio_interval(finite_samples(their_series->samples), theirs->analysis.block,
                                                       finite_samples(mine_series->samples), mine->analysis.block);
    speedup.baseline_scenario_id = baseline.config.scenario_id();
    return speedup;
}

std::vector<double> finite_samples(const std::vector<double>& samples) {
    std::vector<double> finite;
    finite.reserve(samples.size());
    for (const double sample : samples)
        if (std::isfinite(sample)) finite.push_back(sample);
    return finite;
}

void compute_statistics(ScenarioOutcome& outcome, bool force) {
    ScenarioStatistics& statistics = outcome.statistics;
    if (statistics.computed && !force) return;
    statistics.series.clear();
    std::set<std::string, std::less<>> seen;
    for (const bench::Series& series : outcome.result.series) {
        if (!seen.insert(series.name).second) continue;  // the first of a name is the one reported
        SeriesStatistics s;
        s.name = series.name;
        s.unit = series.unit;
        const std::vector<double> finite = finite_samples(series.samples);
        s.non_finite = series.samples.size() - finite.size();
        // The times of the finite samples, when every sample has one.
        std::vector<double> times;
        if (const auto t = outcome.result.sample_times.find(series.name);
            t != outcome.result.sample_times.end() && t->second.size() == series.samples.size()) {
            for (std::size_t i = 0; i < series.samples.size(); ++i)
                if (std::isfinite(series.samples[i])) times.push_back(t->second[i]);
        }
        s.analysis = bench::analyze_series(finite, times);
        s.bootstrap_resamples = bench::bootstrap_resamples(finite.size());
        statistics.series.push_back(std::move(s));
    }
    statistics.stragglers = scenario_stragglers(outcome.result, outcome.config.world_size);
    statistics.computed = true;
    statistics.speedups_computed = false;
    statistics.speedups.clear();
    statistics.scaling_computed = false;
    statistics.scaling.reset();
}

double scaling_efficiency(double throughput, int world_size, double throughput_at_one) {
    if (!(throughput > 0) || !std::isfinite(throughput) || world_size < 1 || !(throughput_at_one > 0) ||
        !std::isfinite(throughput_at_one))
        return NAN;
    return throughput / (world_size * throughput_at_one);
}

std::optional<ScalingEfficiency> scaling_over(const ScenarioOutcome& at_one, const ScenarioOutcome& outcome) {
    const int world_size = outcome.config.world_size;
    for (const char* name : scaling_series) {
        const SeriesStatistics* mine = outcome.statistics.find(name);
        const SeriesStatistics* base = at_one.statistics.find(name);
        if (mine == nullptr || base == nullptr || mine->unit != base->unit) continue;
        if (mine->analysis.summary.count == 0 || base->analysis.summary.count == 0) continue;
        ScalingEfficiency scaling;
        scaling.series = name;
        scaling.world_size = world_size;
        scaling.value = scaling_efficiency(mine->analysis.summary.median, world_size, base->analysis.summary.median);
        scaling.baseline_scenario_id = at_one.config.scenario_id();
        if (!std::isfinite(scaling.value)) return std::nullopt;
        if (&at_one == &outcome) return scaling;  // 1 by definition
        // series_speedup's ratio is its baseline's median over its outcome's: with the
        // scenario at N as the baseline, the throughput at N over that at 1, with the
        // block bootstrap interval of that ratio.
        if (const std::optional<Speedup> ratio = series_speedup(outcome, at_one, name); ratio && ratio->ci.valid())
            scaling.ci = {ratio->ci.low / world_size, ratio->ci.high / world_size};
        return scaling;
    }
    return std::nullopt;
}

void complete_speedups(RunRecord& record) {
    std::unordered_map<std::string, const ScenarioOutcome*> eager_of_group;
    for (const ScenarioOutcome& outcome : record.outcomes)
        if (eager_success(outcome) && outcome.statistics.computed)
            eager_of_group.try_emplace(variant_group_key(outcome.config), &outcome);
    for (ScenarioOutcome& outcome : record.outcomes) {
        ScenarioStatistics& statistics = outcome.statistics;
        if (statistics.speedups_computed || !statistics.computed) continue;
        if (outcome.result.status != bench::Status::success || outcome.config.variant == bench::Variant::eager) {
            statistics.speedups_computed = true;  // nothing to compare
            continue;
        }
        const auto eager = eager_of_group.find(variant_group_key(outcome.config));
        if (eager == eager_of_group.end()) continue;  // its eager scenario may come later
        statistics.speedups = speedups_between(*eager->second, outcome);
        statistics.speedups_computed = true;
    }

    std::unordered_map<std::string, const ScenarioOutcome*> at_one_of_group;
    for (const ScenarioOutcome& outcome : record.outcomes)
        if (outcome.config.world_size == 1 && outcome.result.status == bench::Status::success &&
            outcome.statistics.computed)
            at_one_of_group.try_emplace(world_size_group_key(outcome.config), &outcome);
    for (ScenarioOutcome& outcome : record.outcomes) {
        ScenarioStatistics& statistics = outcome.statistics;
        if (statistics.scaling_computed || !statistics.computed) continue;
        if (outcome.result.status != bench::Status::success || outcome.config.world_size < 1) {
            statistics.scaling_computed = true;  // nothing to compare
            continue;
        }
        const auto at_one = at_one_of_group.find(world_size_group_key(outcome.config));
        if (at_one == at_one_of_group.end()) continue;  // it may come later
        statistics.scaling = scaling_over(*at_one->second, outcome);
        statistics.scaling_computed = true;
    }
}

void analyze_run(RunRecord& record) {
    for (ScenarioOutcome& outcome : record.outcomes) compute_statistics(outcome);
    complete_speedups(record);
}

bool statistics_computed(const RunRecord& record) {
    for (const ScenarioOutcome& outcome : record.outcomes)
        if (!outcome.statistics.computed) return false;
    return true;
}

const RunRecord& with_statistics(const RunRecord& record, std::optional<RunRecord>& storage) {
    if (statistics_computed(record)) return record;
    storage = record;
    analyze_run(*storage);
    return *storage;
}

const SeriesStatistics* headline_series(const ScenarioOutcome& outcome) {
    const ScenarioStatistics& statistics = outcome.statistics;
    for (const char* name : {"latency", "time_to_first_token", "time_per_output_token"})
        if (const SeriesStatistics* s = statistics.find(name)) return s;
    for (const SeriesStatistics& s : statistics.series)
        if (is_time_unit(s.unit)) return &s;
    return statistics.series.empty() ? nullptr : &statistics.series.front();
}

std::string speed_states_warning(const SeriesStatistics& series) {
    const bench::SpeedStates& states = series.analysis.states;
    const double fastest = states.states.front().median;
    std::string text;
    for (const bench::SpeedState& state : states.states) {
        if (!text.empty()) text += ", ";
        text += format_figure(state.median, series.unit);
        if (&state != &states.states.front()) text += fmt::format(" (x{:.2f})", state.median / fastest);
        text += std::isfinite(state.seconds) ? fmt::format(" for {:.1f} s", state.seconds)
                                             : fmt::format(" for {} samples", state.samples);
        if (state.stretches > 1) text += fmt::format(" in {} stretches", state.stretches);
    }
    const std::string span =
        std::isfinite(states.span_s) ? fmt::format(" over {:.1f} s of measuring", states.span_s) : std::string();
    return fmt::format(
        "{} ran at {} speeds{}: {}. The machine's speed changed while it was measured; its interval "
        "counts the stretches, but a comparison with another run depends on the states each caught "
        "(run in rounds, or benchhost ab)",
        series.name, states.states.size(), span, text);
}

std::vector<std::string> statistical_warnings(const ScenarioOutcome& outcome) {
    std::vector<std::string> warnings;
    for (const SeriesStatistics& series : outcome.statistics.series) {
        // Times only: a rate derived from them (throughput) would repeat the warning.
        if (series.analysis.summary.count < 4 || !is_time_unit(series.unit)) continue;
        if (!series.analysis.stable) warnings.push_back(series.name + " is unstable: " + series.analysis.instability);
        if (series.analysis.states.distinct()) warnings.push_back(speed_states_warning(series));
    }
    for (const Straggler& straggler : outcome.statistics.stragglers) {
        const SeriesStatistics* series = outcome.statistics.find(straggler.series);
        warnings.push_back(straggler_warning(series != nullptr ? series->unit : std::string(), straggler));
    }
    for (const auto& [name, sampling] : outcome.result.sampling) {
        if (sampling.stop_reason != "max_time" || !(sampling.target_ci_width > 0)) continue;
        warnings.push_back(fmt::format(
            "{}: the time budget ({:.3g} s) ran out before the 95% confidence interval of the "
            "median was {:.3g}% wide; it is {:.3g}% wide after {} samples",
            name, sampling.elapsed_s, sampling.target_ci_width * 100, sampling.ci_width * 100, sampling.samples));
    }
    return warnings;
}

const ScenarioOutcome* eager_counterpart(const RunRecord& record, const ScenarioOutcome& outcome) {
    if (outcome.config.variant == bench::Variant::eager) return nullptr;
    for (const ScenarioOutcome& other : record.outcomes) {
        if (eager_success(other) && differ_only_in_variant(other.config, outcome.config)) return &other;
    }
    return nullptr;
}

std::vector<Speedup> speedups_over_eager(const RunRecord& record, const ScenarioOutcome& outcome) {
    if (outcome.result.status != bench::Status::success) return {};
    const ScenarioOutcome* eager = eager_counterpart(record, outcome);
    if (eager == nullptr) return {};
    ScenarioOutcome mine = outcome, theirs = *eager;
    compute_statistics(mine);
    compute_statistics(theirs);
    return speedups_between(theirs, mine);
}

}  // namespace benchhost
