// The block length of the circular block bootstrap, chosen from the data (Politis and
// White 2004, with the correction of Patton, Politis and White 2009), as
// block_bootstrap.hpp describes. The notation follows the papers.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <bench/internal/statistics/block_bootstrap.hpp>

namespace bench {

namespace {

/// The ranks of `samples` (1-based; ties get the mean of their ranks), centred on 0.
std::vector<double> centred_ranks(std::span<const double> samples) {
    const std::size_t n = samples.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return samples[a] < samples[b]; });
    std::vector<double> ranks(n);
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j + 1 < n && samples[order[j + 1]] == samples[order[i]]) ++j;
        const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
        for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
        i = j + 1;
    }
    const double mean = (static_cast<double>(n) + 1) / 2;
    for (double& r : ranks) r -= mean;
    return ranks;
}

/// The autocovariance of the centred `x` at `lag` (divided by n, as the papers do).
double autocovariance(const std::vector<double>& x, std::size_t lag) {
    double sum = 0;
    for (std::size_t t = 0; t + lag < x.size(); ++t) sum += x[t] * x[t + lag];
    return sum / static_cast<double>(x.size());
}

/// The flat-top lag window: 1 up to half the bandwidth, falling linearly to 0 at it.
double flat_top(double t) {
    t = std::abs(t);
    if (t <= 0.5) return 1;
    if (t <= 1) return 2 * (1 - t);
    return 0;
}

}  // namespace

std::size_t block_length(std::span<const double> samples) {
    const std::size_t n = samples.size();
    if (n < 8) return 1;
    const double nd = static_cast<double>(n);
    const std::vector<double> x = centred_ranks(samples);
    const double variance = autocovariance(x, 0);
    if (!(variance > 0)) return 1;  // all equal

    // m-hat: the first lag after which kn correlations in a row are insignificant.
    const auto kn = static_cast<std::size_t>(std::max(5.0, std::ceil(std::sqrt(std::log10(nd)))));
    const auto m_max = static_cast<std::size_t>(std::ceil(std::sqrt(nd))) + kn;
    const double critical = 2 * std::sqrt(std::log10(nd) / nd);
    std::vector<double> rho(m_max + 1, 0.0);
    for (std::size_t k = 1; k <= m_max && k < n; ++k) rho[k] = autocovariance(x, k) / variance;
    std::size_t m_hat = m_max;
    for (std::size_t m = 0; m + kn <= m_max; ++m) {
        bool insignificant = true;
        for (std::size_t k = 1; k <= kn && insignificant; ++k) insignificant = std::abs(rho[m + k]) < critical;
        if (insignificant) {
            m_hat = m;
            break;
        }
    }
    const std::size_t bandwidth = std::min(2 * std::max<std::size_t>(m_hat, 1), m_max);

    // The spectral density at 0 (g) and its weighted counterpart (G), flat-top windowed.
    double g = variance, big_g = 0;
    for (std::size_t k = 1; k <= bandwidth && k < n; ++k) {
        const double weighted =
            flat_top(static_cast<double>(k) / static_cast<double>(bandwidth)) * autocovariance(x, k);
        g += 2 * weighted;
        big_g += 2 * static_cast<double>(k) * weighted;
    }
    const double d_circular = 4.0 / 3.0 * g * g;
    if (!(d_circular > 0)) return 1;
    const double optimal = std::cbrt(2 * big_g * big_g / d_circular) * std::cbrt(nd);
    const double most = std::ceil(std::min(3 * std::sqrt(nd), nd / 3));
    if (!std::isfinite(optimal)) return 1;
    return static_cast<std::size_t>(std::clamp(std::round(optimal), 1.0, most));
}

}  // namespace bench
