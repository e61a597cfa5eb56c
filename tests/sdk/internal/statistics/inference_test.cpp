// The statistics a report draws conclusions from: outliers, bootstrap intervals, the
// Mann-Whitney U test, and a series' analysis. Expected values are from SciPy or worked
// by hand, as noted.
#include <bench/internal/statistics/bootstrap.hpp>
#include <bench/internal/statistics/hypothesis_test.hpp>
#include <bench/internal/statistics/outliers.hpp>
#include <bench/internal/statistics/series_analysis.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace {

std::vector<double> normal_samples(std::size_t n, double mean, double sd, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(mean, sd);
    std::vector<double> out(n);
    for (double& x : out) x = normal(rng);
    return out;
}

TEST(Outliers, TukeyFences) {
    // Quartiles (NumPy's linear method) 2.25 and 8.75, IQR 6.5: mild fences -7.5 and 18.5,
    // severe fences -17.25 and 28.25.
    const std::vector<double> sorted = {-20, -5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 30};
    const bench::OutlierCounts counts = bench::classify_outliers(sorted);
    EXPECT_EQ(counts.low_severe, 1u);  // -20
    EXPECT_EQ(counts.low_mild, 0u);  // -5 is inside -7.5
    EXPECT_EQ(counts.high_mild, 0u);  // 15 is inside 18.5
    EXPECT_EQ(counts.high_severe, 1u);  // 30
    EXPECT_EQ(counts.total(), 2u);

    const std::vector<double> mild = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17};  // quartiles 3.5, 8.5: fences 16 and 23.5
    const bench::OutlierCounts mild_counts = bench::classify_outliers(mild);
    EXPECT_EQ(mild_counts.high_mild, 1u);
    EXPECT_EQ(mild_counts.high_severe, 0u);
}

TEST(Outliers, TooFewSamplesHaveNone) {
    const std::vector<double> three = {1, 2, 1000};
    EXPECT_EQ(bench::classify_outliers(three).total(), 0u);
}

TEST(Bootstrap, SameSamplesGiveTheSameInterval) {
    const auto samples = normal_samples(100, 10, 1, 1);
    const bench::Interval a = bench::bootstrap_interval(samples, bench::Statistic::median);
    const bench::Interval b = bench::bootstrap_interval(samples, bench::Statistic::median);
    ASSERT_TRUE(a.valid());
    EXPECT_EQ(a.low, b.low);
    EXPECT_EQ(a.high, b.high);
}

TEST(Bootstrap, MeanIntervalHasTheWidthTheoryGives) {
    // The 95% interval of a mean of n normal samples is about 2 * 1.96 * sd / sqrt(n) wide.
    const auto samples = normal_samples(400, 50, 4, 2);
    const bench::Interval ci = bench::bootstrap_interval(samples, bench::Statistic::mean);
    const double expected = 2 * 1.96 * 4 / std::sqrt(400.0);
    EXPECT_NEAR(ci.high - ci.low, expected, 0.25 * expected);
    const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / 400;
    EXPECT_TRUE(ci.contains(mean));
}

TEST(Bootstrap, MedianIntervalCoversTheTrueMedianAboutNinetyFivePerCent) {
    // 200 independent experiments of 60 samples each from a skewed distribution whose
    // median is known (exponential, rate 1: ln 2). A 95% interval must cover it in about
    // 95% of them; the percentile bootstrap of a median runs a little narrow at n = 60.
    int covered = 0;
    for (unsigned trial = 0; trial < 200; ++trial) {
        std::mt19937_64 rng(1000 + trial);
        std::exponential_distribution<double> exponential(1.0);
        std::vector<double> samples(60);
        for (double& x : samples) x = exponential(rng);
        if (bench::bootstrap_interval(samples, bench::Statistic::median, {.resamples = 500}).contains(std::log(2.0)))
            ++covered;
    }
    EXPECT_GE(covered, 176);  // 88%
    EXPECT_LE(covered, 199);
}

TEST(Bootstrap, RatioIntervalOfTwiceAsSlow) {
    const auto fast = normal_samples(50, 10, 0.5, 3);
    const auto slow = normal_samples(50, 20, 1.0, 4);
    const bench::Interval ci = bench::bootstrap_ratio_interval(slow, fast);
    EXPECT_TRUE(ci.contains(2.0)) << ci.low << " " << ci.high;
    EXPECT_GT(ci.low, 1.9);
    EXPECT_LT(ci.high, 2.1);
}

TEST(Bootstrap, FewerThanTwoSamplesGiveNoInterval) {
    const std::vector<double> one = {1.0};
    EXPECT_FALSE(bench::bootstrap_interval(one, bench::Statistic::mean).valid());
    EXPECT_FALSE(bench::bootstrap_ratio_interval(one, one).valid());
}

