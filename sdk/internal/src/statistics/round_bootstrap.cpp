#include <bench/internal/statistics/round_bootstrap.hpp>

#include <bench/internal/statistics/distributions.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "resampling.hpp"

namespace bench {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// The finite values of `v`.
std::vector<double> finite(std::span<const double> v) {
    std::vector<double> out;
    for (const double x : v)
        if (std::isfinite(x)) out.push_back(x);
    return out;
}

/// The rounds with at least one finite sample, their non-finite samples left out.
RoundSamples usable_rounds(const RoundSamples& rounds) {
    RoundSamples out;
    for (const auto& round : rounds)
        if (auto kept = finite(round); !kept.empty()) out.push_back(std::move(kept));
    return out;
}

/// One hierarchical resample of a side: rounds with replacement, then samples within
/// each picked round; its pooled median.
double resampled_median(const RoundSamples& rounds, std::mt19937_64& rng, std::vector<double>& pooled,
                        std::vector<double>& drawn) {
    pooled.clear();
    for (std::size_t r = 0; r < rounds.size(); ++r) {
        detail::resample(rounds[detail::random_index(rng, rounds.size())], rng, drawn);
        pooled.insert(pooled.end(), drawn.begin(), drawn.end());
    }
    return detail::median_in_place(pooled);
}

/// The log ratios of the usable pairs.
std::vector<double> log_ratios(std::span<const double> base, std::span<const double> next) {
    std::vector<double> out;
    for (std::size_t i = 0; i < std::min(base.size(), next.size()); ++i) {
        const double r = std::log(next[i] / base[i]);
        if (base[i] > 0 && next[i] > 0 && std::isfinite(r)) out.push_back(r);
    }
    return out;
}

}  // namespace

double expanded_tail(std::size_t n, double level) {
    const double plain = (1 - std::clamp(level, 0.0, 1.0)) / 2;
    if (n < 2 || plain <= 0 || plain >= 0.5) return plain;
    const double dof = static_cast<double>(n - 1);
    const double t = student_t_quantile(1 - plain, dof);
    return normal_cdf(-std::sqrt(static_cast<double>(n) / dof) * t);
}

Interval hierarchical_ratio_interval(const RoundSamples& numerator, const RoundSamples& denominator,
                                     const BootstrapOptions& options) {
    const RoundSamples top = usable_rounds(numerator), bottom = usable_rounds(denominator);
    if (top.size() < 2 || bottom.size() < 2 || options.resamples < 1) return {};
    std::size_t samples = 0;
    for (const auto& side : {&top, &bottom})
        for (const auto& round : *side) samples += round.size();
    const int resamples = bootstrap_resamples(samples, options);
    std::mt19937_64 rng(options.seed);
    std::vector<double> estimates, pooled, drawn;
    estimates.reserve(static_cast<std::size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        const double a = resampled_median(top, rng, pooled, drawn);
        const double b = resampled_median(bottom, rng, pooled, drawn);
        estimates.push_back(a / b);
    }
    return detail::percentile_interval(estimates, expanded_tail(std::min(top.size(), bottom.size()), options.level));
}

namespace {

/// The means of every two of `logs` (each with itself too), sorted: n (n + 1) / 2 of them.
std::vector<double> walsh_averages(const std::vector<double>& logs) {
    std::vector<double> out;
    out.reserve(logs.size() * (logs.size() + 1) / 2);
    for (std::size_t i = 0; i < logs.size(); ++i)
        for (std::size_t j = i; j < logs.size(); ++j) out.push_back((logs[i] + logs[j]) / 2);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

double paired_ratio(std::span<const double> base_medians, std::span<const double> new_medians) {
    const std::vector<double> walsh = walsh_averages(log_ratios(base_medians, new_medians));
    if (walsh.empty()) return nan;
    const std::size_t m = walsh.size();
    return std::exp(m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2);
}

std::size_t signed_rank_lower_count(std::size_t n, double level) {
    // count[w]: the subsets of the ranks 1..n whose sum is w, of 2^n, each as likely
    // when the ratios' logs are symmetric around the true one.
    const std::size_t top = n * (n + 1) / 2;
    std::vector<double> count(top + 1, 0.0);
    count[0] = 1;
    for (std::size_t rank = 1; rank <= n; ++rank)
        for (std::size_t w = top; w >= rank; --w) count[w] += count[w - rank];
    const double tail = (1 - std::clamp(level, 0.0, 1.0)) / 2, total = std::ldexp(1.0, static_cast<int>(n));
    double below = 0;
    std::size_t c = 0;  // P(T < c) <= tail
    while (c <= top && (below + count[c]) / total <= tail) below += count[c++];
    return c;
}

std::size_t fewest_pairs(double level) {
    std::size_t n = 1;
    while (n < 64 && signed_rank_lower_count(n, level) == 0) ++n;
    return n;
}

Interval paired_ratio_interval(std::span<const double> base_medians, std::span<const double> new_medians,
                               double level) {
    const std::vector<double> logs = log_ratios(base_medians, new_medians);
    if (logs.size() < 2) return {};
    const std::size_t c = signed_rank_lower_count(logs.size(), level);
    if (c == 0) return {};  // too few pairs for any interval at this level
    const std::vector<double> walsh = walsh_averages(logs);
    return {std::exp(walsh[c - 1]), std::exp(walsh[walsh.size() - c])};
}

}  // namespace bench
