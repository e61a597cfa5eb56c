// JPEG through libjpeg-turbo's libjpeg API (errors reported with longjmp out of the
// library's error handler), PNG through libpng's simplified API (png_image).
#include <bench/torch/image_file.hpp>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

// jpeglib.h needs size_t and FILE declared before it.
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

namespace bench::libtorch {

namespace {

std::vector<unsigned char> read_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file.string() + ": cannot open: " + std::strerror(errno));
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::runtime_error(file.string() + ": cannot read: " + std::strerror(errno));
    return bytes;
}

bool is_jpeg(const std::vector<unsigned char>& bytes) {
    return bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
}

bool is_png(const std::vector<unsigned char>& bytes) {
    static constexpr unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    return bytes.size() >= 8 && std::memcmp(bytes.data(), signature, 8) == 0;
}

std::string first_bytes(const std::vector<unsigned char>& bytes) {
    if (bytes.empty()) return "it is empty";
    std::string out = "it starts with";
    char hex[4];
    for (std::size_t i = 0; i < bytes.size() && i < 4; ++i) {
        std::snprintf(hex, sizeof hex, " %02x", bytes[i]);
        out += hex;
    }
    return out;
}

// libjpeg reports errors by calling error_exit, which must not return: it jumps back
// to decode_jpeg with the message. A premature end of the data is only a warning to
// libjpeg (it fills the rest with grey); here it is an error too, as a truncated file
// is not the image it claims to be.
struct JpegError {
    jpeg_error_mgr manager;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_error_exit(j_common_ptr cinfo) {
    auto* error = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, error->message);
    std::longjmp(error->jump, 1);
}

void jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_error_exit(cinfo);
}

torch::Tensor decode_jpeg(const std::filesystem::path& file, const std::vector<unsigned char>& bytes) {
    jpeg_decompress_struct cinfo{};
    JpegError error{};
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = jpeg_error_exit;
    error.manager.emit_message = jpeg_emit_message;
    // Declared before setjmp, assigned after: nothing that needs a destructor lives
    // between setjmp and a longjmp to it.
    torch::Tensor image;
    if (setjmp(error.jump) != 0) {
        jpeg_destroy_decompress(&cinfo);
        throw std::runtime_error(file.string() + ": cannot decode the JPEG: " + error.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        jpeg_destroy_decompress(&cinfo);
        throw std::runtime_error(file.string() + ": cannot decode the JPEG: CMYK images are not supported");
    }
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    image = torch::empty({cinfo.output_height, cinfo.output_width, 3}, torch::kUInt8);
    unsigned char* data = image.data_ptr<unsigned char>();
    const std::size_t row_bytes = static_cast<std::size_t>(cinfo.output_width) * 3;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = data + cinfo.output_scanline * row_bytes;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return image;
}

torch::Tensor decode_png(const std::filesystem::path& file, const std::vector<unsigned char>& bytes) {
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    auto fail = [&](const char* what) -> std::runtime_error {
        const std::string reason = png.message[0] != '\0' ? png.message : "unknown error";
        png_image_free(&png);
        return std::runtime_error(file.string() + ": cannot " + what + " the PNG: " + reason);
    };
    if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size())) throw fail("read");
    png.format = PNG_FORMAT_RGB;
    torch::Tensor image = torch::empty({png.height, png.width, 3}, torch::kUInt8);
    const png_color black{0, 0, 0};
    if (!png_image_finish_read(&png, &black, image.data_ptr<unsigned char>(), 0, nullptr)) throw fail("decode");
    return image;
}

}  // namespace

torch::Tensor decode_image(const std::filesystem::path& file) {
    const std::vector<unsigned char> bytes = read_bytes(file);
    if (is_jpeg(bytes)) return decode_jpeg(file, bytes);
    if (is_png(bytes)) return decode_png(file, bytes);
    throw std::runtime_error(file.string() + ": not a JPEG or PNG file (" + first_bytes(bytes) + ")");
}

}  // namespace bench::libtorch
