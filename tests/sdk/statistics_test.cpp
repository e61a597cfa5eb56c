#include <bench/statistics.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace {

TEST(Statistics, KnownValuesOfOneToFive) {
    const std::vector<double> samples = {5, 1, 4, 2, 3};  // order must not matter
    const bench::Summary s = bench::summarize(samples);
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.mean, 3.0);
    EXPECT_DOUBLE_EQ(s.median, 3.0);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 5.0);
    EXPECT_DOUBLE_EQ(s.std, std::sqrt(2.5));  // sample standard deviation
    EXPECT_DOUBLE_EQ(s.p25, 2.0);
    EXPECT_DOUBLE_EQ(s.p75, 4.0);
    EXPECT_DOUBLE_EQ(s.p90, 4.6);  // NumPy: np.percentile([1,2,3,4,5], 90) == 4.6
    EXPECT_DOUBLE_EQ(s.p95, 4.8);
    EXPECT_DOUBLE_EQ(s.p99, 4.96);
}

TEST(Statistics, EvenCountMedianInterpolates) {
    const std::vector<double> samples = {1, 2, 3, 10};
    const bench::Summary s = bench::summarize(samples);
    EXPECT_DOUBLE_EQ(s.median, 2.5);
    EXPECT_DOUBLE_EQ(s.mean, 4.0);
    EXPECT_DOUBLE_EQ(s.p25, 1.75);  // np.percentile([1,2,3,10], 25)
    EXPECT_DOUBLE_EQ(s.p75, 4.75);
}

TEST(Statistics, OneHundredSamplesMatchNumPy) {
    std::vector<double> samples;
    for (int i = 1; i <= 100; ++i) samples.push_back(i);
    const bench::Summary s = bench::summarize(samples);
    EXPECT_DOUBLE_EQ(s.median, 50.5);
    EXPECT_DOUBLE_EQ(s.p90, 90.1);  // np.percentile(range(1, 101), 90)
    EXPECT_DOUBLE_EQ(s.p99, 99.01);
    EXPECT_NEAR(s.std, 29.011491975882016, 1e-12);  // np.std(..., ddof=1)
}

TEST(Statistics, SingleSampleHasZeroSpread) {
    const std::vector<double> samples = {7.5};
    const bench::Summary s = bench::summarize(samples);
    EXPECT_EQ(s.count, 1u);
    EXPECT_DOUBLE_EQ(s.std, 0.0);
    EXPECT_DOUBLE_EQ(s.p99, 7.5);
    EXPECT_DOUBLE_EQ(s.min, 7.5);
}

TEST(Statistics, EmptyInputGivesNaN) {
    const bench::Summary s = bench::summarize({});
    EXPECT_EQ(s.count, 0u);
    EXPECT_TRUE(std::isnan(s.mean));
    EXPECT_TRUE(std::isnan(s.median));
    EXPECT_TRUE(std::isnan(s.std));
}

TEST(Statistics, PercentileClampsItsArgument) {
    const std::vector<double> sorted = {1, 2, 3};
    EXPECT_DOUBLE_EQ(bench::percentile_of_sorted(sorted, -5), 1.0);
    EXPECT_DOUBLE_EQ(bench::percentile_of_sorted(sorted, 150), 3.0);
}

}  // namespace

TEST(Summarize, LeavesOutSamplesThatAreNotFinite) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> samples = {nan, 4, inf, 2, nan, 3, -inf};
    const bench::Summary s = bench::summarize(samples);
    EXPECT_EQ(s.count, 3u);
    EXPECT_DOUBLE_EQ(s.median, 3);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_DOUBLE_EQ(s.min, 2);
    EXPECT_DOUBLE_EQ(s.max, 4);
    const bench::Summary none = bench::summarize(std::vector<double>{nan, inf});
    EXPECT_EQ(none.count, 0u);
    EXPECT_TRUE(std::isnan(none.median));
}
