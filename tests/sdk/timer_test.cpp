#include <bench/timer.hpp>

#include <gtest/gtest.h>

namespace {

TEST(Timer, CountsWarmupAndMeasuredCalls) {
    int calls = 0;
    bench::TimingOptions options;
    options.warmup_iterations = 2;
    options.measurement_iterations = 5;
    options.min_sample_ns = 1;  // every call is long enough: no batching
    const bench::TimedSamples timed = bench::time_callable([&] { ++calls; }, options);
    EXPECT_EQ(timed.inner_iterations, 1);
    EXPECT_EQ(timed.ms.size(), 5u);
    EXPECT_EQ(calls, 7);
}

TEST(Timer, BatchesCallsShorterThanTheMinimumSample) {
    long long calls = 0;
    bench::TimingOptions options;
    options.warmup_iterations = 1;
    options.measurement_iterations = 4;
    options.min_sample_ns = 200'000;  // 0.2 ms: far longer than one increment
    const bench::TimedSamples timed = bench::time_callable([&] { bench::do_not_optimize(++calls); }, options);
    EXPECT_GT(timed.inner_iterations, 100);
    ASSERT_EQ(timed.ms.size(), 4u);
    // Each sample is a per-call time: far below the batch's 0.2 ms.
    for (double ms : timed.ms) EXPECT_LT(ms, 0.01);
    // The measured loop made exactly inner_iterations calls per sample.
    EXPECT_GE(calls, 1 + 4 * timed.inner_iterations);
}

TEST(Timer, SlowCallsAreNotBatched) {
    bench::TimingOptions options;
    options.warmup_iterations = 1;
    options.measurement_iterations = 3;
    options.min_sample_ns = 10'000;
    const auto sleep_50us = [] {
        const auto until = bench::Clock::now() + std::chrono::microseconds(50);
        while (bench::Clock::now() < until) {}
    };
    const bench::TimedSamples timed = bench::time_callable(sleep_50us, options);
    EXPECT_EQ(timed.inner_iterations, 1);
    for (double ms : timed.ms) EXPECT_GE(ms, 0.05);
}

TEST(Timer, ClockResolutionIsMeasuredAndPositive) {
    EXPECT_GT(bench::clock_resolution_ns(), 0.0);
    EXPECT_LT(bench::clock_resolution_ns(), 1e6);
    EXPECT_GE(bench::default_min_sample_ns(), 1'000'000.0);
}

}  // namespace
