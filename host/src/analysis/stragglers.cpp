#include "analysis/stragglers.hpp"

#include <algorithm>
#include <cmath>

#include <bench/statistics.hpp>

#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

double median_of(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    return bench::percentile_of_sorted(samples, 50);
}

}  // namespace

std::vector<Straggler> find_stragglers(const std::vector<std::vector<double>>& per_rank, double threshold) {
    std::vector<Straggler> found;
    if (per_rank.size() < 2) return found;
    for (const std::vector<double>& samples : per_rank)
        if (samples.size() < 3) return found;
    for (std::size_t rank = 0; rank < per_rank.size(); ++rank) {
        std::vector<double> others;
        for (std::size_t other = 0; other < per_rank.size(); ++other)
            if (other != rank) others.insert(others.end(), per_rank[other].begin(), per_rank[other].end());
        Straggler s;
        s.rank = static_cast<int>(rank);
        s.median = median_of(per_rank[rank]);
        s.others_median = median_of(others);
        if (!(s.others_median > 0)) continue;
        s.ratio = s.median / s.others_median;
        if (!(s.ratio > 1 + threshold)) continue;
        s.interval = bench::bootstrap_ratio_interval(per_rank[rank], others);
        if (s.interval.valid() && s.interval.low > 1 + threshold) found.push_back(s);
    }
    std::sort(found.begin(), found.end(), [](const Straggler& a, const Straggler& b) { return a.ratio > b.ratio; });
    return found;
}

std::string rank_series_name(std::string_view series, std::size_t rank) {
    return std::string(series) + ".rank" + std::to_string(rank);
}

std::pair<std::string, int> parse_rank_series_name(std::string_view name) {
    const std::size_t dot = name.rfind(".rank");
    if (dot == std::string_view::npos || dot == 0 || dot + 5 == name.size() || name.size() - dot > 5 + 6)
        return {"", -1};
    int rank = 0;
    for (const char c : name.substr(dot + 5)) {
        if (c < '0' || c > '9') return {"", -1};
        rank = rank * 10 + (c - '0');
    }
    return {std::string(name.substr(0, dot)), rank};
}

std::vector<Straggler> scenario_stragglers(const bench::ScenarioResult& result, int world_size) {
    std::vector<Straggler> stragglers;
    if (world_size < 2) return stragglers;
    for (const bench::Series& series : result.series) {
        if (parse_rank_series_name(series.name).second >= 0 || !is_time_unit(series.unit)) continue;
        std::vector<std::vector<double>> per_rank;
        for (int rank = 0; rank < world_size; ++rank) {
            const bench::Series* own = result.find_series(rank_series_name(series.name, rank));
            if (own == nullptr || own->unit != series.unit) break;
            std::vector<double> finite;
            for (const double sample : own->samples)
                if (std::isfinite(sample)) finite.push_back(sample);
            per_rank.push_back(std::move(finite));
        }
        if (per_rank.size() != static_cast<std::size_t>(world_size)) continue;
        for (Straggler& straggler : find_stragglers(per_rank)) {
            straggler.series = series.name;
            stragglers.push_back(std::move(straggler));
        }
    }
    return stragglers;
}

std::string straggler_warning(std::string_view unit, const Straggler& straggler) {
    return "rank " + std::to_string(straggler.rank) + " is a straggler in " + straggler.series + ": its median " +
           format_figure(straggler.median, unit) + " is " + format_ratio(straggler.ratio) + " the other ranks' " +
           format_figure(straggler.others_median, unit) + " (95% interval " + format_ratio(straggler.interval.low) +
           " to " + format_ratio(straggler.interval.high) + ")";
}

}  // namespace benchhost
