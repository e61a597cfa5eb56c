"""resnet50_jax: ResNet-50 in Flax, benchmarked beside resnet50_py (PyTorch) and the C++
resnet50, with the same weights.

The model is torchvision's ResNet-50 written with flax.linen (the bottleneck's stride on
its 3x3 convolution, batch norm with epsilon 1e-5; 25,557,032 parameters, checked). Its
weights are torchvision.models.resnet50's, built as resnet50_py builds it (the same seed,
batch norm scales and shifts, running statistics calibrated on a random batch) and
converted: convolutions from OIHW to HWIO, the classifier transposed, batch norm's
weight, bias, running mean and variance as Flax's scale, bias, mean and var. Inputs are
the same seeded random batch, in NHWC. So with the same --param seed both plugins
compute the same logits, within float32 rounding (tests/python/resnet50_jax_test.py).

Variants (benchhost.jax.model_variant, each checked against eager):
  eager     the model's apply, op by op (jax.disable_jit())
  compiled  jax.jit, lowered and compiled before the first sample (compile mode default)

Parameters (--param KEY=VALUE):
  image_size   input height and width (default 224)
  seed         weight and input seed (default 0), as resnet50_py's
  check_torch  1: also runs the torch model on the input and fails beyond benchhost.torch's
               float32 tolerance, recording torch_max_abs_diff and torch_max_rel_diff
               (float32 only; default 0)
"""

import time
from functools import partial
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from benchhost.jax import check_against_eager, model_variant, record_memory, record_work, select

BENCHHOST_PLUGIN = {
    "name": "resnet50_jax",
    "version": "1.0.0",
    "axes": ["variant", "batch_size", "dtype", "device", "threads", "compile_mode"],
    "variants": ["eager", "compiled"],
}

PARAMETERS = 25_557_032
STAGES = ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2))  # (width, blocks, stride), torchvision's layer1..4

Conv = partial(nn.Conv, use_bias=False)
BatchNorm = partial(nn.BatchNorm, use_running_average=True, epsilon=1e-5)


class Bottleneck(nn.Module):
    width: int
    stride: int
    downsample: bool

    @nn.compact
    def __call__(self, x):
        out = nn.relu(BatchNorm(name="bn1")(Conv(self.width, (1, 1), name="conv1")(x)))
        out = Conv(self.width, (3, 3), strides=self.stride, padding=((1, 1), (1, 1)), name="conv2")(out)
        out = nn.relu(BatchNorm(name="bn2")(out))
        out = BatchNorm(name="bn3")(Conv(self.width * 4, (1, 1), name="conv3")(out))
        if self.downsample:
            x = BatchNorm(name="downsample_bn")(Conv(self.width * 4, (1, 1), strides=self.stride,
                                                     name="downsample_conv")(x))
        return nn.relu(out + x)


class ResNet50(nn.Module):
    classes: int = 1000

    @nn.compact
    def __call__(self, x):  # NHWC
        x = Conv(64, (7, 7), strides=2, padding=((3, 3), (3, 3)), name="conv1")(x)
        x = nn.relu(BatchNorm(name="bn1")(x))
        x = nn.max_pool(x, (3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))
        for stage, (width, blocks, stride) in enumerate(STAGES, 1):
            for block in range(blocks):
                x = Bottleneck(width, stride if block == 0 else 1, block == 0, name=f"layer{stage}_{block}")(x)
        x = jnp.mean(x, axis=(1, 2))
        return nn.Dense(self.classes, name="fc")(x)


def torch_model(seed):
    """torchvision's resnet50 with resnet50_py's seeded weights (its build(seed))."""
    import torch
    import torchvision
    torch.manual_seed(seed)
    model = torchvision.models.resnet50(weights=None)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
                module.reset_running_stats()
                module.momentum = None  # a cumulative average over the calibration batch
        model.train()
        model(torch.randn(4, 3, 64, 64))
    return model.eval()


def torch_input(seed, batch, size):
    """resnet50_py's input: NCHW, float32."""
    import torch
    generator = torch.Generator().manual_seed(seed + 1)
    return torch.randn(batch, 3, size, size, generator=generator)


