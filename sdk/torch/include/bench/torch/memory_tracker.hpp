// Measured memory: the bytes LibTorch allocates on the CPU, counted as they are
// allocated and freed, with their peak.
#pragma once

#include <cstdint>

#include <bench/export.hpp>

namespace bench::libtorch {

/// Counts LibTorch's CPU allocations while it lives. The constructor wraps the CPU
/// allocator (c10::GetCPUAllocator, which every CPU tensor, and oneDNN's scratch memory,
/// is allocated from) in a counting one (c10::SetCPUAllocator); the destructor puts the
/// original back. Memory is measured, not computed from shapes: a tensor counts for the
/// bytes its storage asked for, when it asked, until its storage is freed.
///
///   bench::libtorch::CpuMemoryTracker memory;
///   torch::nn::Linear fc(10, 20);           // memory.live_bytes() == 880: 220 floats
///   memory.reset_peak();
///   auto y = fc->forward(x);                // memory.peak_bytes(): the most live at once
///
/// A storage allocated while the tracker lived and freed after it ended is still freed
/// with the allocator that made it (the counting allocator keeps it apart), and counts
/// against a later tracker's live_bytes() when freed during that one's life. Memory
/// that LibTorch does not allocate through its CPU allocator (OpenBLAS's buffers, glibc
/// arenas, the CUDA caching allocator) is not counted.
///
/// One tracker at a time: a second while one lives is std::logic_error. When the CPU
/// allocator cannot be replaced (one set at a higher priority) the constructor throws
/// std::runtime_error. Counting is thread-safe; its cost is an atomic add per allocation
/// and 64 bytes of bookkeeping per storage (not counted).
class BENCH_EXPORT CpuMemoryTracker {
public:
    CpuMemoryTracker();
    ~CpuMemoryTracker();
    CpuMemoryTracker(const CpuMemoryTracker&) = delete;
    CpuMemoryTracker& operator=(const CpuMemoryTracker&) = delete;

    /// Bytes allocated since the tracker started, less the bytes of counted storages
    /// freed since then.
    std::int64_t live_bytes() const;
    /// The most live_bytes() there were at once since the start or the last reset_peak().
    std::int64_t peak_bytes() const;
    /// Starts a new peak from the bytes live now.
    void reset_peak();
    /// Storages allocated since the tracker started.
    std::int64_t allocations() const;

private:
    std::int64_t start_live_;
    std::int64_t start_allocations_;
};

}  // namespace bench::libtorch
