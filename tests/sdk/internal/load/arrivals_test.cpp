// The arrival times of a server load: their rate, their dispersion (Poisson, gamma),
// and that a seed repeats them. Nothing here reads a clock.
#include <bench/internal/load/arrivals.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace {

std::vector<double> gaps_of(const std::vector<double>& times) {
    std::vector<double> gaps(times.size());
    std::adjacent_difference(times.begin(), times.end(), gaps.begin());
    return gaps;
}

double coefficient_of_variation(const std::vector<double>& values) {
    const double n = static_cast<double>(values.size());
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
    double squares = 0;
    for (const double v : values) squares += (v - mean) * (v - mean);
    return std::sqrt(squares / (n - 1)) / mean;
}

TEST(Arrivals, TheRunArrivesAtExactlyTheTargetRateInIncreasingOrder) {
    for (const double shape : {1.0, 0.25, 4.0}) {
        const std::vector<double> times = bench::arrival_times(250.0, 1000, shape, 7);
        ASSERT_EQ(times.size(), 1000u);
        EXPECT_NEAR(times.back(), 1000 / 250.0, 1e-9) << shape;  // 1000 arrivals in 4 s
        EXPECT_GT(times.front(), 0.0);
        // Never earlier than the one before; at shape 0.25 a gap may be too small for a double.
        for (std::size_t i = 1; i < times.size(); ++i) ASSERT_GE(times[i], times[i - 1]) << i;
    }
}

TEST(Arrivals, ASeedRepeatsTheTimesAndAnotherSeedDoesNot) {
    EXPECT_EQ(bench::arrival_times(100, 500, 1.0, 42), bench::arrival_times(100, 500, 1.0, 42));
    EXPECT_EQ(bench::arrival_times(100, 500, 0.5, 42), bench::arrival_times(100, 500, 0.5, 42));
    EXPECT_NE(bench::arrival_times(100, 500, 1.0, 42), bench::arrival_times(100, 500, 1.0, 43));
    // The times of seed 1, as this generator drew them when it was written: the same on
    // every machine and standard library (std::mt19937_64 is specified to the bit; the
    // distributions are computed by arrivals.cpp).
    const double poisson_times[] = {0.92870277282996039, 1.8487576445288045, 2.2163023962094166, 4.0};
    const double gamma_times[] = {0.020921416158547198, 0.26879619371204644, 2.8110089787840327, 4.0};
    const std::vector<double> poisson = bench::arrival_times(1.0, 4, 1.0, 1);
    const std::vector<double> gamma = bench::arrival_times(1.0, 4, 0.5, 1);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_NEAR(poisson[i], poisson_times[i], 1e-12) << i;
        EXPECT_NEAR(gamma[i], gamma_times[i], 1e-12) << i;
    }
}

TEST(Arrivals, PoissonGapsAreExponentialAndCountsHaveTheDispersionOfPoisson) {
    const double rate = 1000;
    const std::size_t n = 200'000;
    const std::vector<double> times = bench::arrival_times(rate, n, 1.0, 3);
    const std::vector<double> gaps = gaps_of(times);
    // Exponential gaps: a coefficient of variation of 1, and P(gap > mean) = 1/e. With
    // 200,000 gaps the standard errors are about 0.3% and 0.1%.
    EXPECT_NEAR(coefficient_of_variation(gaps), 1.0, 0.02);
    const double mean = 1 / rate;
    const double longer =
        static_cast<double>(std::count_if(gaps.begin(), gaps.end(), [&](double g) { return g > mean; }));
    EXPECT_NEAR(longer / static_cast<double>(n), std::exp(-1.0), 0.005);
    // Counts in windows of 10 expected arrivals: variance / mean = 1 (20,000 windows:
    // a standard error of 1%).
    const double window = 10 / rate;
    std::vector<double> counts(static_cast<std::size_t>(times.back() / window), 0.0);
    for (const double t : times)
        if (const auto w = static_cast<std::size_t>(t / window); w < counts.size()) counts[w] += 1;
    const double count_mean = std::accumulate(counts.begin(), counts.end(), 0.0) / static_cast<double>(counts.size());
    const double cv = coefficient_of_variation(counts);
    EXPECT_NEAR(count_mean, 10.0, 0.05);
    EXPECT_NEAR(cv * cv * count_mean, 1.0, 0.05);
}

TEST(Arrivals, GammaGapsHaveTheDispersionOfTheirShape) {
    // Gamma with shape k: a coefficient of variation of 1/sqrt(k).
    for (const double shape : {0.25, 0.5, 2.0, 4.0}) {
        const std::vector<double> gaps = gaps_of(bench::arrival_times(100, 200'000, shape, 11));
        EXPECT_NEAR(coefficient_of_variation(gaps), 1 / std::sqrt(shape), 0.03 / std::sqrt(shape)) << shape;
    }
}

TEST(Arrivals, ARateOrShapeNotAboveZeroIsRefused) {
    EXPECT_THROW(bench::arrival_times(0, 10, 1, 1), std::invalid_argument);
    EXPECT_THROW(bench::arrival_times(-5, 10, 1, 1), std::invalid_argument);
    EXPECT_THROW(bench::arrival_times(10, 10, 0, 1), std::invalid_argument);
    EXPECT_THROW(bench::arrival_times(NAN, 10, 1, 1), std::invalid_argument);
}

}  // namespace
