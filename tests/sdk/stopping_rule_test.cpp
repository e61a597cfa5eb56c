// The stopping rule, driven with explicit clock readings: deterministic, no sleeping.
#include <bench/stopping_rule.hpp>
#include <bench/timer.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace {

using namespace std::chrono_literals;

TEST(StoppingRule, FixedCountByDefault) {
    bench::TimingOptions options;
    options.measurement_iterations = 3;
    bench::StoppingRule rule(options);
    const auto t0 = bench::Clock::now();
    rule.start(t0);
    std::vector<double> samples;
    EXPECT_FALSE(rule.should_stop(samples, t0));
    samples = {1, 2};
    EXPECT_FALSE(rule.should_stop(samples, t0 + 1h));  // time plays no part
    samples.push_back(3);
    EXPECT_TRUE(rule.should_stop(samples, t0));
    EXPECT_EQ(rule.report(samples, t0).stop_reason, "iterations");
}

TEST(StoppingRule, MinTimeNeedsBothTimeAndSamples) {
    bench::TimingOptions options;
    options.measurement_iterations = 5;
    options.min_time_s = 1;
    bench::StoppingRule rule(options);
    const auto t0 = bench::Clock::now();
    rule.start(t0);
    std::vector<double> samples(10, 1.0);
    EXPECT_FALSE(rule.should_stop(samples, t0 + 500ms));
    samples.resize(3);
    EXPECT_FALSE(rule.should_stop(samples, t0 + 2s));  // long enough, too few samples
    samples.resize(5, 1.0);
    EXPECT_TRUE(rule.should_stop(samples, t0 + 2s));
    const bench::SamplingReport report = rule.report(samples, t0 + 2s);
    EXPECT_EQ(report.stop_reason, "min_time");
    EXPECT_DOUBLE_EQ(report.elapsed_s, 2.0);
    EXPECT_EQ(report.samples, 5);
}

TEST(StoppingRule, StopsOnceTheMedianIsKnownWellEnough) {
    bench::TimingOptions options;
    options.measurement_iterations = 10;
    options.target_ci_width = 0.01;
    bench::StoppingRule rule(options);
    const auto t0 = bench::Clock::now();
    rule.start(t0);
    // Alternating 99 and 101: the median's interval spans both until... it always does:
    // 2% wide. Samples within 0.2% of 100 make it narrow enough.
    std::vector<double> samples;
    for (int i = 0; i < 10; ++i) samples.push_back(i % 2 ? 99.0 : 101.0);
    EXPECT_FALSE(rule.should_stop(samples, t0 + 1s));
    for (int i = 0; i < 200; ++i) samples.push_back(100.0 + (i % 3) * 0.1);
    bool stopped = false;
    for (int i = 0; i < 50 && !stopped; ++i) {  // the rule checks every tenth of growth
        samples.push_back(100.05);
        stopped = rule.should_stop(samples, t0 + 2s);
    }
    ASSERT_TRUE(stopped);
    const bench::SamplingReport report = rule.report(samples, t0 + 2s);
    EXPECT_EQ(report.stop_reason, "ci_width");
    EXPECT_LE(report.ci_width, 0.01);
    EXPECT_DOUBLE_EQ(report.target_ci_width, 0.01);
}

TEST(StoppingRule, MaxTimeEndsANoisySeriesAndSaysSo) {
    bench::TimingOptions options;
    options.measurement_iterations = 10;
    options.target_ci_width = 0.001;
    options.max_time_s = 3;
    bench::StoppingRule rule(options);
    const auto t0 = bench::Clock::now();
    rule.start(t0);
    std::vector<double> samples;
    for (int i = 0; i < 100; ++i) samples.push_back(i % 2 ? 50.0 : 150.0);
    EXPECT_FALSE(rule.should_stop(samples, t0 + 2s));
    EXPECT_TRUE(rule.should_stop(samples, t0 + 3s));
    const bench::SamplingReport report = rule.report(samples, t0 + 3s);
    EXPECT_EQ(report.stop_reason, "max_time");
    EXPECT_GT(report.ci_width, 0.001);
}