def convert(model):
    """Flax variables ({"params", "batch_stats"}, numpy float32) of a torchvision ResNet-50."""
    state = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
    params: dict[str, Any] = {}
    stats: dict[str, Any] = {}

    def conv(torch_name, into, name):
        into[name] = {"kernel": state[f"{torch_name}.weight"].transpose(2, 3, 1, 0)}  # OIHW -> HWIO

    def norm(torch_name, params_into, stats_into, name):
        params_into[name] = {"scale": state[f"{torch_name}.weight"], "bias": state[f"{torch_name}.bias"]}
        stats_into[name] = {"mean": state[f"{torch_name}.running_mean"], "var": state[f"{torch_name}.running_var"]}

    conv("conv1", params, "conv1")
    norm("bn1", params, stats, "bn1")
    for stage, (_, blocks, _) in enumerate(STAGES, 1):
        for block in range(blocks):
            prefix, name = f"layer{stage}.{block}", f"layer{stage}_{block}"
            p, s = params.setdefault(name, {}), stats.setdefault(name, {})
            for i in (1, 2, 3):
                conv(f"{prefix}.conv{i}", p, f"conv{i}")
                norm(f"{prefix}.bn{i}", p, s, f"bn{i}")
            if block == 0:
                conv(f"{prefix}.downsample.0", p, "downsample_conv")
                norm(f"{prefix}.downsample.1", p, s, "downsample_bn")
    params["fc"] = {"kernel": state["fc.weight"].T, "bias": state["fc.bias"]}
    return {"params": params, "batch_stats": stats}


def build(seed):
    """(flax module, variables as numpy float32, the torch model they came from)."""
    model = torch_model(seed)
    return ResNet50(), convert(model), model


def run_benchmark(ctx):
    config = ctx.config
    device, dtype = select(ctx)
    seed = int(config.params.get("seed", "0"))
    size = int(config.params.get("image_size", "224"))
    check_torch = config.params.get("check_torch", "0")
    if check_torch not in ("0", "1"):
        raise ValueError(f"--param check_torch must be 0 or 1, got '{check_torch}'")
    if check_torch == "1" and dtype != jnp.float32:
        ctx.skip("--param check_torch=1 compares float32 logits: run it with --dtypes float32")
    ctx.set_info("framework", f"JAX {jax.__version__}, Flax (Python)")
    ctx.set_info("model", "resnet50")

    start = time.perf_counter()
    module, variables, torch_resnet = build(seed)
    expected = jax.eval_shape(module.init, jax.random.key(0), jnp.zeros((1, size, size, 3)))
    shapes = jax.tree_util.tree_map(lambda a: a.shape, dict(expected))
    if shapes != jax.tree_util.tree_map(lambda a: a.shape, variables):
        raise AssertionError("the weights converted from torchvision's do not have the Flax model's names and shapes")
    variables = jax.device_put(jax.tree_util.tree_map(lambda a: jnp.asarray(a, dtype), variables), device)
    ctx.record_scalar("model_load", (time.perf_counter() - start) * 1e3, "ms")
    parameters = sum(int(np.prod(a.shape)) for a in jax.tree_util.tree_leaves(variables["params"]))
    ctx.record_scalar("parameters", parameters, "count")
    if parameters != PARAMETERS:
        raise AssertionError(f"ResNet-50 has {PARAMETERS} parameters; this model {parameters}")

    x_torch = torch_input(seed, config.batch_size, size)
    x = jax.device_put(jnp.asarray(x_torch.numpy().transpose(0, 2, 3, 1), dtype), device)
    forward = model_variant(ctx, module.apply, variables, (x,))
    if check_torch == "1":
        import torch
        with torch.inference_mode():
            reference = torch_resnet(x_torch).numpy()
        check_against_eager(ctx, reference, forward(x), against="torchvision's resnet50 (PyTorch, float32)",
                            prefix="torch_")
    del torch_resnet
    latency = ctx.measure("latency", lambda: forward(x))
    ctx.record_throughput("throughput", latency, config.batch_size, "images/s")
    record_work(ctx, latency)
    record_memory(ctx, device)
