// Python plugins as discovery finds them: read by a child Python that parses them (ast),
// never imported.
#include "discover/discovery.hpp"
#include "discover/python_inspector.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

const DiscoveredPlugin* find_plugin(const Discovery& d, const std::string& name) {
    for (const auto& p : d.plugins)
        if (p.name == name) return &p;
    return nullptr;
}

const RejectedFile* find_rejected(const Discovery& d, const std::string& file_name) {
    for (const auto& r : d.rejected)
        if (r.path.filename() == file_name) return &r;
    return nullptr;
}

std::vector<std::string> ids(const DiscoveredPlugin& plugin) {
    std::vector<std::string> out;
    for (const auto& b : plugin.benchmarks) out.push_back(plugin.id(b) + "=" + b.symbol);
    return out;
}

class PythonDiscovery : public ::testing::Test {
protected:
    void SetUp() override { fs::permissions(work.path(), fs::perms::owner_all); }
    void add(const std::string& relative, const std::string& source) { write_file(plugins / relative, source); }

    TempDir work;
    fs::path plugins = work / "plugins";
};

TEST_F(PythonDiscovery, FindsModuleLevelBenchmarkFunctionsAndTheHandshake) {
    add("performance/resnet_py.py", R"(import math
BENCHHOST_PLUGIN = {"name": "resnet_py", "version": "1.2.0", "axes": "variant, batch_size",
                    "variants": ["eager", "compiled"]}

def run_benchmark(ctx):
    pass

def benchmark_small():
    return {"x": 1}

def run_large(ctx):
    pass

def helper():
    def benchmark_nested():  # not at module level
        pass

class Suite:
    def benchmark_method(self):  # not at module level
        pass
)");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_plugin(d, "resnet_py");
    ASSERT_NE(plugin, nullptr) << (d.rejected.empty() ? "" : d.rejected[0].reason);
    EXPECT_TRUE(plugin->python());
    EXPECT_EQ(plugin->category, "performance");
    EXPECT_STREQ(plugin->info.version, "1.2.0");
    EXPECT_EQ(plugin->axes, (std::vector<std::string>{"variant", "batch_size"}));
    EXPECT_EQ(plugin->variants(), (std::vector<std::string>{"eager", "compiled"}));
    EXPECT_FALSE(plugin->mock());
    // run_benchmark first, named after the plugin; then benchmark_* and run_* in file order.
    EXPECT_EQ(ids(*plugin), (std::vector<std::string>{"performance/resnet_py/resnet_py=run_benchmark",
                                                      "performance/resnet_py/small=benchmark_small",
                                                      "performance/resnet_py/large=run_large"}));
    EXPECT_NE(plugin->runtime.find("CPython 3."), std::string::npos) << plugin->runtime;
}

TEST_F(PythonDiscovery, ReadsWithoutImporting) {
    // Importing this file would write a file and fail; discovery only parses it.
    const fs::path marker = work / "imported";
    add("unit/side_effects.py", "open(" + std::string("'") + marker.string() +
                                    "', 'w').write('x')\n"
                                    "raise SystemExit('imported')\n"
                                    "def benchmark_one():\n    return {}\n");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_plugin(d, "side_effects");
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(ids(*plugin), (std::vector<std::string>{"unit/side_effects/one=benchmark_one"}));
    EXPECT_FALSE(fs::exists(marker));
}

TEST_F(PythonDiscovery, ASyntaxErrorRejectsTheFileWithWhereAndPythonsMessage) {
    add("unit/broken.py", "def benchmark_ok():\n    return {}\n\ndef benchmark_bad(:\n    pass\n");
    const Discovery d = discover_plugins(plugins);
    EXPECT_EQ(find_plugin(d, "broken"), nullptr);
    const RejectedFile* rejected = find_rejected(d, "broken.py");
    ASSERT_NE(rejected, nullptr);
    EXPECT_EQ(rejected->reason, (plugins / "unit/broken.py").string() + ":4:19: invalid syntax");
    EXPECT_TRUE(rejected->is_broken_plugin());  // a run reports it as rejected, and fails
    EXPECT_EQ(rejected->category, "unit");
}

TEST_F(PythonDiscovery, AModuleWithoutBenchmarksIsNotAPluginAndFailsNothing) {
    add("unit/common.py", "def helper():\n    return 1\n");
    const Discovery d = discover_plugins(plugins);
    const RejectedFile* rejected = find_rejected(d, "common.py");
    ASSERT_NE(rejected, nullptr);
    EXPECT_FALSE(rejected->is_broken_plugin());
    EXPECT_EQ(rejected->reason,
              "not a plugin: defines no run_benchmark, benchmark_* or run_* function at module level");
}

TEST_F(PythonDiscovery, APackageFolderIsOnePlugin) {
    add("integration/suite/__init__.py", "from .cases import benchmark_imported\n\ndef run_local(ctx):\n    pass\n");
    add("integration/suite/cases.py", "def benchmark_imported():\n    return {}\n");
    fs::create_directories(plugins / "integration/__pycache__");  // Python's cache: ignored
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_plugin(d, "suite");
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(plugin->path, plugins / "integration/suite");
    EXPECT_EQ(ids(*plugin), (std::vector<std::string>{"integration/suite/imported=benchmark_imported",
                                                      "integration/suite/local=run_local"}));
    EXPECT_EQ(find_rejected(d, "__pycache__"), nullptr);
}

