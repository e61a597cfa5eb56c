#include "speed_reference.hpp"

#include <bench/speed_reference.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <utility>

#include <bench/clock.hpp>

namespace bench::detail {

namespace {

template <unsigned N>
std::uint64_t step(std::uint64_t x) {
    // A branch that depends on the data, different in each function.
    if ((x >> (N % 61)) & 1) return (x ^ (x << (N % 13 + 1))) + N;
    return (x ^ (x >> (N % 11 + 1))) * 3 + N;
}

using Step = std::uint64_t (*)(std::uint64_t);

template <std::size_t... I>
constexpr std::array<Step, sizeof...(I)> make_table(std::index_sequence<I...>) {
    return {&step<static_cast<unsigned>(I)>...};
}

constexpr std::array<Step, 512> table = make_table(std::make_index_sequence<512>{});

/// `steps` steps of the chain; the result feeds the next call so that nothing can be
/// skipped.
[[gnu::noinline]] std::uint64_t run(std::uint64_t state, long steps) {
    for (long i = 0; i < steps; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state = table[state & 511](state);
    }
    return state;
}

volatile std::uint64_t sink;

double time_steps(long steps) {
    const auto start = Clock::now();
    sink = run(sink | 1, steps);
    return elapsed_ns(start, Clock::now());
}

long calibrated_steps() {
    // About a millisecond a repetition.
    static const long steps = [] {
        long n = 1024;
        while (n < (1L << 30)) {
            const double ns = time_steps(n);
            if (ns >= 250'000) return std::max(1L, static_cast<long>(static_cast<double>(n) * 1e6 / ns));
            n *= 2;
        }
        return n;
    }();
    return steps;
}

/// The reference set_speed_reference installed; none: the C++ loop.
struct Installed {
    std::mutex mutex;
    SpeedReference reference;
    std::string kind = "c++";
};

Installed& installed() {
    static Installed the;
    return the;
}

}  // namespace

double speed_reference_ns() {
    const long steps = calibrated_steps();
    std::array<double, 5> readings{};
    for (double& r : readings) r = time_steps(steps) / static_cast<double>(steps);
    std::nth_element(readings.begin(), readings.begin() + 2, readings.end());
    return readings[2];
}

std::pair<double, std::string> read_speed_reference() {
    Installed& the = installed();
    SpeedReference reference;
    std::string kind;
    {
        const std::lock_guard lock(the.mutex);
        reference = the.reference;
        kind = the.kind;
    }
    return {reference ? reference() : speed_reference_ns(), kind};
}

}  // namespace bench::detail

namespace bench {

void set_speed_reference(SpeedReference reference, std::string kind) {
    detail::Installed& the = detail::installed();
    const std::lock_guard lock(the.mutex);
    the.kind = reference ? std::move(kind) : "c++";
    the.reference = std::move(reference);
}

}  // namespace bench
