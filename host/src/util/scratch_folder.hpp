// A folder of its own under the system's temporary folder, removed with everything in
// it when the object goes (unless asked to keep it): for a child process's output, or
// bisect's scratch checkouts.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace benchhost {

class ScratchFolder {
public:
    /// Makes <temporary folder>/<prefix>XXXXXX, readable by its owner only.
    explicit ScratchFolder(const std::string& prefix) {
        std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("cannot make a temporary folder in " +
                                     std::filesystem::temp_directory_path().string());
        path_ = pattern;
    }
    ~ScratchFolder() {
        std::error_code ec;
        if (!keep_) std::filesystem::remove_all(path_, ec);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }
    /// Leaves the folder in place when the object goes.
    void keep() { keep_ = true; }

private:
    std::filesystem::path path_;
    bool keep_ = false;
};

}  // namespace benchhost
