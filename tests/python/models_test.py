"""benchhost.models (sdk/python/benchhost_models.py) outside a worker, in the project's venv
(ctest python_models): --param dataset as the LibTorch layer reads an image folder.

  - image_input: None without the parameter; with it, the first batch_size images of the
    folder (classes and files in sorted order, hidden names and other suffixes left
    out, a file decoded by its first bytes whatever its name), from the first again when
    there are fewer, each [3, 224, 224] normalized with ImageNet's mean and standard
    deviation; dataset_images, preprocess_time, preprocess_per_image and info dataset
    recorded;
  - preprocess_image: the shorter side to 256, the centre crop, a flat colour kept flat;
  - a folder that cannot be used fails with the C++ layer's words;
  - resnet50(seed)'s weights cache: made on a miss, loaded on a hit, the same weights,
    module and global generator state as made anew, one entry per seed, a damaged or
    altered entry deleted with a warning and made again, "off" without a cache folder.

Exit 77 (ctest's skip) where torch or PIL cannot be imported.
"""

import os
import sys
import tempfile
import unittest

try:
    import numpy as np
    import torch
    from PIL import Image
except ImportError as error:
    print(f"torch or PIL cannot be imported here ({error}): scripts/lib/requirements.txt installs them")
    sys.exit(77)

import benchhost.models as models
from benchhost._standin import Config, Context