TEST(Bootstrap, LongSeriesGetFewerResamples) {
    EXPECT_EQ(bench::bootstrap_resamples(100), 1000);
    EXPECT_EQ(bench::bootstrap_resamples(20'000), 1000);
    EXPECT_EQ(bench::bootstrap_resamples(40'000), 500);
    EXPECT_EQ(bench::bootstrap_resamples(10'000'000), 200);
}

TEST(Bootstrap, OrderStatisticIntervalOfTheMedian) {
    // n = 100: ranks 50 -+ 1.96 * 5 = 40.2 .. 59.8, widened to 40 and 61 (1-based).
    std::vector<double> sorted(100);
    std::iota(sorted.begin(), sorted.end(), 1.0);
    const bench::Interval ci = bench::median_interval_of_sorted(sorted);
    EXPECT_EQ(ci.low, 40.0);
    EXPECT_EQ(ci.high, 61.0);
}

TEST(MannWhitney, ScipyExactExample) {
    // scipy.stats.mannwhitneyu([19, 22, 16, 29, 24], [20, 11, 17, 12]): U = 17, p = 0.1111 (exact).
    const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
    const bench::MannWhitneyResult r = bench::mann_whitney_u(males, females);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 17);
    EXPECT_NEAR(r.p_value, 1.0 / 9.0, 1e-12);
}

TEST(MannWhitney, CompletelySeparatedSmallSets) {
    // Only 2 of the C(10, 5) = 252 arrangements are as extreme: p = 2 / 252.
    const std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
    const bench::MannWhitneyResult r = bench::mann_whitney_u(a, b);
    EXPECT_DOUBLE_EQ(r.u, 0);
    EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-12);
}

TEST(MannWhitney, NormalApproximationWithTies) {
    // Worked by hand: a = {1, 2, 2, 3}, b = {2, 3, 3, 4, 5}. Mid-ranks: 1 -> 1, 2 -> 3 (x3),
    // 3 -> 6 (x3), 4 -> 8, 5 -> 9. Rank sum of a = 1 + 3 + 3 + 6 = 13, U = 13 - 10 = 3.
    // Tie term: 2 * (27 - 3) = 48. Var = 20 / 12 * (10 - 48 / 72) = 15.556.
    // z = (|3 - 10| - 0.5) / 3.944 = 1.648, p = erfc(1.648 / sqrt 2) = 0.0993.
    const std::vector<double> a = {1, 2, 2, 3}, b = {2, 3, 3, 4, 5};
    const bench::MannWhitneyResult r = bench::mann_whitney_u(a, b);
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 3);
    EXPECT_NEAR(r.p_value, std::erfc(6.5 / std::sqrt(15.0 + 5.0 / 9.0) / std::sqrt(2.0)), 1e-12);
    EXPECT_NEAR(r.p_value, 0.0993, 5e-4);
}

TEST(MannWhitney, DetectsAShiftOfOnePerCentInLargeSamples) {
    const auto base = normal_samples(500, 100, 0.5, 5);
    const auto slower = normal_samples(500, 101, 0.5, 6);
    EXPECT_LT(bench::mann_whitney_u(base, slower).p_value, 1e-6);
    const auto same = normal_samples(500, 100, 0.5, 7);
    EXPECT_GT(bench::mann_whitney_u(base, same).p_value, 0.001);
}

TEST(MannWhitney, IdenticalOrEmptySetsAreNotDifferent) {
    const std::vector<double> constant(20, 3.0), empty;
    EXPECT_DOUBLE_EQ(bench::mann_whitney_u(constant, constant).p_value, 1.0);
    EXPECT_DOUBLE_EQ(bench::mann_whitney_u(constant, empty).p_value, 1.0);
}

TEST(SeriesAnalysis, StableSeries) {
    const auto samples = normal_samples(200, 10, 0.1, 8);
    const bench::SeriesAnalysis a = bench::analyze_series(samples);
    EXPECT_TRUE(a.stable) << a.instability;
    EXPECT_NEAR(a.cv, 0.01, 0.002);
    EXPECT_TRUE(a.median_ci.contains(a.summary.median));
    EXPECT_TRUE(a.mean_ci.contains(a.summary.mean));
    EXPECT_LT(a.median_ci.high - a.median_ci.low, 0.05);
}

TEST(SeriesAnalysis, UnstableSeriesSaysWhy) {
    const auto samples = normal_samples(200, 10, 2, 9);  // MdAPE about 0.674 * 2 / 10 = 13%
    const bench::SeriesAnalysis a = bench::analyze_series(samples);
    EXPECT_FALSE(a.stable);
    EXPECT_NEAR(a.mdape, 0.135, 0.03);
    EXPECT_NE(a.instability.find("unstable"), std::string::npos) << a.instability;
}

TEST(SeriesAnalysis, OutliersAreCountedNotDropped) {
    auto samples = normal_samples(100, 10, 0.1, 10);
    samples.push_back(50);
    const bench::SeriesAnalysis a = bench::analyze_series(samples);
    EXPECT_EQ(a.summary.count, 101u);
    EXPECT_EQ(a.outliers.high_severe, 1u);
    EXPECT_DOUBLE_EQ(a.summary.max, 50);
    EXPECT_TRUE(a.stable);  // one wild sample does not make a series unstable
}

}  // namespace
