// docs/plugin-guide.md's code: tests/docs/CMakeLists.txt builds each ```cpp block of the
// guide into a plugin of its own (a block that does not compile fails the build); here
// the host runs them all: each must pass the handshake, and every scenario must succeed
// or skip. And the SDK and ABI versions the docs quote are the built ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <bench/abi.hpp>
#include <bench/version.hpp>

#include "../support/test_support.hpp"
#include "discover/discovery.hpp"

namespace {

using namespace benchtest;

const fs::path snippet_plugins = BENCH_DOC_SNIPPET_PLUGIN_DIR;

std::string describe(const ProcessResult& result) {
    return "exit " + std::to_string(result.exit_code) + "\n--- stdout\n" + result.out + "\n--- stderr\n" + result.err;
}

TEST(PluginGuideTest, EveryCodeBlockRuns) {
    TempDir work;
    const fs::path out = work / "out";
    // Quick settings: what matters is that each example runs to its end.
    const ProcessResult run =
        run_process({benchhost_binary().string(), "run", "--plugins-dir", snippet_plugins.string(),
                     "--warmup-iterations", "1", "--measurement-iterations", "3", "--variants", "eager,compiled",
                     "--timeout", "300", "--output-dir", out.string()},
                    work.path());
    EXPECT_EQ(run.exit_code, 0) << describe(run);
    const auto summary = read_json(out / "benchmark_summary.json");
    std::set<std::string> plugins_run;
    for (const auto& entry : summary["results"].GetArray()) {
        const std::string status = entry["status"].GetString();
        // A file without the handshake, or with another ABI, would be "rejected".
        EXPECT_TRUE(status == "success" || status == "skipped")
            << entry["scenario_id"].GetString() << ": " << status << ": " << entry["reason"].GetString();
        plugins_run.insert(entry["plugin"].GetString());
    }
    int built = 0;
    for (int i = 1; i <= BENCH_DOC_SNIPPET_COUNT; ++i) {
        // Blocks that need LibTorch are left out of a build without it: their numbers are missing.
        const std::string name = "doc_snippet_" + std::to_string(i);
        if (!fs::exists(snippet_plugins / "performance" / ("lib" + name + ".so"))) continue;
        ++built;
        EXPECT_TRUE(plugins_run.contains(name)) << name << " did not run";
    }
    EXPECT_GT(built, 0);
}

/// README.md, docs/*.md and the example's README, each with its runs of white space
/// (line breaks included) made one space: a quote may be wrapped anywhere.
std::vector<std::pair<std::string, std::string>> documentation() {
    const fs::path source = BENCH_TEST_SOURCE_DIR;
    std::vector<fs::path> files = {source / "README.md", source / "examples/external_plugin/README.md"};
    for (const auto& entry : fs::directory_iterator(source / "docs"))
        if (entry.path().extension() == ".md") files.push_back(entry.path());
    std::vector<std::pair<std::string, std::string>> texts;
    for (const fs::path& file : files)
        texts.emplace_back(file.lexically_relative(source).string(),
                           std::regex_replace(read_file(file), std::regex("\\s+"), " "));
    return texts;
}

std::string abi(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }

TEST(PluginGuideTest, QuotedAbiAndSdkVersionsAreTheBuiltOnes) {
    // The message for a plugin of the next major, as the host words it.
    bench::PluginInfo next_major{};
    next_major.magic = bench::plugin_magic;
    next_major.abi_major = bench::abi_major + 1;
    const std::string refused = benchhost::abi_problem(next_major);
    ASSERT_NE(refused, "");
    bool guide_quotes_it = false;
    for (const auto& [name, text] : documentation()) {
        // Every quote of the refusal is the host's message, word for word.
        for (std::size_t at = text.find("this host supports ABI"); at != std::string::npos;
             at = text.find("this host supports ABI", at + 1)) {
            const std::size_t start = text.rfind("built for SDK ABI", at);
            EXPECT_TRUE(start != std::string::npos && text.compare(start, refused.size(), refused) == 0)
                << name << " quotes '" << text.substr(start == std::string::npos ? at : start, refused.size())
                << "', the host says '" << refused << "'";
            guide_quotes_it = guide_quotes_it || name == "docs/plugin-guide.md";
        }
        // find_package(BenchSDK X.Y) asks for this SDK's release.
        const std::regex find_package(R"(find_package\(BenchSDK ([0-9]+)\.([0-9]+))");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), find_package); it != std::sregex_iterator(); ++it)
            EXPECT_EQ((*it)[1].str() + "." + (*it)[2].str(), abi(BENCH_SDK_VERSION_MAJOR, BENCH_SDK_VERSION_MINOR))
                << name << ": " << it->str();
    }
    EXPECT_TRUE(guide_quotes_it) << "docs/plugin-guide.md no longer quotes the message for another ABI";

    // The guide's example of which minors run where is about this ABI and the one before.
    const auto texts = documentation();
    const auto guide =
        std::find_if(texts.begin(), texts.end(), [](const auto& t) { return t.first == "docs/plugin-guide.md"; });
    ASSERT_NE(guide, texts.end());
    ASSERT_GT(bench::abi_minor, 0);
    const std::string current = abi(bench::abi_major, bench::abi_minor);
    const std::string older = abi(bench::abi_major, bench::abi_minor - 1);
    EXPECT_NE(guide->second.find("A plugin built against ABI " + older + " runs on a " + current + " host"),
              std::string::npos);
    EXPECT_NE(guide->second.find("one built against " + current + " does not run on a " + older + " host"),
              std::string::npos);
}

}  // namespace
