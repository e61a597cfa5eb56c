"""plugins/performance/resnet50_jax against plugins/performance/resnet50_py, in the
project's venv (ctest python_resnet50_jax):

  - the torch model the JAX plugin converts is resnet50_py's, weight for weight (its
    build(seed)), and its input resnet50_py's;
  - the Flax model has ResNet-50's 25,557,032 parameters, named and shaped as the
    converted weights;
  - at 224 x 224, its logits, jitted, agree with torchvision's within benchhost.torch's
    float32 tolerance (benchhost.torch.check_against_eager), and so do eager's.

Exit 77 (ctest's skip) where jax, flax or torch cannot be imported.
"""

import sys
import unittest

try:
    import flax  # noqa: F401
    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch
except ImportError as error:
    print(f"jax, flax or torch cannot be imported here ({error}): scripts/lib/requirements.txt installs them")
    sys.exit(77)

from benchhost._standin import Config, Context
from plugin_source import load_plugin as plugin


class ResNet50JaxTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.jax_plugin, cls.torch_plugin = plugin("resnet50_jax"), plugin("resnet50_py")
        cls.module, cls.variables, cls.converted_from = cls.jax_plugin.build(0)
        # resnet50_py's model, built once: the weights compared and the logits' reference
        # (a ResNet-50 built and initialised is seconds of the test).
        cls.torch_model = cls.torch_plugin.build(0)

    def test_the_weights_are_resnet50_pys(self):
        ours, theirs = self.converted_from.state_dict(), self.torch_model.state_dict()
        self.assertEqual(list(ours), list(theirs))
        for name, tensor in theirs.items():
            self.assertTrue(torch.equal(ours[name], tensor), name)
        self.assertTrue(torch.equal(self.jax_plugin.torch_input(0, 2, 32), torch.randn(
            2, 3, 32, 32, generator=torch.Generator().manual_seed(1))))
        other = self.jax_plugin.torch_model(1).state_dict()
        self.assertFalse(torch.equal(other["conv1.weight"], theirs["conv1.weight"]))

    def test_the_flax_model_has_resnet50s_parameters(self):
        expected = jax.eval_shape(self.module.init, jax.random.key(0), jnp.zeros((1, 224, 224, 3)))
        shapes = jax.tree_util.tree_map(lambda a: a.shape, dict(expected))
        self.assertEqual(shapes, jax.tree_util.tree_map(lambda a: a.shape, self.variables))
        count = sum(int(np.prod(a.shape)) for a in jax.tree_util.tree_leaves(self.variables["params"]))
        self.assertEqual(count, 25_557_032)
        self.assertEqual(count, sum(p.numel() for p in self.converted_from.parameters()))

    def test_the_logits_agree_with_torchvisions(self):
        from benchhost.torch import TOLERANCE, check_against_eager
        x = self.jax_plugin.torch_input(0, 2, 224)
        with torch.inference_mode():
            reference = self.torch_model(x)
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
