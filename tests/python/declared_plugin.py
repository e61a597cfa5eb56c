"""Benchmark functions with axes of their own beside one with the module's, for
`python -m benchhost.check` (ctest python_check_declarations): the check expands each as
the host does, and hands each its parameters by name."""

import benchhost

BENCHHOST_PLUGIN = {"axes": ["variant", "batch_size"], "variants": ["eager", "compiled"]}


@benchhost.benchmark(axes={})
def benchmark_tokenize(size=10):
    return {"tokens": size}


@benchhost.benchmark(axes={"batch_size": [1, 8]}, variants=["eager"])
def benchmark_matmul(batch_size, variant):
    return {"work": batch_size, "eager": int(variant == "eager")}


def run_benchmark(ctx, size=0):
    ctx.record_scalar("size", size, "count")
