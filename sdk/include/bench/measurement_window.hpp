// A measurement window: when a benchmark's measured iterations ran. Monitors use the
// windows to tell what they saw during measurement (utilization, throttling, energy
// per iteration) from what they saw while a model loaded or warmed up.
//
// Context::measure records one window per call (its measured loop, warmup excluded).
// A benchmark that times itself marks its windows with Context::begin_measurement and
// end_measurement, or a bench::MeasurementScope (<bench/context.hpp>).
#pragma once

#include <string>

#include <bench/clock.hpp>

namespace bench {

struct MeasurementWindow {
    Clock::time_point start{};
    Clock::time_point stop{};
    /// Calls measured in the window (samples times calls per sample); energy per
    /// iteration is the energy of all windows over the sum of their iterations.
    long long iterations = 0;

    friend bool operator==(const MeasurementWindow&, const MeasurementWindow&) = default;
};

/// A compile that ran while the benchmark did (ABI 2.15, Context::record_compile): the
/// timed samples it overlaps contain it.
struct CompileWindow {
    Clock::time_point start{};
    Clock::time_point end{};
    std::string what;  // what was compiled and why: the guard that failed

    friend bool operator==(const CompileWindow&, const CompileWindow&) = default;
};

}  // namespace bench
