"""mock_server_py: the serving mock written in Python, for testing the load generator
(ctx.serve) with a Python handler, beside the C++ plugin mock_server. Skipped unless
--enable-mock.

Each query takes a known, deterministic service time: the handler waits until a
deadline on the clock, service_time_ms (times the query's samples) after it started.
With Poisson arrivals (--load server --target-qps R) that is an M/D/1 queue, whose mean
wait is known: rho * S / (2 * (1 - rho)), rho = R * S. The queries are issued by the
SDK's C++ load generator; the worker's interpreter lock is free between queries.

Parameters (YAML `params:` of the plugin, or --param):
  service_time_ms  the service time of one sample (default 2)
  tokens           > 0: a generative query, reporting this many tokens evenly spread
                   over its service time (default 0)
"""

import time

BENCHHOST_PLUGIN = {"name": "mock_server_py", "version": "1.0.0", "mock": True}

SPIN_MARGIN_S = 200e-6


def wait_until(deadline):
    """Sleeps until 200 us before `deadline`, then spins on the clock to it: the service
    time is the one asked for unless the thread is not running when the deadline comes."""
    ahead = deadline - time.perf_counter() - SPIN_MARGIN_S
    if ahead > 0:
        time.sleep(ahead)
    while time.perf_counter() < deadline:
        pass


def number_param(params, name, default, kind):
    """The parameter `name` as `kind` (float or int), naming it when its text is not one."""
    text = params.get(name, default)
    try:
        return kind(text)
    except ValueError:
        what = "a number" if kind is float else "an integer"
        raise ValueError(f"parameter '{name}': '{text}' is not {what}") from None


def run_benchmark(ctx):
    params = ctx.config.params
    service_s = number_param(params, "service_time_ms", "2", float) / 1e3
    tokens = number_param(params, "tokens", "0", int)
    if not service_s > 0:
        raise ValueError("service_time_ms must be above 0")
    if tokens < 0:
        raise ValueError("tokens must be 0 or more")
    ctx.set_info("framework", "mock")
    ctx.set_info("model", "mock-server")
    ctx.record_scalar("service_time_setting", service_s * 1e3, "ms")

    def handle(query):
        start = time.perf_counter()
        duration = service_s * query.samples
        for t in range(1, tokens + 1):
            wait_until(start + duration * t / tokens)
            query.token()
        wait_until(start + duration)

    ctx.serve(handle)
