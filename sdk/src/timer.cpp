#include <bench/clock.hpp>

#include <algorithm>
#include <limits>

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

double default_min_sample_ns() { return std::max(1000.0 * clock_resolution_ns(), 1'000'000.0); }

}  // namespace bench
