// Headless Chromium for the tests of the pages benchhost writes (report.html of a run,
// of an A/B run): Debian's `chromium`, installed by scripts/lib/setup.sh, or
// $BENCH_CHROMIUM. A test without it skips, saying so.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
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

/// What a script found in a page, as a reader's browser runs it (probe_page).
struct Probed {
    std::string json;  // what the probe wrote into <pre id="probe">, its entities decoded
    /// Empty when Chromium read the page without a console message and the probe ran; else
    /// what went wrong, with Chromium's log.
    std::string problem;
};

/// `page` with `probe` (a <script> that writes what it finds into a <pre id="probe"> it
/// appends) put before </body>, written as work/probed.html and opened by headless
/// Chromium at 1280x900 with --dump-dom, which prints the page as the script left it.
inline Probed probe_page(const fs::path& binary, const fs::path& work, std::string page, const std::string& probe) {
    page.insert(page.rfind("</body>"), probe);
    write_file(work / "probed.html", page);
    const ProcessResult dom =
        chromium(binary, work / "profile",
                 {"--window-size=1280,900", "--dump-dom", "file://" + (work / "probed.html").string()});
    Probed probed;
    const std::string open = "<pre id=\"probe\">";
    const auto start = dom.out.find(open);
    if (dom.exit_code == 124 || dom.exit_code == 137) probed.problem = "chromium timed out";
    else if (dom.exit_code != 0) probed.problem = "chromium exited with " + std::to_string(dom.exit_code);
    else if (console_messages(dom.err)) probed.problem = "the page wrote to the console";
    else if (start == std::string::npos) probed.problem = "the probe did not run";
    if (!probed.problem.empty()) {
        probed.problem += ":\n" + dom.err;
        return probed;
    }
    const auto from = start + open.size();
    probed.json = dom.out.substr(from, dom.out.find("</pre>", from) - from);
    for (const auto& [entity, text] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
        for (auto at = probed.json.find(entity); at != std::string::npos;
             at = probed.json.find(entity, at + text.size()))
            probed.json.replace(at, entity.size(), text);
    return probed;
}

/// How many times `what` occurs in `text` (charts in a page, say).
inline std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

}  // namespace benchtest
