// Context::profile: nothing without --profile; with it, a pass that times unprofiled and
// profiled calls alternately around the benchmark's operator profiler, shares of the
// modules, notes for what is missing, and no exception out of it.
#include <bench/context.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "../support/quiet_logger.hpp"

#include <gtest/gtest.h>

namespace {

using benchtest::quiet_logger;

/// No perf for these tests: the pass notes why and goes on (the perf sampler's own test
/// runs perf where it can).
class NoPerf : public ::testing::Test {
protected:
    void SetUp() override {
        const char* old = std::getenv("BENCH_PERF");
        had_ = old != nullptr;
        if (had_) old_ = old;
        ::setenv("BENCH_PERF", "/nonexistent/perf", 1);
    }
    void TearDown() override {
        if (had_) ::setenv("BENCH_PERF", old_.c_str(), 1);
        else ::unsetenv("BENCH_PERF");
    }

private:
    bool had_ = false;
    std::string old_;
};

void spin_us(int us) {
    const auto until = bench::Clock::now() + std::chrono::microseconds(us);
    while (bench::Clock::now() < until) {}
}

/// An operator profiler that makes each profiled call about twice as long and reports
/// what it saw.
class FakeOperators : public bench::OperatorProfiler {
public:
    std::string name() const override { return "fake operators"; }
    void start() override {
        ++starts;
        running = true;
    }
    void stop() override {
        spin_us(0);
        ++stops;
        running = false;
    }
    void report(bench::Profile& profile, long long calls) override {
        reported_calls = calls;
        profile.operators.push_back({"op::work", 1, 0.2, 0.3, 100, "[[4]]"});
        profile.modules.push_back({"block", 0, 1, 0.5, 0, 10, 4096, 8192});
    }
    int starts = 0, stops = 0;
    long long reported_calls = 0;
    bool running = false;
};

TEST_F(NoPerf, WithoutProfileNothingRuns) {
    bench::Context ctx({}, quiet_logger());
    EXPECT_FALSE(ctx.profiling());
    int calls = 0;
    ctx.profile({.name = "forward", .call = [&] { ++calls; }});
    EXPECT_EQ(calls, 0);
    EXPECT_FALSE(ctx.result().profile.has_value());
}

TEST_F(NoPerf, AlternatesUnprofiledAndProfiledCallsAndMeasuresTheOverhead) {
    bench::ScenarioConfig config;
    config.profile = true;
    bench::Context ctx(config, quiet_logger());
    ASSERT_TRUE(ctx.profiling());
    auto operators = std::make_shared<FakeOperators>();
    int calls = 0, profiled_calls = 0;
    ctx.profile({.name = "forward",
                 .call =
                     [&] {
                         ++calls;
                         if (operators->running) ++profiled_calls;
                         spin_us(operators->running ? 400 : 200);  // the profiler doubles a call
                     },
                 .operators = operators});
    ASSERT_TRUE(ctx.result().profile.has_value());
    const bench::Profile& profile = *ctx.result().profile;
    EXPECT_EQ(profile.call, "forward");
    EXPECT_EQ(profile.operator_profiler, "fake operators");
    // Pairs until a second has passed, at least 3, at most 20: 20 here.
    EXPECT_EQ(profile.calls, 20);
    EXPECT_EQ(operators->starts, 20);
    EXPECT_EQ(operators->stops, 20);
    EXPECT_EQ(operators->reported_calls, 20);
    EXPECT_EQ(profiled_calls, 20);
    EXPECT_EQ(calls, 1 + 2 * 20);  // the warm-up call, then the pairs; no perf here
    EXPECT_GT(profile.overhead, 1.5);  // 400 us against 200: about 2
    EXPECT_GE(profile.call_ms, 0.4);
    EXPECT_GE(profile.unprofiled_call_ms, 0.2);
    // The module's share is of the mean profiled call.
    ASSERT_EQ(profile.modules.size(), 1u);
    EXPECT_GT(profile.modules[0].share, 0);
    EXPECT_LE(profile.modules[0].share, 0.5 / 0.4 + 1e-9);  // 0.5 ms of a call of at least 0.4 ms
    // A "call" event per profiled call, in the trace.
    ASSERT_EQ(profile.trace.size(), 20u);
    EXPECT_EQ(profile.trace[0].name, "forward 1");
    EXPECT_EQ(profile.trace[0].category, "call");
    EXPECT_GE(profile.trace[0].duration_us, 400);
    // No perf: said, not thrown.
    ASSERT_FALSE(profile.notes.empty());
    EXPECT_EQ(profile.notes.back(), "native stacks: BENCH_PERF=/nonexistent/perf is not an executable");
    EXPECT_TRUE(profile.flame_graphs.empty());

    // Once per scenario.
    EXPECT_THROW(ctx.profile({.call = [] {}}), std::logic_error);
}

TEST_F(NoPerf, WithoutAnOperatorProfilerOnlyNotesAreLeft) {
    bench::ScenarioConfig config;
    config.profile = true;
    bench::Context ctx(config, quiet_logger());
    ctx.profile({.name = "step", .call = [] {}});
    const bench::Profile& profile = *ctx.result().profile;
    EXPECT_EQ(profile.calls, 0);
    EXPECT_TRUE(profile.operators.empty());
    ASSERT_EQ(profile.notes.size(), 2u);
    EXPECT_NE(profile.notes[0].find("no operator profiler"), std::string::npos) << profile.notes[0];
}

TEST_F(NoPerf, ACallThatThrowsEndsThePassWithANoteAndStopsTheProfiler) {
    bench::ScenarioConfig config;
    config.profile = true;
    bench::Context ctx(config, quiet_logger());
    auto operators = std::make_shared<FakeOperators>();
    int calls = 0;
    ctx.profile({.name = "forward",
                 .call =
                     [&] {
                         if (++calls == 3) throw std::runtime_error("out of memory");
                     },
                 .operators = operators});
    const bench::Profile& profile = *ctx.result().profile;
    EXPECT_FALSE(operators->running);
    EXPECT_EQ(operators->starts, operators->stops);
    ASSERT_EQ(profile.notes.size(), 1u);
    EXPECT_EQ(profile.notes[0], "the profiled pass stopped in the operator profiler: out of memory");
}

TEST_F(NoPerf, NotInsideAMeasurementWindow) {
    bench::ScenarioConfig config;
    config.profile = true;
    bench::Context ctx(config, quiet_logger());
    ctx.begin_measurement();
    EXPECT_THROW(ctx.profile({.call = [] {}}), std::logic_error);
    ctx.end_measurement(0);
    EXPECT_FALSE(ctx.result().profile.has_value());
}

}  // namespace
