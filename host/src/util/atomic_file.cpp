#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace benchhost {
namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& path, const std::string& why) {
    throw std::runtime_error("cannot write " + path.string() + ": " + why);
}

// Makes the rename itself durable. Best effort: some file systems refuse fsync on a
// folder, and the file is complete either way.
void sync_folder(const std::filesystem::path& folder) {
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    (void)::close(fd);
}

}  // namespace

bool write_all(int fd, std::string_view bytes) {
    const char* data = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t written = ::write(fd, data, left);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        data += written;
        left -= static_cast<std::size_t>(written);
    }
    return true;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path folder = path.parent_path();
    if (!folder.empty()) {
        std::error_code error;
        std::filesystem::create_directories(folder, error);
        if (error) cannot_write(path, error.message());
    }

    std::filesystem::path temporary = path;
    temporary += ".tmp." + std::to_string(::getpid());

    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) cannot_write(path, std::strerror(errno));

    const auto give_up = [&](int error) {
        (void)::close(fd);
        (void)::unlink(temporary.c_str());
        cannot_write(path, std::strerror(error));
    };

    if (!write_all(fd, content)) give_up(errno);
    if (::fsync(fd) != 0) give_up(errno);
    if (::close(fd) != 0) {
        const int error = errno;
        (void)::unlink(temporary.c_str());
        cannot_write(path, std::strerror(error));
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        (void)::unlink(temporary.c_str());
        cannot_write(path, std::strerror(error));
    }
    sync_folder(folder);
}

}  // namespace benchhost
