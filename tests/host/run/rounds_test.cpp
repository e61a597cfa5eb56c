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

/// A round whose samples `marked` (indices, as mark_compiled_samples lists them) contained
/// a compile; with `dropped`, --discard-recompiled dropped them.
ScenarioOutcome compiled_round(std::vector<double> samples, const std::string& marked, double most,
                               double dropped = NAN) {
    ScenarioOutcome round = latency_round(std::move(samples));
    if (!marked.empty()) round.result.info["compiled_samples"] = marked;
    round.result.scalars.push_back({"recompiled_samples", most, "count"});
    if (!std::isnan(dropped)) round.result.scalars.push_back({"discarded_recompiled", dropped, "count"});
    return round;
}

double scalar(const ScenarioOutcome& outcome, const char* name) {
    const bench::Scalar* found = outcome.result.find_scalar(name);
    return found == nullptr ? NAN : found->value;
}

TEST(Rounds, ACompilerCountIsTheLargestAnyRoundCountedWithThatRoundsReasons) {
    // Each round compiles in a worker of its own: a recompile only the third round had is
    // the pooled run's, so that a comparison or the gate sees it; the first round's other
    // scalars stay as they were.
    const auto round = [](double breaks, double recompiles, const char* guard) {
        ScenarioOutcome r = latency_round({1, 2});
        r.result.scalars.push_back({"graph_breaks", breaks, "count"});
        r.result.scalars.push_back({"recompiles", recompiles, "count"});
        r.result.scalars.push_back({"compile_time", 100 * (recompiles + 1), "ms"});
        r.result.info["graph_break_reasons"] = "print() in forward";
        if (guard != nullptr) r.result.info["recompile_reasons"] = guard;
        return r;
    };
    ScenarioOutcome pooled = round(1, 0, nullptr);
    pool_round(pooled, round(1, 0, nullptr));
    pool_round(pooled, round(0, 2, "tensor 'x' size mismatch at index 0"));
    EXPECT_EQ(scalar(pooled, "graph_breaks"), 1);  // not lowered by a round that counted fewer
    EXPECT_EQ(scalar(pooled, "recompiles"), 2);
    EXPECT_EQ(scalar(pooled, "compile_time"), 100);  // not a count: the first round's
    EXPECT_EQ(pooled.result.info.at("graph_break_reasons"), "print() in forward");
    EXPECT_EQ(pooled.result.info.at("recompile_reasons"), "round 3: tensor 'x' size mismatch at index 0");
}

TEST(Rounds, TheSamplesACompileRanInAreThoseOfEveryRoundAsIndicesIntoThePooledSeries) {
    ScenarioOutcome pooled = compiled_round({1, 2, 3, 4}, "latency: 1", 1);
    pool_round(pooled, compiled_round({5, 6, 7}, "latency: 0, 2", 2));
    pool_round(pooled, compiled_round({8, 9}, "", 0));  // a round without one
    pool_round(pooled, compiled_round({10, 11}, "latency: 0-1", 2));
    EXPECT_EQ(pooled.result.info.at("compiled_samples"), "latency: 1, 4, 6, 9-10");
    EXPECT_EQ(scalar(pooled, "recompiled_samples"), 5);
    EXPECT_TRUE(std::isnan(scalar(pooled, "discarded_recompiled")));
    // The indices name the very samples the rounds marked: round 1's second (2), round
    // 2's first and third (5, 7), round 4's both (10, 11).
    std::vector<double> named;
    for (const std::size_t i : {1u, 4u, 6u, 9u, 10u}) named.push_back(pooled.result.series[0].samples.at(i));
    EXPECT_EQ(named, (std::vector<double>{2, 5, 7, 10, 11}));

    // The first round had none: a later round's are listed all the same.
    ScenarioOutcome later = compiled_round({1, 2}, "", 0);
    pool_round(later, compiled_round({3, 4, 5}, "latency: 2", 1));
    EXPECT_EQ(later.result.info.at("compiled_samples"), "latency: 4");
    EXPECT_EQ(scalar(later, "recompiled_samples"), 1);
}

TEST(Rounds, DroppedSamplesAreCountedAmongTheSamplesAsTakenInEveryRound) {
    // --discard-recompiled: round 1 took 4 and dropped its third, round 2 took 3 and
    // dropped its first; as taken, that is samples 2 and 4 of the 7.
    ScenarioOutcome pooled = compiled_round({1, 2, 4}, "latency: dropped 2 (as measured)", 1, 1);
    pool_round(pooled, compiled_round({6, 7}, "latency: dropped 0 (as measured)", 1, 1));
    EXPECT_EQ(pooled.result.info.at("compiled_samples"), "latency: dropped 2, 4 (as measured)");
    EXPECT_EQ(scalar(pooled, "recompiled_samples"), 2);
    EXPECT_EQ(scalar(pooled, "discarded_recompiled"), 2);
    EXPECT_EQ(pooled.result.series[0].samples, (std::vector<double>{1, 2, 4, 6, 7}));
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
