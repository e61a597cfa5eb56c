#include <bench/internal/statistics/hypothesis_test.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace bench {
namespace {

// Counts of each U in 0..m*n over all arrangements of m and n untied values: the
// coefficients of the Gaussian binomial [m+n choose m](q) = prod (1 - q^(n+i)) / (1 - q^i).
// Exact in doubles while the counts stay below 2^53 (the caller keeps m*n small).
std::vector<double> u_distribution(std::size_t m, std::size_t n) {
    const std::size_t top = m * n;
    std::vector<double> poly(top + 1, 0.0);
    poly[0] = 1;
    for (std::size_t i = 1; i <= m; ++i) {
        for (std::size_t k = top; k >= n + i && k <= top; --k) poly[k] -= poly[k - (n + i)];  // * (1 - q^(n+i))
        for (std::size_t k = i; k <= top; ++k) poly[k] += poly[k - i];  // / (1 - q^i)
    }
    return poly;
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
    MannWhitneyResult result;
    const std::size_t m = a.size(), n = b.size();
    if (m == 0 || n == 0) return result;

    // Mid-ranks of the pooled samples.
    std::vector<std::pair<double, bool>> pooled;  // value, from a
    pooled.reserve(m + n);
    for (const double x : a) pooled.emplace_back(x, true);
    for (const double x : b) pooled.emplace_back(x, false);
    std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    double rank_sum_a = 0, tie_term = 0;
    bool ties = false;
    for (std::size_t i = 0; i < pooled.size();) {
        std::size_t j = i;
        while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
        const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
        const double t = static_cast<double>(j - i);
        if (t > 1) {
            ties = true;
            tie_term += t * t * t - t;
        }
        for (std::size_t k = i; k < j; ++k)
            if (pooled[k].second) rank_sum_a += rank;
        i = j;
    }
    const double dm = static_cast<double>(m), dn = static_cast<double>(n);
    result.u = rank_sum_a - dm * (dm + 1) / 2;

    if (!ties && m * n <= 400) {
        const std::vector<double> counts = u_distribution(std::min(m, n), std::max(m, n));
        double total = 0, at_most = 0;
        const auto u = static_cast<std::size_t>(std::llround(result.u));
        for (std::size_t k = 0; k < counts.size(); ++k) {
            total += counts[k];
            if (k <= u) at_most += counts[k];
        }
        const double at_least = total - at_most + counts[u];
        result.p_value = std::min(1.0, 2 * std::min(at_most, at_least) / total);
        result.exact = true;
        return result;
    }

    const double big_n = dm + dn;
    const double variance = dm * dn / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
    if (variance <= 0) return result;  // every sample equal: no evidence of a difference
    const double deviation = std::max(0.0, std::abs(result.u - dm * dn / 2) - 0.5);
    result.p_value = std::min(1.0, std::erfc(deviation / std::sqrt(variance) / std::sqrt(2.0)));
    return result;
}

}  // namespace bench
