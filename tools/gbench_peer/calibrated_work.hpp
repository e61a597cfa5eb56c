// The four workloads that scripts/compare_gbench times with Google Benchmark and with
// benchhost's ctx.measure, side by side: the same inline code on both sides, so that
// any difference in what the two report comes from the harness, not from the work.
//
// Work of known cost is the mock plugin's: known_work::spin, a chain of dependent
// xorshift64 steps (plugins/performance/mock_benchmark/known_work.hpp, which says why
// its time is proportional to the step count). Each call continues the chain of the
// call before it (`chain = known_work::spin(chain, steps(work))`), so that consecutive
// calls cannot overlap either.
//
// The step counts are fixed constants, not calibrated per run, so both tools always do
// exactly the same work. They were chosen from a measurement on the 2-core development
// VM (Intel Xeon, Ice Lake server, KVM, 2026-11-22): one step is 3 dependent
// shift+xor pairs, 6 cycles, and took 1.93 to 2.00 ns (median of 31 chains of 10^7
// steps: 1.97 ns, so the core ran at about 3.05 GHz). Hence 10 steps for ~20 ns, 500 for
// ~1 us, 500,000 for ~1 ms. On another machine the figures scale with the clock.
#pragma once

#include <cstdint>
#include <string_view>

#include "known_work.hpp"

namespace gbench_peer {

enum class Work { empty, ns20, us1, ms1 };

inline constexpr Work all_work[] = {Work::empty, Work::ns20, Work::us1, Work::ms1};

/// xorshift64 steps of each workload (0: nothing at all).
constexpr std::uint64_t steps(Work work) {
    switch (work) {
        case Work::empty:
            return 0;
        case Work::ns20:
            return 10;
        case Work::us1:
            return 500;
        case Work::ms1:
            return 500'000;
    }
    return 0;
}

/// The name both tools report the workload under.
constexpr std::string_view name(Work work) {
    switch (work) {
        case Work::empty:
            return "empty";
        case Work::ns20:
            return "work_20ns";
        case Work::us1:
            return "work_1us";
        case Work::ms1:
            return "work_1ms";
    }
    return "?";
}

/// The empty function: nothing but the opaque hand-over of the state that ends
/// known_work::spin, which keeps a harness's loop around it from being removed (an
/// empty loop would be deleted by the compiler and time as zero). What it measures is
/// each tool's own cost per iteration.
[[gnu::always_inline]] inline std::uint64_t nothing(std::uint64_t state) {
    asm volatile("" : "+r"(state));
    return state;
}

}  // namespace gbench_peer
