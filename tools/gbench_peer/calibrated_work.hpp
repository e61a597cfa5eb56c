// The four workloads that scripts/compare_gbench times with Google Benchmark and with
// benchhost's ctx.measure, side by side: the same inline code on both sides, so that
// any difference in what the two report comes from the harness, not from the work.
//
// Work of known cost is a chain of dependent xorshift64 steps (as in the mock plugin's
// spin): each step depends on the one before, so the CPU cannot overlap them and the
// compiler cannot shorten them, and the time is proportional to the step count. Each
// call continues the chain of the call before it (`state = run(work, state)`), so that
// consecutive calls cannot overlap either.
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

namespace gbench_peer {

enum class Work { empty, ns20, us1, ms1 };

inline constexpr Work all_work[] = {Work::empty, Work::ns20, Work::us1, Work::ms1};

/// xorshift64 steps of each workload (0: nothing at all).
constexpr std::uint64_t steps(Work work) {
    switch (work) {
        case Work::empty: return 0;
        case Work::ns20: return 10;
        case Work::us1: return 500;
        case Work::ms1: return 500'000;
    }
    return 0;
}

/// The name both tools report the workload under.
constexpr std::string_view name(Work work) {
    switch (work) {
        case Work::empty: return "empty";
        case Work::ns20: return "work_20ns";
        case Work::us1: return "work_1us";
        case Work::ms1: return "work_1ms";
    }
    return "?";
}

/// The seed of every chain (any odd value: xorshift64 never leaves a nonzero state).
inline constexpr std::uint64_t seed = 0x9E3779B97F4A7C15ULL;

/// `n` dependent xorshift64 steps from `state`. The empty asm statements cost no
/// instruction: they make `n` and the result opaque to the optimizer (no unrolling
/// that differs between the two executables, no constant folding, no removal), while
/// keeping the state in a register (no memory clobber, so no store and reload between
/// calls).
[[gnu::always_inline]] inline std::uint64_t spin(std::uint64_t state, std::uint64_t n) {
    asm volatile("" : "+r"(n));
    for (std::uint64_t i = 0; i < n; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
    }
    asm volatile("" : "+r"(state));
    return state;
}

/// The empty function: nothing but the opaque hand-over of the state, which keeps a
/// harness's loop around it from being removed (an empty loop would be deleted by the
/// compiler and time as zero). What it measures is each tool's own cost per iteration.
[[gnu::always_inline]] inline std::uint64_t nothing(std::uint64_t state) {
    asm volatile("" : "+r"(state));
    return state;
}

}  // namespace gbench_peer
