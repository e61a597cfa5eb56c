"""A Python plugin with each way of ending, for `python -m benchhost.check` (ctest
python_check_failing_plugin): two succeed, one is skipped, three fail; the check exits 1
and prints the traceback of the one that raised."""

import sys

import benchhost


def run_benchmark(ctx):
    ctx.log("info", "starting")
    ctx.measure("latency", lambda: sum(range(100)))
    ctx.set_info("seen", f"{ctx.config.batch_size} {ctx.config.params['size']}")


def benchmark_raises(ctx):
    ctx.record_scalar("before", 1, "count")
    raise ValueError("no such model")


def benchmark_skips(ctx):
    ctx.skip("needs a GPU")


def benchmark_exits():
    sys.exit(3)


def benchmark_returns_text():
    return "fast"


def benchmark_figures():
    return {"accuracy": 0.5, "loss": {"train": 2}}


def benchmark_catches_everything(ctx):
    try:
        ctx.skip("still skipped")
    except Exception:
        pass
    assert isinstance(ctx, benchhost.Context)
