// Writing image files for the tests, with the libraries benchhost decodes them with:
// libjpeg-turbo and libpng. The tests that include this link JPEG::JPEG and PNG::PNG.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <png.h>

namespace benchtest {

/// Pixels row by row, `channels` bytes each (3: RGB, 4: RGBA, 1: grey).
struct Pixels {
    int width = 0, height = 0, channels = 3;
    std::vector<unsigned char> bytes;

    unsigned char& at(int y, int x, int c) {
        return bytes[(static_cast<std::size_t>(y) * width + x) * channels + c];
    }
};

/// An image of one colour.
inline Pixels solid(int width, int height, unsigned char r, unsigned char g, unsigned char b) {
    Pixels p{width, height, 3, {}};
    p.bytes.reserve(static_cast<std::size_t>(width) * height * 3);
    for (int i = 0; i < width * height; ++i) p.bytes.insert(p.bytes.end(), {r, g, b});
    return p;
}

/// A baseline JPEG (4:2:0, at `quality`) of RGB or grey pixels.
inline void write_jpeg(const std::filesystem::path& file, const Pixels& pixels, int quality = 95) {
    if (pixels.channels != 3 && pixels.channels != 1) throw std::invalid_argument("write_jpeg: RGB or grey");
    FILE* out = std::fopen(file.c_str(), "wb");
    if (out == nullptr) throw std::runtime_error("cannot write " + file.string());
    jpeg_compress_struct cinfo{};
    jpeg_error_mgr error{};
    cinfo.err = jpeg_std_error(&error);  // the default error handler exits: fine in a test
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, out);
    cinfo.image_width = static_cast<JDIMENSION>(pixels.width);
    cinfo.image_height = static_cast<JDIMENSION>(pixels.height);
    cinfo.input_components = pixels.channels;
    cinfo.in_color_space = pixels.channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    const std::size_t row_bytes = static_cast<std::size_t>(pixels.width) * pixels.channels;
    while (cinfo.next_scanline < cinfo.image_height) {
        auto* row = const_cast<JSAMPLE*>(pixels.bytes.data() + cinfo.next_scanline * row_bytes);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    std::fclose(out);
}

/// A PNG of grey, RGB or RGBA pixels (lossless).
inline void write_png(const std::filesystem::path& file, const Pixels& pixels) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(pixels.width);
    image.height = static_cast<png_uint_32>(pixels.height);
    image.format = pixels.channels == 4 ? PNG_FORMAT_RGBA : pixels.channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    if (!png_image_write_to_file(&image, file.c_str(), 0, pixels.bytes.data(), 0, nullptr))
        throw std::runtime_error("cannot write " + file.string() + ": " + image.message);
}

}  // namespace benchtest
