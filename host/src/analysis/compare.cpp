#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

#include <fmt/format.h>

#include <bench/internal/hypothesis_test.hpp>
#include <bench/internal/round_bootstrap.hpp>
#include <bench/statistics.hpp>

#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

/// Facts that must match for two runs' timings to be comparable: the machine, and the
/// build of what is measured. (Not the git commit: a change is what is being compared.)
constexpr std::pair<const char*, const char*> comparable_facts[] = {
    {"cpu", "model"},          {"cpu", "logical_cores"},    {"cpu", "cpus_available"},
    {"cpu", "sockets"},        {"memory", "total_mib"},     {"os", "machine"},
    {"gpu", "available"},      {"build", "build_type"},     {"build", "optimized"},
    {"build", "compiler"},     {"build", "sdk_abi"},        {"libtorch", "torch_version"},
    {"libtorch", "threads"},
};

std::vector<double> in_ms(const bench::Series& series) {
    const double factor = to_ms_factor(series.unit);
    std::vector<double> out;
    out.reserve(series.samples.size());
    for (const double x : series.samples)
        if (std::isfinite(x)) out.push_back(x * factor);
    return out;
}

/// The series' samples in ms split by round, when its outcome recorded its rounds;
/// empty otherwise.
bench::RoundSamples rounds_in_ms(const ScenarioOutcome& outcome, const bench::Series& series) {
    const auto it = outcome.round_sizes.find(series.name);
    if (it == outcome.round_sizes.end() || it->second.size() < 2) return {};
    std::size_t total = 0;
    for (const std::size_t n : it->second) total += n;
    if (total != series.samples.size()) return {};  // not this series' rounds
    const double factor = to_ms_factor(series.unit);
    bench::RoundSamples rounds;
    auto sample = series.samples.begin();
    for (const std::size_t n : it->second) {
        std::vector<double>& round = rounds.emplace_back();
        for (std::size_t i = 0; i < n; ++i, ++sample) round.push_back(*sample * factor);
    }
    return rounds;
}

/// The verdict an interval gives: a change beyond the threshold that the interval
/// excludes no change for, no change beyond the threshold, or neither.
Verdict verdict_of(double ratio, const bench::Interval& ci, double threshold) {
    if (!ci.valid()) return Verdict::inconclusive;
    if (ci.low > 1 && ratio > 1 + threshold) return Verdict::slower;
    if (ci.high < 1 && ratio < 1 - threshold) return Verdict::faster;
    if (ci.high > 1 + threshold || ci.low < 1 - threshold) return Verdict::inconclusive;
    return Verdict::same;
}

SeriesComparison compare_series(const std::string& id, const ScenarioOutcome& base_outcome, const bench::Series& base,
                                const ScenarioOutcome& next_outcome, const bench::Series& next,
                                const CompareOptions& options) {
    SeriesComparison row;
    row.scenario_id = id;
    row.series = base.name;
    const std::vector<double> a = in_ms(base), b = in_ms(next);
    row.base_samples = a.size();
    row.new_samples = b.size();
    row.base_median_ms = bench::summarize(a).median;
    row.new_median_ms = bench::summarize(b).median;
    row.ratio = row.new_median_ms / row.base_median_ms;
    row.p_value = bench::mann_whitney_u(a, b).p_value;
    row.base_rounds = base_outcome.rounds;
    row.new_rounds = next_outcome.rounds;

    const bench::RoundSamples base_rounds = rounds_in_ms(base_outcome, base);
    const bench::RoundSamples next_rounds = rounds_in_ms(next_outcome, next);
    if (!base_rounds.empty() && !next_rounds.empty()) {
        row.ratio_ci = bench::hierarchical_ratio_interval(next_rounds, base_rounds);
        if (row.ratio_ci.valid()) {
            row.evidence = "rounds";
            row.verdict = verdict_of(row.ratio, row.ratio_ci, options.threshold);
            if (row.verdict == Verdict::inconclusive)
                row.note = "the rounds differ too much to tell: more rounds narrow the interval";
            return row;
        }
    }
    row.ratio_ci = bench::bootstrap_ratio_interval(b, a);
    const bool significant = row.p_value < options.alpha;
    if (significant && row.ratio > 1 + options.threshold) row.verdict = Verdict::slower;
    else if (significant && row.ratio < 1 - options.threshold) row.verdict = Verdict::faster;
    // With few samples no difference can be significant: say so rather than "same".
    if (!significant && std::min(a.size(), b.size()) < 5 && std::abs(row.ratio - 1) > options.threshold)
        row.note = "too few samples for the test (at least 5 per side)";
    return row;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
        case Verdict::same: return "same";
        case Verdict::inconclusive: return "inconclusive";
    }
    return "same";
}

