// The intervals over rounds: on synthetic runs whose between-round and within-round
// spreads are known, the 95% intervals must cover the true ratio 90-99% of the time
// over 200 seeds; the within-run interval alone must not (that is why these exist).
#include <bench/internal/statistics/round_bootstrap.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

namespace {

/// A side measured in `rounds` rounds of `samples` samples: each round has its own
/// factor exp(N(0, between)) (the moment's load), each sample exp(N(0, within)) around
/// it, and the whole side is `scale` times a true time of 10 ms.
bench::RoundSamples synthetic_side(std::mt19937_64& rng, int rounds, int samples, double between, double within,
                                   double scale) {
    std::normal_distribution<double> normal;
    bench::RoundSamples out(static_cast<std::size_t>(rounds));
    for (auto& round : out) {
        const double moment = std::exp(between * normal(rng));
        for (int i = 0; i < samples; ++i) round.push_back(10.0 * scale * moment * std::exp(within * normal(rng)));
    }
    return out;
}

std::vector<double> pooled(const bench::RoundSamples& rounds) {
    std::vector<double> out;
    for (const auto& round : rounds) out.insert(out.end(), round.begin(), round.end());
    return out;
}

struct Coverage {
    int covered = 0, valid = 0;
};

Coverage hierarchical_coverage(int rounds, int samples, double between, double within, double true_ratio) {
    Coverage c;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        std::mt19937_64 rng(seed);
        const auto base = synthetic_side(rng, rounds, samples, between, within, 1.0);
        const auto next = synthetic_side(rng, rounds, samples, between, within, true_ratio);
        bench::BootstrapOptions options;
        options.seed = seed;
        const bench::Interval ci = bench::hierarchical_ratio_interval(next, base, options);
        c.valid += ci.valid();
        c.covered += ci.contains(true_ratio);
    }
    return c;
}

TEST(RoundBootstrap, HierarchicalIntervalCoversTheTrueRatio) {
    // Between-round spread three times the within-round one: the case of a busy machine.
    const Coverage c = hierarchical_coverage(/*rounds=*/10, /*samples=*/20, /*between=*/0.06, /*within=*/0.02, 1.1);
    EXPECT_EQ(c.valid, 200);
    EXPECT_GE(c.covered, 180) << "coverage " << c.covered / 2.0 << "%";
    EXPECT_LE(c.covered, 198) << "coverage " << c.covered / 2.0 << "%";
}

TEST(RoundBootstrap, HierarchicalIntervalCoversWithFewRounds) {
    // Five rounds a side: the expansion for few rounds errs wide (98.5% here, where the
    // plain percentile interval covered 92.5%), within the bounds.
    const Coverage c = hierarchical_coverage(/*rounds=*/5, /*samples=*/30, /*between=*/0.05, /*within=*/0.03, 1.0);
    EXPECT_GE(c.covered, 180) << "coverage " << c.covered / 2.0 << "%";
    EXPECT_LE(c.covered, 198) << "coverage " << c.covered / 2.0 << "%";
}

TEST(RoundBootstrap, TheWithinRunIntervalAloneIsOverconfident) {
    // The same data judged by the samples alone (all rounds pooled as if independent):
    // far below 95%. This is the false alarm the round intervals prevent.
    int covered = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        std::mt19937_64 rng(seed);
        const auto base = synthetic_side(rng, 10, 20, 0.06, 0.02, 1.0);
        const auto next = synthetic_side(rng, 10, 20, 0.06, 0.02, 1.1);
        bench::BootstrapOptions options;
        options.seed = seed;
        covered += bench::bootstrap_ratio_interval(pooled(next), pooled(base), options).contains(1.1);
    }
    EXPECT_LT(covered, 170) << "coverage " << covered / 2.0 << "%";
}

