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
    Straggler named = found[0];
    named.series = "latency";
    const std::string warning = straggler_warning("ms", named);
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

// A scenario's stragglers, from each rank's series "<series>.rank<N>" that the merge of
// the ranks' results kept: what its statistics hold and every output reads.
TEST(Stragglers, AScenariosStragglersComeFromItsRanksSeries) {
    EXPECT_EQ(rank_series_name("latency.1MiB", 12), "latency.1MiB.rank12");
    EXPECT_EQ(parse_rank_series_name("latency.1MiB.rank12"), (std::pair<std::string, int>{"latency.1MiB", 12}));
    EXPECT_EQ(parse_rank_series_name("latency").second, -1);
    EXPECT_EQ(parse_rank_series_name("latency.rankx").second, -1);
    EXPECT_EQ(parse_rank_series_name(".rank1").second, -1);

    bench::ScenarioResult result;
    std::vector<double> fast = samples(2.0, 0.05, 30, 1), slow = samples(5.0, 0.05, 30, 2);
    slow[3] = NAN;  // left out, as the statistics leave it out
    result.series.push_back({"latency", "ms", slow, 1});
    result.series.push_back({"latency.rank0", "ms", fast, 1});
    result.series.push_back({"latency.rank1", "ms", slow, 1});
    result.series.push_back({"step", "ms", samples(3.0, 0.05, 30, 3), 1});
    result.series.push_back({"step.rank0", "ms", samples(3.0, 0.05, 30, 3), 1});
    result.series.push_back({"step.rank1", "ms", samples(3.0, 0.05, 30, 4), 1});
    result.series.push_back({"busbw", "GB/s", samples(1.0, 0.05, 30, 5), 1});  // a rate: no rank series
    result.series.push_back({"bytes.rank1", "B", samples(8.0, 0.05, 30, 6), 1});  // only rank 1's, not a time

    const std::vector<Straggler> found = scenario_stragglers(result, 2);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].series, "latency");
    EXPECT_EQ(found[0].rank, 1);
    EXPECT_NEAR(found[0].ratio, 2.5, 0.2);
    EXPECT_GT(found[0].interval.low, 2.0);
    EXPECT_NE(straggler_warning("ms", found[0]).find("rank 1 is a straggler in latency: its median 5."),
              std::string::npos)
        << straggler_warning("ms", found[0]);
    // The same samples, the same interval: the bootstrap is seeded.
    const std::vector<Straggler> again = scenario_stragglers(result, 2);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].interval.low, found[0].interval.low);
    EXPECT_EQ(again[0].interval.high, found[0].interval.high);

    // Not distributed, or a rank's series missing: none.
    EXPECT_TRUE(scenario_stragglers(result, 0).empty());
    EXPECT_TRUE(scenario_stragglers(result, 3).empty());  // no latency.rank2
}
