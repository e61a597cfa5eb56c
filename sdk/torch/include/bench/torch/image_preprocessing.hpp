// The usual preprocessing of an image for an ImageNet classifier: resize, centre crop,
// scale to [0, 1], normalise.
#pragma once

#include <array>
#include <cstdint>

#include <torch/types.h>

#include <bench/export.hpp>

namespace bench::libtorch {

struct ImagePreprocessing {
    int64_t resize = 256;  // the shorter side after resizing
    int64_t crop = 224;  // the side of the square cut from the centre
    std::array<double, 3> mean = {0.485, 0.456, 0.406};  // ImageNet's, per RGB channel
    std::array<double, 3> std = {0.229, 0.224, 0.225};
};

/// An RGB image (uint8 [height, width, 3], as decode_image gives) made into a model's
/// input, float32 [3, crop, crop] on the CPU, as torchvision's evaluation transform
/// does it:
///  - resized so that its shorter side is `resize` and the longer one keeps the aspect
///    ratio, truncated (h < w: resize x int(resize * w / h)); bilinear, antialiased
///    when shrinking (ATen's _upsample_bilinear2d_aa, align_corners false: PIL's
///    bilinear filter), in float on values scaled to [0, 1] (no rounding to 8 bits in
///    between);
///  - the centre crop x crop square: top = round((height - crop) / 2), halves to even;
///  - normalised per channel: (value - mean) / std.
/// std::invalid_argument for another tensor layout or dtype, and for settings that
/// cannot work (crop < 1, resize < crop, a std that is not positive).
BENCH_EXPORT torch::Tensor preprocess_image(const torch::Tensor& rgb, const ImagePreprocessing& settings = {});

}  // namespace bench::libtorch
