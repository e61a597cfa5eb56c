// mock_benchmark: a stand-in for a model benchmark, for testing benchhost itself.
//
// It does real work of known cost instead of running a model: a chain of dependent
// xorshift steps (known_work.hpp), which the CPU cannot overlap and the compiler cannot
// shorten, so its time is proportional to the step count. The variants do 1.0, 0.8 and 0.6 times the
// eager work, so the host's measured ratios must come out near 0.8 and 0.6; each call
// adds a few per cent of seeded jitter so that statistics have something to describe.
//
// Parameters (YAML `params:` of the plugin):
//   base_units     xorshift steps of one eager call at batch size 1 (default 2,000,000)
//   jitter         relative jitter of each call's work, uniform in [-j, +j] (default 0.03)
//   slowdown       multiplies all work, to simulate a regression (default 1.0)
//   prompt_tokens  tokens of the simulated prompt (default 32)
//   seed           jitter seed (default 42)
#include <bench/plugin.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "known_work.hpp"

BENCH_PLUGIN("mock_benchmark", "1.0.0", .axes = "variant,batch_size", .mock = true);

namespace {

double variant_factor(bench::Variant variant) {
    switch (variant) {
        case bench::Variant::eager:
            return 1.0;
        case bench::Variant::compiled:
            return 0.8;
        case bench::Variant::kernelized:
            return 0.6;
    }
    return 1.0;
}

struct MockModel {
    double units_per_call;  // work of one forward pass, before jitter
    double jitter;
    std::mt19937_64 rng;
    std::uint64_t state = known_work::seed;

    void run(double units) {
        std::uniform_real_distribution<double> noise(-jitter, jitter);
        const double jittered = units * (1.0 + noise(rng));
        state = known_work::spin(state | 1, static_cast<std::uint64_t>(jittered > 0 ? jittered : 0));
    }
    void forward() { run(units_per_call); }
};

MockModel make_model(const bench::Context& ctx) {
    const auto& cfg = ctx.config();
    const auto& params = ctx.params();
    const double base_units = static_cast<double>(params.get_int("base_units", 2'000'000));
    const double slowdown = params.get_double("slowdown", 1.0);
    // Batches amortize a fixed half of the work, as real models amortize overheads.
    const double batch_scale = 0.5 + 0.5 * cfg.batch_size;
    std::seed_seq seed{static_cast<std::uint64_t>(params.get_int("seed", 42)),
                       static_cast<std::uint64_t>(cfg.batch_size), static_cast<std::uint64_t>(cfg.variant)};
    return MockModel{base_units * batch_scale * variant_factor(cfg.variant) * slowdown,
                     params.get_double("jitter", 0.03), std::mt19937_64(seed)};
}

}  // namespace

// The forward pass: latency and throughput per batch.
BENCH_RUN_BENCHMARK(ctx) {
    MockModel model = make_model(ctx);
    ctx.set_info("framework", "mock");
    ctx.set_info("model", "mock-model");
    ctx.record_scalar("work_units", model.units_per_call, "xorshift steps");

    const bench::Series latency = ctx.measure("latency", [&] { model.forward(); });
    ctx.record_throughput("throughput", latency, ctx.config().batch_size, "samples/s");
    // --profile: one call, profiled after the measurement (perf's native stacks only).
    ctx.profile({.name = "forward", .call = [&] { model.forward(); }});
}

// Generation: a prefill of the prompt, then one decode step per token.
BENCH_BENCHMARK(generate, ctx) {
    MockModel model = make_model(ctx);
    const int tokens = ctx.config().num_tokens_to_generate;
    if (tokens < 1) ctx.skip("num_tokens_to_generate must be at least 1");
    const double prompt_tokens = static_cast<double>(ctx.params().get_int("prompt_tokens", 32));
    // Prefill processes the prompt at a quarter of a decode step's cost per token.
    const double prefill_units = model.units_per_call * prompt_tokens * 0.25;
    const double decode_units = model.units_per_call * 0.1;
    ctx.set_info("framework", "mock");
    ctx.set_info("model", "mock-model");

    std::vector<double> latencies;  // what the stopping rule watches
    auto generate_once = [&](bool record) {
        const auto start = bench::Clock::now();
        model.run(prefill_units);
        model.run(decode_units);  // the first token
        const auto first = bench::Clock::now();
        for (int t = 1; t < tokens; ++t) model.run(decode_units);
        const auto stop = bench::Clock::now();
        if (!record) return;
        const double ttft_ms = bench::elapsed_ns(start, first) / 1e6;
        const double total_ms = bench::elapsed_ns(start, stop) / 1e6;
        ctx.add_sample("time_to_first_token", ttft_ms, "ms");
        ctx.add_sample("latency", total_ms, "ms");
        latencies.push_back(total_ms);
        if (tokens > 1) ctx.add_sample("time_per_output_token", (total_ms - ttft_ms) / (tokens - 1), "ms");
        ctx.add_sample("tokens_per_second", ctx.config().batch_size * tokens / (total_ms / 1000.0), "tokens/s");
    };
    for (int i = 0; i < ctx.config().warmup_iterations; ++i) generate_once(false);
    // Timed here, not by ctx.measure: the monitors learn when from the scope, and the
    // stopping rule (--measurement-iterations, or --min-time and friends) when to stop.
    bench::MeasurementScope measuring(ctx);
    bench::StoppingRule rule(ctx.timing_options());
    rule.start();
    while (!rule.should_stop(latencies)) generate_once(true);
    ctx.record_sampling("latency", rule.report(latencies));
    measuring.set_iterations(static_cast<long long>(latencies.size()));
}
