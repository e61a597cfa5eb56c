#include <bench/context.hpp>

#include <spdlog/sinks/null_sink.h>

#include <gtest/gtest.h>

namespace {

std::shared_ptr<spdlog::logger> quiet_logger() {
    return std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
}

TEST(Context, MeasureRecordsOneSampleInMsPerIteration) {
    bench::ScenarioConfig config;
    config.warmup_iterations = 1;
    config.measurement_iterations = 6;
    bench::Context ctx(config, quiet_logger());
    const bench::Series series = ctx.measure("latency", [] {
        const auto until = bench::Clock::now() + std::chrono::microseconds(20);
        while (bench::Clock::now() < until) {
        }
    });
    EXPECT_EQ(series.unit, "ms");
    EXPECT_EQ(series.samples.size(), 6u);
    ASSERT_NE(ctx.result().find_series("latency"), nullptr);
    EXPECT_EQ(ctx.result().find_series("latency")->samples.size(), 6u);
}

TEST(Context, SeriesAppendScalarsReplaceUnitsMustAgree) {
    bench::Context ctx({}, quiet_logger());
    ctx.record_series("ttft", {1.0, 2.0}, "ms");
    ctx.add_sample("ttft", 3.0, "ms");
    EXPECT_EQ(ctx.result().find_series("ttft")->samples, (std::vector<double>{1, 2, 3}));
    EXPECT_THROW(ctx.add_sample("ttft", 1.0, "s"), std::invalid_argument);
    ctx.record_scalar("params", 1, "count");
    ctx.record_scalar("params", 2, "count");
    ASSERT_EQ(ctx.result().scalars.size(), 1u);
    EXPECT_EQ(ctx.result().scalars[0].value, 2);
}

TEST(Context, ThroughputIsItemsPerSecondOfEachLatencySample) {
    bench::Context ctx({}, quiet_logger());
    const bench::Series latency = ctx.record_series("latency", {10.0, 20.0}, "ms");
    const bench::Series throughput = ctx.record_throughput("throughput", latency, 8, "images/s");
    EXPECT_EQ(throughput.samples, (std::vector<double>{800.0, 400.0}));
    EXPECT_EQ(throughput.unit, "images/s");
}

TEST(Context, SkipThrowsWithTheReason) {
    bench::Context ctx({}, quiet_logger());
    try {
        ctx.skip("float16 is not supported on cpu");
        FAIL();
    } catch (const bench::SkipScenario& e) {
        EXPECT_STREQ(e.what(), "float16 is not supported on cpu");
    }
}

}  // namespace
