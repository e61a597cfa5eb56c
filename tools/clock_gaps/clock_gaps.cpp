// clock_gaps: can this machine hold a schedule? One thread reads the clock in a tight loop
// for the seconds asked and reports every gap between two readings longer than a
// threshold: time in which the thread did not run although it never slept (the kernel or,
// in a virtual machine, the hypervisor took its CPU). A serving run's late issues
// (docs/serving.md) are bounded below by these gaps: no load generator issues on time
// through a stall of its thread.
//
//   clock_gaps [SECONDS [THRESHOLD_US]]     defaults: 10 s, 1000 us
//
// Prints one line per gap over the threshold, then a summary:
//   10.0 s spinning: 9 gaps over 100 us, 1 over 1000 us, longest 1925 us
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

double number(const char* text, const char* what) {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(value > 0)) {
        std::fprintf(stderr,
                     "clock_gaps: %s '%s' is not a number above 0\nusage: clock_gaps [SECONDS [THRESHOLD_US]]\n", what,
                     text);
        std::exit(2);
    }
    return value;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 3) {
        std::fprintf(stderr, "usage: clock_gaps [SECONDS [THRESHOLD_US]]\n");
        return 2;
    }
    const double seconds = argc > 1 ? number(argv[1], "SECONDS") : 10;
    const double threshold_us = argc > 2 ? number(argv[2], "THRESHOLD_US") : 1000;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    auto last = start;
    long long over_100us = 0, over_threshold = 0;
    double longest = 0;
    for (auto now = Clock::now(); now < end; now = Clock::now()) {
        const double gap = std::chrono::duration<double, std::micro>(now - last).count();
        if (gap > 100) ++over_100us;
        if (gap > threshold_us) {
            ++over_threshold;
            std::printf("gap %.0f us at %.3f s\n", gap, std::chrono::duration<double>(now - start).count());
        }
        if (gap > longest) longest = gap;
        last = now;
    }
    std::printf("%.1f s spinning: %lld gaps over 100 us, %lld over %.0f us, longest %.0f us\n", seconds, over_100us,
                over_threshold, threshold_us, longest);
}
