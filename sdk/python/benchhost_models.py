"""benchhost.models: the PyTorch models of benchhost's model plugins, with the plugins'
seeded weights and inputs, so that a plugin of another framework (resnet50_jax,
vit_b_16_jax) converts the very function a PyTorch plugin times, and a test can hold the
two to the same logits.

    resnet50(seed)               torchvision's resnet50 as resnet50_py builds it: its own
                                 initialization after torch.manual_seed(seed), batch
                                 norm scales uniform in [0.5, 1.5) and shifts normal (0,
                                 0.1), running statistics calibrated on a random batch
                                 (so that folding batch norm is really exercised); eval
    resnet50_input(seed, batch, size)
                                 resnet50_py's input: NCHW float32, normal, from a
                                 generator seeded seed + 1
    vit_b_16()                   torchvision's vit_b_16 holding the weights of the C++
                                 plugin vit_b_16 (plugins/performance/vit_b_16): the same
                                 draws from the global generator seeded 16, in the order
                                 its C++ modules make them (VIT_B_16_DRAWS), loaded by
                                 torchvision's names (strict); eval
    vit_b_16_input(batch)        that plugin's input: normal, the global generator seeded
                                 224, [batch, 3, 224, 224]
    image_input(ctx, batch_size, size)
                                 --param dataset=DIR: the first batch_size images of an
                                 image folder, preprocessed as the LibTorch layer's
                                 use_image_dataset does (<bench/torch/image_dataset.hpp>),
                                 as an NCHW float32 tensor; None without the parameter

Each returns CPU float32 tensors; torch and torchvision are imported when first called.
vit_b_16() builds torchvision's module on the meta device (its own initialization
skipped) and restores the global generator's state afterwards, which the C++ plugin
leaves seeded; resnet50 seeds it as resnet50_py always has.
"""

import math
import os
import time
from typing import Any

RESNET50_PARAMETERS = 25_557_032
VIT_B_16_PARAMETERS = 86_567_656
VIT_B_16_WEIGHT_SEED = 16  # vit_b_16.cpp's kWeightSeed
VIT_B_16_INPUT_SEED = 224  # and kInputSeed
VIT_B_16_IMAGE_SIZE = 224


def resnet50(seed):
    """torchvision's resnet50 with resnet50_py's seeded weights, in eval mode."""
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


def resnet50_input(seed, batch, size):
    """resnet50_py's input: [batch, 3, size, size], float32."""
    import torch
    generator = torch.Generator().manual_seed(seed + 1)
    return torch.randn(batch, 3, size, size, generator=generator)


def _vit_b_16_draws():
    """(torchvision name, shape, kind, std) of every tensor of the C++ vit_b_16, in the
    order its constructors draw them (vit_b_16.cpp: VisionTransformer, Encoder,
    EncoderBlock, LayerNorm, SelfAttention, Mlp, Linear). kind: "trunc" is
    randn(shape).clamp_(-2, 2).mul_(std) (its trunc_normal), "one_plus_trunc" is
    1.0 + that (a LayerNorm's weight), "normal" is randn(shape).mul_(std)."""
    hidden, mlp, classes, patch, sequence = 768, 3072, 1000, 16, 197

    def linear(name, inputs, outputs):
        return [(f"{name}.weight", (outputs, inputs), "trunc", 0.02), (f"{name}.bias", (outputs,), "trunc", 0.02)]

    def layer_norm(name):
        return [(f"{name}.weight", (hidden,), "one_plus_trunc", 0.1), (f"{name}.bias", (hidden,), "trunc", 0.02)]

    draws: list[tuple[str, tuple[int, ...], str, float]] = [
        ("conv_proj.weight", (hidden, 3, patch, patch), "trunc", math.sqrt(1.0 / (3 * patch * patch))),
        ("conv_proj.bias", (hidden,), "trunc", 0.02),
        ("class_token", (1, 1, hidden), "trunc", 0.02),
        ("encoder.pos_embedding", (1, sequence, hidden), "normal", 0.02)]
    for i in range(12):
        layer = f"encoder.layers.encoder_layer_{i}"
        draws += layer_norm(f"{layer}.ln_1")
        draws += [(f"{layer}.self_attention.in_proj_weight", (3 * hidden, hidden), "trunc", 0.02),
                  (f"{layer}.self_attention.in_proj_bias", (3 * hidden,), "trunc", 0.02)]
        draws += linear(f"{layer}.self_attention.out_proj", hidden, hidden)
        draws += layer_norm(f"{layer}.ln_2")
        draws += linear(f"{layer}.mlp.0", hidden, mlp)
        draws += linear(f"{layer}.mlp.3", mlp, hidden)
    draws += layer_norm("encoder.ln")
    draws += linear("heads.head", hidden, classes)
    return draws


VIT_B_16_DRAWS = _vit_b_16_draws()


def vit_b_16_state():
    """The C++ vit_b_16's weights by torchvision's names (a dict of CPU float32 tensors, in
    the order they are drawn)."""
    import torch
    state: dict[str, Any] = {}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(VIT_B_16_WEIGHT_SEED)
        for name, shape, kind, std in VIT_B_16_DRAWS:
            if kind == "normal":
                state[name] = torch.randn(shape).mul_(std)
            else:
                drawn = torch.randn(shape).clamp_(-2.0, 2.0).mul_(std)
                state[name] = 1.0 + drawn if kind == "one_plus_trunc" else drawn
    return state


def vit_b_16():
    """torchvision's vit_b_16 with the C++ plugin vit_b_16's weights, in eval mode."""
    import torch
    import torchvision
    with torch.device("meta"):
        model = torchvision.models.vit_b_16()
    model.load_state_dict(vit_b_16_state(), strict=True, assign=True)
    return model.eval()


