#include <bench/clock.hpp>
#include <bench/timer.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace bench {

double clock_resolution_ns() {
    // Catch2's approach: the smallest nonzero difference between consecutive reads.
    static const double resolution = [] {
        double best = std::numeric_limits<double>::infinity();
        for (int i = 0; i < 1000; ++i) {
            const auto first = Clock::now();
            auto next = Clock::now();
            while (next == first) next = Clock::now();
            best = std::min(best, elapsed_ns(first, next));
        }
        return best;
    }();
    return resolution;
}

double clock_cost_ns() {
    // The best of a few rounds of many reads: a preempted round only makes one slower.
    static const double cost = [] {
        constexpr int reads = 10'000;
        double best = std::numeric_limits<double>::infinity();
        for (int round = 0; round < 5; ++round) {
            const auto start = Clock::now();
            for (int i = 0; i < reads; ++i) {
                const auto t = Clock::now();
                asm volatile("" : : "r,m"(t) : "memory");
            }
            best = std::min(best, elapsed_ns(start, Clock::now()) / reads);
        }
        return best;
    }();
    return cost;
}

namespace {

/// The largest CPU cache of cpu0, in bytes, from /sys; 0 when it does not say.
std::size_t last_level_cache_bytes() {
    std::size_t largest = 0;
    for (int index = 0; index < 16; ++index) {
        std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
        if (!in) break;
        std::string size;
        in >> size;  // "32K", "1024K", "32M"
        if (size.empty()) continue;
        std::size_t bytes = 0;
        try {
            bytes = std::stoull(size);
        } catch (const std::exception&) {
            continue;
        }
        if (size.back() == 'K') bytes <<= 10;
        if (size.back() == 'M') bytes <<= 20;
        largest = std::max(largest, bytes);
    }
    return largest;
}

}  // namespace

std::size_t flush_cpu_cache() {
    static std::vector<std::uint64_t> buffer = [] {
        const std::size_t cache = last_level_cache_bytes();
        return std::vector<std::uint64_t>(std::max<std::size_t>(cache > 0 ? 2 * cache : 64 << 20, 1 << 20) / 8);
    }();
    static std::uint64_t round = 0;
    ++round;
    for (std::size_t i = 0; i < buffer.size(); i += 8) buffer[i] = round + i;  // a line a store
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < buffer.size(); i += 8) sum += buffer[i];
    do_not_optimize(sum);
    return buffer.size() * sizeof(std::uint64_t);
}

double default_min_sample_ns() { return std::max(1000.0 * clock_resolution_ns(), 1'000'000.0); }

}  // namespace bench
