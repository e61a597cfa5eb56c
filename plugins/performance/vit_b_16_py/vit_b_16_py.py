"""vit_b_16_py: torchvision's ViT-B/16 with the C++ plugin vit_b_16's weights, benchmarked
from Python, so that one run shows ViT-B/16 from C++ (vit_b_16), from Python (here) and
in JAX (vit_b_16_jax), one function with one set of weights.

The model is torchvision.models.vit_b_16 (86,567,656 parameters, checked) holding the
weights the C++ plugin draws (seed 16, in its constructors' order) and its input (seed
224): benchhost.models.vit_b_16 and vit_b_16_input, which vit_b_16_jax converts too.
Under inference_mode, nn.MultiheadAttention takes its fast path
(_native_multi_head_attention), the op the C++ eager variant calls.

Variants (benchhost.torch.model_variant, each checked against eager):
  eager       the module
  compiled    as benchhost.torch compiles a module in the scenario's compile mode
              (--compile-modes), with Inductor's freezing where it compiles with
              Inductor (--param freezing=0: off); torchscript: trace, freeze,
              optimize_for_inference
There is no kernelized variant (the C++ plugin's kernels are C++).

Parameters (--param KEY=VALUE):
  freezing    1 (default) or 0: Inductor's freezing
  dataset     DIR: the first batch_size images of an image folder instead of random
              numbers, preprocessed as the C++ vit_b_16's (benchhost.models.image_input)
"""

import time

import torch

import benchhost.models
from benchhost.torch import model_variant, record_memory, select

BENCHHOST_PLUGIN = {
    "name": "vit_b_16_py",
    "version": "1.0.0",
    "axes": ["variant", "batch_size", "dtype", "device", "threads", "compile_mode"],
    "variants": ["eager", "compiled"],
}


def run_benchmark(ctx):
    config = ctx.config
    device, dtype = select(ctx)
    freezing = config.params.get("freezing", "1")
    if freezing not in ("0", "1"):
        raise ValueError(f"--param freezing must be 0 or 1, got '{freezing}'")
    ctx.set_info("framework", f"PyTorch {torch.__version__} (Python)")
    ctx.set_info("model", "vit_b_16")

    start = time.perf_counter()
    model = benchhost.models.vit_b_16().to(device, dtype)
    ctx.record_scalar("model_load", (time.perf_counter() - start) * 1e3, "ms")
    parameters = sum(p.numel() for p in model.parameters())
    ctx.record_scalar("parameters", parameters, "count")
    if parameters != benchhost.models.VIT_B_16_PARAMETERS:
        raise AssertionError(f"ViT-B/16 has {benchhost.models.VIT_B_16_PARAMETERS} parameters; this model "
                             f"{parameters}")

    x = benchhost.models.image_input(ctx, config.batch_size)
    if x is None:
        x = benchhost.models.vit_b_16_input(config.batch_size)
    x = x.to(device, dtype)
    for p in model.parameters():
        p.requires_grad_(False)
    with torch.inference_mode():
        forward = model_variant(ctx, model, (x,), freezing=freezing == "1")
        latency = ctx.measure("latency", lambda: forward(x))
    ctx.record_throughput("throughput", latency, config.batch_size, "images/s")
    record_memory(ctx, device)
