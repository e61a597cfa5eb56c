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

/// 1000 times the clock resolution, at least 10 us: a sample shorter than this is
/// dominated by the clock itself.
BENCH_EXPORT double default_min_sample_ns();

namespace detail {

inline double elapsed_ns(Clock::time_point start, Clock::time_point stop) {
    return std::chrono::duration<double, std::nano>(stop - start).count();
}

}  // namespace detail

}  // namespace bench
