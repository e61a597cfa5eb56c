// The straggler rule: a rank whose median is slower than the other ranks' beyond the
// interval is named, with by how much; ranks of equal work are not.
#include "analysis/stragglers.hpp"

#include "util/text_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <vector>

namespace {

using namespace benchhost;

/// `count` samples around `median` ms, each within +-`spread` of it (seeded).
std::vector<double> samples(double median, double spread, std::size_t count, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> jitter(-spread, spread);
    std::vector<double> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(median * (1 + jitter(random)));
    return out;
}

TEST(Stragglers, ARankSlowedOnPurposeIsNamedWithByHowMuch) {
    const std::vector<std::vector<double>> ranks = {samples(2.0, 0.1, 30, 1), samples(2.0, 0.1, 30, 2),
                                                    samples(3.0, 0.1, 30, 3), samples(2.0, 0.1, 30, 4)};
    const std::vector<Straggler> found = find_stragglers(ranks);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].rank, 2);
    EXPECT_NEAR(found[0].ratio, 1.5, 0.1);
    EXPECT_GT(found[0].interval.low, 1.3);
    EXPECT_LT(found[0].interval.high, 1.7);
    const std::string warning = straggler_warning("latency", "ms", found[0]);
    EXPECT_EQ(warning, "rank 2 is a straggler in latency: its median " + format_figure(found[0].median, "ms") + " is " +
                           format_ratio(found[0].ratio) + " the other ranks' " +
                           format_figure(found[0].others_median, "ms") + " (95% interval " +
                           format_ratio(found[0].interval.low) + " to " + format_ratio(found[0].interval.high) + ")");
    EXPECT_NE(warning.find(" ms is 1.4"), std::string::npos) << warning;
}

TEST(Stragglers, EqualRanksAreNotNamed) {
    // Same work, noisy samples: however many seeds, no rank is named.
    for (unsigned seed = 0; seed < 20; ++seed) {
        const std::vector<std::vector<double>> ranks = {samples(2.0, 0.2, 20, seed), samples(2.0, 0.2, 20, seed + 100)};
        EXPECT_TRUE(find_stragglers(ranks).empty()) << seed;
    }
    // A rank 3% slower is within the threshold, however clear.
    EXPECT_TRUE(find_stragglers({samples(2.0, 0.001, 50, 1), samples(2.06, 0.001, 50, 2)}).empty());
    // The faster rank is never a straggler.
    const std::vector<Straggler> one = find_stragglers({samples(4.0, 0.01, 20, 1), samples(2.0, 0.01, 20, 2)});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].rank, 0);
}

TEST(Stragglers, TooLittleToSayNamesNone) {
    EXPECT_TRUE(find_stragglers({samples(9.0, 0.01, 20, 1)}).empty());  // one rank
    EXPECT_TRUE(find_stragglers({{1.0, 1.0}, {5.0, 5.0}}).empty());  // two samples a rank
    EXPECT_TRUE(find_stragglers({}).empty());
}

}  // namespace

// The reports read the straggler back from its warning (the rule ran once, at the merge).
TEST(Stragglers, AWarningReadsBackAsTheStragglerItNames) {
    const std::vector<Straggler> found = find_stragglers({samples(2.0, 0.05, 30, 1), samples(5.0, 0.05, 30, 2)});
    ASSERT_EQ(found.size(), 1u);
    const std::optional<NamedStraggler> named =
        parse_straggler_warning(straggler_warning("latency.1MiB", "ms", found[0]));
    ASSERT_TRUE(named.has_value());
    EXPECT_EQ(named->series, "latency.1MiB");
    EXPECT_EQ(named->straggler.rank, 1);
    EXPECT_NEAR(named->straggler.ratio, found[0].ratio, 0.01 * found[0].ratio);  // three digits
    EXPECT_NEAR(named->straggler.interval.low, found[0].interval.low, 0.01 * found[0].interval.low);
    EXPECT_NEAR(named->straggler.interval.high, found[0].interval.high, 0.01 * found[0].interval.high);
    EXPECT_TRUE(std::isnan(named->straggler.median));

    const std::optional<NamedStraggler> twelve = parse_straggler_warning(
        "rank 12 is a straggler in step: its median 1.50 s is 12.3x the other ranks' 122 ms (95% interval 11.0x to "
        "13.9x)");
    ASSERT_TRUE(twelve.has_value());
    EXPECT_EQ(twelve->straggler.rank, 12);
    EXPECT_EQ(twelve->series, "step");
    EXPECT_DOUBLE_EQ(twelve->straggler.ratio, 12.3);
    EXPECT_DOUBLE_EQ(twelve->straggler.interval.low, 11.0);
    EXPECT_DOUBLE_EQ(twelve->straggler.interval.high, 13.9);

    // Other warnings, another rank's warning, and a warning cut short are not stragglers.
    EXPECT_FALSE(parse_straggler_warning("rank 1: load average 3.2 on 2 CPUs").has_value());
    EXPECT_FALSE(parse_straggler_warning("ranks shared CPUs").has_value());
    EXPECT_FALSE(parse_straggler_warning("rank 1 is a straggler in latency").has_value());
    EXPECT_FALSE(parse_straggler_warning("rank x is a straggler in latency: its median 2 ms is 3x").has_value());
}
