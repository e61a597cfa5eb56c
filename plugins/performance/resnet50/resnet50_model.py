"""The plugin's ResNet-50 as Python defines it, for the AOTInductor compile.

The C++ model (resnet50.cpp) is torchvision's ResNet-50 (v1.5: the stride in each
bottleneck's 3x3 convolution), layer for layer, so the exporter builds torchvision's and
loads the C++ weights into it (strict), renamed by weight_name; it checks the two eager
outputs against each other before compiling.
"""

import re

import torchvision


def build():
    return torchvision.models.resnet50()


def weight_name(name):
    """The C++ name of a parameter or buffer -> torchvision's (layer1_0.downsample_bn.bias
    -> layer1.0.downsample.1.bias)."""
    name = re.sub(r"^stem_conv\.", "conv1.", name)
    name = re.sub(r"^stem_bn\.", "bn1.", name)
    name = re.sub(r"^layer(\d)_(\d+)\.", r"layer\1.\2.", name)
    return name.replace(".downsample_conv.", ".downsample.0.").replace(".downsample_bn.", ".downsample.1.")
