// The README and every page of docs/: each relative link names a file of the tree, and
// each #anchor a heading of the page it points to (GitHub's anchors: the heading in lower
// case, punctuation dropped, spaces as hyphens; a repeated heading gets -1, -2, ...).
// Links to the web are not followed: the tests never go online.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path source_dir = BENCH_TEST_SOURCE_DIR;

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/// GitHub's anchor of a heading's text.
std::string anchor_of(const std::string& heading) {
    std::string out;
    for (const unsigned char c : heading) {
        if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) out += static_cast<char>(std::tolower(c));
        else if (c == ' ') out += '-';
    }
    return out;
}

/// The anchors of a Markdown file's headings (outside code blocks).
std::set<std::string> anchors_of(const fs::path& file) {
    std::set<std::string> anchors;
    std::map<std::string, int> seen;
    bool in_code = false;
    for (const std::string& line : lines_of(file)) {
        if (line.rfind("```", 0) == 0) in_code = !in_code;
        if (in_code || line.empty() || line[0] != '#') continue;
        const auto text_start = line.find_first_not_of('#');
        if (text_start == std::string::npos || line[text_start] != ' ') continue;
        const std::string anchor = anchor_of(line.substr(text_start + 1));
        const int n = seen[anchor]++;
        anchors.insert(n == 0 ? anchor : anchor + "-" + std::to_string(n));
    }
    return anchors;
}

std::vector<fs::path> pages() {
    std::vector<fs::path> out = {source_dir / "README.md"};
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / "docs"))
        if (entry.path().extension() == ".md") out.push_back(entry.path());
    return out;
}

TEST(DocsLinks, EveryRelativeLinkAndAnchorExists) {
    const std::regex link(R"(\]\(([^)\s]+)\))");
    std::vector<std::string> broken;
    std::size_t checked = 0;
    for (const fs::path& page : pages()) {
        bool in_code = false;
        int number = 0;
        for (const std::string& line : lines_of(page)) {
            ++number;
            if (line.rfind("```", 0) == 0) in_code = !in_code;
            if (in_code) continue;
            for (auto it = std::sregex_iterator(line.begin(), line.end(), link); it != std::sregex_iterator(); ++it) {
                const std::string target = (*it)[1];
                if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
                const auto hash = target.find('#');
                const std::string file_part = target.substr(0, hash);
                const fs::path file = file_part.empty() ? page : (page.parent_path() / file_part).lexically_normal();
                const std::string where = fs::relative(page, source_dir).string() + ":" + std::to_string(number) + ": ";
                ++checked;
                if (!fs::exists(file)) {
                    broken.push_back(where + target + ": no such file");
                    continue;
                }
                if (hash == std::string::npos || file.extension() != ".md") continue;
                const std::string anchor = target.substr(hash + 1);
                if (anchors_of(file).count(anchor) == 0)
                    broken.push_back(where + target + ": no heading with that anchor in " +
                                     fs::relative(file, source_dir).string());
            }
        }
    }
    EXPECT_GT(checked, 20u);  // the pages do link to each other
    std::string list;
    for (const auto& b : broken) list += "  " + b + "\n";
    EXPECT_TRUE(broken.empty()) << broken.size() << " broken links:\n" << list;
}

TEST(DocsLinks, AnchorsFollowGitHubsRule) {
    EXPECT_EQ(anchor_of("3. The handshake and the ABI"), "3-the-handshake-and-the-abi");
    EXPECT_EQ(anchor_of("C++ against Python: eager and compiled"), "c-against-python-eager-and-compiled");
    EXPECT_EQ(anchor_of("`hardware_info` (each report) and `context` (the summary)"),
              "hardware_info-each-report-and-context-the-summary");
}

TEST(DocsLinks, TheReadmeIsAPageANewcomerReadsInFiveMinutes) {
    EXPECT_LE(lines_of(source_dir / "README.md").size(), 250u) << "reference material belongs in docs/";
}

}  // namespace
