// The timed samples a compile ran in (execute/compiled_samples.hpp): marked by overlap
// with each compile's window, named in a warning, and dropped with --discard-recompiled.
#include "execute/compiled_samples.hpp"

#include <gtest/gtest.h>

namespace {

using namespace benchhost;
using bench::Clock;
using std::chrono::milliseconds;

const Clock::time_point t0 = Clock::time_point(std::chrono::seconds(1000));

/// Five samples of 10 ms each (two calls of 5 ms), back to back from t0, with their times.
bench::ScenarioResult five_samples(SampleEnds& ends) {
    bench::ScenarioResult result;
    result.series.push_back({"latency", "ms", {5, 5, 5, 5, 5}, 2});
    result.series.push_back({"untimed", "count", {1, 2}, 1});
    result.sample_times["latency"] = {0.01, 0.02, 0.03, 0.04, 0.05};
    for (int i = 1; i <= 5; ++i) ends["latency"].push_back(t0 + milliseconds(10 * i));
    return result;
}

std::string all_warnings(const bench::ScenarioResult& result) {
    std::string text;
    for (const std::string& w : result.warnings) text += w + "\n";
    return text;
}

TEST(CompiledSamples, ASampleThatOverlapsACompileIsMarkedAndNamed) {
    SampleEnds ends;
    bench::ScenarioResult result = five_samples(ends);
    // Inside sample 2 (10 to 20 ms), and one spanning the end of 3 and the start of 4.
    const std::vector<bench::CompileWindow> compiles = {
        {t0 + milliseconds(12), t0 + milliseconds(15), "compile 0/1: size mismatch"},
        {t0 + milliseconds(28), t0 + milliseconds(33), "compile 0/2: another guard"}};
    const SampleEnds kept = mark_compiled_samples(result, ends, compiles, false);
    EXPECT_EQ(kept, ends);
    EXPECT_EQ(result.find_series("latency")->samples.size(), 5u);
    ASSERT_NE(result.find_scalar("recompiled_samples"), nullptr);
    EXPECT_EQ(result.find_scalar("recompiled_samples")->value, 3);
    EXPECT_EQ(result.find_scalar("recompiled_samples")->unit, "count");
    EXPECT_EQ(result.find_scalar("discarded_recompiled"), nullptr);
    EXPECT_EQ(all_warnings(result),
              "latency: samples 2, 3 and 4 of 5 contained a compile (compile 0/1: size mismatch; compile 0/2: "
              "another guard); --discard-recompiled drops them\n");
    // Which ones, for a reader of the report: indices into the series' samples.
    EXPECT_EQ(result.info.at("compiled_samples"), "latency: 1-3");
}

TEST(CompiledSamples, TheListNamesEachSeriesAndItsRunsOfSamples) {
    SampleEnds ends;
    bench::ScenarioResult result = five_samples(ends);
    result.series.push_back({"copy", "ms", {5, 5, 5, 5, 5}, 2});  // timed in the same windows
    ends["copy"] = ends["latency"];
    const std::vector<bench::CompileWindow> compiles = {{t0 + milliseconds(2), t0 + milliseconds(3), "in 1"},
                                                        {t0 + milliseconds(32), t0 + milliseconds(48), "in 4, 5"}};
    mark_compiled_samples(result, ends, compiles, false);
    EXPECT_EQ(result.info.at("compiled_samples"), "copy: 0, 3-4; latency: 0, 3-4");
}

TEST(CompiledSamples, DiscardingDropsExactlyTheMarkedSamplesAndTheirTimes) {
    SampleEnds ends;
    bench::ScenarioResult result = five_samples(ends);
    // Before the samples (warm-up) and touching sample 1's start only: neither counts.
    const std::vector<bench::CompileWindow> compiles = {{t0 - milliseconds(50), t0, "during warm-up"},
                                                        {t0 + milliseconds(41), t0 + milliseconds(42), "in 5"}};
    const SampleEnds kept = mark_compiled_samples(result, ends, compiles, true);
    EXPECT_EQ(result.find_series("latency")->samples.size(), 4u);
    EXPECT_EQ(result.sample_times["latency"], (std::vector<double>{0.01, 0.02, 0.03, 0.04}));
    ASSERT_EQ(kept.at("latency").size(), 4u);
    EXPECT_EQ(kept.at("latency").back(), t0 + milliseconds(40));
    EXPECT_EQ(result.find_scalar("recompiled_samples")->value, 1);
    EXPECT_EQ(result.find_scalar("discarded_recompiled")->value, 1);
    EXPECT_EQ(all_warnings(result),
              "latency: 1 of 5 samples discarded (--discard-recompiled): a compile ran during them (in 5)\n");
    EXPECT_EQ(result.info.at("compiled_samples"), "latency: dropped 4 (as measured)");
}

TEST(CompiledSamples, WhenEverySampleHadACompileAllAreKept) {
    SampleEnds ends;
    bench::ScenarioResult result = five_samples(ends);
    const SampleEnds kept =
        mark_compiled_samples(result, ends, {{t0 - milliseconds(1), t0 + milliseconds(60), ""}}, true);
    EXPECT_EQ(kept, ends);
    EXPECT_EQ(result.find_series("latency")->samples.size(), 5u);
    EXPECT_EQ(result.find_scalar("discarded_recompiled")->value, 0);
    EXPECT_NE(all_warnings(result).find("latency: every sample contained a compile (a compile); --discard-recompiled "
                                        "kept them all, as nothing would be left"),
              std::string::npos)
        << all_warnings(result);
    EXPECT_EQ(result.info.at("compiled_samples"), "latency: 0-4");  // kept, so indices into the samples
}

TEST(CompiledSamples, NoCompileNoMark) {
    SampleEnds ends;
    bench::ScenarioResult result = five_samples(ends);
    EXPECT_EQ(mark_compiled_samples(result, ends, {}, true), ends);
    EXPECT_EQ(result.find_scalar("recompiled_samples"), nullptr);
    EXPECT_TRUE(result.warnings.empty());
    // A compile outside every sample: counted as none.
    mark_compiled_samples(result, ends, {{t0 + milliseconds(100), t0 + milliseconds(200), "later"}}, false);
    EXPECT_EQ(result.find_scalar("recompiled_samples")->value, 0);
    EXPECT_TRUE(result.warnings.empty());
    EXPECT_EQ(result.info.count("compiled_samples"), 0u);
}

}  // namespace
