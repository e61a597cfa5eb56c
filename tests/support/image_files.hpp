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

    unsigned char& at(int y, int x, int c) { return bytes[(static_cast<std::size_t>(y) * width + x) * channels + c]; }
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

/// A data set whose accuracy under the nearest-colour classifier is known by
/// construction. Eight classes, class_0 to class_7, the solid colours with red
/// 16 + 32 k (green 60, blue 120); the classifier (make_colour_classifier, or the same
/// in C++) scores class k by -(mean normalised red - class k's normalised red)^2, so
/// that its five best are the class of the image's red and the four nearest to it.
/// Ten images, half JPEG and half PNG, of sizes that need resizing and cropping:
///   - seven of their own class's colour, one in each of class_0 to class_6: right;
///   - class_2/b.png has class 3's colour (one step away), class_7/a.jpg class 5's
///     (two steps): wrong, but in the top 5;
///   - class_0/b.jpg has class 7's colour: wrong, and not in the top 5.
/// Top-1 7/10, top-5 9/10. With the centres of classes 3 and 4 swapped
/// (make_colour_classifier --swap 3,4), the images of class 3 and 4 go wrong too, still
/// in the top 5: top-1 5/10, top-5 9/10.
inline constexpr int colour_classes = 8;
inline unsigned char colour_red(int k) { return static_cast<unsigned char>(16 + 32 * k); }

inline void write_colour_dataset(const std::filesystem::path& root) {
    struct Entry {
        int folder, colour;
        const char* name;
        int width, height;
    };
    const Entry entries[] = {{0, 0, "a.png", 300, 200}, {0, 7, "b.jpg", 64, 80},   {1, 1, "a.jpg", 256, 256},
                             {2, 2, "a.png", 90, 300},  {2, 3, "b.png", 320, 240}, {3, 3, "a.jpg", 224, 300},
                             {4, 4, "a.png", 50, 40},   {5, 5, "a.jpg", 500, 260}, {6, 6, "a.png", 230, 229},
                             {7, 5, "a.jpg", 120, 90}};
    for (int k = 0; k < colour_classes; ++k) std::filesystem::create_directories(root / ("class_" + std::to_string(k)));
    for (const Entry& e : entries) {
        const std::filesystem::path file = root / ("class_" + std::to_string(e.folder)) / e.name;
        const Pixels pixels = solid(e.width, e.height, colour_red(e.colour), 60, 120);
        if (file.extension() == ".png") write_png(file, pixels);
        else write_jpeg(file, pixels);
    }
}

}  // namespace benchtest
