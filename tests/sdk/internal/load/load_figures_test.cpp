// The figures of a serving load, from made-up query times: no clock is read.
#include <bench/internal/load/load_figures.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

bench::QueryTimes query(double scheduled, double issued, double started, double completed,
                        std::vector<double> tokens = {}) {
    return bench::QueryTimes{scheduled, issued, started, completed, std::move(tokens), 1};
}

TEST(LoadFigures, LatencyCountsFromTheScheduledArrivalAndSplitsIntoWaitAndService) {
    // The second query arrives while the first is served: it waits 3 ms.
    const std::vector<bench::QueryTimes> queries = {query(0, 0, 0, 5), query(2, 2, 5, 10)};
    const bench::LoadFigures f = bench::load_figures(queries, 1.0, {});
    EXPECT_EQ(f.latency, (std::vector<double>{5, 8}));
    EXPECT_EQ(f.queue_wait, (std::vector<double>{0, 3}));
    EXPECT_EQ(f.service_time, (std::vector<double>{5, 5}));
    EXPECT_DOUBLE_EQ(f.achieved_qps, 2 / 0.002);  // 2 queries, the last issued at 2 ms
    EXPECT_DOUBLE_EQ(f.throughput, 2 / 0.010);  // 2 samples, the last completed at 10 ms
    EXPECT_TRUE(std::isnan(f.goodput));  // no SLO
    EXPECT_TRUE(f.ttft.empty());
}

TEST(LoadFigures, AQueryIssuedLateIsCountedAndItsLatencyStillCountsFromItsSchedule) {
    const std::vector<bench::QueryTimes> queries = {query(10, 10.5, 10.5, 12), query(20, 23, 23, 25)};
    const bench::LoadFigures f = bench::load_figures(queries, 1.0, {});
    EXPECT_EQ(f.late_issues, 1);
    EXPECT_DOUBLE_EQ(f.max_issue_delay_ms, 3);
    EXPECT_EQ(f.latency, (std::vector<double>{2, 5}));
    EXPECT_EQ(f.queue_wait, (std::vector<double>{0.5, 3}));
}

TEST(LoadFigures, AQueryStartedLateOneAtATimeIsCountedAndBatchesAreNotJudged) {
    // The second query was there at 2 ms and the handler free at 5: it started at 7.
    // The third was issued at 12, after the second completed (10), and started at once.
    const std::vector<bench::QueryTimes> late = {query(0, 0, 0, 5), query(2, 2, 7, 10), query(12, 12, 12.5, 14)};
    const bench::LoadFigures f = bench::load_figures(late, 1.0, {});
    EXPECT_EQ(f.late_starts, 1);
    EXPECT_DOUBLE_EQ(f.max_start_delay_ms, 2);
    EXPECT_EQ(bench::load_figures(late, 2.5, {}).late_starts, 0);  // within the tolerance
    // Two queries in service at once (a batch): no query had to wait for the one before.
    const std::vector<bench::QueryTimes> batch = {query(0, 0, 1, 5), query(0, 0, 1, 5), query(2, 2, 9, 12)};
    EXPECT_EQ(bench::load_figures(batch, 1.0, {}).late_starts, -1);
}

TEST(LoadFigures, TokensGiveTimeToFirstTokenTimePerOutputTokenAndInterTokenLatency) {
    const std::vector<bench::QueryTimes> queries = {query(0, 0, 1, 10, {4, 6, 10}), query(5, 5, 10, 12, {12})};
    const bench::LoadFigures f = bench::load_figures(queries, 1.0, {});
    EXPECT_EQ(f.ttft, (std::vector<double>{4, 7}));
    EXPECT_EQ(f.tpot, (std::vector<double>{3}));  // (10 - 4) / 2; one token has none
    EXPECT_EQ(f.itl, (std::vector<double>{2, 4}));
}

TEST(LoadFigures, GoodputIsTheShareOfQueriesWithinEverySlo) {
    const std::vector<bench::QueryTimes> queries = {
        query(0, 0, 0, 100, {20, 40, 60}),  // latency 100, ttft 20, tpot 20, gaps 20
        query(0, 0, 100, 250, {150, 160}),  // latency 250, ttft 150, tpot 10, gap 10
        query(100, 100, 250, 300, {290, 295, 300}),  // latency 200, ttft 190, tpot 5, gaps 5
    };
    EXPECT_DOUBLE_EQ(bench::load_figures(queries, 1, {{"latency", 200}}).goodput, 2.0 / 3);  // a bound is met at it
    const bench::LoadFigures both = bench::load_figures(queries, 1, {{"ttft", 180}, {"tpot", 25}});
    EXPECT_EQ(both.slo_met, 2);  // the first two
    EXPECT_DOUBLE_EQ(bench::load_figures(queries, 1, {{"itl", 15}}).goodput, 2.0 / 3);  // the first's gaps are 20
    EXPECT_DOUBLE_EQ(bench::load_figures(queries, 1, {{"latency", 300}, {"tpot", 1}}).goodput, 0);
    EXPECT_TRUE(bench::load_figures(queries, 1, {{"itl", 15}}).unmeasured_slo_metrics.empty());
}

TEST(LoadFigures, ATokenSloOnQueriesWithoutTokensIsMissedAndSaidSo) {
    const bench::LoadFigures f = bench::load_figures({query(0, 0, 0, 1)}, 1, {{"ttft", 100}});
    EXPECT_EQ(f.slo_met, 0);
    EXPECT_EQ(f.unmeasured_slo_metrics, (std::vector<std::string>{"ttft"}));
}

TEST(LoadFigures, APercentilesIntervalIsBetweenOrderStatistics) {
    std::vector<double> sorted(1000);
    for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = static_cast<double>(i + 1);
    // The median of 1000: ranks 500 -/+ 1.96 * sqrt(250) = 31.
    EXPECT_EQ(bench::percentile_interval(sorted, 50), std::make_pair(469.0, 532.0));
    // p99 of 1000: 990 -/+ 1.96 * sqrt(9.9) = 6.2.
    EXPECT_EQ(bench::percentile_interval(sorted, 99), std::make_pair(983.0, 998.0));
    // p99 of 100: no sample above it to bound it with.
    sorted.resize(100);
    const auto [low, high] = bench::percentile_interval(sorted, 99);
    EXPECT_EQ(low, 97.0);
    EXPECT_TRUE(std::isnan(high));
}

TEST(LoadFigures, TheHeadlinePercentileIsLoadGens) {
    EXPECT_EQ(bench::headline_percentile(bench::LoadMode::single_stream), 90);
    EXPECT_EQ(bench::headline_percentile(bench::LoadMode::multi_stream), 99);
    EXPECT_EQ(bench::headline_percentile(bench::LoadMode::server), 99);
    EXPECT_EQ(bench::headline_percentile(bench::LoadMode::offline), 0);
}

}  // namespace
