// Image files: JPEG and PNG decoded into RGB tensors, with Debian's libjpeg-turbo and
// libpng.
#pragma once

#include <filesystem>

#include <torch/types.h>

#include <bench/export.hpp>

namespace bench::libtorch {

/// Decodes a JPEG or PNG file into an RGB image: a uint8 tensor [height, width, 3] on
/// the CPU. The format is told by the file's first bytes, not its name. Grayscale,
/// palette and 16-bit images come out as 8-bit RGB; a PNG's alpha channel is
/// composited onto black; a CMYK JPEG is an error.
///
/// A file that cannot be read or decoded, a truncated JPEG included, is
/// std::runtime_error naming the file and the reason, in the library's words:
///   "data/cat/3.jpg: cannot decode the JPEG: Premature end of JPEG file"
///   "data/cat/4.png: not a JPEG or PNG file (it starts with 3c 68 74 6d)"
BENCH_EXPORT torch::Tensor decode_image(const std::filesystem::path& file);

}  // namespace bench::libtorch
