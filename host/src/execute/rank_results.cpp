#include "execute/rank_results.hpp"

#include <algorithm>
#include <string>

#include "analysis/stragglers.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

bool is_rate_unit(const std::string& unit) { return unit.size() > 2 && unit.ends_with("/s"); }

}  // namespace

bench::ScenarioResult merge_rank_results(const std::vector<bench::ScenarioResult>& ranks) {
    if (ranks.empty()) return {};
    bench::ScenarioResult merged = ranks.front();
    if (ranks.size() == 1) return merged;
    std::vector<bench::Series> per_rank_series;
    for (bench::Series& series : merged.series) {
        if (series.samples.empty()) continue;
        const bool is_time = is_time_unit(series.unit), rate = is_rate_unit(series.unit);
        if (!is_time && !rate) continue;
        std::vector<std::vector<double>> samples_of;
        bool aligned = true;
        for (const bench::ScenarioResult& rank : ranks) {
            const bench::Series* own = rank.find_series(series.name);
            if (own == nullptr || own->samples.size() != series.samples.size() || own->unit != series.unit) {
                aligned = false;
                break;
            }
            samples_of.push_back(own->samples);
        }
        if (!aligned) {
            merged.warnings.push_back(series.name +
                                      ": the ranks did not record it alike (each rank the same number of samples, "
                                      "in the same unit): it is rank 0's");
            continue;
        }
        for (std::size_t i = 0; i < series.samples.size(); ++i)
            for (const auto& samples : samples_of)
                series.samples[i] =
                    is_time ? std::max(series.samples[i], samples[i]) : std::min(series.samples[i], samples[i]);
        if (!is_time) continue;
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            bench::Series own = series;
            own.name = rank_series_name(series.name, r);
            own.samples = samples_of[r];
            per_rank_series.push_back(std::move(own));
            const auto times = ranks[r].sample_times.find(series.name);
            if (times != ranks[r].sample_times.end())
                merged.sample_times[rank_series_name(series.name, r)] = times->second;
        }
    }
    // What only another rank recorded.
    for (std::size_t r = 1; r < ranks.size(); ++r)
        for (const bench::Series& series : ranks[r].series)
            if (merged.find_series(series.name) == nullptr && !series.samples.empty()) {
                bench::Series own = series;
                own.name = rank_series_name(series.name, r);
                per_rank_series.push_back(std::move(own));
            }
    merged.series.insert(merged.series.end(), per_rank_series.begin(), per_rank_series.end());
    for (bench::Scalar& scalar : merged.scalars) {
        if (scalar.name.find("peak_rss") == std::string::npos) continue;
        for (const bench::ScenarioResult& rank : ranks)
            if (const bench::Scalar* own = rank.find_scalar(scalar.name); own != nullptr && own->unit == scalar.unit)
                scalar.value = std::max(scalar.value, own->value);
    }
    for (std::size_t r = 1; r < ranks.size(); ++r)
        for (const std::string& warning : ranks[r].warnings)
            if (std::find(ranks.front().warnings.begin(), ranks.front().warnings.end(), warning) ==
                ranks.front().warnings.end())
                merged.warnings.push_back("rank " + std::to_string(r) + ": " + warning);
    return merged;
}

}  // namespace benchhost
