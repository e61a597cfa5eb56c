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
// Batching (--max-batch; the `batching` parameter): `dynamic` serves with
// Context::serve_batches, a batch of n queries taking a + b n (a = service_time_ms,
// b = per_query_ms), so that offline at the largest batch B its throughput is
// B / (a + b B); `continuous` serves with Context::serve_steps, a step of n active
// queries taking a + b n and giving each one token, a query finishing at its `tokens`-th.
//
// Parameters (YAML `params:` of the plugin, or --param):
//   service_time_ms  service time of one sample (default 2); with batching, a: the time
//                    of a batch or a step whatever its size
//   per_query_ms     with batching, b: the time each query of a batch or step adds (default 0)
//   batching         none (default: Context::serve), dynamic or continuous
//   wait             sleep (default) or spin
//   tokens           > 0: a generative query, reporting this many tokens evenly spread
//                    over its service time (the first after one token's time); with
//                    continuous batching, its steps (default 4 there)
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
    while (bench::Clock::now() < deadline) {}
}

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    const double service_ms = ctx.params().get_double("service_time_ms", 2.0);
    if (!(service_ms > 0)) throw std::invalid_argument("service_time_ms must be above 0");
    const double per_query_ms = ctx.params().get_double("per_query_ms", 0.0);
    if (!(per_query_ms >= 0)) throw std::invalid_argument("per_query_ms must be 0 or more");
    const std::string wait = ctx.params().get_string("wait", "sleep");
    if (wait != "sleep" && wait != "spin")
        throw std::invalid_argument("wait must be sleep or spin, got '" + wait + "'");
    const bool sleep = wait == "sleep";
    const std::string batching = ctx.params().get_string("batching", "none");
    if (batching != "none" && batching != "dynamic" && batching != "continuous")
        throw std::invalid_argument("batching must be none, dynamic or continuous, got '" + batching + "'");
    const long long tokens = ctx.params().get_int("tokens", batching == "continuous" ? 4 : 0);
    if (tokens < 0 || (batching == "continuous" && tokens < 1))
        throw std::invalid_argument("tokens must be 0 or more (1 or more with continuous batching)");
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // sleeps end when asked, not up to 50 us later
#endif
    ctx.set_info("framework", "mock");
    ctx.set_info("model", "mock-server");
    ctx.record_scalar("service_time_setting", service_ms, "ms");
    const auto duration = [](double ms) {
        return std::chrono::duration_cast<bench::Clock::duration>(std::chrono::duration<double, std::milli>(ms));
    };

    if (batching == "dynamic") {
        ctx.record_scalar("per_query_setting", per_query_ms, "ms");
        ctx.serve_batches([&](bench::QueryBatch batch) {
            const auto start = bench::Clock::now();
            wait_until(start + duration(service_ms + per_query_ms * static_cast<double>(batch.size())), sleep);
        });
        return;
    }
    if (batching == "continuous") {
        ctx.record_scalar("per_query_setting", per_query_ms, "ms");
        ctx.serve_steps([&](bench::QueryBatch active) {
            const auto start = bench::Clock::now();
            wait_until(start + duration(service_ms + per_query_ms * static_cast<double>(active.size())), sleep);
            for (bench::Query* query : active) {
                query->token();
                if (query->tokens() == tokens) query->finish();
            }
        });
        return;
    }
    ctx.serve([&](bench::Query& query) {
        const auto start = bench::Clock::now();
        const auto service = duration(service_ms * query.samples());
        for (long long t = 1; t <= tokens; ++t) {
            wait_until(start + service * t / tokens, sleep);
            query.token();
        }
        wait_until(start + service, sleep);
    });
}
