#include "analysis/framework_comparison.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "analysis/scenario_statistics.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

std::string info_of(const ScenarioOutcome& outcome, const char* key) {
    const auto it = outcome.result.info.find(key);
    return it == outcome.result.info.end() ? std::string() : it->second;
}

/// The scalar `name` in `factor_of`'s unit (to_ms_factor, to_mib_factor); NaN without it, or
/// in a unit that does not convert.
double scalar_in(const ScenarioOutcome& outcome, const char* name, double (*factor_of)(std::string_view)) {
    const bench::Scalar* scalar = outcome.result.find_scalar(name);
    return scalar == nullptr ? NAN : scalar->value * factor_of(scalar->unit);
}

double device_peak_mib(const ScenarioOutcome& outcome) {
    for (const char* name : {"cuda_max_memory_allocated", "device_peak_memory"}) {
        const double mib = scalar_in(outcome, name, to_mib_factor);
        if (std::isfinite(mib)) return mib;
    }
    return NAN;
}

double entry_median(const FrameworkEntry& entry) { return entry.series->analysis.summary.median; }

/// Orders the entries by framework (in order of first appearance, each framework's in the
/// run's order), then finds the fastest, each framework's fastest and, for a group of
/// several frameworks, how far behind the fastest each other entry is.
void complete(ModelGroup& group) {
    for (const FrameworkEntry& entry : group.entries)
        if (std::find(group.frameworks.begin(), group.frameworks.end(), entry.framework) == group.frameworks.end())
            group.frameworks.push_back(entry.framework);
    std::stable_sort(group.entries.begin(), group.entries.end(), [&](const FrameworkEntry& a, const FrameworkEntry& b) {
        const auto rank = [&](const FrameworkEntry& e) {
            return std::find(group.frameworks.begin(), group.frameworks.end(), e.framework) - group.frameworks.begin();
        };
        return rank(a) < rank(b);
    });
    group.fastest_of_framework.assign(group.frameworks.size(), group.entries.size());
    for (std::size_t i = 0; i < group.entries.size(); ++i) {
        if (entry_median(group.entries[i]) < entry_median(group.entries[group.fastest])) group.fastest = i;
        const auto f = static_cast<std::size_t>(
            std::find(group.frameworks.begin(), group.frameworks.end(), group.entries[i].framework) -
            group.frameworks.begin());
        std::size_t& best = group.fastest_of_framework[f];
        if (best == group.entries.size() || entry_median(group.entries[i]) < entry_median(group.entries[best]))
            best = i;
    }
    if (group.frameworks.size() < 2) return;  // not compared: no bootstrap spent on it
    const FrameworkEntry& fastest = group.entries[group.fastest];
    for (std::size_t i = 0; i < group.entries.size(); ++i) {
        if (i == group.fastest) continue;
        FrameworkEntry& entry = group.entries[i];
        // The fastest's speedup over this entry: this median over the fastest's.
        entry.behind_fastest = series_speedup(*entry.outcome, *fastest.outcome, group.series);
        entry.tied_with_fastest = entry.behind_fastest && entry.behind_fastest->ci.valid() &&
                                  entry.behind_fastest->ci.low <= 1 && entry.behind_fastest->ci.high >= 1;
    }
}

}  // namespace

double compile_time_ms(const ScenarioOutcome& outcome) {
    const double compile_time = scalar_in(outcome, "compile_time", to_ms_factor);
    if (std::isfinite(compile_time)) return compile_time;
    // JAX (benchhost.jax): lowering to XLA's program, then XLA's compile, recorded apart.
    const double compile = scalar_in(outcome, "compile_s", to_ms_factor);
    const double lowering = scalar_in(outcome, "lowering_s", to_ms_factor);
    return std::isfinite(compile) ? compile + (std::isfinite(lowering) ? lowering : 0) : NAN;
}

std::string compile_cache_outcome(const ScenarioOutcome& outcome) {
    // A package's or JAX's cache: "hit: PATH; miss: PATH", "miss: written", "not used (why)":
    // each entry's words before its ':' or its reason.
    if (const std::string packages = info_of(outcome, "compile_cache"); !packages.empty()) {
        std::string words;
        for (std::size_t start = 0; start < packages.size();) {
            const std::size_t end = std::min(packages.find("; ", start), packages.size());
            std::string entry = packages.substr(start, end - start);
            entry = entry.substr(0, entry.find(':'));
            words += (words.empty() ? "" : "; ") + entry.substr(0, entry.find(" ("));
            start = end + 2;
        }
        return words;
    }
    // torch.compile's FX graph cache: "hit", "miss", "bypass (why)", "hit x2, miss".
    const std::string fx = info_of(outcome, "fx_graph_cache");
    return fx.substr(0, fx.find(" ("));
}

std::string framework_of(const ScenarioOutcome& outcome) {
    std::string framework = info_of(outcome, "framework");
    return framework.empty() ? unreported_framework : framework;
}

FrameworkComparison compare_frameworks(const RunRecord& record) {
    // The groups in the order of their first scenario; the key: everything that must match.
    using Key = std::tuple<std::string, std::string, std::string, int, std::string, std::string, int>;
    std::map<Key, std::size_t> index;
    std::vector<ModelGroup> groups;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        if (outcome.result.status != bench::Status::success) continue;
        const std::string model = info_of(outcome, "model");
        const SeriesStatistics* series = headline_series(outcome);
        if (model.empty() || series == nullptr || series->analysis.summary.count == 0 || !is_time_unit(series->unit))
            continue;
        const bench::ScenarioConfig& config = outcome.config;
        const Key key{model,        series->name,  series->unit,  config.batch_size,
                      config.dtype, config.device, config.threads};
        auto [it, added] = index.try_emplace(key, groups.size());
        if (added) {
            ModelGroup group;
            group.model = model;
            group.series = series->name;
            group.unit = series->unit;
            group.batch_size = config.batch_size;
            group.dtype = config.dtype;
            group.device = config.device;
            group.threads = config.threads;
            groups.push_back(std::move(group));
        }
        FrameworkEntry entry;
        entry.outcome = &outcome;
        entry.framework = framework_of(outcome);
        entry.series = series;
        entry.peak_rss_mib = scalar_in(outcome, "peak_rss", to_mib_factor);
        entry.device_peak_mib = device_peak_mib(outcome);
        entry.compile_ms = compile_time_ms(outcome);
        entry.compile_cached = !std::isfinite(entry.compile_ms) && info_of(outcome, "compile_cache").starts_with("hit");
        groups[it->second].entries.push_back(std::move(entry));
    }
    FrameworkComparison comparison;
    for (ModelGroup& group : groups) {
        complete(group);
        (group.frameworks.size() >= 2 ? comparison.groups : comparison.one_framework).push_back(std::move(group));
    }
    return comparison;
}

}  // namespace benchhost
