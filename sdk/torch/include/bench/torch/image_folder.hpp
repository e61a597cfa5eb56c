// A labelled image folder: one sub-folder per class, the classes in the order of their
// sorted names, as torchvision's ImageFolder reads one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <bench/export.hpp>

namespace bench::libtorch {

struct ImageFolder {
    struct Image {
        std::filesystem::path file;
        int64_t label = 0;  // the index of its class in `classes`
    };
    std::filesystem::path root;
    /// The sub-folders' names, sorted (byte order): class i is classes[i].
    std::vector<std::string> classes;
    /// Every image, by class, then by file name.
    std::vector<Image> images;
};

/// Lists `dir`: each sub-folder is a class, and each file in it whose name ends in
/// .jpg, .jpeg or .png (any case) an image of that class. Entries whose names start
/// with '.' are left out, and so are other files (a README beside the images) and the
/// files directly in `dir`; nothing is decoded here. Sub-folders of a class folder are
/// not searched. A class folder without images keeps its index.
///
/// std::invalid_argument says what is wrong with `dir`: it does not exist, is not a
/// folder, has no class folders, or no images in any of them.
BENCH_EXPORT ImageFolder scan_image_folder(const std::filesystem::path& dir);

}  // namespace bench::libtorch
