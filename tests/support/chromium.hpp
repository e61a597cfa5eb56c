// Headless Chromium for the tests of the pages benchhost writes (report.html of a run,
// of an A/B run): Debian's `chromium`, installed by scripts/lib/setup.sh, or
// $BENCH_CHROMIUM. A test without it skips, saying so.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace benchtest {

/// The Chromium binary; empty when none is installed.
inline fs::path find_chromium() {
    if (const char* explicit_path = std::getenv("BENCH_CHROMIUM"); explicit_path != nullptr && *explicit_path != '\0')
        return explicit_path;
    const char* path = std::getenv("PATH");
    std::stringstream folders(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
            const fs::path candidate = fs::path(folder) / name;
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        }
    }
    return {};
}

inline std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    return value;
}

// Chromium, headless, with a time limit (it must never hang the test), a profile of its
// own and its log on stderr (console messages show there as "INFO:CONSOLE...").
inline ProcessResult chromium(const fs::path& binary, const fs::path& profile, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/timeout",
                                     "-k",
                                     "10",
                                     "120",
                                     binary.string(),
                                     "--headless",
                                     "--no-sandbox",  // needed as root
                                     "--disable-gpu",
                                     "--no-first-run",
                                     "--hide-scrollbars",
                                     "--user-data-dir=" + profile.string(),
                                     "--enable-logging=stderr",
                                     "--v=0"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
}

inline bool console_messages(const std::string& log) {
    return log.find("CONSOLE") != std::string::npos || log.find("Uncaught") != std::string::npos;
}

/// How many times `what` occurs in `text` (charts in a page, say).
inline std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

}  // namespace benchtest
