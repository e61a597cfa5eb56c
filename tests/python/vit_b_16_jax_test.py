"""plugins/performance/vit_b_16_jax against the C++ plugin plugins/performance/vit_b_16,
in the project's venv (ctest python_vit_b_16_jax):

  - the torch model it converts (benchhost.models.vit_b_16) is torchvision's vit_b_16
    holding the C++ plugin's weights: drawn with that plugin's seeds (16 and 224, read
    from vit_b_16.cpp), in its constructors' order, a tensor for each of torchvision's
    names (loaded strictly); the same each time, the global generator left as it was;
    bit for bit the bytes whose digest the C++ plugin's package key holds (pinned);
  - the Flax model has ViT-B/16's 86,567,656 parameters, named and shaped as the
    converted weights;
  - on the C++ plugin's input, batch 2, its logits, jitted and eager, agree with
    torchvision's within benchhost.torch's float32 tolerance.

Exit 77 (ctest's skip) where jax, flax or torch cannot be imported.
"""

import hashlib
import os
import re
import sys
import unittest

try:
    import flax  # noqa: F401
    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch
    import torchvision
except ImportError as error:
    print(f"jax, flax or torch cannot be imported here ({error}): scripts/lib/requirements.txt installs them")
    sys.exit(77)

import benchhost.models
from benchhost._standin import Config, Context
from plugin_source import SOURCE, load_plugin as plugin


class VitB16JaxTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.jax_plugin = plugin("vit_b_16_jax")
        cls.module, cls.variables, cls.converted_from = cls.jax_plugin.build()

    def test_the_weights_are_the_cpp_plugins(self):
        with open(os.path.join(SOURCE, "plugins", "performance", "vit_b_16", "vit_b_16.cpp")) as f:
            cpp = f.read()
        seeds = {name: int(value) for name, value in re.findall(r"constexpr uint64_t (kWeightSeed|kInputSeed) = (\d+);",
                                                                  cpp)}
        self.assertEqual(seeds, {"kWeightSeed": benchhost.models.VIT_B_16_WEIGHT_SEED,
                                 "kInputSeed": benchhost.models.VIT_B_16_INPUT_SEED})
        # torchvision's names and shapes, every one drawn.
        reference = torchvision.models.vit_b_16().state_dict()
        state = self.converted_from.state_dict()
        self.assertEqual(list(state), list(reference))
        self.assertEqual({k: tuple(v.shape) for k, v in state.items()},
                         {k: tuple(v.shape) for k, v in reference.items()})
        self.assertEqual(sorted(name for name, *_ in benchhost.models.VIT_B_16_DRAWS), sorted(reference))
        # The C++ plugin's draws: a clamped normal (its trunc_normal) scaled, layer norm
        # weights about 1, the position embedding unclamped.
        self.assertAlmostEqual(float(state["conv_proj.weight"].abs().max()), 2 * (1 / 768) ** 0.5, places=6)
        self.assertAlmostEqual(float(state["heads.head.weight"].abs().max()), 0.04, places=6)
        self.assertGreater(float(state["encoder.pos_embedding"].abs().max()), 0.04)
        ln = state["encoder.layers.encoder_layer_0.ln_1.weight"]
        self.assertAlmostEqual(float(ln.mean()), 1.0, delta=0.02)
        # The same each time, and the caller's generator untouched.
        torch.manual_seed(5)
        expected_next = torch.randn(3)
        torch.manual_seed(5)
        again = benchhost.models.vit_b_16_state()
        x = benchhost.models.vit_b_16_input(2)
        self.assertTrue(torch.equal(torch.randn(3), expected_next))
        for name, tensor in state.items():
            self.assertTrue(torch.equal(again[name], tensor), name)
        torch.manual_seed(224)
        self.assertTrue(torch.equal(x, torch.randn(2, 3, 224, 224)))
        # Bit for bit the C++ plugin's: its weights, name and bytes in its module's order
        # (LibTorch's named_parameters: a module's own, then its children's), have the
        # FNV-1a digest 42101b39553fca89 that its AOTInductor package's key.txt holds as
        # "weights" (aot_inductor.cpp, weights_digest; checked on 2026-11-29 with a
        # compile of vit_b_16 against this stream), whose SHA-256 is pinned here.
        order = ["class_token", "conv_proj.weight", "conv_proj.bias", "encoder.pos_embedding"]
        for i in range(12):
            layer = f"encoder.layers.encoder_layer_{i}"
            order += [f"{layer}.{part}" for part in (
                "ln_1.weight", "ln_1.bias", "self_attention.in_proj_weight", "self_attention.in_proj_bias",
                "self_attention.out_proj.weight", "self_attention.out_proj.bias", "ln_2.weight", "ln_2.bias",
                "mlp.0.weight", "mlp.0.bias", "mlp.3.weight", "mlp.3.bias")]
        order += ["encoder.ln.weight", "encoder.ln.bias", "heads.head.weight", "heads.head.bias"]
        self.assertEqual(sorted(order), sorted(state))
        digest = hashlib.sha256()
        for name in order:
            digest.update(name.encode())
            digest.update(state[name].contiguous().numpy().tobytes())
        self.assertEqual(digest.hexdigest(), "2563bb9576f47fd0c28f23586b9034f3b8155b6347b69c2bdabed61973d33e73")

    def test_the_flax_model_has_vit_b_16s_parameters(self):
        expected = jax.eval_shape(self.module.init, jax.random.key(0), jnp.zeros((1, 224, 224, 3)))
        shapes = jax.tree_util.tree_map(lambda a: a.shape, dict(expected))
        self.assertEqual(shapes, jax.tree_util.tree_map(lambda a: a.shape, self.variables))
        count = sum(int(np.prod(a.shape)) for a in jax.tree_util.tree_leaves(self.variables["params"]))
        self.assertEqual(count, 86_567_656)
        self.assertEqual(count, sum(p.numel() for p in self.converted_from.parameters()))

    def test_the_logits_agree_with_torchvisions(self):
        from benchhost.torch import TOLERANCE, check_against_eager
        x = self.jax_plugin.torch_input(2)
        with torch.inference_mode():
            reference = self.converted_from(x)
        variables = jax.tree_util.tree_map(jnp.asarray, self.variables)
        nhwc = jnp.asarray(x.numpy().transpose(0, 2, 3, 1))
        outputs = {"jit": jax.jit(self.module.apply)(variables, nhwc)}
        with jax.disable_jit():
            outputs["eager"] = self.module.apply(variables, nhwc)
        for name, logits in outputs.items():
            with self.subTest(variant=name):
                ctx = Context(Config())
                check_against_eager(ctx, reference, torch.from_numpy(np.array(logits)))  # raises beyond it
                atol, _ = TOLERANCE[torch.float32]
                max_abs, max_rel = ctx._recorded.scalars["max_abs_diff"][0], ctx._recorded.scalars["max_rel_diff"][0]
                print(f"{name}: max_abs_diff {max_abs:.3g}, max_rel_diff {max_rel:.3g} against torch", file=sys.stderr)
                self.assertLessEqual(max_abs, 10 * atol)
                # Not a vacuous comparison: the logits differ between images and classes.
                self.assertGreater(float(reference.std()), 1e-2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
