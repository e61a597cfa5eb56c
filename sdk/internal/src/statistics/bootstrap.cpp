#include <bench/internal/statistics/block_bootstrap.hpp>
#include <bench/internal/statistics/bootstrap.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <bench/statistics.hpp>

#include "resampling.hpp"

namespace bench {

namespace detail {

double median_in_place(std::vector<double>& values) {
    const std::size_t n = values.size();
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(values.begin(), middle, values.end());
    if (n % 2 == 1) return *middle;
    const double upper = *middle;
    const double lower = *std::max_element(values.begin(), middle);
    return lower + (upper - lower) / 2;
}

void resample(std::span<const double> samples, std::mt19937_64& rng, std::vector<double>& out) {
    resample_blocks(samples, 1, rng, out);
}

void resample_blocks(std::span<const double> samples, std::size_t block, std::mt19937_64& rng,
                     std::vector<double>& out) {
    const std::size_t n = samples.size();
    out.resize(n);
    if (block <= 1) {
        for (double& x : out) x = samples[random_index(rng, n)];
        return;
    }
    for (std::size_t i = 0; i < n;) {
        std::size_t at = random_index(rng, n);
        for (std::size_t j = 0; j < block && i < n; ++j, ++i) {
            out[i] = samples[at];
            at = at + 1 == n ? 0 : at + 1;  // circular: a block that runs off the end wraps to the start
        }
    }
}

Interval percentile_interval(std::vector<double>& estimates, double tail) {
    std::erase_if(estimates, [](double x) { return !std::isfinite(x); });
    if (estimates.empty()) return {};
    std::sort(estimates.begin(), estimates.end());
    const double p = std::clamp(tail, 0.0, 0.5) * 100;
    return {percentile_of_sorted(estimates, p), percentile_of_sorted(estimates, 100 - p)};
}

}  // namespace detail

namespace {

using detail::median_in_place;
using detail::resample_blocks;

double statistic_of(std::vector<double>& values, Statistic statistic) {
    if (statistic == Statistic::median) return median_in_place(values);
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

/// The tail of a plain percentile interval at `level`.
double plain_tail(double level) { return (1 - std::clamp(level, 0.0, 1.0)) / 2; }

}  // namespace

int bootstrap_resamples(std::size_t n, const BootstrapOptions& options) {
    constexpr double budget = 2e7;  // element draws per interval
    if (options.resamples < 1 || n == 0) return std::max(options.resamples, 0);
    const double affordable = budget / static_cast<double>(n);
    return std::min(options.resamples, std::max(200, static_cast<int>(affordable)));
}

Interval bootstrap_interval(std::span<const double> samples, Statistic statistic, const BootstrapOptions& options) {
    return block_bootstrap_interval(samples, statistic, 1, options);
}

Interval bootstrap_ratio_interval(std::span<const double> numerator, std::span<const double> denominator,
                                  const BootstrapOptions& options) {
    return block_bootstrap_ratio_interval(numerator, 1, denominator, 1, options);
}

Interval block_bootstrap_interval(std::span<const double> samples, Statistic statistic, std::size_t block,
                                  const BootstrapOptions& options) {
    if (samples.size() < 2 || options.resamples < 1) return {};
    const int resamples = bootstrap_resamples(samples.size(), options);
    std::mt19937_64 rng(options.seed);
    std::vector<double> estimates, drawn;
    estimates.reserve(static_cast<std::size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        resample_blocks(samples, block, rng, drawn);
        estimates.push_back(statistic_of(drawn, statistic));
    }
    return detail::percentile_interval(estimates, plain_tail(options.level));
}

Interval block_bootstrap_ratio_interval(std::span<const double> numerator, std::size_t numerator_block,
                                        std::span<const double> denominator, std::size_t denominator_block,
                                        const BootstrapOptions& options) {
    if (numerator.size() < 2 || denominator.size() < 2 || options.resamples < 1) return {};
    const int resamples = bootstrap_resamples(numerator.size() + denominator.size(), options);
    std::mt19937_64 rng(options.seed);
    std::vector<double> estimates, top, bottom;
    estimates.reserve(static_cast<std::size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        resample_blocks(numerator, numerator_block, rng, top);
        resample_blocks(denominator, denominator_block, rng, bottom);
        estimates.push_back(median_in_place(top) / median_in_place(bottom));
    }
    return detail::percentile_interval(estimates, plain_tail(options.level));
}

Interval median_interval_of_sorted(std::span<const double> sorted, double level) {
    const std::size_t n = sorted.size();
    if (n < 2) return {};
    // The rank of the median is Binomial(n, 1/2): n/2 +- z sqrt(n)/2 (1-based ranks).
    const double z = level >= 0.99 ? 2.576 : level >= 0.95 ? 1.96 : level >= 0.90 ? 1.645 : 1.0;
    const double half_width = z * std::sqrt(static_cast<double>(n)) / 2;
    const double centre = static_cast<double>(n) / 2;
    const auto lower_rank = static_cast<long long>(std::floor(centre - half_width));
    const auto upper_rank = static_cast<long long>(std::ceil(centre + half_width)) + 1;
    const auto clamp_index = [n](long long rank) {
        return static_cast<std::size_t>(std::clamp<long long>(rank - 1, 0, static_cast<long long>(n) - 1));
    };
    return {sorted[clamp_index(lower_rank)], sorted[clamp_index(upper_rank)]};
}

}  // namespace bench