TEST(StoppingRule, ACiTargetAloneHasADefaultBudget) {
    bench::TimingOptions options;
    options.target_ci_width = 0.0001;
    bench::StoppingRule rule(options);
    const auto t0 = bench::Clock::now();
    rule.start(t0);
    std::vector<double> samples;
    for (int i = 0; i < 100; ++i) samples.push_back(i % 2 ? 1.0 : 2.0);
    const auto budget =
        std::chrono::duration_cast<bench::Clock::duration>(std::chrono::duration<double>(bench::default_max_time_s));
    EXPECT_FALSE(rule.should_stop(samples, t0 + budget - 1ms));
    EXPECT_TRUE(rule.should_stop(samples, t0 + budget));
}

TEST(StoppingRule, TimeCallableMeasuresAtLeastMinTime) {
    bench::TimingOptions options;
    options.warmup_iterations = 1;
    options.measurement_iterations = 2;
    options.min_time_s = 0.05;
    long long calls = 0;
    const bench::TimedSamples timed = bench::time_callable([&] { bench::do_not_optimize(++calls); }, options);
    EXPECT_GE(std::chrono::duration<double>(timed.stop - timed.start).count(), 0.05);
    EXPECT_EQ(timed.sampling.stop_reason, "min_time");
    EXPECT_EQ(timed.sampling.samples, static_cast<long long>(timed.ms.size()));
    EXPECT_GT(timed.ms.size(), 2u);
    EXPECT_GT(timed.sampling.clock_resolution_ns, 0);
    EXPECT_GT(timed.sampling.clock_cost_ns, 0);
    EXPECT_TRUE(timed.first_call_ms >= 0);
}

TEST(StoppingRule, PausesBetweenSamplesOutsideTheTimeRule) {
    // The worker's --throttle-cooldown: a pause before each sample, whose time the rule
    // leaves out. Here the pause says it waited 10 s (without waiting) before sample 0.
    std::vector<double> pauses;
    bench::StoppingRule::set_pause_between_samples([&pauses] {
        pauses.push_back(pauses.empty() ? 10.0 : 0.0);
        return pauses.back();
    });
    bench::TimingOptions options;
    options.measurement_iterations = 1;
    options.max_time_s = 1;
    bench::StoppingRule rule(options);
    const auto t0 = bench::Clock::now();
    rule.start(t0);
    std::vector<double> samples;
    EXPECT_FALSE(rule.should_stop(samples, t0));
    EXPECT_EQ(pauses.size(), 1u);
    samples = {1.0};
    EXPECT_FALSE(rule.should_stop(samples, t0 + 5s));  // 5 s in, of which 10 s paused: not over
    EXPECT_TRUE(rule.should_stop(samples, t0 + 11500ms));  // 1.5 s measured
    EXPECT_EQ(rule.report(samples, t0 + 11500ms).stop_reason, "max_time");
    EXPECT_DOUBLE_EQ(rule.report(samples, t0 + 11500ms).elapsed_s, 1.5);
    EXPECT_EQ(pauses.size(), 2u);  // before each sample, none once it stops

    // A fixed count: a pause before each of the samples, none after the last.
    pauses.clear();
    bench::TimingOptions fixed;
    fixed.measurement_iterations = 3;
    bench::StoppingRule counted(fixed);
    counted.start();
    samples.clear();
    while (!counted.should_stop(samples)) samples.push_back(1.0);
    EXPECT_EQ(pauses.size(), 3u);
    bench::StoppingRule::set_pause_between_samples({});
    EXPECT_FALSE(counted.should_stop(std::vector<double>{}));
    EXPECT_EQ(pauses.size(), 3u);  // removed
}

TEST(Clock, CostIsMeasured) {
    EXPECT_GT(bench::clock_cost_ns(), 0.0);
    EXPECT_LT(bench::clock_cost_ns(), 100'000.0);
}

}  // namespace

namespace {

TEST(Timer, BatchLoopCallsExactlyTheCountAskedFor) {
    for (const long long count : {0LL, 1LL, 2LL, 3LL, 4LL, 5LL, 6LL, 7LL, 1000001LL, 1000002LL}) {
        long long calls = 0;
        auto fn = [&] { ++calls; };
        bench::detail::call_repeatedly(fn, count);
        EXPECT_EQ(calls, count);
    }
}

}  // namespace
