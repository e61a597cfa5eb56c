// Work of known cost: a chain of dependent xorshift64 steps. Each step depends on the
// one before, so the CPU cannot overlap them and the compiler cannot shorten them: the
// time is proportional to the step count (one step is 3 dependent shift+xor pairs, 6
// cycles). A caller continues the chain of its call before (`state = spin(state, n)`),
// so that consecutive calls cannot overlap either.
//
// The mock plugin's workload, in the one place it is written. Its other users include
// it from here: tests/fixtures/overhead/monitor_overhead (the mock's workload with the
// monitors on and off) and tools/gbench_peer (the workloads that Google Benchmark and
// ctx.measure both time, in calibrated_work.hpp). Not in the SDK: it is for testing
// benchhost itself; a plugin measures its own work, not this.
#pragma once

#include <cstdint>

namespace known_work {

/// The seed of a chain (any nonzero value: xorshift64 never leaves a nonzero state;
/// from zero it never leaves zero).
inline constexpr std::uint64_t seed = 0x9E3779B97F4A7C15ULL;

/// `steps` dependent xorshift64 steps from `state`. The empty asm statements cost no
/// instruction: they make `steps` and the result opaque to the optimizer (no unrolling
/// that differs between two executables, no constant folding, no removal), while
/// keeping the state in a register (no memory clobber, so no store and reload between
/// calls).
[[gnu::always_inline]] inline std::uint64_t spin(std::uint64_t state, std::uint64_t steps) {
    asm volatile("" : "+r"(steps));
    for (std::uint64_t i = 0; i < steps; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
    }
    asm volatile("" : "+r"(state));
    return state;
}

}  // namespace known_work