TEST(RoundBootstrap, PairedIntervalCoversTheTrueRatio) {
    // A/B pairs: the pair's moment is shared by both sides (it cancels), each side adds
    // its own noise.
    int covered = 0;
    std::normal_distribution<double> normal;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        std::mt19937_64 rng(seed);
        std::vector<double> a, b;
        for (int pair = 0; pair < 8; ++pair) {
            const double moment = std::exp(0.1 * normal(rng));
            a.push_back(10 * moment * std::exp(0.02 * normal(rng)));
            b.push_back(10 * 1.05 * moment * std::exp(0.02 * normal(rng)));
        }
        const bench::Interval ci = bench::paired_ratio_interval(a, b);
        ASSERT_TRUE(ci.valid());
        EXPECT_TRUE(ci.contains(bench::paired_ratio(a, b)));
        covered += ci.contains(1.05);
    }
    EXPECT_GE(covered, 180) << "coverage " << covered / 2.0 << "%";
    EXPECT_LE(covered, 198) << "coverage " << covered / 2.0 << "%";
}

TEST(RoundBootstrap, PairedIntervalSeparatesAFivePerCentChangeTheMomentsWouldHide) {
    // Moments 10% apart, pairs sharing them: a 5% change is still found.
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal;
    std::vector<double> a, b;
    for (int pair = 0; pair < 10; ++pair) {
        const double moment = std::exp(0.1 * normal(rng));
        a.push_back(10 * moment * std::exp(0.01 * normal(rng)));
        b.push_back(10 * 1.05 * moment * std::exp(0.01 * normal(rng)));
    }
    const bench::Interval ci = bench::paired_ratio_interval(a, b);
    EXPECT_GT(ci.low, 1.02);
    EXPECT_LT(ci.high, 1.08);
}

TEST(RoundBootstrap, ThePairedIntervalIsWilcoxonsAndNeedsSixPairsAt95) {
    EXPECT_EQ(bench::fewest_pairs(0.95), 6u);
    EXPECT_EQ(bench::fewest_pairs(0.99), 8u);
    // The signed-rank tables' critical values: n = 6: 0 (T <= 0 rejects at 2.5% a side),
    // n = 8: 3, n = 10: 8, n = 20: 52; c counts the sums up to them.
    EXPECT_EQ(bench::signed_rank_lower_count(5, 0.95), 0u);
    EXPECT_EQ(bench::signed_rank_lower_count(6, 0.95), 1u);
    EXPECT_EQ(bench::signed_rank_lower_count(8, 0.95), 4u);
    EXPECT_EQ(bench::signed_rank_lower_count(10, 0.95), 9u);
    EXPECT_EQ(bench::signed_rank_lower_count(20, 0.95), 53u);
    const std::vector<double> base = {10, 10, 10, 10, 10, 10};
    const std::vector<double> next = {10.1, 10.4, 10.2, 10.6, 10.3, 10.5};
    EXPECT_FALSE(bench::paired_ratio_interval(std::span(base).first(5), std::span(next).first(5)).valid());
    const bench::Interval six = bench::paired_ratio_interval(base, next);
    EXPECT_NEAR(six.low, 1.01, 1e-9);  // six pairs: the smallest and largest ratio
    EXPECT_NEAR(six.high, 1.06, 1e-9);
}

TEST(RoundBootstrap, AStalledRoundMovesThePairedRatioLittle) {
    // One base round 500 times slower than the others (a stalled machine): the
    // Hodges-Lehmann ratio stays near the other pairs', where their geometric mean
    // would be 0.35.
    const std::vector<double> base = {10, 10, 10, 10, 10, 5000, 10, 10};
    const std::vector<double> next = {10.5, 10.4, 10.6, 10.5, 10.3, 10.5, 10.6, 10.4};
    EXPECT_NEAR(bench::paired_ratio(base, next), 1.05, 0.01);
    const bench::Interval ci = bench::paired_ratio_interval(base, next);
    EXPECT_LT(ci.low, 1.04);  // the stalled pair widens it...
    EXPECT_GT(ci.high, 1.05);  // ...around the others
}

