// Timing a callable: warmup, then measured iterations, every sample kept.
//
// The loop is a template so that the callable is called directly, with no indirect
// call between the clock reads. Callables faster than the minimum sample time are
// timed in batches: one sample is the batch's time divided by the batch size, so the
// cost of reading the clock does not dominate.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <bench/export.hpp>

namespace bench {

using Clock = std::chrono::steady_clock;

/// Keeps the compiler from optimizing away a computation whose result is unused.
template <class T>
inline void do_not_optimize(T const& value) {
    asm volatile("" : : "r,m"(value) : "memory");
}

/// Keeps the compiler from assuming memory is unchanged across this point.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

/// The smallest nonzero step between two reads of Clock, measured once per process.
BENCH_EXPORT double clock_resolution_ns();

/// 1000 times the clock resolution, at least 10 us: a sample shorter than this is
/// dominated by the clock itself.
BENCH_EXPORT double default_min_sample_ns();

struct TimingOptions {
    int warmup_iterations = 3;
    int measurement_iterations = 10;
    double min_sample_ns = 0;  // 0: default_min_sample_ns()
};

struct TimedSamples {
    std::vector<double> ms;          // one per measured sample, per call
    long long inner_iterations = 1;  // calls per sample
    /// When the measured loop began and ended (warmup and calibration excluded): the
    /// measurement window that monitors look at.
    Clock::time_point start{};
    Clock::time_point stop{};
};

namespace detail {

inline double elapsed_ns(Clock::time_point start, Clock::time_point stop) {
    return std::chrono::duration<double, std::nano>(stop - start).count();
}

/// The smallest power-of-ten-ish batch whose duration reaches `min_ns`.
template <class Fn>
long long calibrate_batch(Fn& fn, double min_ns) {
    long long batch = 1;
    constexpr long long max_batch = 1LL << 32;
    for (;;) {
        const auto start = Clock::now();
        for (long long k = 0; k < batch; ++k) fn();
        const double elapsed = elapsed_ns(start, Clock::now());
        if (elapsed >= min_ns || batch >= max_batch) return batch;
        const double wanted = elapsed > 0 ? std::ceil(batch * min_ns * 1.1 / elapsed) : batch * 10.0;
        batch = std::clamp(static_cast<long long>(wanted), batch * 2, batch * 100);
    }
}

}  // namespace detail

/// Runs `fn` options.warmup_iterations times, then measures
/// options.measurement_iterations samples. When the last warmup call (or, without
/// warmup, one calibration call) is shorter than the minimum sample time, a batch size
/// is calibrated first; those calls count as warmup.
template <class Fn>
TimedSamples time_callable(Fn&& fn, const TimingOptions& options) {
    const double min_ns = options.min_sample_ns > 0 ? options.min_sample_ns : default_min_sample_ns();
    double last_call_ns = -1;
    for (int i = 0; i < options.warmup_iterations; ++i) {
        const auto start = Clock::now();
        fn();
        last_call_ns = detail::elapsed_ns(start, Clock::now());
    }
    TimedSamples result;
    if (last_call_ns < min_ns) result.inner_iterations = detail::calibrate_batch(fn, min_ns);

    result.ms.reserve(static_cast<std::size_t>(std::max(options.measurement_iterations, 0)));
    const long long batch = result.inner_iterations;
    result.start = Clock::now();
    for (int i = 0; i < options.measurement_iterations; ++i) {
        const auto start = Clock::now();
        for (long long k = 0; k < batch; ++k) fn();
        const auto stop = Clock::now();
        result.ms.push_back(detail::elapsed_ns(start, stop) / 1e6 / static_cast<double>(batch));
    }
    result.stop = Clock::now();
    return result;
}

}  // namespace bench
