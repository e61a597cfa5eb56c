"""resnet50_py: torchvision's ResNet-50, benchmarked from Python beside the C++ plugin
resnet50, so that one run shows the same model from both languages.

The model is torchvision.models.resnet50 (25,557,032 parameters, checked) with seeded
random weights: torchvision's initialization, random batch norm scales and shifts, and
running statistics calibrated on a random batch (so that folding batch norm into the
convolutions is really exercised). The input is a seeded random batch. Both come from
benchhost.models (resnet50, resnet50_input), which resnet50_jax converts too.

Variants (benchhost.torch.model_variant, each checked against eager):
  eager       the module
  compiled    in default and max-autotune, an AOTInductor package as the C++ plugin's
              (torch.export, then AOTInductor with Inductor's freezing), compiled once
              into benchhost's package cache (resnet50_py-<mode>-<key>) and loaded by
              later workers; in torch-compile, torch-compile-max-autotune,
              reduce-overhead and max-autotune-no-cudagraphs,
              torch.compile(model, mode=...) with the same freezing, compiled in every
              worker; --param freezing=0 compiles either without freezing (PyTorch's
              default); torch.jit trace + freeze + optimize_for_inference in torchscript
  kernelized  torch.fx's optimize_for_inference: batch norm folded into the
              convolutions, which run as oneDNN (MKL-DNN) prepacked kernels (float32 on
              the CPU only; skipped elsewhere, saying so)

Parameters (--param KEY=VALUE):
  image_size  input height and width (default 224)
  seed        weight and input seed (default 0)
  freezing    1 (default) or 0: Inductor's freezing for the package and torch.compile
"""

import time

import torch

import benchhost.models
from benchhost.torch import model_variant, record_memory, select

BENCHHOST_PLUGIN = {
    "name": "resnet50_py",
    "version": "1.0.0",
    "axes": ["variant", "batch_size", "dtype", "device", "threads", "compile_mode"],
    "variants": ["eager", "compiled", "kernelized"],
}

PARAMETERS = 25_557_032


def build(seed):
    """The seeded model (benchhost.models.resnet50, whose weights resnet50_jax converts)."""
    return benchhost.models.resnet50(seed)


def kernelize(model):
    from torch.fx.experimental.optimization import optimize_for_inference
    return optimize_for_inference(model)


def run_benchmark(ctx):
    config = ctx.config
    device, dtype = select(ctx)
    if config.variant == "kernelized" and (device.type != "cpu" or dtype != torch.float32):
        ctx.skip("kernelized: torch.fx's optimize_for_inference (oneDNN kernels) runs float32 on the CPU only")
    seed = int(config.params.get("seed", "0"))
    size = int(config.params.get("image_size", "224"))
    freezing = config.params.get("freezing", "1")
    if freezing not in ("0", "1"):
        raise ValueError(f"--param freezing must be 0 or 1, got '{freezing}'")
    ctx.set_info("framework", f"PyTorch {torch.__version__} (Python)")
    ctx.set_info("model", "resnet50")

    start = time.perf_counter()
    model = build(seed).to(device, dtype)
    ctx.record_scalar("model_load", (time.perf_counter() - start) * 1e3, "ms")
    parameters = sum(p.numel() for p in model.parameters())
    ctx.record_scalar("parameters", parameters, "count")
    if parameters != PARAMETERS:
        raise AssertionError(f"ResNet-50 has {PARAMETERS} parameters; this model {parameters}")

    x = benchhost.models.resnet50_input(seed, config.batch_size, size).to(device, dtype)
    for p in model.parameters():
        p.requires_grad_(False)
    with torch.inference_mode():
        forward = model_variant(ctx, model, (x,), kernelize=kernelize, freezing=freezing == "1", name="resnet50_py")
        latency = ctx.measure("latency", lambda: forward(x))
    ctx.record_throughput("throughput", latency, config.batch_size, "images/s")
    record_memory(ctx, device)
