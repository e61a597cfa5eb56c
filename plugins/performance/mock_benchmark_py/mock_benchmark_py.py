"""mock_benchmark_py: the mock benchmark written in Python, for testing benchhost's Python
plugins beside the C++ mock (plugins/performance/mock_benchmark). Skipped unless
--enable-mock.

Like the C++ mock it does real work of known cost instead of running a model: a chain
of dependent xorshift64 steps, whose time is proportional to the step count. The
variants do 1.0, 0.8 and 0.6 times the eager work, so the measured ratios must come out
near 0.8 and 0.6; each call adds a few per cent of seeded jitter. A Python step costs
about a hundred times a C++ one, so the default work is smaller.

Benchmarks:
  run_benchmark       the forward pass: latency and throughput per batch (ctx.measure)
  benchmark_generate  a prefill, then one decode step per token: time to first token,
                      time per output token, tokens/s
(plugins/performance/mock_server_py ports the serving mock.)

Parameters (YAML `params:` of the plugin, or --param):
  base_units       xorshift steps of one eager call at batch size 1 (default 20000)
  jitter           relative jitter of each call's work, uniform in [-j, +j] (default 0.03)
  slowdown         multiplies all work, to simulate a regression (default 1.0)
  prompt_tokens    tokens of the simulated prompt (default 32)
  seed             jitter seed (default 42)
"""

import random
import time

BENCHHOST_PLUGIN = {
    "name": "mock_benchmark_py",
    "version": "1.0.0",
    "axes": ["variant", "batch_size"],
    "variants": ["eager", "compiled", "kernelized"],
    "mock": True,
}

VARIANT_FACTOR = {"eager": 1.0, "compiled": 0.8, "kernelized": 0.6}
MASK = (1 << 64) - 1
SEED = 0x9E3779B97F4A7C15


def spin(state, steps):
    """`steps` dependent xorshift64 steps from `state`."""
    for _ in range(steps):
        state ^= (state << 13) & MASK
        state ^= state >> 7
        state ^= (state << 17) & MASK
    return state


class MockModel:
    def __init__(self, ctx):
        config, params = ctx.config, ctx.config.params
        base_units = int(params.get("base_units", "20000"))
        slowdown = float(params.get("slowdown", "1.0"))
        self.jitter = float(params.get("jitter", "0.03"))
        if base_units < 1 or not slowdown > 0 or not 0 <= self.jitter < 1:
            raise ValueError("base_units must be 1 or more, slowdown above 0, jitter in [0, 1)")
        # Batches amortize a fixed half of the work, as real models amortize overheads.
        batch_scale = 0.5 + 0.5 * config.batch_size
        self.units_per_call = base_units * batch_scale * VARIANT_FACTOR[config.variant] * slowdown
        self.rng = random.Random(f"{params.get('seed', '42')}/{config.batch_size}/{config.variant}")
        self.state = SEED

    def run(self, units):
        jittered = units * (1.0 + self.rng.uniform(-self.jitter, self.jitter))
        self.state = spin(self.state | 1, max(0, int(jittered)))

    def forward(self):
        self.run(self.units_per_call)


def describe(ctx):
    ctx.set_info("framework", "mock")
    ctx.set_info("model", "mock-model")


def run_benchmark(ctx):
    model = MockModel(ctx)
    describe(ctx)
    ctx.record_scalar("work_units", model.units_per_call, "xorshift steps")
    latency = ctx.measure("latency", model.forward)
    ctx.record_throughput("throughput", latency, ctx.config.batch_size, "samples/s")


def benchmark_generate(ctx):
    model = MockModel(ctx)
    config = ctx.config
    tokens = config.num_tokens_to_generate
    if tokens < 1:
        ctx.skip("num_tokens_to_generate must be at least 1")
    prompt_tokens = int(config.params.get("prompt_tokens", "32"))
    # Prefill processes the prompt at a quarter of a decode step's cost per token.
    prefill_units = model.units_per_call * prompt_tokens * 0.25
    decode_units = model.units_per_call * 0.1
    describe(ctx)

    def generate_once(record):
        start = time.perf_counter()
        model.run(prefill_units)
        model.run(decode_units)  # the first token
        first = time.perf_counter()
        for _ in range(1, tokens):
            model.run(decode_units)
        stop = time.perf_counter()
        if not record:
            return
        ttft_ms, total_ms = (first - start) * 1e3, (stop - start) * 1e3
        ctx.add_sample("time_to_first_token", ttft_ms, "ms")
        ctx.add_sample("latency", total_ms, "ms")
        if tokens > 1:
            ctx.add_sample("time_per_output_token", (total_ms - ttft_ms) / (tokens - 1), "ms")
        ctx.add_sample("tokens_per_second", config.batch_size * tokens / (total_ms / 1e3), "tokens/s")

    for _ in range(config.warmup_iterations):
        generate_once(False)
    ctx.begin_measurement()
    for _ in range(config.measurement_iterations):
        generate_once(True)
    ctx.end_measurement(config.measurement_iterations)
