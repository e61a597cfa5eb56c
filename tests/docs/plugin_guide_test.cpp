// docs/plugin-guide.md's code: tests/docs/CMakeLists.txt builds each ```cpp block of the
// guide into a plugin of its own (a block that does not compile fails the build); here
// the host runs them all: each must pass the handshake, and every scenario must succeed
// or skip.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "../support/test_support.hpp"

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
    const ProcessResult run = run_process({benchhost_binary().string(), "run", "--plugins-dir", snippet_plugins.string(),
                                           "--warmup-iterations", "1", "--measurement-iterations", "3", "--variants",
                                           "eager,compiled", "--timeout", "300", "--output-dir", out.string()},
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

}  // namespace
