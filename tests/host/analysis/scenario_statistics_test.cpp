// The statistics of a scenario, computed once when it ends and read by every reporter.
#include "analysis/scenario_statistics.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"

namespace {

using namespace benchhost;

ScenarioOutcome statistics_outcome(const std::string& benchmark, std::vector<double> samples,
                                   bench::Variant variant = bench::Variant::eager, int batch_size = 1) {
    return benchtest::Outcome("performance", "mock", benchmark)
        .variant(variant)
        .batch_size(batch_size)
        .series("latency", "ms", std::move(samples));
}

TEST(ScenarioStatistics, NonFiniteSamplesAreLeftOutAndCounted) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    ScenarioOutcome o = statistics_outcome("m", {3, nan, 1, inf, 2, -inf});
    compute_statistics(o);
    ASSERT_TRUE(o.statistics.computed);
    const SeriesStatistics* latency = o.statistics.find("latency");
    ASSERT_NE(latency, nullptr);
    EXPECT_EQ(latency->non_finite, 3u);
    EXPECT_EQ(latency->analysis.summary.count, 3u);
    EXPECT_DOUBLE_EQ(latency->analysis.summary.median, 2);
    EXPECT_DOUBLE_EQ(latency->analysis.summary.min, 1);
    EXPECT_DOUBLE_EQ(latency->analysis.summary.max, 3);
    EXPECT_TRUE(std::isfinite(latency->analysis.summary.mean));
}

TEST(ScenarioStatistics, ComputedOnceUnlessForced) {
    ScenarioOutcome o = statistics_outcome("m", {1, 2, 3});
    compute_statistics(o);
    o.result.series[0].samples = {10, 20, 30};
    compute_statistics(o);  // already computed: left alone
    EXPECT_DOUBLE_EQ(o.statistics.find("latency")->analysis.summary.median, 2);
    compute_statistics(o, true);  // a pooled round changed the samples
    EXPECT_DOUBLE_EQ(o.statistics.find("latency")->analysis.summary.median, 20);
}

TEST(ScenarioStatistics, TheFirstSeriesOfANameIsTheOneReported) {
    ScenarioOutcome o = statistics_outcome("m", {1, 2, 3});
    o.result.series.push_back({"latency", "ms", {7, 8, 9}, 1});
    compute_statistics(o);
    ASSERT_EQ(o.statistics.series.size(), 1u);
    EXPECT_DOUBLE_EQ(o.statistics.series[0].analysis.summary.median, 2);
}

TEST(ScenarioStatistics, HeadlineFallsBackFromLatencyToOtherTimes) {
    ScenarioOutcome o = statistics_outcome("m", {1, 2});
    o.result.series.clear();
    o.result.series.push_back({"tokens_per_second", "tokens/s", {5, 6}, 1});
    o.result.series.push_back({"decode", "us", {5, 6}, 1});
    compute_statistics(o);
    ASSERT_NE(headline_series(o), nullptr);
    EXPECT_EQ(headline_series(o)->name, "decode");  // the first time series
    o.result.series.push_back({"time_to_first_token", "ms", {1, 2}, 1});
    compute_statistics(o, true);
    EXPECT_EQ(headline_series(o)->name, "time_to_first_token");
    o.result.series.clear();
    compute_statistics(o, true);
    EXPECT_EQ(headline_series(o), nullptr);
}

TEST(ScenarioStatistics, SpeedupsAreCompletedWhenTheEagerScenarioArrives) {
    RunRecord record;
    record.outcomes.push_back(statistics_outcome("m", {5, 5.1, 4.9, 5.05}, bench::Variant::compiled));
    compute_statistics(record.outcomes[0]);
    complete_speedups(record);  // no eager yet: left for later
    EXPECT_FALSE(record.outcomes[0].statistics.speedups_computed);
    EXPECT_TRUE(record.outcomes[0].statistics.speedups.empty());

    record.outcomes.push_back(statistics_outcome("m", {10, 10.2, 9.8, 10.1}));
    record.outcomes.push_back(statistics_outcome("m", {1, 1, 1}, bench::Variant::compiled, 8));  // no eager at batch 8
    analyze_run(record);
    ASSERT_EQ(record.outcomes[0].statistics.speedups.size(), 1u);
    const Speedup& speedup = record.outcomes[0].statistics.speedups[0];
    EXPECT_NEAR(speedup.value, 2.0, 0.05);
    EXPECT_TRUE(speedup.ci.contains(speedup.value));
    EXPECT_EQ(speedup.baseline_scenario_id, "performance/mock/m[variant=eager,batch_size=1]");
    EXPECT_TRUE(record.outcomes[1].statistics.speedups.empty());  // eager itself
    EXPECT_TRUE(record.outcomes[2].statistics.speedups.empty());
    // The same figure as the one-off computation over the record.
    EXPECT_DOUBLE_EQ(speedups_over_eager(record, record.outcomes[0])[0].value, speedup.value);
}

TEST(ScenarioStatistics, WithStatisticsCopiesOnlyARecordThatLacksThem) {
    RunRecord record;
    record.outcomes.push_back(statistics_outcome("m", {1, 2, 3}));
    std::optional<RunRecord> storage;
    const RunRecord& analyzed = with_statistics(record, storage);
    EXPECT_NE(&analyzed, &record);
    EXPECT_TRUE(statistics_computed(analyzed));
    analyze_run(record);
    std::optional<RunRecord> unused;
    EXPECT_EQ(&with_statistics(record, unused), &record);
    EXPECT_FALSE(unused.has_value());
}

}  // namespace
