"""vit_b_16_jax: ViT-B/16 in Flax, benchmarked beside the C++ plugin vit_b_16 (PyTorch),
with its weights and its input.

The model is torchvision's vit_b_16 written with flax.linen: the 16 x 16 patch
embedding as a strided convolution, the class token and position embedding, 12 encoder
blocks (layer norm with epsilon 1e-6, Flax's nn.MultiHeadDotProductAttention with 12
heads, layer norm, a 3072-wide MLP with exact GELU), the final layer norm and the
classifier on the class token; 86,567,656 parameters, checked. Its weights are those of
the C++ vit_b_16 (seed 16): benchhost.models.vit_b_16 draws them as that plugin's C++
constructors do, into torchvision's module, and this plugin converts that module's state
(benchhost.jax's helpers): the patch convolution from OIHW to HWIO; the attention's
packed in_proj_weight [3 x 768, 768] split into query, key and value, each transposed
and shaped [768, 12 heads, 64] as Flax's DenseGeneral kernels, their biases [12, 64];
out_proj as the output kernel [12, 64, 768]; the MLP's and classifier's weights
transposed; layer norms' weight and bias as Flax's scale and bias. The input is the C++
plugin's (seed 224), in NHWC. So the two compute the same logits, within float32
rounding (tests/python/vit_b_16_jax_test.py).

Variants (benchhost.jax.model_variant, each checked against eager):
  eager     the model's apply, op by op (jax.disable_jit())
  compiled  jax.jit, lowered and compiled before the first sample (compile mode default)

Parameters (--param KEY=VALUE):
  check_torch  1: also runs torchvision's vit_b_16 with those weights on the input and
               fails beyond benchhost.torch's float32 tolerance, recording
               torch_max_abs_diff and torch_max_rel_diff (float32 only; default 0)
  dataset      DIR: the first batch_size images of an image folder instead of random
               numbers, preprocessed as the C++ vit_b_16's (benchhost.models.image_input)
"""

from functools import partial
from typing import Any

import flax.linen as nn
import jax.numpy as jnp

import benchhost.models
from benchhost.jax import conv, converted_benchmark, dense, layer_norm, torch_state

BENCHHOST_PLUGIN = {
    "name": "vit_b_16_jax",
    "version": "1.0.0",
    "axes": ["variant", "batch_size", "dtype", "device", "threads", "compile_mode"],
    "variants": ["eager", "compiled"],
}

PARAMETERS = 86_567_656
PATCH = 16
HIDDEN = 768
HEADS = 12
MLP = 3072
LAYERS = 12
CLASSES = 1000
SEQUENCE = (224 // PATCH) ** 2 + 1  # 196 patches and the class token

LayerNorm = partial(nn.LayerNorm, epsilon=1e-6)


class EncoderBlock(nn.Module):
    @nn.compact
    def __call__(self, x):
        y = LayerNorm(name="ln_1")(x)
        y = nn.MultiHeadDotProductAttention(num_heads=HEADS, deterministic=True, name="self_attention")(y)
        x = x + y
        y = LayerNorm(name="ln_2")(x)
        y = nn.Dense(MLP, name="mlp_0")(y)
        y = nn.Dense(HIDDEN, name="mlp_3")(nn.gelu(y, approximate=False))  # torch's nn.GELU(): erf
        return x + y


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = x + self.param("pos_embedding", nn.initializers.normal(0.02), (1, SEQUENCE, HIDDEN))
        for i in range(LAYERS):
            x = EncoderBlock(name=f"encoder_layer_{i}")(x)
        return LayerNorm(name="ln")(x)


class VisionTransformer(nn.Module):
    classes: int = CLASSES

    @nn.compact
    def __call__(self, x):  # NHWC, 224 x 224
        x = nn.Conv(HIDDEN, (PATCH, PATCH), strides=PATCH, padding="VALID", name="conv_proj")(x)
        batch = x.shape[0]
        x = x.reshape(batch, -1, HIDDEN)  # the patches row by row, as torchvision's reshape and permute
        token = self.param("class_token", nn.initializers.zeros, (1, 1, HIDDEN))
        x = jnp.concatenate([jnp.broadcast_to(token, (batch, 1, HIDDEN)).astype(x.dtype), x], axis=1)
        x = Encoder(name="encoder")(x)
        return nn.Dense(self.classes, name="head")(x[:, 0])


def torch_model():
    """torchvision's vit_b_16 with the C++ vit_b_16's weights (benchhost.models.vit_b_16)."""
    return benchhost.models.vit_b_16()


def torch_input(batch):
    """The C++ vit_b_16's input: NCHW, float32."""
    return benchhost.models.vit_b_16_input(batch)


def attention(state, name):
    """Flax MultiHeadDotProductAttention's params of torch's nn.MultiheadAttention `name`."""
    weight, bias = state[f"{name}.in_proj_weight"], state[f"{name}.in_proj_bias"]
    out: dict[str, Any] = {}
    for i, part in enumerate(("query", "key", "value")):
        w = weight[i * HIDDEN:(i + 1) * HIDDEN]  # [out, in]
        out[part] = {"kernel": w.T.reshape(HIDDEN, HEADS, HIDDEN // HEADS),
                     "bias": bias[i * HIDDEN:(i + 1) * HIDDEN].reshape(HEADS, HIDDEN // HEADS)}
    out["out"] = {"kernel": state[f"{name}.out_proj.weight"].T.reshape(HEADS, HIDDEN // HEADS, HIDDEN),
                  "bias": state[f"{name}.out_proj.bias"]}
    return out


def convert(model):
    """Flax variables ({"params"}, numpy float32) of a torchvision ViT-B/16."""
    state = torch_state(model)
    encoder: dict[str, Any] = {"pos_embedding": state["encoder.pos_embedding"],
                               "ln": layer_norm(state, "encoder.ln")}
    for i in range(LAYERS):
        layer = f"encoder.layers.encoder_layer_{i}"
        encoder[f"encoder_layer_{i}"] = {
            "ln_1": layer_norm(state, f"{layer}.ln_1"),
            "self_attention": attention(state, f"{layer}.self_attention"),
            "ln_2": layer_norm(state, f"{layer}.ln_2"),
            "mlp_0": dense(state, f"{layer}.mlp.0"),
            "mlp_3": dense(state, f"{layer}.mlp.3"),
        }
    params = {"conv_proj": conv(state, "conv_proj"), "class_token": state["class_token"], "encoder": encoder,
              "head": dense(state, "heads.head")}
    return {"params": params}


def build():
    """(flax module, variables as numpy float32, the torch model they came from)."""
    model = torch_model()
    return VisionTransformer(), convert(model), model


def run_benchmark(ctx):
    converted_benchmark(ctx, model="vit_b_16", module=VisionTransformer(), parameters=PARAMETERS,
                  torch_model=torch_model, convert=convert, torch_input=torch_input,
                  against="torchvision's vit_b_16 with the C++ vit_b_16's weights (PyTorch, float32)")
