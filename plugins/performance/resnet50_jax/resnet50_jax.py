"""resnet50_jax: ResNet-50 in Flax, benchmarked beside resnet50_py (PyTorch) and the C++
resnet50, with the same weights.

The model is torchvision's ResNet-50 written with flax.linen (the bottleneck's stride on
its 3x3 convolution, batch norm with epsilon 1e-5; 25,557,032 parameters, checked). Its
weights are torchvision.models.resnet50's, built as resnet50_py builds it, by the same
function (benchhost.models.resnet50: the same seed, batch norm scales and shifts,
running statistics calibrated on a random batch), and converted (benchhost.jax's
helpers): convolutions from OIHW to HWIO, the classifier transposed, batch norm's
weight, bias, running mean and variance as Flax's scale, bias, mean and var. Inputs are
the same seeded random batch, in NHWC. So with the same --param seed both plugins
compute the same logits, within float32 rounding (tests/python/resnet50_jax_test.py).
The run is benchhost.jax.converted_benchmark's, as vit_b_16_jax's.

Variants (benchhost.jax.model_variant, each checked against eager):
  eager     the model's apply, op by op (jax.disable_jit())
  compiled  jax.jit, lowered and compiled before the first sample (compile mode default)

Parameters (--param KEY=VALUE):
  image_size   input height and width (default 224)
  seed         weight and input seed (default 0), as resnet50_py's
  check_torch  1: also runs the torch model on the input and fails beyond benchhost.torch's
               float32 tolerance, recording torch_max_abs_diff and torch_max_rel_diff
               (float32 only; default 0)
  dataset      DIR: the first batch_size images of an image folder instead of random
               numbers, preprocessed as the C++ resnet50's (benchhost.models.image_input;
               224 x 224 only)
"""

from functools import partial
from typing import Any

import flax.linen as nn
import jax.numpy as jnp

import benchhost.models
from benchhost.jax import batch_norm, conv, converted_benchmark, dense, torch_state

BENCHHOST_PLUGIN = {
    "name": "resnet50_jax",
    "version": "1.1.0",
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
    """torchvision's resnet50 with resnet50_py's seeded weights (benchhost.models.resnet50)."""
    return benchhost.models.resnet50(seed)


def torch_input(seed, batch, size):
    """resnet50_py's input: NCHW, float32."""
    return benchhost.models.resnet50_input(seed, batch, size)


def convert(model):
    """Flax variables ({"params", "batch_stats"}, numpy float32) of a torchvision ResNet-50."""
    state = torch_state(model)
    params: dict[str, Any] = {"conv1": conv(state, "conv1")}
    stats: dict[str, Any] = {}
    params["bn1"], stats["bn1"] = batch_norm(state, "bn1")
    for stage, (_, blocks, _) in enumerate(STAGES, 1):
        for block in range(blocks):
            prefix, name = f"layer{stage}.{block}", f"layer{stage}_{block}"
            p, s = params.setdefault(name, {}), stats.setdefault(name, {})
            for i in (1, 2, 3):
                p[f"conv{i}"] = conv(state, f"{prefix}.conv{i}")
                p[f"bn{i}"], s[f"bn{i}"] = batch_norm(state, f"{prefix}.bn{i}")
            if block == 0:
                p["downsample_conv"] = conv(state, f"{prefix}.downsample.0")
                p["downsample_bn"], s["downsample_bn"] = batch_norm(state, f"{prefix}.downsample.1")
    params["fc"] = dense(state, "fc")
    return {"params": params, "batch_stats": stats}


def build(seed):
    """(flax module, variables as numpy float32, the torch model they came from)."""
    model = torch_model(seed)
    return ResNet50(), convert(model), model


def run_benchmark(ctx):
    params = ctx.config.params
    seed = int(params.get("seed", "0"))
    size = int(params.get("image_size", "224"))
    if "dataset" in params and size != 224:
        raise ValueError(f"--param dataset gives 224 x 224 images: leave --param image_size at 224 (got {size})")
    converted_benchmark(ctx, model="resnet50", module=ResNet50(), parameters=PARAMETERS,
                  torch_model=lambda: torch_model(seed), convert=convert,
                  torch_input=lambda batch: torch_input(seed, batch, size),
                  against="torchvision's resnet50 (PyTorch, float32)")
