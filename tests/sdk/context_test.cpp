#include <bench/context.hpp>
#include <bench/memory_peak.hpp>

#include <sys/mman.h>

#include <cstring>

#include "../support/quiet_logger.hpp"

#include <gtest/gtest.h>

namespace {

using benchtest::quiet_logger;

TEST(Context, MeasureRecordsOneSampleInMsPerIteration) {
    bench::ScenarioConfig config;
    config.warmup_iterations = 1;
    config.measurement_iterations = 6;
    bench::Context ctx(config, quiet_logger());
    const bench::Series series = ctx.measure("latency", [] {
        const auto until = bench::Clock::now() + std::chrono::microseconds(20);
        while (bench::Clock::now() < until) {}
    });
    EXPECT_EQ(series.unit, "ms");
    EXPECT_EQ(series.samples.size(), 6u);
    ASSERT_NE(ctx.result().find_series("latency"), nullptr);
    EXPECT_EQ(ctx.result().find_series("latency")->samples.size(), 6u);
}

/// `mib` MiB made resident, then given back to the system.
void touch_and_release(std::size_t mib) {
    const std::size_t size = mib << 20;
    void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(block, MAP_FAILED);
    std::memset(block, 1, size);
    munmap(block, size);
}

TEST(MemoryPeak, ARestartKeepsTheScenarioPeakAndANewScenarioForgetsIt) {
    bench::begin_scenario_resident_peak();
    const double base = bench::resident_peak_mib();
    ASSERT_GT(base, 0.0);
    touch_and_release(200);
    EXPECT_GE(bench::resident_peak_mib(), base + 190);
    ASSERT_TRUE(bench::restart_resident_peak()) << "the kernel does not let a process restart its VmHWM";
    EXPECT_LT(bench::resident_peak_mib(), base + 100);  // restarted
    EXPECT_GE(bench::scenario_resident_peak_mib(), base + 190);  // kept for the scenario
    bench::begin_scenario_resident_peak();
    EXPECT_LT(bench::scenario_resident_peak_mib(), base + 100);  // a new scenario
}

TEST(Context, TheSetUpsPeakIsRecordedApartFromTheTimedSamples) {
    bench::begin_scenario_resident_peak();
    bench::ScenarioConfig config;
    config.warmup_iterations = 1;
    config.measurement_iterations = 3;
    bench::Context ctx(config, quiet_logger());
    touch_and_release(200);  // the set-up
    ctx.measure("latency", [] { touch_and_release(8); });
    ctx.measure("latency2", [] { touch_and_release(4); });  // once a scenario: the set-up stays as it was
    const bench::Scalar* setup = ctx.result().find_scalar("setup_peak_rss");
    const bench::Scalar* measured = ctx.result().find_scalar("measured_peak_rss");
    ASSERT_NE(setup, nullptr);
    ASSERT_NE(measured, nullptr);
    EXPECT_EQ(setup->unit, "MiB");
    EXPECT_LT(measured->value, setup->value - 150);
    EXPECT_GE(bench::scenario_resident_peak_mib(), setup->value);
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
