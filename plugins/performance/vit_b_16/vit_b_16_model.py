"""The plugin's ViT-B/16 as Python defines it, for the AOTInductor compile.

The C++ model (vit_b_16.cpp) is torchvision's vit_b_16 with torchvision's parameter
names (encoder.layers.encoder_layer_N..., heads.head), so the exporter builds
torchvision's and loads the C++ weights into it (strict); it checks the two eager
outputs against each other before compiling.
"""

import torchvision


def build():
    return torchvision.models.vit_b_16()
