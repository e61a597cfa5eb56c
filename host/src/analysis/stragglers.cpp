#include "analysis/stragglers.hpp"

#include <algorithm>

#include <bench/statistics.hpp>

#include "util/text_table.hpp"

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

std::string straggler_warning(std::string_view series, std::string_view unit, const Straggler& straggler) {
    return "rank " + std::to_string(straggler.rank) + " is a straggler in " + std::string(series) + ": its median " +
           format_figure(straggler.median, unit) + " is " + format_ratio(straggler.ratio) + " the other ranks' " +
           format_figure(straggler.others_median, unit) + " (95% interval " + format_ratio(straggler.interval.low) +
           " to " + format_ratio(straggler.interval.high) + ")";
}

}  // namespace benchhost
