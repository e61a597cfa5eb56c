// CpuMemoryTracker: a counting allocator wrapped around LibTorch's CPU allocator.
#include <bench/torch/memory_tracker.hpp>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <new>
#include <stdexcept>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/alignment.h>

namespace bench::libtorch {

namespace {

// What the counting allocator has allocated and not freed, process-wide: storages
// outlive the tracker that saw them allocated.
std::atomic<std::int64_t> counted_live{0};
std::atomic<std::int64_t> counted_peak{0};
std::atomic<std::int64_t> counted_allocations{0};

/// Written in front of each counted storage: its size, and the allocator that made the
/// block, which frees it.
struct Header {
    std::size_t bytes;
    c10::Allocator* original;
};
// The data keeps the original allocator's alignment (64 bytes: c10::gAlignment).
constexpr std::size_t header_bytes = c10::gAlignment;
static_assert(sizeof(Header) <= header_bytes);

void count_allocation(std::int64_t bytes) {
    const std::int64_t now = counted_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    std::int64_t high = counted_peak.load(std::memory_order_relaxed);
    while (now > high && !counted_peak.compare_exchange_weak(high, now, std::memory_order_relaxed)) {}
    counted_allocations.fetch_add(1, std::memory_order_relaxed);
}

void free_counted(void* data) {
    if (data == nullptr) return;
    void* base = static_cast<char*>(data) - header_bytes;
    const Header header = *static_cast<const Header*>(base);
    counted_live.fetch_sub(static_cast<std::int64_t>(header.bytes), std::memory_order_relaxed);
    header.original->raw_deallocate(base);
}

class CountingAllocator final : public c10::Allocator {
public:
    c10::Allocator* original = nullptr;

    c10::DataPtr allocate(std::size_t bytes) override {
        const c10::Device cpu(c10::DeviceType::CPU);
        if (bytes == 0) return {nullptr, nullptr, &free_counted, cpu};  // as the default allocator: no storage
        // raw_allocate: a block that raw_deallocate frees (data and context are one pointer).
        void* base = original->raw_allocate(bytes + header_bytes);
        new (base) Header{bytes, original};
        void* data = static_cast<char*>(base) + header_bytes;
        count_allocation(static_cast<std::int64_t>(bytes));
        // The context is the data pointer too, so that raw_allocate works through this allocator.
        return {data, data, &free_counted, cpu};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &free_counted; }
    // Storage copies (clone of a storage): plain memcpy, as the default CPU allocator's.
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
};

std::mutex install_mutex;
bool installed = false;

CountingAllocator& counting_allocator() {
    // Never destroyed: storages it allocated may be freed during static destruction.
    static auto* allocator = new CountingAllocator();
    return *allocator;
}

}  // namespace

CpuMemoryTracker::CpuMemoryTracker() {
    const std::lock_guard<std::mutex> lock(install_mutex);
    if (installed) throw std::logic_error("CpuMemoryTracker: another tracker is counting already (one at a time)");
    CountingAllocator& counting = counting_allocator();
    c10::Allocator* current = c10::GetCPUAllocator();
    if (current->raw_deleter() == nullptr)
        throw std::runtime_error("CpuMemoryTracker: the CPU allocator cannot be wrapped (it has no raw deleter)");
    counting.original = current;
    c10::SetCPUAllocator(&counting);
    if (c10::GetCPUAllocator() != &counting)
        throw std::runtime_error(
            "CpuMemoryTracker: the CPU allocator was set at a higher priority and cannot be replaced");
    installed = true;
    start_live_ = counted_live.load();
    start_allocations_ = counted_allocations.load();
    counted_peak.store(start_live_);
}

CpuMemoryTracker::~CpuMemoryTracker() {
    const std::lock_guard<std::mutex> lock(install_mutex);
    c10::SetCPUAllocator(counting_allocator().original);
    installed = false;
}

std::int64_t CpuMemoryTracker::live_bytes() const { return counted_live.load() - start_live_; }

std::int64_t CpuMemoryTracker::peak_bytes() const { return counted_peak.load() - start_live_; }

void CpuMemoryTracker::reset_peak() { counted_peak.store(counted_live.load()); }

std::int64_t CpuMemoryTracker::allocations() const { return counted_allocations.load() - start_allocations_; }

}  // namespace bench::libtorch
