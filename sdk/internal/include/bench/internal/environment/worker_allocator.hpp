// How a worker's allocator is set, agreed between the host (which starts workers with
// an environment of its choosing) and the LibTorch layer (which reports, in a
// scenario's info.malloc, what the worker runs with).
//
// glibc gives an allocation above its mmap threshold fresh pages each time and returns
// them at each free: a tensor of 51 MB made a forward pass 30 times slower. mallopt caps
// that threshold at 32 MiB; set in the environment at a process's start it has no cap.
// So, unless the user chose the allocator's behaviour, the host starts its workers with
// both thresholds at 4 GiB and marks them with BENCHHOST_MALLOC=kept.
//
// Internal (sdk/internal): not installed, not exported.
#pragma once

#include <array>
#include <string_view>

namespace bench {

/// Any of these in the environment means the user chose the allocator's behaviour:
/// glibc's tunables and thresholds, jemalloc's MALLOC_CONF, a preloaded allocator.
inline constexpr std::array<std::string_view, 5> user_allocator_variables{
    "GLIBC_TUNABLES", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_CONF", "LD_PRELOAD"};

/// What the host adds to a worker's environment where the user chose nothing.
inline constexpr std::array<std::string_view, 3> kept_memory_environment{
    "MALLOC_MMAP_THRESHOLD_=4294967296", "MALLOC_TRIM_THRESHOLD_=4294967296", "BENCHHOST_MALLOC=kept"};

/// The marker among kept_memory_environment that the worker reads.
inline constexpr std::string_view kept_memory_marker = "BENCHHOST_MALLOC";
inline constexpr std::string_view kept_memory_marker_value = "kept";

}  // namespace bench
