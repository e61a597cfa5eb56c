// Rounds (run/rounds.hpp): the samples of each round pooled into one outcome, where each
// round's samples begin, what a failed round does to the scenario, and the sampling
// figures recomputed over all rounds.
#include "run/rounds.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <bench/stopping_rule.hpp>

#include "../../support/builders.hpp"

namespace {

using namespace benchhost;
using benchtest::Outcome;

ScenarioOutcome latency_round(std::vector<double> samples, double wall_time_s = 1) {
    return Outcome("performance", "model", "infer").series("latency", "ms", std::move(samples)).edit([&](auto& o) {
        o.wall_time_s = wall_time_s;
    });
}

TEST(Rounds, EachRoundsSamplesArePooledAndWhereTheyBeginIsRecorded) {
    ScenarioOutcome pooled = latency_round({1, 2, 3}, 1.5);
    pool_round(pooled, latency_round({4, 5}, 2.0));
    pool_round(pooled, latency_round({6}, 0.5));
    EXPECT_EQ(pooled.rounds, 3);
    EXPECT_DOUBLE_EQ(pooled.wall_time_s, 4.0);
    ASSERT_EQ(pooled.result.series.size(), 1u);
    EXPECT_EQ(pooled.result.series[0].samples, (std::vector<double>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(pooled.round_sizes.at("latency"), (std::vector<std::size_t>{3, 2, 1}));
    EXPECT_EQ(pooled.result.status, bench::Status::success);
}

TEST(Rounds, ASeriesTheFirstRoundDidNotMeasureIsNotPooled) {
    ScenarioOutcome pooled = latency_round({1, 2, 3});
    // The second round measured the latency in another unit, and a series the first did not.
    ScenarioOutcome round =
        Outcome("performance", "model", "infer").series("latency", "us", {1000, 2000}).series("ttft", "ms", {7, 8});
    round.result.sampling["ttft"].samples = 2;
    pool_round(pooled, std::move(round));
    EXPECT_EQ(pooled.rounds, 2);
    ASSERT_EQ(pooled.result.series.size(), 1u);
    EXPECT_EQ(pooled.result.series[0].unit, "ms");
    EXPECT_EQ(pooled.result.series[0].samples, (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(pooled.round_sizes.count("latency"), 0u);
    EXPECT_EQ(pooled.round_sizes.count("ttft"), 0u);
    EXPECT_EQ(pooled.result.sampling.count("ttft"), 0u);
}

TEST(Rounds, ARoundWithoutASeriesKeepsTheLaterRoundsInTheirPlaces) {
    // The second round measured only the latency: the throughput has no samples of it,
    // and its third round's samples stay the third round's.
    const auto both = [](std::vector<double> latency, std::vector<double> throughput) {
        return Outcome("performance", "model", "infer")
            .series("latency", "ms", std::move(latency))
            .series("throughput", "samples/s", std::move(throughput))
            .build();
    };
    ScenarioOutcome pooled = both({1, 2, 3}, {10, 20});
    pool_round(pooled, latency_round({4, 5}));
    pool_round(pooled, both({6}, {30, 40, 50}));
    EXPECT_EQ(pooled.rounds, 3);
    ASSERT_EQ(pooled.result.series.size(), 2u);
    EXPECT_EQ(pooled.result.series[1].samples, (std::vector<double>{10, 20, 30, 40, 50}));
    EXPECT_EQ(pooled.round_sizes.at("latency"), (std::vector<std::size_t>{3, 2, 1}));
    EXPECT_EQ(pooled.round_sizes.at("throughput"), (std::vector<std::size_t>{2, 0, 3}));
    EXPECT_EQ(pooled.result.warnings, (std::vector<std::string>{"round 2: took no 'throughput' samples in samples/s"}));

    // A round that misses it last is not listed: the rounds listed are still the first ones.
    pool_round(pooled, latency_round({7}));
    EXPECT_EQ(pooled.round_sizes.at("throughput"), (std::vector<std::size_t>{2, 0, 3}));
    EXPECT_EQ(pooled.round_sizes.at("latency"), (std::vector<std::size_t>{3, 2, 1, 1}));
}

TEST(Rounds, AFailedRoundFailsTheScenarioWithItsReasonAndOutput) {
    ScenarioOutcome pooled = latency_round({1, 2, 3});
    ScenarioOutcome crashed = Outcome("performance", "model", "infer").status(bench::Status::crashed, "SIGSEGV");
    crashed.log_tail = "last words of the worker";
    pool_round(pooled, std::move(crashed));
    EXPECT_EQ(pooled.result.status, bench::Status::crashed);
    EXPECT_EQ(pooled.result.reason, "round 2: SIGSEGV");
    EXPECT_EQ(pooled.log_tail, "last words of the worker");
    EXPECT_EQ(pooled.result.series[0].samples, (std::vector<double>{1, 2, 3}));

    // A round after the failed one is counted, but neither its samples nor its status change the outcome.
    pool_round(pooled, latency_round({4, 5}));
    EXPECT_EQ(pooled.rounds, 3);
    EXPECT_EQ(pooled.result.status, bench::Status::crashed);
    EXPECT_EQ(pooled.result.reason, "round 2: SIGSEGV");
    EXPECT_EQ(pooled.result.series[0].samples, (std::vector<double>{1, 2, 3}));
}

TEST(Rounds, TheFirstRoundKeepsItsScalarsAndInfo) {
    ScenarioOutcome pooled = latency_round({1, 2});
    pooled.result.scalars.push_back({"parameters", 100, "count"});
    pooled.result.info["framework"] = "first";
    ScenarioOutcome round = latency_round({3});
    round.result.scalars.push_back({"parameters", 200, "count"});
    round.result.info["framework"] = "second";
    pool_round(pooled, std::move(round));
    ASSERT_EQ(pooled.result.scalars.size(), 1u);
    EXPECT_EQ(pooled.result.scalars[0].value, 100);
    EXPECT_EQ(pooled.result.info.at("framework"), "first");
}

TEST(Rounds, SamplingFiguresAddUpAndADifferentStopReasonIsJoined) {
    ScenarioOutcome pooled = latency_round({1, 2});
    pooled.result.sampling["latency"] = {.stop_reason = "ci_width", .elapsed_s = 1.0, .samples = 2};
    ScenarioOutcome same_reason = latency_round({3});
    same_reason.result.sampling["latency"] = {.stop_reason = "ci_width", .elapsed_s = 0.5, .samples = 1};
    pool_round(pooled, std::move(same_reason));
    EXPECT_EQ(pooled.result.sampling.at("latency").stop_reason, "ci_width");
    EXPECT_EQ(pooled.result.sampling.at("latency").samples, 3);
    EXPECT_DOUBLE_EQ(pooled.result.sampling.at("latency").elapsed_s, 1.5);

    ScenarioOutcome other_reason = latency_round({4, 5});
    other_reason.result.sampling["latency"] = {.stop_reason = "max_time", .elapsed_s = 2.0, .samples = 2};
    pool_round(pooled, std::move(other_reason));
    EXPECT_EQ(pooled.result.sampling.at("latency").stop_reason, "ci_width,max_time");
    EXPECT_EQ(pooled.result.sampling.at("latency").samples, 5);
    EXPECT_DOUBLE_EQ(pooled.result.sampling.at("latency").elapsed_s, 3.5);

    // Each reason is joined once, however the later rounds alternate.
    for (const char* reason : {"ci_width", "max_time", "ci_width", "iterations", "max_time"}) {
        ScenarioOutcome round = latency_round({6});
        round.result.sampling["latency"] = {.stop_reason = reason, .elapsed_s = 1.0, .samples = 1};
        pool_round(pooled, std::move(round));
    }
    EXPECT_EQ(pooled.result.sampling.at("latency").stop_reason, "ci_width,max_time,iterations");
    EXPECT_EQ(pooled.result.sampling.at("latency").samples, 10);
}

TEST(Rounds, AWarningOfALaterRoundIsNamedWithItsRoundAndOneTheFirstHadIsNotRepeated) {
    ScenarioOutcome pooled = latency_round({1, 2});
    pooled.result.warnings = {"the GPU throttled"};
    ScenarioOutcome round = latency_round({3});
    round.result.warnings = {"the GPU throttled", "the machine was loaded"};
    pool_round(pooled, std::move(round));
    EXPECT_EQ(pooled.result.warnings,
              (std::vector<std::string>{"the GPU throttled", "round 2: the machine was loaded"}));

    // A warning a later round gave is kept once too, named with the first round that gave it.
    ScenarioOutcome third = latency_round({4});
    third.result.warnings = {"the machine was loaded", "the GPU throttled", "the clock changed"};
    pool_round(pooled, std::move(third));
    ScenarioOutcome fourth = latency_round({5});
    fourth.result.warnings = {"the clock changed", "the machine was loaded"};
    pool_round(pooled, std::move(fourth));
    EXPECT_EQ(pooled.result.warnings, (std::vector<std::string>{"the GPU throttled", "round 2: the machine was loaded",
                                                                "round 3: the clock changed"}));
}

TEST(Rounds, AConfirmationRoundCarriesTheRoundsTheScenarioWasFlaggedAfter) {
    ScenarioOutcome pooled = latency_round({1, 2});
    pool_round(pooled, latency_round({3}));
    EXPECT_EQ(pooled.first_rounds, 0);  // an ordinary round
    ScenarioOutcome confirming = latency_round({4});
    confirming.first_rounds = 2;
    pool_round(pooled, std::move(confirming));
    EXPECT_EQ(pooled.first_rounds, 2);
    pool_round(pooled, latency_round({5}));  // a round that does not say keeps it
    EXPECT_EQ(pooled.first_rounds, 2);
}

TEST(Rounds, FinishingRecomputesTheCiWidthOverAllRounds) {
    const std::vector<double> first = benchtest::jittered_samples(10, 10, 1, 0.05);
    ScenarioOutcome pooled = latency_round(first);
    const double first_width = bench::relative_median_ci_width(first);
    pooled.result.sampling["latency"] = {.stop_reason = "iterations", .samples = 10, .ci_width = first_width};
    // A sampling report whose series is not in the result keeps its figure.
    pooled.result.sampling["ttft"] = {.stop_reason = "iterations", .samples = 10, .ci_width = 0.25};
    for (unsigned seed = 2; seed <= 4; ++seed) {
        ScenarioOutcome round = latency_round(benchtest::jittered_samples(10, 10, seed, 0.05));
        round.result.sampling["latency"] = {.stop_reason = "iterations", .samples = 10};
        pool_round(pooled, std::move(round));
    }
    EXPECT_DOUBLE_EQ(pooled.result.sampling.at("latency").ci_width, first_width);  // pooling leaves it
    finish_rounds(pooled);
    const double width = pooled.result.sampling.at("latency").ci_width;
    EXPECT_DOUBLE_EQ(width, bench::relative_median_ci_width(pooled.result.series[0].samples));
    EXPECT_LT(width, first_width) << "40 samples narrow the interval of 10";
    EXPECT_EQ(pooled.result.sampling.at("ttft").ci_width, 0.25);
}

}  // namespace