TEST_F(PythonDiscovery, AWrongHandshakeRejectsThePluginSayingWhereAndWhat) {
    add("unit/calls.py", "BENCHHOST_PLUGIN = dict(name='x')\ndef benchmark_a():\n    return {}\n");
    add("unit/typo.py", "\nBENCHHOST_PLUGIN = {'nmae': 'x'}\ndef benchmark_a():\n    return {}\n");
    add("unit/variant.py", "BENCHHOST_PLUGIN = {'variants': ['eager', 'fast']}\ndef benchmark_a():\n    return {}\n");
    const Discovery d = discover_plugins(plugins);
    EXPECT_EQ(find_rejected(d, "calls.py")->reason,
              (plugins / "unit/calls.py").string() + ":1: BENCHHOST_PLUGIN must be a literal dict (no names or calls)");
    EXPECT_EQ(find_rejected(d, "typo.py")->reason, (plugins / "unit/typo.py").string() +
                                                       ":2: BENCHHOST_PLUGIN has an unknown key 'nmae' (known: name, "
                                                       "version, axes, variants, mock, benchmark_variants)");
    EXPECT_EQ(find_rejected(d, "variant.py")->reason,
              (plugins / "unit/variant.py").string() +
                  ":1: BENCHHOST_PLUGIN['variants']: unknown variant 'fast' (known: eager, compiled, kernelized)");
    EXPECT_TRUE(find_rejected(d, "typo.py")->is_broken_plugin());
}

TEST_F(PythonDiscovery, ABenchmarksOwnVariantsAreReadFromTheHandshake) {
    add("performance/model_py.py",
        R"(BENCHHOST_PLUGIN = {"axes": ["variant"], "benchmark_variants": {"train": ["eager"]}}
def run_benchmark(ctx):
    pass
def benchmark_train(ctx):
    pass
)");
    add("unit/stray.py",
        "BENCHHOST_PLUGIN = {'benchmark_variants': {'nope': ['eager']}}\ndef benchmark_a():\n    return {}\n");
    add("unit/wrong.py",
        "BENCHHOST_PLUGIN = {'benchmark_variants': {'a': ['fast']}}\ndef benchmark_a():\n    return {}\n");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_plugin(d, "model_py");
    ASSERT_NE(plugin, nullptr) << (d.rejected.empty() ? "" : d.rejected[0].reason);
    ASSERT_EQ(plugin->benchmarks.size(), 2u);
    EXPECT_EQ(plugin->benchmarks[0].variants, 0);  // run_benchmark: its plugin's
    EXPECT_EQ(plugin->variants(plugin->benchmarks[0]), (std::vector<std::string>{"eager", "compiled", "kernelized"}));
    EXPECT_EQ(plugin->variants(plugin->benchmarks[1]), std::vector<std::string>{"eager"});
    EXPECT_EQ(find_rejected(d, "stray.py")->reason,
              "BENCHHOST_PLUGIN['benchmark_variants'] names 'nope', which is not a benchmark of the plugin");
    EXPECT_EQ(find_rejected(d, "wrong.py")->reason,
              (plugins / "unit/wrong.py").string() +
                  ":1: BENCHHOST_PLUGIN['benchmark_variants']['a']: unknown variant 'fast' (known: eager, compiled, "
                  "kernelized)");
}

TEST_F(PythonDiscovery, AMockSaysSoAndAnAsyncBenchmarkIsAWarning) {
    add("performance/mock_py.py",
        "BENCHHOST_PLUGIN = {'mock': True}\n\ndef run_benchmark(ctx):\n    pass\n\nasync def benchmark_later():\n    "
        "pass\n");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_plugin(d, "mock_py");
    ASSERT_NE(plugin, nullptr);
    EXPECT_TRUE(plugin->mock());
    EXPECT_STREQ(plugin->info.version, "unversioned");
    ASSERT_EQ(d.warnings.size(), 1u);
    EXPECT_EQ(d.warnings[0], (plugins / "performance/mock_py.py").string() +
                                 ": async def benchmark_later is not a benchmark: benchhost calls functions, not "
                                 "coroutines (call asyncio.run from a plain def)");
}

TEST_F(PythonDiscovery, WithoutAPythonEachFileIsRejectedSayingSo) {
    add("unit/plain.py", "def benchmark_a():\n    return {}\n");
    const fs::path missing = work / "no-python";
    ::setenv("BENCHHOST_PYTHON", missing.c_str(), 1);
    const Discovery d = discover_plugins(plugins);
    ::unsetenv("BENCHHOST_PYTHON");
    const RejectedFile* rejected = find_rejected(d, "plain.py");
    ASSERT_NE(rejected, nullptr);
    EXPECT_EQ(rejected->reason, "cannot be read: BENCHHOST_PYTHON=" + missing.string() + " is not an executable file");
    EXPECT_TRUE(rejected->is_broken_plugin());
}

TEST_F(PythonDiscovery, InspectorReportsTheInterpreterAndTorch) {
    add("unit/a.py", "def benchmark_a():\n    return {}\n");
    const PythonInspection inspection = inspect_python_files(plugin_python(), {plugins / "unit/a.py"});
    EXPECT_EQ(inspection.python_version.rfind("3.", 0), 0u) << inspection.python_version;
    ASSERT_EQ(inspection.files.size(), 1u);
    EXPECT_EQ(inspection.files[0].functions, (std::vector<std::string>{"benchmark_a"}));
    // The project's venv has torch; its version is read without importing it.
    EXPECT_FALSE(inspection.torch_version.empty());
}

}  // namespace