def vit_b_16_input(batch):
    """The C++ vit_b_16's input: [batch, 3, 224, 224], float32."""
    import torch
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(VIT_B_16_INPUT_SEED)
        return torch.randn(batch, 3, VIT_B_16_IMAGE_SIZE, VIT_B_16_IMAGE_SIZE)


# The LibTorch layer's ImagePreprocessing defaults (<bench/torch/image_preprocessing.hpp>).
RESIZE = 256
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def _sorted_entries(folder, keep):
    try:
        names = os.listdir(folder)
    except OSError as error:
        raise ValueError(f"data set {folder}: cannot list the folder: {error.strerror}") from None
    return [os.path.join(folder, n) for n in sorted(names) if not n.startswith(".") and keep(os.path.join(folder, n))]


def scan_image_folder(root):
    """(classes, [(file, label), ...]) of an image folder as torchvision's ImageFolder reads
    one (bench::libtorch::scan_image_folder): a sub-folder per class in sorted order, its
    .jpg, .jpeg and .png files in sorted order, names starting with "." left out."""
    if not os.path.exists(root):
        raise ValueError(f"data set {root} does not exist")
    if not os.path.isdir(root):
        raise ValueError(f"data set {root} is not a folder (expected one sub-folder per class)")
    class_dirs = _sorted_entries(root, os.path.isdir)
    if not class_dirs:
        raise ValueError(f"data set {root} has no class folders (expected one sub-folder per class, holding its "
                         f"JPEG and PNG files)")
    images: list[tuple[str, int]] = []
    for label, folder in enumerate(class_dirs):
        images += [(f, label) for f in _sorted_entries(
            folder, lambda p: not os.path.isdir(p) and p.lower().endswith(IMAGE_SUFFIXES))]
    if not images:
        raise ValueError(f"data set {root} has no .jpg, .jpeg or .png files in its {len(class_dirs)} class folders")
    return [os.path.basename(d) for d in class_dirs], images


def decode_image(path):
    """The file's pixels, uint8 [height, width, 3] (numpy), decoded by what its first bytes
    say it is, JPEG or PNG, whatever its name; ValueError saying why it cannot be."""
    import numpy as np
    from PIL import Image
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise ValueError(f"{path}: cannot open: {error.strerror}") from None
    if data[:3] == b"\xff\xd8\xff":
        kind = "JPEG"
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        kind = "PNG"
    else:
        start = "it is empty" if not data else "it starts with " + " ".join(f"{b:02x}" for b in data[:4])
        raise ValueError(f"{path}: not a JPEG or PNG file ({start})")
    import io
    try:
        with Image.open(io.BytesIO(data)) as image:
            if kind == "JPEG" and image.mode == "CMYK":
                raise ValueError(f"{path}: cannot decode the JPEG: CMYK images are not supported")
            image.load()
            return np.asarray(image.convert("RGB"), dtype=np.uint8)
    except (OSError, SyntaxError) as error:
        raise ValueError(f"{path}: cannot decode the {kind}: {error}") from None


def preprocess_image(rgb, crop=224, resize=RESIZE):
    """An ImageNet classifier's input from uint8 [height, width, 3] pixels, as
    bench::libtorch::preprocess_image: the shorter side resized to `resize` (bilinear,
    antialiased), the centre crop x crop, scaled to [0, 1], normalized with ImageNet's
    mean and standard deviation; float32 [3, crop, crop]."""
    import torch
    height, width = rgb.shape[0], rgb.shape[1]
    new_height = new_width = resize
    if height < width:
        new_width = resize * width // height
    elif width < height:
        new_height = resize * height // width
    scaled = torch.from_numpy(rgb.copy()).permute(2, 0, 1).unsqueeze(0).to(torch.float32).div_(255.0)
    resized = torch.nn.functional.interpolate(scaled, size=(new_height, new_width), mode="bilinear",
                                              align_corners=False, antialias=True)
    top, left = round((new_height - crop) / 2.0), round((new_width - crop) / 2.0)  # to even, as nearbyint
    cropped = resized[0, :, top:top + crop, left:left + crop]
    mean = torch.tensor(MEAN, dtype=torch.float32).view(3, 1, 1)
    std = torch.tensor(STD, dtype=torch.float32).view(3, 1, 1)
    return ((cropped - mean) / std).contiguous()


def image_input(ctx, batch_size, size=224):
    """With --param dataset=DIR, the first batch_size images of the folder DIR, from the
    first again when it has fewer, preprocessed (preprocess_image, crop `size`): an NCHW
    float32 tensor; records dataset_images, preprocess_time, preprocess_per_image (ms)
    and info dataset, as the LibTorch layer's use_image_dataset. None without the
    parameter."""
    folder = ctx.config.params.get("dataset")
    if folder is None:
        return None
    if isinstance(folder, list):
        raise ValueError("--param dataset: one folder, not a list")
    if not folder:
        raise ValueError("parameter dataset: expected a folder, got an empty value")
    import torch
    classes, images = scan_image_folder(folder)
    count = min(batch_size, len(images))
    start = time.perf_counter()
    decoded = torch.stack([preprocess_image(decode_image(path), size) for path, _ in images[:count]])
    preprocess_ms = (time.perf_counter() - start) * 1e3
    ctx.record_scalar("dataset_images", count, "count")
    ctx.record_scalar("preprocess_time", preprocess_ms, "ms")
    ctx.record_scalar("preprocess_per_image", preprocess_ms / count, "ms")
    ctx.set_info("dataset", f"{folder}: {count} of {len(images)} images, {len(classes)} classes")
    if batch_size <= count:
        return decoded
    return decoded.index_select(0, torch.arange(batch_size) % count)
