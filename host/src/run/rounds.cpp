#include "run/rounds.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <bench/stopping_rule.hpp>

#include "analysis/compare.hpp"
#include "execute/compiled_samples.hpp"
#include "util/join.hpp"

namespace benchhost {

namespace {

/// Whether `reason` is one of the comma-separated `reasons`.
bool listed(const std::string& reasons, const std::string& reason) {
    const std::vector<std::string> items = split(reasons);
    return std::find(items.begin(), items.end(), reason) != items.end();
}

/// Whether the pooled warning `stored` is `warning`: as the first round gave it, or as a
/// later round's, after "round N: ".
bool same_warning(const std::string& stored, const std::string& warning) {
    if (stored == warning) return true;
    constexpr std::string_view prefix = "round ";
    if (!stored.starts_with(prefix)) return false;
    std::size_t end = prefix.size();
    while (end < stored.size() && std::isdigit(static_cast<unsigned char>(stored[end]))) ++end;
    if (end == prefix.size() || stored.compare(end, 2, ": ") != 0) return false;
    return stored.compare(end + 2, std::string::npos, warning) == 0;
}

/// The times of `measured`'s samples (a later round's) after those of `existing`: each
/// round follows the one before, the gap between them left out, as its own worker's
/// clock starts again. A series whose samples are not all timed on both sides loses its
/// times.
void pool_times(std::map<std::string, std::vector<double>>& pooled, const bench::Series& existing,
                const std::map<std::string, std::vector<double>>& round_times, const bench::Series& measured) {
    const auto into = pooled.find(existing.name);
    const auto from = round_times.find(measured.name);
    if (into == pooled.end()) return;
    if (from == round_times.end() || into->second.size() != existing.samples.size() ||
        from->second.size() != measured.samples.size()) {
        pooled.erase(into);
        return;
    }
    if (from->second.empty()) return;
    // The round's first sample starts where the last one ended, one typical spacing later.
    const std::vector<double>& next = from->second;
    const double spacing = next.size() > 1 ? (next.back() - next.front()) / static_cast<double>(next.size() - 1) : 0;
    const double offset = (into->second.empty() ? 0 : into->second.back()) + spacing - next.front();
    for (const double t : next) into->second.push_back(t + offset);
}

}  // namespace

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
    // Each series of the first round takes this round's samples of it, in its unit; a
    // series only a later round measured is not pooled.
    const std::string round_name = "round " + std::to_string(pooled.rounds) + ": ";
    std::map<std::string, std::size_t> kept_before;  // each series' samples before this round's
    for (bench::Series& existing : into.series) {
        const bench::Series* measured = nullptr;
        for (const bench::Series& s : round.result.series)
            if (s.name == existing.name && s.unit == existing.unit) measured = &s;
        if (measured == nullptr) {
            into.warnings.push_back(round_name + "took no '" + existing.name + "' samples in " + existing.unit);
            continue;
        }
        std::vector<std::size_t>& sizes = pooled.round_sizes[existing.name];
        if (sizes.empty()) sizes.push_back(existing.samples.size());  // the first round's: none since added any
        while (sizes.size() + 1 < static_cast<std::size_t>(pooled.rounds)) sizes.push_back(0);  // rounds without it
        sizes.push_back(measured->samples.size());
        pool_times(into.sample_times, existing, round.result.sample_times, *measured);
        kept_before[existing.name] = existing.samples.size();
        existing.samples.insert(existing.samples.end(), measured->samples.begin(), measured->samples.end());
    }
    // The samples a compile ran in, as indices into the pooled series.
    pool_compiled_samples(into, round.result, kept_before);
    for (auto& [name, sampling] : round.result.sampling) {
        auto it = into.sampling.find(name);
        if (it == into.sampling.end()) continue;
        it->second.samples += sampling.samples;
        it->second.elapsed_s += sampling.elapsed_s;
        std::string& reasons = it->second.stop_reason;
        if (!sampling.stop_reason.empty() && !listed(reasons, sampling.stop_reason))
            reasons += (reasons.empty() ? "" : ",") + sampling.stop_reason;
    }
    // Each round compiles anew in its own worker, so a compiler count is each round's
    // own: the pooled one is the largest a round counted (of the counts the first round
    // recorded), with that round's reasons, so that a graph break or a recompile of any
    // round is what a comparison and the gate see.
    for (const bench::Scalar& scalar : round.result.scalars) {
        if (std::find(std::begin(compiler_counts), std::end(compiler_counts), scalar.name) == std::end(compiler_counts))
            continue;
        const auto pooled_count = std::find_if(into.scalars.begin(), into.scalars.end(),
                                               [&](const bench::Scalar& s) { return s.name == scalar.name; });
        if (pooled_count == into.scalars.end() || !(scalar.value > pooled_count->value)) continue;
        pooled_count->value = scalar.value;
        const std::string key(compiler_count_reasons_key(scalar.name));
        if (key.empty()) continue;
        if (const auto reasons = round.result.info.find(key); reasons != round.result.info.end())
            into.info[key] = round_name + reasons->second;
        else into.info.erase(key);
    }
    for (const std::string& warning : round.result.warnings)
        if (std::none_of(into.warnings.begin(), into.warnings.end(),
                         [&](const std::string& stored) { return same_warning(stored, warning); }))
            into.warnings.push_back(round_name + warning);
}

void finish_rounds(ScenarioOutcome& outcome) {
    for (auto& [name, sampling] : outcome.result.sampling) {
        if (const bench::Series* series = outcome.result.find_series(name))
            sampling.ci_width = bench::relative_median_ci_width(series->samples);
    }
}

}  // namespace benchhost
