// Files are written whole or not at all: into a temporary file beside the target, then
// renamed over it, so that a killed run never leaves a half-written report.
#pragma once

#include <filesystem>
#include <string_view>

namespace benchhost {

/// Writes `content` to `path` atomically; creates missing parent folders. Throws
/// std::runtime_error naming the path and the system error on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Writes all of `bytes` to the file descriptor `fd`, again after an interruption (EINTR);
/// false on an error, errno saying which (EPIPE when a pipe's reader is gone).
bool write_all(int fd, std::string_view bytes);

}  // namespace benchhost
