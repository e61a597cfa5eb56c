// Timing a callable: warmup, then measured samples until the stopping rule says
// enough, every sample kept.
//
// The loop is a template so that the callable is called directly, with no indirect
// call between the clock reads. Callables faster than the minimum sample time are
// timed in batches: one sample is the batch's time, less the cost of one clock read,
// divided by the batch size, so neither the clock's resolution nor its cost dominates.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include <bench/clock.hpp>
#include <bench/export.hpp>
#include <bench/result.hpp>
#include <bench/stopping_rule.hpp>

namespace bench {

/// Keeps the compiler from optimizing away a computation whose result is unused.
template <class T>
inline void do_not_optimize(T const& value) {
    asm volatile("" : : "r,m"(value) : "memory");
}

/// Keeps the compiler from assuming memory is unchanged across this point.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

struct TimedSamples {
    std::vector<double> ms;  // one per measured sample, per call
    long long inner_iterations = 1;  // calls per sample
    /// When the measured loop began and ended (warmup and calibration excluded): the
    /// measurement window that monitors look at.
    Clock::time_point start{};
    Clock::time_point stop{};
    /// The first warmup call, in ms: the cold start of what is measured (NaN without warmup).
    double first_call_ms = std::numeric_limits<double>::quiet_NaN();
    SamplingReport sampling;  // why sampling stopped
    /// The batch reached detail::max_batch calls without filling a sample: the callable
    /// takes (next to) no time, most likely because the compiler removed its work.
    bool batch_limited = false;
    /// When each sample ended (ABI 2.10): the worker matches them with what the GPU
    /// monitor saw, to give each sample its SM clock and throttle reasons.
    std::vector<Clock::time_point> sample_ends;
};

namespace detail {

/// Calls `fn` `count` times: four calls per loop iteration, with two dependent
/// decrement-and-branch pairs (the asm keeps the compiler from merging them). The loop
/// then runs at the pace of its counter, two cycles per four calls, whatever the front
/// end does. Measured against Google Benchmark on this VM (scripts/compare_gbench), per
/// empty call: one call per iteration, 0.59 ns (a tiny loop often gets one taken branch
/// every 2 cycles here; Google Benchmark: 0.30 ns); loops bound by their taken branch
/// ran at two speeds, 0.15 or 0.30 ns with two calls and 0.075 or 0.15 ns with four,
/// changing from run to run; this one, 0.149 to 0.151 ns in six runs.
template <class Fn>
inline void call_repeatedly(Fn& fn, long long count) {
    if (count % 2 != 0) fn();
    long long pairs = count / 2;
    if (pairs <= 0) return;
    for (;;) {
        fn();
        fn();
        if (--pairs == 0) break;
        asm volatile("" : "+r"(pairs));
        fn();
        fn();
        if (--pairs == 0) break;
        asm volatile("" : "+r"(pairs));
    }
}

/// The most calls one sample may batch. A callable that needs more to fill a sample is
/// most likely optimized away (see TimedSamples::batch_limited).
inline constexpr long long max_batch = 1LL << 32;

/// The smallest power-of-ten-ish batch whose duration reaches `min_ns`, at most max_batch.
template <class Fn>
long long calibrate_batch(Fn& fn, double min_ns) {
    long long batch = 1;
    for (;;) {
        const auto start = Clock::now();
        call_repeatedly(fn, batch);
        const double elapsed = elapsed_ns(start, Clock::now());
        if (elapsed >= min_ns || batch >= max_batch) return batch;
        const double wanted = elapsed > 0 ? std::ceil(batch * min_ns * 1.1 / elapsed) : batch * 10.0;
        batch = std::min(std::clamp(static_cast<long long>(wanted), batch * 2, batch * 100), max_batch);
    }
}

}  // namespace detail

/// Evicts the CPU's caches: writes, then reads, a buffer of twice the last-level cache's
/// size (from /sys, 64 MiB when it does not say) (ABI 2.10). Returns the bytes written.
BENCH_EXPORT std::size_t flush_cpu_cache();

/// Runs `fn` options.warmup_iterations times, then measures samples until the
/// stopping rule of `options` is met (by default: options.measurement_iterations
/// samples). When the last warmup call (or, without warmup, one calibration call) is
/// shorter than the minimum sample time, a batch size is calibrated first; those calls
/// count as warmup.
///
/// With `before_sample` (cold-cache measurement), each sample is one call, and
/// before_sample() runs before each, outside the timed region: a batch of calls would
/// find the cache warm after its first.
template <class Fn, class BeforeSample = std::nullptr_t>
TimedSamples time_callable(Fn&& fn, const TimingOptions& options, BeforeSample&& before_sample = nullptr) {
    constexpr bool cold = !std::is_same_v<std::decay_t<BeforeSample>, std::nullptr_t>;
    const double min_ns = options.min_sample_ns > 0 ? options.min_sample_ns : default_min_sample_ns();
    TimedSamples result;
    double last_call_ns = -1;
    for (int i = 0; i < options.warmup_iterations; ++i) {
        const auto start = Clock::now();
        fn();
        last_call_ns = elapsed_ns(start, Clock::now());
        if (i == 0) result.first_call_ms = last_call_ns / 1e6;
    }
    if (!cold && last_call_ns < min_ns) result.inner_iterations = detail::calibrate_batch(fn, min_ns);
    result.batch_limited = result.inner_iterations >= detail::max_batch;

    const long long batch = result.inner_iterations;
    const double clock_cost = clock_cost_ns();
    StoppingRule rule(options);
    if (!options.has_time_rule())
        result.ms.reserve(static_cast<std::size_t>(std::clamp(options.measurement_iterations, 0, 1 << 20)));
    result.start = Clock::now();
    rule.start(result.start);
    auto now = result.start;
    while (!rule.should_stop(result.ms, now)) {
        if constexpr (cold) before_sample();
        const auto start = Clock::now();
        detail::call_repeatedly(fn, batch);
        now = Clock::now();
        const double elapsed = elapsed_ns(start, now) - clock_cost;
        result.ms.push_back(std::max(elapsed, 0.0) / 1e6 / static_cast<double>(batch));
        result.sample_ends.push_back(now);
    }
    result.stop = Clock::now();
    result.sampling = rule.report(result.ms, result.stop);
    return result;
}

}  // namespace bench
