// The clock every measurement reads, and what it costs to read it.
#pragma once

#include <chrono>

#include <bench/export.hpp>

namespace bench {

using Clock = std::chrono::steady_clock;

/// The smallest nonzero step between two reads of Clock, measured once per process.
BENCH_EXPORT double clock_resolution_ns();

/// The mean time one Clock::now() takes, measured once per process. A timed sample
/// holds about one such read between its start and its stop; the timer subtracts it.
BENCH_EXPORT double clock_cost_ns();

/// The shortest sample: 1000 times the clock resolution, and at least 1 ms. Shorter
/// samples are dominated by the clock; and a median over samples of a few microseconds
/// skips the ones an interrupt or the hypervisor slowed, so it reads 3-5% below the
/// mean time per call that Google Benchmark reports (scripts/compare_gbench).
BENCH_EXPORT double default_min_sample_ns();

/// Nanoseconds from `start` to `stop` (two reads of Clock), as a double: for a
/// benchmark that times something itself, e.g. `bench::elapsed_ns(start, stop) / 1e6`
/// for a sample in ms.
inline double elapsed_ns(Clock::time_point start, Clock::time_point stop) {
    return std::chrono::duration<double, std::nano>(stop - start).count();
}

}  // namespace bench
