"""benchhost.torch's check of a variant's output against eager's (check_against_eager in
sdk/python/benchhost_torch.py) with the stand-in Context, in the project's venv (ctest
python_torch_check). The rule is the C++ layer's (check_against_reference,
tests/sdk_torch/runtime_test.cpp) and benchhost.jax's (tests/python/jax_helper_test.py):
|c - r| <= absolute + relative * max(|r|, RMS of the reference), float32 1e-4 and 1e-3:

  - elements near zero of a tensor of large scale are held to the tensor's scale: a
    difference of 2e-4 on a logit of 0.013 among logits of RMS 3 (ResNet-50's at batch 32,
    docs/models.md, "The check against eager") passes, where a tolerance relative to the
    element alone failed it;
  - a real error still fails: one element off by 0.05 among logits of RMS 3, a product
    with one weight 10% off, a difference of 2e-4 in a tensor of small scale (the
    absolute floor holds there); the message names the rule, the RMS and the worst
    element;
  - NaN: in one output only fails, in both passes, and a NaN or infinity in the
    reference leaves its RMS that of its finite elements.

Exit 77 (ctest's skip) where torch cannot be imported.
"""

import math
import sys
import unittest

try:
    import torch
except ImportError as error:
    print(f"torch cannot be imported here ({error}): scripts/lib/requirements.txt installs it into the venv")
    sys.exit(77)

from benchhost._standin import Config, Context


def check(reference, candidate):
    """(the AssertionError's text or None, the recorded scalars)."""
    import benchhost.torch
    ctx = Context(Config())
    try:
        benchhost.torch.check_against_eager(ctx, reference, candidate)
        text = None
    except AssertionError as error:
        text = str(error)
    return text, {name: value for name, (value, _) in ctx._recorded.scalars.items()}


def logits():
    """[32, 1000] float32 logits of RMS about 3, as ResNet-50's at batch 32, with one near
    zero: 0.0128 at [5, 7]."""
    generator = torch.Generator().manual_seed(0)
    r = torch.randn(32, 1000, generator=generator) * 3
    r[5, 7] = 0.0128
    return r


class CheckAgainstEagerTest(unittest.TestCase):
    def test_elements_near_zero_are_held_to_the_tensors_scale(self):
        r = logits()
        rms = float(r.square().mean().sqrt())
        self.assertAlmostEqual(rms, 3.0, delta=0.05)
        c = r.clone()
        c[5, 7] += 2e-4
        c[0, :10] += 4e-5  # the others' summation-order noise
        # Beyond absolute 1e-4 + relative 1e-3 * |element| (1.13e-4 here)...
        self.assertGreater(float((c - r).abs()[5, 7]), 1e-4 + 1e-3 * 0.0128)
        # ... within 1e-4 + 1e-3 * max(|element|, RMS) (3.1e-3).
        text, scalars = check(r, c)
        self.assertIsNone(text)
        self.assertAlmostEqual(scalars["max_abs_diff"], 2e-4, delta=1e-6)
        # max_rel_diff is as before: |c - r| / max(|r|, 1e-4).
        self.assertAlmostEqual(scalars["max_rel_diff"], 2e-4 / 0.0128, delta=1e-3)
        # Each tensor of an output its own scale: beside a tensor of small scale, the
        # logits' scale does not loosen the small one's check.
        small = torch.full((4,), 1e-3)
        text, _ = check((r, small), (c, small + 2e-4))
        self.assertIn("output 1 differs from eager", text)

    def test_a_real_error_still_fails(self):
        r = logits()
        # One element off by 0.05 (1.7% of the RMS): beyond 1e-4 + 1e-3 * 3.
        c = r.clone()
        c[3, 4] = r[3, 4] + 0.05
        text, scalars = check(r, c)
        self.assertIn("output 0 differs from eager beyond the float32 tolerance (absolute 0.0001 + relative 0.001 * "
                      "max(|reference|, the reference's RMS 3", text)
        self.assertIn("at 1 of 32000 elements; worst at index [3, 4]", text)
        self.assertAlmostEqual(scalars["max_abs_diff"], 0.05, delta=1e-5)
        # A weight 10% off: the product's column of that weight moves.
        generator = torch.Generator().manual_seed(1)
        x = torch.randn(32, 64, generator=generator)
        w = torch.randn(64, 10, generator=generator) / 8
        wrong = w.clone()
        wrong[0, 0] *= 1.1
        text, _ = check(x @ w, x @ wrong)
        self.assertIn("output 0 differs from eager beyond the float32 tolerance", text)
        self.assertRegex(text, r"worst at index \[\d+, 0\]")
        # A tensor of small scale keeps the absolute floor: 2e-4 off on values of 1e-3.
        small = torch.full((8,), 1e-3)
        text, _ = check(small, small + 2e-4)
        self.assertIn("the reference's RMS 0.001", text)

    def test_nan_and_infinity(self):
        nan, inf = math.nan, math.inf
        r = torch.tensor([nan, 1.0, 2.0, inf])
        # NaN in both and the same infinity: equal. The RMS is the finite elements' (1.58):
        # 1.5e-3 off on 1.0 is within 1e-4 + 1e-3 * 1.58, 1.8e-3 beyond it.
        text, scalars = check(r, torch.tensor([nan, 1.0 + 1.5e-3, 2.0, inf]))
        self.assertIsNone(text)
        self.assertAlmostEqual(scalars["max_abs_diff"], 1.5e-3, delta=1e-6)
        text, _ = check(r, torch.tensor([nan, 1.0 + 1.8e-3, 2.0, inf]))
        self.assertIn("the reference's RMS 1.58)) at 1 of 4 elements; worst at index [1]", text)
        # NaN in one only: out of tolerance, however large the scale.
        text, scalars = check(torch.tensor([1.0, 100.0]), torch.tensor([nan, 100.0]))
        self.assertIn("worst at index [0]: candidate nan, reference 1", text)
        self.assertEqual(scalars["max_abs_diff"], inf)
        text, _ = check(torch.tensor([nan, 100.0]), torch.tensor([1.0, 100.0]))
        self.assertIn("worst at index [0]: candidate 1, reference nan", text)
        # A reference that is all NaN: RMS 0, and NaN in both passes.
        text, _ = check(torch.tensor([nan, nan]), torch.tensor([nan, nan]))
        self.assertIsNone(text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