def write(path, colour, size=(320, 240), kind="PNG"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.new("RGB", size, colour).save(path, kind)


class ImageInputTest(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="benchhost-models-test-")

    def ctx(self, **params):
        return Context(Config(params=params))

    def test_the_first_images_of_the_folder(self):
        write(f"{self.root}/b_class/2.png", (0, 0, 255))
        write(f"{self.root}/a_class/1.jpg", (255, 0, 0), kind="JPEG")
        write(f"{self.root}/a_class/0.PNG", (0, 255, 0))
        write(f"{self.root}/a_class/.hidden.png", (9, 9, 9))
        with open(f"{self.root}/a_class/notes.txt", "w") as f:
            f.write("not an image")
        self.assertIsNone(models.image_input(self.ctx(), 2))
        ctx = self.ctx(dataset=self.root)
        x = models.image_input(ctx, 5)
        self.assertEqual(tuple(x.shape), (5, 3, 224, 224))
        self.assertEqual(x.dtype, torch.float32)
        mean, std = torch.tensor(models.MEAN).view(3, 1, 1), torch.tensor(models.STD).view(3, 1, 1)
        pixels = (x * std + mean).mean(dim=(2, 3))  # the colours back, in [0, 1]
        expected = torch.tensor([[0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=torch.float32)  # 0.PNG, 1.jpg, 2.png
        self.assertTrue(torch.allclose(pixels[:3], expected, atol=0.02), pixels)
        self.assertTrue(torch.equal(x[3], x[0]) and torch.equal(x[4], x[1]))  # from the first again
        scalars, info = ctx._recorded.scalars, ctx._recorded.info
        self.assertEqual(scalars["dataset_images"][0], 3)
        self.assertGreater(scalars["preprocess_time"][0], 0)
        self.assertEqual(scalars["preprocess_per_image"][1], "ms")
        self.assertEqual(info["dataset"], f"{self.root}: 3 of 3 images, 2 classes")
        # Only the images it uses are decoded: a batch of one.
        ctx = self.ctx(dataset=self.root)
        self.assertEqual(tuple(models.image_input(ctx, 1).shape), (1, 3, 224, 224))
        self.assertEqual(info["dataset"], f"{self.root}: 3 of 3 images, 2 classes")
        self.assertEqual(ctx._recorded.info["dataset"], f"{self.root}: 1 of 3 images, 2 classes")

    def test_preprocessing(self):
        rgb = np.zeros((300, 600, 3), np.uint8)
        rgb[:, :, 0] = 128
        out = models.preprocess_image(rgb)
        self.assertEqual(tuple(out.shape), (3, 224, 224))
        self.assertTrue(torch.allclose(out[0], torch.full((224, 224), (128 / 255 - 0.485) / 0.229), atol=1e-5))
        # The centre: a bright column in the middle of a wide image stays in the middle.
        rgb[:, 295:305, 1] = 255
        out = models.preprocess_image(rgb)
        column = out[1].mean(dim=0)
        bright = column - column.min()
        centre = float((bright * torch.arange(224)).sum() / bright.sum())
        self.assertAlmostEqual(centre, 111.5, delta=0.5)  # 300 of 600: 256 of 512, less the crop's 144

    def test_a_folder_that_cannot_be_used(self):
        def reason(folder):
            with self.assertRaises(ValueError) as raised:
                models.image_input(self.ctx(dataset=folder), 1)
            return str(raised.exception)
        self.assertEqual(reason(f"{self.root}/none"), f"data set {self.root}/none does not exist")
        self.assertEqual(reason(self.root), f"data set {self.root} has no class folders (expected one sub-folder per "
                                            f"class, holding its JPEG and PNG files)")
        os.makedirs(f"{self.root}/cat")
        self.assertEqual(reason(self.root), f"data set {self.root} has no .jpg, .jpeg or .png files in its 1 class "
                                            f"folders")
        with open(f"{self.root}/cat/a.jpg", "w") as f:
            f.write("<html>")
        self.assertEqual(reason(self.root),
                         f"{self.root}/cat/a.jpg: not a JPEG or PNG file (it starts with 3c 68 74 6d)")
        with open(f"{self.root}/cat/a.jpg", "wb") as f:
            f.write(b"\xff\xd8\xff\xe0 and then nothing")
        self.assertTrue(reason(self.root).startswith(f"{self.root}/cat/a.jpg: cannot decode the JPEG: "))


class ResNet50WeightsCacheTest(unittest.TestCase):
    """One model made without the cache is the reference every case compares with."""

    @classmethod
    def setUpClass(cls):
        cls.reference = models._seeded_resnet50(0).eval()
        cls.reference_rng = torch.get_rng_state()

    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="benchhost-weights-test-")
        self.saved_env = os.environ.get("BENCHHOST_CACHE_DIR")
        os.environ["BENCHHOST_CACHE_DIR"] = self.cache

    def tearDown(self):
        if self.saved_env is None:
            del os.environ["BENCHHOST_CACHE_DIR"]
        else:
            os.environ["BENCHHOST_CACHE_DIR"] = self.saved_env

    def build(self, seed=0):
        ctx = Context(Config())
        torch.manual_seed(12345)  # whatever the generator was, the build leaves it as the recipe does
        model = models.resnet50(seed, ctx)
        return model, ctx._recorded, torch.get_rng_state()

    def assert_reference(self, model, rng):
        ours, theirs = model.state_dict(), self.reference.state_dict()
        self.assertEqual(list(ours), list(theirs))
        for name in theirs:
            self.assertTrue(torch.equal(ours[name], theirs[name]), name)
            self.assertEqual(ours[name].device.type, "cpu", name)
        self.assertEqual(repr(model), repr(self.reference))
        self.assertFalse(model.training)
        self.assertTrue(torch.equal(rng, self.reference_rng))
        x = torch.randn(1, 3, 64, 64)
        with torch.inference_mode():
            self.assertTrue(torch.equal(model(x), self.reference(x)))

    def entries(self):
        folder = os.path.join(self.cache, "weights")
        return sorted(os.listdir(folder)) if os.path.isdir(folder) else []

    def test_made_on_a_miss_then_loaded(self):
        model, recorded, rng = self.build()
        entry = os.path.join(self.cache, "weights", self.entries()[0])
        self.assertEqual(recorded.info["weights_cache"], f"miss: {entry}")
        self.assertRegex(os.path.basename(entry), r"^resnet50-seed0-[0-9a-f]{16}\.pt$")
        self.assert_reference(model, rng)
        model, recorded, rng = self.build()
        self.assertEqual(recorded.info["weights_cache"], f"hit: {entry}")
        self.assertEqual(recorded.warnings, [])
        self.assert_reference(model, rng)
        self.build(1)
        self.assertEqual(len(self.entries()), 2)  # one entry per seed

    def test_a_damaged_entry_is_made_again(self):
        self.build()
        entry = os.path.join(self.cache, "weights", self.entries()[0])
        with open(entry, "r+b") as f:
            f.truncate(os.path.getsize(entry) // 2)
        model, recorded, rng = self.build()
        self.assertEqual(recorded.info["weights_cache"], f"miss: {entry}")
        self.assertEqual(len(recorded.warnings), 1)
        self.assertTrue(recorded.warnings[0].startswith(f"cached weights {entry} do not load ("), recorded.warnings)
        self.assert_reference(model, rng)
        self.assertEqual(self.build()[1].info["weights_cache"], f"hit: {entry}")

    def test_altered_weights_or_module_are_made_again(self):
        self.build()
        entry = os.path.join(self.cache, "weights", self.entries()[0])
        saved = torch.load(entry, weights_only=True)
        saved["state"]["fc.bias"][0] += 1.0
        torch.save(saved, entry)
        model, recorded, rng = self.build()
        self.assertIn("its weights do not match the digest stored with them", recorded.warnings[0])
        self.assert_reference(model, rng)
        saved = torch.load(entry, weights_only=True)
        saved["module"] = saved["module"].replace("momentum=None", "momentum=0.1")
        torch.save(saved, entry)
        model, recorded, rng = self.build()
        self.assertIn("the module it was made for is not the one built now", recorded.warnings[0])
        self.assert_reference(model, rng)

    def test_off_without_a_cache_folder(self):
        os.environ["BENCHHOST_CACHE_DIR"] = "relative"
        saved = {name: os.environ.pop(name, None) for name in ("XDG_CACHE_HOME", "HOME")}
        try:
            model, recorded, rng = self.build()
        finally:
            for name, value in saved.items():
                if value is not None:
                    os.environ[name] = value
        self.assertEqual(recorded.info["weights_cache"], "off")
        self.assert_reference(model, rng)
        self.assertEqual(self.entries(), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