TEST(RoundBootstrap, ThePairedIntervalHoldsItsLevelUnderHeavyTailedNoise) {
    // The same build: pair log ratios symmetric around 0 but heavy-tailed (Student's t
    // with 2 degrees of freedom, stalls and bursts), 8 to 12 pairs: the 95% interval
    // leaves out no change at most 5% of the time (exactly, for symmetric noise; the
    // discreteness makes it about 4%).
    std::mt19937_64 rng(11);
    std::student_t_distribution<double> heavy(2);
    int excluded = 0;
    const int trials = 2000;
    for (int trial = 0; trial < trials; ++trial) {
        std::vector<double> a, b;
        for (int pair = 0; pair < 8 + trial % 5; ++pair) {
            a.push_back(10);
            b.push_back(10 * std::exp(0.03 * heavy(rng)));
        }
        excluded += !bench::paired_ratio_interval(a, b).contains(1.0);
    }
    EXPECT_LE(excluded, trials * 55 / 1000) << excluded << " of " << trials;
}

TEST(RoundBootstrap, ExpandedTailMatchesStudentsT) {
    // n = 10: sqrt(10/9) * t_9(0.975) = 1.0541 * 2.2622 = 2.3846; Phi(-2.3846) = 0.00855.
    EXPECT_NEAR(bench::expanded_tail(10, 0.95), 0.00855, 0.0002);
    // n = 3: sqrt(3/2) * t_2(0.975) = 1.2247 * 4.3027 = 5.2697; Phi(-5.27) = 6.8e-8.
    EXPECT_NEAR(bench::expanded_tail(3, 0.95), 6.8e-8, 0.5e-8);
    // Many rounds: the plain percentile interval.
    EXPECT_NEAR(bench::expanded_tail(100000, 0.95), 0.025, 0.0002);
    // n = 30, 90%: sqrt(30/29) * t_29(0.95) = 1.0171 * 1.6991 = 1.7281; Phi(-1.7281) = 0.0420.
    EXPECT_NEAR(bench::expanded_tail(30, 0.90), 0.0420, 0.0003);
    EXPECT_NEAR(bench::expanded_tail(1, 0.95), 0.025, 1e-12);  // nothing to expand with
}

TEST(RoundBootstrap, OneRoundSaysNothingAboutTheSpreadBetweenRounds) {
    const bench::RoundSamples one = {{1, 2, 3}};
    const bench::RoundSamples two = {{1, 2, 3}, {2, 3, 4}};
    EXPECT_FALSE(bench::hierarchical_ratio_interval(one, two).valid());
    EXPECT_FALSE(bench::hierarchical_ratio_interval(two, one).valid());
    // Empty rounds and non-finite samples are left out, not counted as rounds.
    const bench::RoundSamples padded = {{1, 2, 3}, {}, {NAN, INFINITY}};
    EXPECT_FALSE(bench::hierarchical_ratio_interval(padded, two).valid());
    EXPECT_TRUE(bench::hierarchical_ratio_interval(two, two).valid());
    // Pairs: at least two usable ones.
    EXPECT_FALSE(bench::paired_ratio_interval(std::vector<double>{1, 0}, std::vector<double>{1, 2}).valid());
    EXPECT_TRUE(std::isnan(bench::paired_ratio({}, {})));
    EXPECT_DOUBLE_EQ(bench::paired_ratio(std::vector<double>{1, 4}, std::vector<double>{2, 2}), 1.0);  // sqrt(2 * 0.5)
}

TEST(RoundBootstrap, TheSameInputGivesTheSameInterval) {
    std::mt19937_64 rng(3);
    const auto a = synthetic_side(rng, 4, 10, 0.05, 0.02, 1.0);
    const auto b = synthetic_side(rng, 4, 10, 0.05, 0.02, 1.0);
    const auto first = bench::hierarchical_ratio_interval(a, b);
    const auto second = bench::hierarchical_ratio_interval(a, b);
    EXPECT_EQ(first.low, second.low);
    EXPECT_EQ(first.high, second.high);
}

}  // namespace
