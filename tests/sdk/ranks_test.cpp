// Context::measure in a distributed scenario (config.world_size > 0) through the rank hooks
// (<bench/ranks.hpp>): with a stand-in group of hooks registered here, and with none (this
// binary does not link the LibTorch layer, which registers its own).
#include <bench/context.hpp>
#include <bench/ranks.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/quiet_logger.hpp"

#include <gtest/gtest.h>

namespace {

using benchtest::quiet_logger;

/// What the stand-in hooks saw, in order: "ready", "sample", "call", "started",
/// "ended ok" or "ended error".
std::vector<std::string> heard;

const bench::RankHooks stand_in_hooks{
    .ready = [](bench::Context&) { heard.push_back("ready"); },
    .before_sample =
        [](bench::Context&) {
            heard.push_back("sample");
            // A barrier that waits for a slow rank: outside the timed region.
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        },
    .after_call = [](bench::Context&) { heard.push_back("call"); },
    .started = [](bench::Context&) { heard.push_back("started"); },
    .ended = [](bench::Context&, bool succeeded) { heard.push_back(succeeded ? "ended ok" : "ended error"); },
};

class RankHooksTest : public ::testing::Test {
protected:
    void SetUp() override {
        heard.clear();
        bench::set_rank_hooks(&stand_in_hooks);
    }
    void TearDown() override { bench::set_rank_hooks(nullptr); }

    static bench::ScenarioConfig distributed() {
        bench::ScenarioConfig config;
        config.world_size = 2;
        config.warmup_iterations = 2;
        config.measurement_iterations = 5;
        config.min_time_s = 30;  // a time rule, which would let each rank stop on its own
        return config;
    }
};

std::size_t times_heard(const std::string& what) {
    std::size_t n = 0;
    for (const std::string& s : heard) n += s == what;
    return n;
}

TEST_F(RankHooksTest, MeasureMeetsTheOtherRanksBeforeEachSampleOutsideTheTimedRegion) {
    bench::Context ctx(distributed(), quiet_logger());
    ASSERT_EQ(heard, std::vector<std::string>{"started"});
    int calls = 0;
    const bench::Series series = ctx.measure("latency", [&] { ++calls; });  // far under a sample's minimum
    // Every rank takes --measurement-iterations samples of one call each, the time rule set aside.
    EXPECT_EQ(series.samples.size(), 5u);
    EXPECT_EQ(series.inner_iterations, 1);
    EXPECT_EQ(calls, 2 + 5);
    // The group made ready once, then the warmup calls, then a barrier before each sample's call.
    const std::vector<std::string> expected{"started", "ready",  "call", "call",   "sample", "call",   "sample",
                                            "call",    "sample", "call", "sample", "call",   "sample", "call"};
    EXPECT_EQ(heard, expected);
    // The barriers' 20 ms are not in the samples.
    for (const double ms : series.samples) EXPECT_LT(ms, 10.0);
    ASSERT_EQ(ctx.result().warnings.size(), 1u);
    EXPECT_NE(ctx.result().warnings[0].find("latency: a distributed scenario takes --measurement-iterations samples "
                                            "on every rank: --min-time, --max-time and --target-ci-width are not "
                                            "applied"),
              std::string::npos)
        << ctx.result().warnings[0];
    ctx.take_result();
    EXPECT_EQ(heard.back(), "ended ok");
}

TEST_F(RankHooksTest, EveryVariantThatTimesACallableMeetsTheRanks) {
    bench::ScenarioConfig config = distributed();
    config.min_time_s = 0;
    config.cache = "cold";  // one call a sample anyway; the CPU's caches flushed after the barrier
    bench::Context ctx(config, quiet_logger());
    bench::TimingOptions options = ctx.timing_options();
    options.warmup_iterations = 0;
    options.measurement_iterations = 3;
    EXPECT_EQ(ctx.measure(
                     "given", [] {}, options)
                  .samples.size(),
              3u);
    EXPECT_EQ(times_heard("sample"), 3u);
    // measure_device synchronizes its CUDA device after each call, and where there is none
    // calls the hooks' after_call.
    const bool cuda = ctx.cuda_device() != nullptr;
    EXPECT_EQ(ctx.measure_device("device", [] {}).samples.size(), 5u);
    EXPECT_EQ(times_heard("sample"), 3u + 5u);
    EXPECT_EQ(times_heard("call"), 3u + (cuda ? 0u : 2u + 5u));
    EXPECT_EQ(times_heard("ready"), 2u);
    EXPECT_TRUE(ctx.result().warnings.empty());
}

TEST_F(RankHooksTest, TheRanksHooksHearWhetherTheBenchmarkEndedWithAnError) {
    {
        bench::Context ctx(distributed(), quiet_logger());
        try {
            ctx.skip("not here");
        } catch (const bench::SkipScenario&) {
            ctx.take_result();  // as the worker takes it, in its handler
        }
        ctx.take_result();  // told once
    }
    EXPECT_EQ(heard, (std::vector<std::string>{"started", "ended error"}));

    // Not a distributed scenario: the hooks are not consulted.
    heard.clear();
    bench::ScenarioConfig config;
    config.warmup_iterations = 0;
    config.measurement_iterations = 2;
    bench::Context plain(config, quiet_logger());
    EXPECT_EQ(plain.measure("latency", [] {}).samples.size(), 2u);
    plain.take_result();
    EXPECT_TRUE(heard.empty());
}

TEST(RankHooks, WithoutAGroupOfRanksMeasureFailsSayingWhatToLink) {
    ASSERT_EQ(bench::rank_hooks(), nullptr);  // this binary links no LibTorch layer
    bench::ScenarioConfig config;
    config.world_size = 2;
    bench::Context ctx(config, quiet_logger());
    bool called = false;
    try {
        ctx.measure("latency", [&] { called = true; });
        FAIL() << "measured without the ranks";
    } catch (const std::runtime_error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("series 'latency': in a distributed scenario (world_size 2) every rank times its "
                               "samples alike"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("link the plugin with the SDK's LibTorch layer (CMake: "
                               "target_link_libraries(<plugin> PRIVATE bench::sdk_torch)"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("bench::set_rank_hooks"), std::string::npos) << message;
    }
    EXPECT_FALSE(called);
    EXPECT_TRUE(ctx.result().series.empty());
}

}  // namespace
