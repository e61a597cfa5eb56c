"""Two PyTorch operators timed from Python, as a benchhost plugin.

Run it with the host:

    build/bin/benchhost run --plugins-dir examples/python_plugins --batch-sizes 1,8

The host reads this file without importing it (the handshake below is a literal), then
runs each benchmark in a worker process of its own, with the project's virtual
environment (its torch).
"""

import torch

BENCHHOST_PLUGIN = {"name": "torch_ops_py", "version": "1.0.0", "axes": ["batch_size", "dtype"]}

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float64": torch.float64}


def inputs(ctx, *shape):
    config = ctx.config
    if config.dtype not in DTYPES:
        ctx.skip(f"dtype {config.dtype} is not one of {', '.join(DTYPES)}")
    if config.device.startswith("cuda") and not torch.cuda.is_available():
        ctx.skip("no CUDA device here")
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(config.batch_size, *shape, generator=generator, dtype=torch.float32)
    return x.to(device=config.device, dtype=DTYPES[config.dtype])


def benchmark_matmul(ctx):
    n = int(ctx.config.params.get("n", "256"))
    a, b = inputs(ctx, n, n), inputs(ctx, n, n)
    with torch.inference_mode():
        samples = ctx.measure("latency", lambda: torch.matmul(a, b))
    flops = 2 * ctx.config.batch_size * n ** 3
    ctx.record_throughput("gflops", samples, flops / 1e9, "GFLOP/s")
    ctx.set_info("torch_version", torch.__version__)
    ctx.set_info("shape", f"[{ctx.config.batch_size}, {n}, {n}] @ [{ctx.config.batch_size}, {n}, {n}]")


def benchmark_softmax(ctx):
    x = inputs(ctx, 1024, 1024)
    with torch.inference_mode():
        samples = ctx.measure("latency", lambda: torch.softmax(x, dim=-1))
    ctx.record_throughput("throughput", samples, x.numel(), "elements/s")
