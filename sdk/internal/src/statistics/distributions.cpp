#include <bench/internal/statistics/distributions.hpp>

#include <algorithm>
#include <cmath>

namespace bench {

namespace {

/// Regularized incomplete beta function I_x(a, b), by its continued fraction (modified
/// Lentz), converging fast for x < (a + 1) / (a + b + 2); the symmetry
/// I_x(a, b) = 1 - I_{1-x}(b, a) covers the rest.
double incomplete_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(b, a, 1 - x);
    const double front =
        std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x)) / a;
    constexpr double tiny = 1e-300;
    double f = 1, c = 1, d = 0;
    for (int i = 0; i <= 400; ++i) {
        const int m = i / 2;
        double numerator;
        if (i == 0) numerator = 1;
        else if (i % 2 == 0) numerator = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
        else numerator = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + numerator * d;
        if (std::abs(d) < tiny) d = tiny;
        d = 1 / d;
        c = 1 + numerator / c;
        if (std::abs(c) < tiny) c = tiny;
        const double cd = c * d;
        f *= cd;
        if (std::abs(1 - cd) < 1e-12) break;
    }
    return front * (f - 1);
}

}  // namespace

double student_t_cdf(double t, double dof) {
    const double tail = 0.5 * incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
    return t >= 0 ? 1 - tail : tail;
}

namespace {

/// Smallest-error root of a monotonically increasing `f` on [low, high] by bisection.
template <class F>
double solve_increasing(F&& f, double target, double low, double high) {
    for (int i = 0; i < 200 && high - low > 1e-12 * std::max(1.0, std::abs(high)); ++i) {
        const double mid = low + (high - low) / 2;
        (f(mid) < target ? low : high) = mid;
    }
    return low + (high - low) / 2;
}

}  // namespace

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double student_t_quantile(double p, double dof) {
    return solve_increasing([&](double x) { return student_t_cdf(x, dof); }, p, 0, 1e7);
}

}  // namespace bench
