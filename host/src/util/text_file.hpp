// Reading a file whole: what every reader of benchhost's files (JSON, YAML, caches) does
// first, in one place, with one error message.
#pragma once

#include <filesystem>
#include <string>

namespace benchhost {

/// The bytes of `path`, as they are. Throws std::runtime_error "<path>: cannot be read:
/// <the system's error>" when it cannot be opened or read (missing, a folder, no
/// permission).
std::string read_text_file(const std::filesystem::path& path);

}  // namespace benchhost