std::size_t Comparison::count(Verdict verdict) const {
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [&](const SeriesComparison& row) { return row.verdict == verdict; }));
}

std::vector<std::string> incomparable_facts(const HardwareInfo& base, const HardwareInfo& next) {
    std::vector<std::string> out;
    for (const auto& [section, key] : comparable_facts) {
        const std::string a = hardware_fact(base, section, key), b = hardware_fact(next, section, key);
        if (a == b) continue;
        out.push_back(fmt::format("{}.{}: '{}' (base) vs '{}' (new)", section, key, a.empty() ? "unknown" : a,
                                  b.empty() ? "unknown" : b));
    }
    return out;
}

Comparison compare_runs(const RunRecord& base, const RunRecord& next, const CompareOptions& options) {
    Comparison comparison;
    comparison.options = options;
    comparison.incomparable = incomparable_facts(base.hardware, next.hardware);

    std::map<std::string, const ScenarioOutcome*> base_by_id;
    for (const ScenarioOutcome& outcome : base.outcomes) base_by_id.emplace(outcome.config.scenario_id(), &outcome);
    std::map<std::string, bool> seen;
    double log_sum = 0;
    std::size_t logs = 0;
    for (const ScenarioOutcome& outcome : next.outcomes) {
        const std::string id = outcome.config.scenario_id();
        const auto it = base_by_id.find(id);
        if (it == base_by_id.end()) {
            comparison.only_in_new.push_back(id);
            continue;
        }
        seen[id] = true;
        const bench::ScenarioResult& old_result = it->second->result;
        const bench::ScenarioResult& new_result = outcome.result;
        const auto status_of = [](const bench::ScenarioResult& r) {
            return std::string(bench::to_string(r.status)) + (r.reason.empty() ? "" : ": " + one_line(r.reason, 80));
        };
        if (old_result.status != bench::Status::success || new_result.status != bench::Status::success) {
            std::string why;
            if (old_result.status != bench::Status::success) why += "base " + status_of(old_result);
            if (new_result.status != bench::Status::success)
                why += std::string(why.empty() ? "" : "; ") + "new " + status_of(new_result);
            comparison.not_compared.push_back(id + ": " + why);
            continue;
        }
        bool any = false;
        for (const bench::Series& series : new_result.series) {
            if (!is_time_unit(series.unit)) continue;
            const bench::Series* old_series = old_result.find_series(series.name);
            if (old_series == nullptr || !is_time_unit(old_series->unit)) continue;
            if (old_series->samples.empty() || series.samples.empty()) continue;
            SeriesComparison row = compare_series(id, *it->second, *old_series, outcome, series, options);
            if (std::isfinite(row.ratio) && row.ratio > 0) {
                log_sum += std::log(row.ratio);
                ++logs;
            }
            comparison.rows.push_back(std::move(row));
            any = true;
        }
        if (!any) comparison.not_compared.push_back(id + ": no time series measured in both runs");
    }
    for (const ScenarioOutcome& outcome : base.outcomes) {
        const std::string id = outcome.config.scenario_id();
        if (seen.count(id) == 0 &&
            std::none_of(next.outcomes.begin(), next.outcomes.end(),
                         [&](const ScenarioOutcome& o) { return o.config.scenario_id() == id; }))
            comparison.only_in_base.push_back(id);
    }
    comparison.geomean_ratio = logs > 0 ? std::exp(log_sum / static_cast<double>(logs)) : std::nan("");
    return comparison;
}

}  // namespace benchhost
