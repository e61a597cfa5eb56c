#include <bench/torch/image_folder.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <system_error>

namespace bench::libtorch {

namespace fs = std::filesystem;

namespace {

bool hidden(const fs::path& path) { return path.filename().string().starts_with('.'); }

bool is_image_name(const fs::path& path) {
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".jpg" || extension == ".jpeg" || extension == ".png";
}

/// The entries of `dir` that `keep` accepts, sorted by name.
template <class Keep>
std::vector<fs::path> sorted_entries(const fs::path& dir, Keep&& keep) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (!hidden(it->path()) && keep(*it)) out.push_back(it->path());
    if (ec) throw std::invalid_argument("data set " + dir.string() + ": cannot list the folder: " + ec.message());
    std::sort(out.begin(), out.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
    return out;
}

}  // namespace

ImageFolder scan_image_folder(const fs::path& dir) {
    std::error_code ec;
    const fs::file_status status = fs::status(dir, ec);
    if (!fs::exists(status)) throw std::invalid_argument("data set " + dir.string() + " does not exist");
    if (!fs::is_directory(status))
        throw std::invalid_argument("data set " + dir.string() +
                                    " is not a folder (expected one sub-folder per class)");

    ImageFolder folder;
    folder.root = dir;
    const std::vector<fs::path> class_dirs =
        sorted_entries(dir, [](const fs::directory_entry& entry) { return entry.is_directory(); });
    if (class_dirs.empty())
        throw std::invalid_argument(
            "data set " + dir.string() +
            " has no class folders (expected one sub-folder per class, holding its JPEG and PNG "
            "files)");
    for (const fs::path& class_dir : class_dirs) {
        const auto label = static_cast<int64_t>(folder.classes.size());
        folder.classes.push_back(class_dir.filename().string());
        for (const fs::path& file : sorted_entries(class_dir, [](const fs::directory_entry& entry) {
                 return !entry.is_directory() && is_image_name(entry.path());
             }))
            folder.images.push_back({file, label});
    }
    if (folder.images.empty())
        throw std::invalid_argument("data set " + dir.string() + " has no .jpg, .jpeg or .png files in its " +
                                    std::to_string(folder.classes.size()) + " class folders");
    return folder;
}

}  // namespace bench::libtorch
