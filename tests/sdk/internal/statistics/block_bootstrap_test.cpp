// Intervals for samples correlated in time: the block length chosen from the data, and
// the coverage of the block bootstrap's interval against the plain one on series whose
// neighbouring samples share a state (an autoregressive one, and one that switches
// between a fast and a slow state as this VM does).
#include <bench/internal/statistics/block_bootstrap.hpp>
#include <bench/internal/statistics/series_analysis.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

std::vector<double> independent(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 1);
    std::vector<double> out(n);
    for (double& x : out) x = 1 + 0.03 * noise(rng);
    return out;
}

/// AR(1) with coefficient phi around 1, with a stationary sd of 3%: median 1.
std::vector<double> autoregressive(std::size_t n, double phi, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 1);
    std::vector<double> out(n);
    double x = noise(rng);
    for (double& y : out) {
        x = phi * x + std::sqrt(1 - phi * phi) * noise(rng);
        y = 1 + 0.03 * x;
    }
    return out;
}

/// A fast state (1.0) and a slow one (1.5), 3% noise in each; a fast sample turns slow
/// with probability 0.006 and a slow one fast with 0.014, so 70% of the time is fast and
/// a state lasts 70 to 170 samples on average. The stationary median lies in the fast
/// state, at its 0.5 / 0.7 quantile: 1 + 0.03 z(0.714) = 1.017.
std::vector<double> switching(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 1);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<double> out(n);
    bool slow = uniform(rng) < 0.3;
    for (double& y : out) {
        slow = slow ? uniform(rng) >= 0.014 : uniform(rng) < 0.006;
        y = (slow ? 1.5 : 1.0) * (1 + 0.03 * noise(rng));
    }
    return out;
}
constexpr double switching_median = 1.01698;

TEST(BlockLength, IndependentSamplesNeedNoBlocks) {
    std::vector<std::size_t> lengths;
    for (unsigned seed = 1; seed <= 40; ++seed) lengths.push_back(bench::block_length(independent(400, seed)));
    std::sort(lengths.begin(), lengths.end());
    EXPECT_EQ(lengths[lengths.size() / 2], 1u);
    EXPECT_LE(lengths.back(), 6u);
    EXPECT_EQ(bench::block_length(std::vector<double>{1, 2, 3}), 1u);  // too few to tell
    EXPECT_EQ(bench::block_length(std::vector<double>(50, 4.0)), 1u);  // constant
}

TEST(BlockLength, GrowsWithHowFarTheCorrelationReaches) {
    const std::size_t weak = bench::block_length(autoregressive(400, 0.5, 3));
    const std::size_t strong = bench::block_length(autoregressive(400, 0.9, 3));
    EXPECT_GE(weak, 2u);
    EXPECT_GT(strong, weak);
    EXPECT_LE(strong, 60u);  // min(3 sqrt(n), n / 3)
    EXPECT_GE(bench::block_length(switching(400, 3)), 10u);
}

TEST(BlockBootstrap, BlocksOfOneAreThePlainBootstrap) {
    const std::vector<double> samples = independent(120, 5);
    const std::vector<double> other = independent(90, 6);
    for (const bench::Statistic statistic : {bench::Statistic::median, bench::Statistic::mean}) {
        const bench::Interval plain = bench::bootstrap_interval(samples, statistic);
        const bench::Interval block = bench::block_bootstrap_interval(samples, statistic, 1);
        EXPECT_EQ(plain.low, block.low);
        EXPECT_EQ(plain.high, block.high);
    }
    const bench::Interval plain = bench::bootstrap_ratio_interval(samples, other);
    const bench::Interval block = bench::block_bootstrap_ratio_interval(samples, 1, other, 1);
    EXPECT_EQ(plain.low, block.low);
    EXPECT_EQ(plain.high, block.high);
}

/// How often the 95% interval of the median covers `truth`, over `seeds` series made by
/// `make`, with blocks chosen from the data and with blocks of 1.
template <class Make>
std::pair<double, double> coverage(Make make, double truth, unsigned seeds) {
    unsigned block = 0, plain = 0;
    bench::BootstrapOptions options;
    options.resamples = 400;
    for (unsigned seed = 1; seed <= seeds; ++seed) {
        const std::vector<double> x = make(seed);
        block += bench::block_bootstrap_interval(x, bench::Statistic::median, bench::block_length(x), options)
                     .contains(truth);
        plain += bench::bootstrap_interval(x, bench::Statistic::median, options).contains(truth);
    }
    return {static_cast<double>(block) / seeds, static_cast<double>(plain) / seeds};
}

TEST(BlockBootstrap, CoversTheMedianOfCorrelatedSamples) {
    // 100 seeds of 400 samples each (measured: blocks 0.89, plain 0.58 with NumPy's
    // generator; these are the test's own).
    const auto [block, plain] = coverage([](unsigned seed) { return autoregressive(400, 0.8, seed); }, 1.0, 100);
    EXPECT_GE(block, 0.82) << "plain " << plain;
    EXPECT_LE(plain, 0.72) << "block " << block;
}

TEST(BlockBootstrap, CoversFarMoreOftenWhenTheMachineSwitchesSpeed) {
    // Few switches in 400 samples: no interval of one series can see the whole mix,
    // but the block bootstrap knows that its stretches are few.
    const auto [block, plain] = coverage([](unsigned seed) { return switching(400, seed); }, switching_median, 100);
    EXPECT_GE(block, plain + 0.2) << "block " << block << ", plain " << plain;
    EXPECT_GE(block, 0.55);
}

TEST(BlockBootstrap, IndependentSamplesKeepTheirCoverage) {
    const auto [block, plain] = coverage([](unsigned seed) { return independent(400, seed); }, 1.0, 100);
    EXPECT_GE(block, 0.88);
    EXPECT_GE(plain, 0.88);
}

TEST(SeriesAnalysis, ReportsTheBlockItsIntervalsUse) {
    const bench::SeriesAnalysis a = bench::analyze_series(autoregressive(400, 0.9, 11));
    EXPECT_GT(a.block, 1u);
    EXPECT_EQ(a.block, bench::block_length(autoregressive(400, 0.9, 11)));
    const bench::SeriesAnalysis plain = bench::analyze_series(independent(400, 11));
    EXPECT_LT(plain.median_ci.high - plain.median_ci.low, a.median_ci.high - a.median_ci.low);
}

TEST(SeriesAnalysis, FrequentStallsMakeASeriesUnstable) {
    // 40 samples near 10 ms, 4 of them stalled at 50 ms: the MdAPE stays small, the CV
    // is about 120%.
    std::vector<double> samples = independent(40, 12);
    for (double& x : samples) x *= 10;
    for (const std::size_t i : {5u, 15u, 25u, 35u}) samples[i] = 50;
    const bench::SeriesAnalysis a = bench::analyze_series(samples);
    EXPECT_LT(a.mdape, bench::unstable_mdape);
    EXPECT_FALSE(a.stable);
    EXPECT_NE(a.instability.find("coefficient of variation"), std::string::npos) << a.instability;
    EXPECT_NE(a.instability.find("4 of 40"), std::string::npos) << a.instability;
}

}  // namespace
