#include <bench/internal/load/arrivals.hpp>

#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace bench {

namespace {

/// Uniform in (0, 1): 53 random bits, never 0 (a log of it follows).
double uniform_open(std::mt19937_64& rng) {
    return (static_cast<double>(rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/// Standard normal, by Box-Muller (one of the pair is used: simpler, and speed does
/// not matter for a few thousand arrivals).
double normal(std::mt19937_64& rng) {
    const double u = uniform_open(rng), v = uniform_open(rng);
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

/// Gamma with shape `k` and scale 1, by Marsaglia and Tsang (2000); for k < 1, from
/// shape k + 1 times U^(1/k).
double gamma(std::mt19937_64& rng, double k) {
    if (k == 1.0) return -std::log(uniform_open(rng));  // exponential: exact and cheap
    if (k < 1.0) return gamma(rng, k + 1.0) * std::pow(uniform_open(rng), 1.0 / k);
    const double d = k - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal(rng);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const double u = uniform_open(rng);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
}

}  // namespace

std::vector<double> arrival_times(double rate, std::size_t count, double burstiness, std::uint64_t seed) {
    if (!(rate > 0) || !std::isfinite(rate))
        throw std::invalid_argument("arrival rate must be above 0 per second, got " + std::to_string(rate));
    if (!(burstiness > 0) || !std::isfinite(burstiness))
        throw std::invalid_argument("burstiness (the gamma shape) must be above 0, got " + std::to_string(burstiness));
    std::mt19937_64 rng(seed);
    std::vector<double> gaps(count);
    for (double& gap : gaps) gap = gamma(rng, burstiness);
    const double total = std::accumulate(gaps.begin(), gaps.end(), 0.0);
    const double scale = total > 0 ? (static_cast<double>(count) / rate) / total : 0.0;
    std::vector<double> times(count);
    double t = 0;
    for (std::size_t i = 0; i < count; ++i) {
        t += gaps[i] * scale;
        times[i] = t;
    }
    return times;
}

}  // namespace bench
