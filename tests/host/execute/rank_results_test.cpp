// A distributed scenario's result from its ranks' (execute/rank_results.hpp): the slowest
// rank's samples, each rank's kept, the rest rank 0's; the stragglers the statistics then
// name from each rank's samples.
#include "execute/rank_results.hpp"

#include "analysis/scenario_statistics.hpp"

#include <gtest/gtest.h>

namespace {

using namespace benchhost;

bench::ScenarioResult rank_result(std::vector<double> latency, std::vector<double> bandwidth, double peak) {
    bench::ScenarioResult result;
    result.series.push_back({"latency", "ms", std::move(latency), 1});
    result.series.push_back({"busbw", "GB/s", std::move(bandwidth), 1});
    result.series.push_back({"bytes", "B", {8, 8, 8}, 1});
    result.scalars.push_back({"peak_rss", peak, "MiB"});
    result.scalars.push_back({"first_call", peak, "ms"});
    return result;
}

TEST(RankResults, EachSampleIsTheSlowestRanksAndEveryRanksSamplesAreKept) {
    bench::ScenarioResult zero = rank_result({1, 5, 3}, {10, 2, 6}, 100);
    zero.info["framework"] = "PyTorch";
    zero.warnings = {"shared warning"};
    bench::ScenarioResult one = rank_result({2, 4, 3.5}, {9, 3, 5}, 150);
    one.warnings = {"shared warning", "rank one's own"};
    one.series.push_back({"extra", "count", {1, 2}, 1});
    const bench::ScenarioResult merged = merge_rank_results({zero, one});

    ASSERT_NE(merged.find_series("latency"), nullptr);
    EXPECT_EQ(merged.find_series("latency")->samples, (std::vector<double>{2, 5, 3.5}));  // the slowest, per sample
    EXPECT_EQ(merged.find_series("busbw")->samples, (std::vector<double>{9, 2, 5}));  // a rate: the least
    EXPECT_EQ(merged.find_series("bytes")->samples, (std::vector<double>{8, 8, 8}));  // neither: rank 0's
    ASSERT_NE(merged.find_series("latency.rank0"), nullptr);
    EXPECT_EQ(merged.find_series("latency.rank0")->samples, (std::vector<double>{1, 5, 3}));
    EXPECT_EQ(merged.find_series("latency.rank1")->samples, (std::vector<double>{2, 4, 3.5}));
    EXPECT_EQ(merged.find_series("busbw.rank0"), nullptr);  // per rank: the times only
    ASSERT_NE(merged.find_series("extra.rank1"), nullptr);  // only rank 1 recorded it
    EXPECT_DOUBLE_EQ(merged.find_scalar("peak_rss")->value, 150);  // the largest peak
    EXPECT_DOUBLE_EQ(merged.find_scalar("first_call")->value, 100);  // rank 0's
    EXPECT_EQ(merged.info.at("framework"), "PyTorch");
    EXPECT_EQ(merged.warnings, (std::vector<std::string>{"shared warning", "rank 1: rank one's own"}));
}

TEST(RankResults, TheStatisticsNameAStragglerAndUnalignedSeriesAreSaidSo) {
    std::vector<double> fast, slow;
    for (int i = 0; i < 20; ++i) {
        fast.push_back(2.0 + 0.01 * (i % 5));
        slow.push_back(4.0 + 0.01 * (i % 7));
    }
    bench::ScenarioResult zero, one;
    zero.series.push_back({"latency", "ms", fast, 1});
    one.series.push_back({"latency", "ms", slow, 1});
    zero.series.push_back({"step", "ms", {1, 2, 3}, 1});
    one.series.push_back({"step", "ms", {1, 2}, 1});
    const bench::ScenarioResult merged = merge_rank_results({zero, one});
    EXPECT_EQ(merged.warnings, (std::vector<std::string>{
                                   "step: the ranks did not record it alike (each rank the same number of samples, in "
                                   "the same unit): it is rank 0's"}));
    EXPECT_EQ(merged.find_series("step")->samples, (std::vector<double>{1, 2, 3}));

    // The scenario's statistics name the straggler, once, from each rank's samples.
    ScenarioOutcome outcome;
    outcome.config.world_size = 2;
    outcome.result = merged;
    compute_statistics(outcome);
    ASSERT_EQ(outcome.statistics.stragglers.size(), 1u);
    EXPECT_EQ(outcome.statistics.stragglers[0].series, "latency");
    EXPECT_EQ(outcome.statistics.stragglers[0].rank, 1);
    EXPECT_NEAR(outcome.statistics.stragglers[0].ratio, 2.0, 0.05);
    const std::vector<std::string> warnings = statistical_warnings(outcome);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0].rfind("rank 1 is a straggler in latency: its median 4.", 0), 0u) << warnings[0];

    // Equal ranks: no straggler, nothing to say.
    outcome.result = merge_rank_results({zero, zero});
    EXPECT_TRUE(outcome.result.warnings.empty());
    compute_statistics(outcome, true);
    EXPECT_TRUE(outcome.statistics.stragglers.empty());
    EXPECT_TRUE(statistical_warnings(outcome).empty());
}

}  // namespace
