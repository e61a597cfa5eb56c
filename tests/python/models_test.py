"""benchhost.models (sdk/python/benchhost_models.py) outside a worker, in the project's venv
(ctest python_models): --param dataset as the LibTorch layer reads an image folder.

  - image_input: None without the parameter; with it, the first batch_size images of the
    folder (classes and files in sorted order, hidden names and other suffixes left
    out, a file decoded by its first bytes whatever its name), from the first again when
    there are fewer, each [3, 224, 224] normalized with ImageNet's mean and standard
    deviation; dataset_images, preprocess_time, preprocess_per_image and info dataset
    recorded;
  - preprocess_image: the shorter side to 256, the centre crop, a flat colour kept flat;
  - a folder that cannot be used fails with the C++ layer's words.

Exit 77 (ctest's skip) where torch or PIL cannot be imported.
"""

import os
import shutil
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
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
