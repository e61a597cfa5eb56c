// CpuMemoryTracker: LibTorch's CPU allocations counted exactly, byte for byte, on
// tensors and a small module of known size.
#include <bench/torch/memory_tracker.hpp>

#include <cstdint>
#include <stdexcept>

#include <ATen/ops/empty.h>
#include <c10/core/CPUAllocator.h>
#include <torch/nn/modules/linear.h>

#include <gtest/gtest.h>

namespace {

using bench::libtorch::CpuMemoryTracker;

TEST(CpuMemoryTracker, CountsTheBytesOfEachStorageWhileItLives) {
    CpuMemoryTracker memory;
    EXPECT_EQ(memory.live_bytes(), 0);
    {
        const at::Tensor a = at::empty({10}, at::kFloat);
        const at::Tensor b = at::empty({3, 5}, at::kDouble);
        EXPECT_EQ(memory.live_bytes(), 10 * 4 + 15 * 8);
        EXPECT_EQ(memory.allocations(), 2);
        const at::Tensor view = a.view({2, 5});  // a view shares the storage: no bytes
        EXPECT_EQ(memory.live_bytes(), 10 * 4 + 15 * 8);
    }
    EXPECT_EQ(memory.live_bytes(), 0);
    EXPECT_EQ(memory.peak_bytes(), 10 * 4 + 15 * 8);

    memory.reset_peak();
    EXPECT_EQ(memory.peak_bytes(), 0);
    const at::Tensor kept = at::empty({100}, at::kFloat);
    { const at::Tensor temporary = at::empty({1000}, at::kFloat); }
    EXPECT_EQ(memory.live_bytes(), 400);
    EXPECT_EQ(memory.peak_bytes(), 4400);
    const at::Tensor none = at::empty({0}, at::kFloat);  // no storage at all
    EXPECT_EQ(memory.live_bytes(), 400);
}

TEST(CpuMemoryTracker, AModuleWeighsItsParameters) {
    CpuMemoryTracker memory;
    const torch::nn::Linear fc(10, 20);  // 10 x 20 weights and 20 biases, initialised in place
    EXPECT_EQ(memory.live_bytes(), (10 * 20 + 20) * 4);
}

TEST(CpuMemoryTracker, RawAllocationsAsOneDnnMakesThem) {
    // oneDNN's scratch memory comes from the CPU allocator's raw_allocate.
    CpuMemoryTracker memory;
    c10::Allocator* allocator = c10::GetCPUAllocator();
    void* block = allocator->raw_allocate(1000);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % 64, 0u);  // aligned as LibTorch's own
    EXPECT_EQ(memory.live_bytes(), 1000);
    allocator->raw_deallocate(block);
    EXPECT_EQ(memory.live_bytes(), 0);
}

TEST(CpuMemoryTracker, PutsTheAllocatorBackAndFreesWhatOutlivesIt) {
    c10::Allocator* original = c10::GetCPUAllocator();
    at::Tensor outliving;
    {
        CpuMemoryTracker memory;
        EXPECT_NE(c10::GetCPUAllocator(), original);
        outliving = at::empty({25}, at::kFloat);
        EXPECT_THROW(CpuMemoryTracker second, std::logic_error);  // one at a time
    }
    EXPECT_EQ(c10::GetCPUAllocator(), original);
    const at::Tensor plain = at::empty({25}, at::kFloat);  // the original allocator's again

    CpuMemoryTracker later;
    outliving.reset();  // freed by the allocator that made it, and counted against the tracker alive now
    EXPECT_EQ(later.live_bytes(), -100);
}

}  // namespace
