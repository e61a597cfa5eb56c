// mock_server: a stand-in for a model that serves, for testing benchhost's load
// generator (Context::serve, docs/serving.md) against queueing theory.
//
// Each query takes a known, deterministic service time: the handler waits until a
// deadline on the steady clock, `service_time_ms` (times the query's samples) after it
// started. With Poisson arrivals (--load server --target-qps R) that is an M/D/1 queue,
// whose mean wait is known: rho * S / (2 * (1 - rho)), rho = R * S
// (tests/e2e/serving_test.cpp checks it).
//
// How it waits: `wait` = `sleep` (the default) sleeps until 200 us before the deadline,
// then spins on the clock to it; `spin` spins the whole time. Both end at the deadline,
// so the service time is the same unless the thread is not running when the deadline
// comes. On a 2-core machine shared with other work, spinning is what makes that
// likely: a thread that holds a core the whole time competes with the load generator's
// issuing thread and with everything else for the two cores, and the scheduler takes
// turns between them; a thread that sleeps gets its core back at once when it wakes.
// Sleeping alone would overshoot by the wake-up latency (60-90 us here, timer slack
// included), hence the last 200 us of spinning.
//
// Parameters (YAML `params:` of the plugin, or --param):
//   service_time_ms  service time of one sample (default 2)
//   wait             sleep (default) or spin
//   tokens           > 0: a generative query, reporting this many tokens evenly spread
//                    over its service time (the first after one token's time)
#include <bench/plugin.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/prctl.h>
#endif

BENCH_PLUGIN("mock_server", "1.0.0", .mock = true);

namespace {

constexpr auto spin_margin = std::chrono::microseconds(200);

void wait_until(bench::Clock::time_point deadline, bool sleep) {
    if (sleep && deadline - bench::Clock::now() > spin_margin) std::this_thread::sleep_until(deadline - spin_margin);
    while (bench::Clock::now() < deadline) {
    }
}

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    const double service_ms = ctx.params().get_double("service_time_ms", 2.0);
    if (!(service_ms > 0)) throw std::invalid_argument("service_time_ms must be above 0");
    const std::string wait = ctx.params().get_string("wait", "sleep");
    if (wait != "sleep" && wait != "spin") throw std::invalid_argument("wait must be sleep or spin, got '" + wait + "'");
    const bool sleep = wait == "sleep";
    const long long tokens = ctx.params().get_int("tokens", 0);
    if (tokens < 0) throw std::invalid_argument("tokens must be 0 or more");
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // sleeps end when asked, not up to 50 us later
#endif
    ctx.set_info("framework", "mock");
    ctx.set_info("model", "mock-server");
    ctx.record_scalar("service_time_setting", service_ms, "ms");

    ctx.serve([&](bench::Query& query) {
        const auto start = bench::Clock::now();
        const auto service = std::chrono::duration_cast<bench::Clock::duration>(
            std::chrono::duration<double, std::milli>(service_ms * query.samples()));
        for (long long t = 1; t <= tokens; ++t) {
            wait_until(start + service * t / tokens, sleep);
            query.token();
        }
        wait_until(start + service, sleep);
    });
}
