#include "analysis/stragglers.hpp"

#include <algorithm>
#include <cstdlib>

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

namespace {

// The ratio ("5.31x") at the start of `text`, and what follows it; NaN when there is none.
double ratio_at(std::string_view& text) {
    const std::string copy(text.substr(0, 32));
    char* end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str() || *end != 'x') return NAN;
    text.remove_prefix(static_cast<std::size_t>(end - copy.c_str()) + 1);
    return value;
}

}  // namespace

std::optional<NamedStraggler> parse_straggler_warning(std::string_view warning) {
    constexpr std::string_view rank_word = "rank ", in = " is a straggler in ", median = ": its median ", is = " is ",
                               interval = " (95% interval ", to = " to ";
    if (!warning.starts_with(rank_word)) return std::nullopt;
    std::string_view rest = warning.substr(rank_word.size());
    NamedStraggler named;
    int rank = 0;
    std::size_t digits = 0;
    while (digits < rest.size() && digits < 9 && rest[digits] >= '0' && rest[digits] <= '9')
        rank = rank * 10 + (rest[digits++] - '0');
    if (digits == 0 || !rest.substr(digits).starts_with(in)) return std::nullopt;
    named.straggler.rank = rank;
    rest.remove_prefix(digits + in.size());
    const std::size_t series_end = rest.rfind(median);
    if (series_end == std::string_view::npos || series_end == 0) return std::nullopt;
    named.series = std::string(rest.substr(0, series_end));
    rest.remove_prefix(series_end + median.size());
    if (const std::size_t at = rest.find(is); at != std::string_view::npos) rest.remove_prefix(at + is.size());
    else return std::nullopt;
    named.straggler.ratio = ratio_at(rest);
    if (const std::size_t at = rest.find(interval); at != std::string_view::npos) {
        rest.remove_prefix(at + interval.size());
        named.straggler.interval.low = ratio_at(rest);
        if (rest.starts_with(to)) {
            rest.remove_prefix(to.size());
            named.straggler.interval.high = ratio_at(rest);
        }
    }
    if (!std::isfinite(named.straggler.ratio)) return std::nullopt;
    return named;
}

}  // namespace benchhost
