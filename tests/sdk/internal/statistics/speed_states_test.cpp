// Speed states: stretches of samples at distinct levels over time, as when the machine's
// speed flips for seconds at a time.
#include <bench/internal/statistics/speed_states.hpp>

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

/// `pattern` gives, stretch by stretch, its level and its length in samples; 2% noise;
/// a sample every 5 ms.
struct Series {
    std::vector<double> samples, times;
};
Series stretches(const std::vector<std::pair<double, int>>& pattern, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 0.02);
    Series s;
    for (const auto& [level, length] : pattern)
        for (int i = 0; i < length; ++i) {
            s.samples.push_back(level * (1 + noise(rng)));
            s.times.push_back(0.005 * static_cast<double>(s.times.size() + 1));
        }
    return s;
}

TEST(SpeedStates, FindsTwoStatesAndHowLongEachLasted) {
    const Series s = stretches({{4.0, 120}, {6.8, 80}, {4.0, 100}}, 1);
    const bench::SpeedStates states = bench::speed_states(s.samples, s.times);
    ASSERT_TRUE(states.distinct());
    ASSERT_EQ(states.states.size(), 2u);
    EXPECT_NEAR(states.states[0].median, 4.0, 0.05);
    EXPECT_NEAR(states.states[1].median, 6.8, 0.1);
    EXPECT_EQ(states.states[0].stretches, 2u);
    EXPECT_EQ(states.states[1].stretches, 1u);
    EXPECT_NEAR(static_cast<double>(states.states[1].samples), 80, 10);
    EXPECT_NEAR(states.states[0].seconds + states.states[1].seconds, 1.5, 0.01);
    EXPECT_NEAR(states.states[1].seconds, 0.4, 0.05);
    EXPECT_NEAR(states.span_s, 1.495, 1e-9);
}

TEST(SpeedStates, NoneInASteadySeries) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        const Series s = stretches({{4.0, 300}}, seed);
        EXPECT_FALSE(bench::speed_states(s.samples, s.times).distinct()) << "seed " << seed;
    }
}

TEST(SpeedStates, LevelsCloserThanTheBarAreOneState) {
    const Series s = stretches({{4.0, 100}, {4.2, 100}, {4.0, 100}}, 2);  // 5% apart
    EXPECT_FALSE(bench::speed_states(s.samples, s.times).distinct());
}

TEST(SpeedStates, WithoutTimesDurationsAreUnknown) {
    const Series s = stretches({{4.0, 100}, {6.0, 100}}, 3);
    const bench::SpeedStates states = bench::speed_states(s.samples, {});
    ASSERT_TRUE(states.distinct());
    EXPECT_TRUE(std::isnan(states.states[0].seconds));
    EXPECT_TRUE(std::isnan(states.span_s));
}

TEST(SpeedStates, TooFewSamplesSayNothing) {
    const Series s = stretches({{4.0, 10}, {8.0, 10}}, 4);
    EXPECT_FALSE(bench::speed_states(s.samples, s.times).distinct());
}

}  // namespace
