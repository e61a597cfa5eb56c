// Python plugins as discovery finds them: read by a child Python that parses them (ast),
// never imported.
#include "discover/discovery.hpp"
#include "discover/python_inspector.hpp"

#include <cstdlib>
#include <map>

#include <gtest/gtest.h>

#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

const DiscoveredPlugin* find_python_plugin(const Discovery& d, const std::string& name) {
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
    const DiscoveredPlugin* plugin = find_python_plugin(d, "resnet_py");
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
    const DiscoveredPlugin* plugin = find_python_plugin(d, "side_effects");
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(ids(*plugin), (std::vector<std::string>{"unit/side_effects/one=benchmark_one"}));
    EXPECT_FALSE(fs::exists(marker));
}

TEST_F(PythonDiscovery, ReadsTheModulesAFileImportsWhenImported) {
    add("unit/imports_py.py",
        "import os, torch.nn as nn\n"
        "from benchhost.models import resnet50\n"
        "from . import sibling\n"
        "try:\n    import jax\nexcept ImportError:\n    jax = None\n"
        "if True:\n    import numpy\n"
        "def benchmark_one():\n    import torchvision\n    return {}\n"
        "class Later:\n    import json\n");
    const PythonInspection inspection = inspect_python_files(plugin_python(), {plugins / "unit/imports_py.py"});
    ASSERT_EQ(inspection.files.size(), 1u);
    // Module-level and in if/try blocks, absolute ones; not in a function or a class.
    EXPECT_EQ(inspection.files[0].imports,
              (std::vector<std::string>{"os", "torch.nn", "benchhost.models", "jax", "numpy"}));
}

TEST(PythonPreloads, OnlyTorchAndTorchvisionAreLoadedAheadTorchFirst) {
    using V = std::vector<std::string>;
    EXPECT_EQ(fork_safe_preloads({"os", "torch.nn"}), V{"torch"});
    EXPECT_EQ(fork_safe_preloads({"torchvision.models", "torch"}), (V{"torch", "torchvision"}));
    // benchhost.models' model builders import torchvision; benchhost.torch imports torch.
    EXPECT_EQ(fork_safe_preloads({"benchhost.models"}), (V{"torch", "torchvision"}));
    EXPECT_EQ(fork_safe_preloads({"benchhost.torch", "time"}), V{"torch"});
    // JAX starts threads when imported: a worker forked after it would lack them.
    EXPECT_EQ(fork_safe_preloads({"jax", "flax", "benchhost.jax", "torchaudio"}), V{});
}

TEST_F(PythonDiscovery, ASyntaxErrorRejectsTheFileWithWhereAndPythonsMessage) {
    add("unit/broken.py", "def benchmark_ok():\n    return {}\n\ndef benchmark_bad(:\n    pass\n");
    const Discovery d = discover_plugins(plugins);
    EXPECT_EQ(find_python_plugin(d, "broken"), nullptr);
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
    const DiscoveredPlugin* plugin = find_python_plugin(d, "suite");
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
    const DiscoveredPlugin* plugin = find_python_plugin(d, "model_py");
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

TEST_F(PythonDiscovery, ABenchmarkFunctionDeclaresItsOwnAxesAndVariants) {
    // @benchhost.benchmark's literal arguments, read without importing: its axes replace the
    // module's; variants replace the module's too, and make "variant" one of its axes.
    add("performance/two_py.py", R"(import benchhost
import benchhost as bh
from benchhost import benchmark as declare

BENCHHOST_PLUGIN = {"axes": ["variant", "batch_size"], "variants": ["eager", "compiled"]}

@benchhost.benchmark(axes={})
def benchmark_tokenize(size=10):
    return {}

@bh.benchmark(axes={"batch_size": [1, 8], "seq_len": 128}, variants=["kernelized"])
def benchmark_matmul(batch_size=1):
    return {}

@declare(variants="eager")
def run_train(ctx):
    pass

@declare(axes="dtype, device")
def run_convert(ctx):
    pass

def run_benchmark(ctx):
    pass
)");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_python_plugin(d, "two_py");
    ASSERT_NE(plugin, nullptr) << (d.rejected.empty() ? "" : d.rejected[0].reason);
    ASSERT_EQ(plugin->benchmarks.size(), 5u);
    EXPECT_TRUE(plugin->has_own_declarations());
    const auto& benchmarks = plugin->benchmarks;  // run_benchmark first, then in file order
    const DiscoveredBenchmark &own = benchmarks[0], &tokenize = benchmarks[1], &matmul = benchmarks[2],
                              &train = benchmarks[3], &convert = benchmarks[4];
    EXPECT_EQ(own.symbol, "run_benchmark");
    EXPECT_FALSE(own.axes.has_value());  // the module's
    EXPECT_EQ(plugin->axes_of(own), (std::vector<std::string>{"variant", "batch_size"}));
    EXPECT_EQ(plugin->variants(own), (std::vector<std::string>{"eager", "compiled"}));

    EXPECT_EQ(tokenize.name, "tokenize");
    EXPECT_EQ(plugin->axes_of(tokenize), std::vector<std::string>{});  // runs once
    EXPECT_TRUE(plugin->variants(tokenize).empty());

    EXPECT_EQ(plugin->axes_of(matmul), (std::vector<std::string>{"variant", "batch_size", "seq_len"}));
    EXPECT_EQ(matmul.axis_values,
              (std::map<std::string, std::vector<std::string>>{{"batch_size", {"1", "8"}}, {"seq_len", {"128"}}}));
    EXPECT_EQ(plugin->variants(matmul), std::vector<std::string>{"kernelized"});  // not the module's

    // Variants alone: the module's axes, its own variants.
    EXPECT_EQ(plugin->axes_of(train), (std::vector<std::string>{"variant", "batch_size"}));
    EXPECT_EQ(plugin->variants(train), std::vector<std::string>{"eager"});
    EXPECT_TRUE(train.axis_values.empty());

    EXPECT_EQ(plugin->axes_of(convert), (std::vector<std::string>{"dtype", "device"}));
    EXPECT_TRUE(plugin->variants(convert).empty());

    // A file without declarations has none.
    add("unit/plain.py", "def benchmark_a():\n    return {}\n");
    const DiscoveredPlugin* plain = find_python_plugin(discover_plugins(plugins), "plain");
    ASSERT_NE(plain, nullptr);
    EXPECT_FALSE(plain->has_own_declarations());
}

TEST_F(PythonDiscovery, ADistributedBenchmarkVariesOverTheWorldSize) {
    add("unit/ranks_py.py", R"(import benchhost
from benchhost import benchmark as declare

BENCHHOST_PLUGIN = {"axes": ["variant", "batch_size"], "variants": ["eager"]}

@benchhost.benchmark(distributed=True)
def benchmark_module_axes(ctx):
    pass

@declare(distributed=True, axes={"world_size": [2, 4], "size": [8]})
def benchmark_own_sizes(ctx):
    pass

@benchhost.benchmark(distributed=False, axes=["dtype"])
def benchmark_single(ctx):
    pass

def benchmark_plain(ctx):
    pass
)");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_python_plugin(d, "ranks_py");
    ASSERT_NE(plugin, nullptr) << (d.rejected.empty() ? "" : d.rejected[0].reason);
    ASSERT_EQ(plugin->benchmarks.size(), 4u);
    const auto& b = plugin->benchmarks;
    // The module's axes, and the world size after them.
    EXPECT_EQ(plugin->axes_of(b[0]), (std::vector<std::string>{"variant", "batch_size", "world_size"}));
    EXPECT_TRUE(plugin->distributed(b[0]));
    // Its own, with the world sizes it runs at where the run sets none.
    EXPECT_EQ(plugin->axes_of(b[1]), (std::vector<std::string>{"world_size", "size"}));
    EXPECT_EQ(b[1].axis_values.at("world_size"), (std::vector<std::string>{"2", "4"}));
    EXPECT_TRUE(plugin->distributed(b[1]));
    EXPECT_EQ(plugin->axes_of(b[2]), std::vector<std::string>{"dtype"});
    EXPECT_FALSE(plugin->distributed(b[2]));
    EXPECT_FALSE(plugin->distributed(b[3]));
}

TEST_F(PythonDiscovery, AWrongDeclarationRejectsThePluginSayingWhereAndWhat) {
    const auto file = [&](const std::string& name, const std::string& decorator) {
        add("unit/" + name + ".py", "import benchhost\n\nSIZES = [1, 8]\n\n" + decorator +
                                        "\ndef benchmark_a(ctx):\n    pass\n\ndef helper():\n    pass\n");
    };
    file("names", "@benchhost.benchmark(axes={'batch_size': SIZES})");
    file("calls", "@benchhost.benchmark(\n    variants=list('eager'))");
    file("bare", "@benchhost.benchmark");
    file("unknown", "@benchhost.benchmark(axis=['dtype'])");
    file("positional", "@benchhost.benchmark(['dtype'])");
    file("variant", "@benchhost.benchmark(variants=['eager', 'fast'])");
    file("value", "@benchhost.benchmark(axes={'batch_size': [1, None]})");
    file("batch", "@benchhost.benchmark(axes={'batch_size': [0]})");
    file("ranks", "@benchhost.benchmark(distributed='yes')");
    file("world", "@benchhost.benchmark(distributed=True, axes={'world_size': [2, 0]})");
    add("unit/helper.py", "import benchhost\n\n@benchhost.benchmark(axes=[])\ndef tokenize():\n    pass\n");
    add("unit/twice.py",
        "import benchhost\nBENCHHOST_PLUGIN = {'axes': ['variant'], 'benchmark_variants': {'a': ['eager']}}\n"
        "@benchhost.benchmark(variants=['compiled'])\ndef benchmark_a(ctx):\n    pass\n");
    const Discovery d = discover_plugins(plugins);
    const auto reason = [&](const std::string& name) {
        const RejectedFile* rejected = find_rejected(d, name + ".py");
        return rejected == nullptr ? "not rejected" : rejected->reason;
    };
    const auto where = [&](const std::string& name, int line) {
        return (plugins / ("unit/" + name + ".py")).string() + ":" + std::to_string(line) + ": ";
    };
    EXPECT_EQ(reason("names"), where("names", 5) +
                                   "@benchhost.benchmark on benchmark_a: axes= must be a literal (no names or calls), "
                                   "read without running the file");
    EXPECT_EQ(reason("calls"), where("calls", 6) +
                                   "@benchhost.benchmark on benchmark_a: variants= must be a literal (no names or "
                                   "calls), read without running the file");
    EXPECT_EQ(reason("bare"), where("bare", 5) +
                                  "@benchhost.benchmark on benchmark_a needs its parentheses: "
                                  "@benchhost.benchmark(axes=..., variants=...)");
    EXPECT_EQ(reason("unknown"),
              where("unknown", 5) +
                  "@benchhost.benchmark on benchmark_a: unknown argument 'axis' (known: axes, variants, distributed)");
    EXPECT_EQ(reason("positional"), where("positional", 5) +
                                        "@benchhost.benchmark on benchmark_a takes keyword arguments only (axes=..., "
                                        "variants=..., distributed=...)");
    EXPECT_EQ(reason("variant"), where("variant", 5) +
                                     "@benchhost.benchmark on benchmark_a: variants=: unknown variant 'fast' (known: "
                                     "eager, compiled, kernelized)");
    EXPECT_EQ(reason("value"), where("value", 5) +
                                   "@benchhost.benchmark on benchmark_a: axes=['batch_size'] must be a value (int, "
                                   "float or str) or a non-empty list of them");
    EXPECT_EQ(reason("batch"),
              where("batch", 5) + "@benchhost.benchmark on benchmark_a: axis 'batch_size': '0' is not an integer >= 1");
    EXPECT_EQ(reason("ranks"),
              where("ranks", 5) + "@benchhost.benchmark on benchmark_a: distributed= must be True or False");
    EXPECT_EQ(reason("world"),
              where("world", 5) + "@benchhost.benchmark on benchmark_a: axis 'world_size': '0' is not an integer >= 1");
    EXPECT_EQ(reason("helper"), where("helper", 3) +
                                    "@benchhost.benchmark on tokenize: not a benchmark function (a benchmark is named "
                                    "run_benchmark, benchmark_<name> or run_<name>)");
    EXPECT_EQ(reason("twice"), where("twice", 3) +
                                   "@benchhost.benchmark on benchmark_a: its variants are declared twice, here and in "
                                   "BENCHHOST_PLUGIN['benchmark_variants'] ('a'): keep one");
    for (const char* name : {"names", "bare", "helper", "batch"})
        EXPECT_TRUE(find_rejected(d, std::string(name) + ".py")->is_broken_plugin()) << name;
}

TEST_F(PythonDiscovery, AMockSaysSoAndAnAsyncBenchmarkIsAWarning) {
    add("performance/mock_py.py",
        "BENCHHOST_PLUGIN = {'mock': True}\n\ndef run_benchmark(ctx):\n    pass\n\nasync def benchmark_later():\n    "
        "pass\n");
    const Discovery d = discover_plugins(plugins);
    const DiscoveredPlugin* plugin = find_python_plugin(d, "mock_py");
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

// Several plugin folders (config/plugin_folders.hpp): read as one, a name in one folder only.

std::string discovery_error(const PluginFolders& folders) {
    try {
        discover_plugins(folders);
    } catch (const DiscoveryError& e) {
        return e.what();
    }
    return "no error";
}

const char* const trivial_plugin = "def run_benchmark(ctx):\n    pass\n";

TEST_F(PythonDiscovery, SeveralFoldersAreReadAsOneByCategoryThenFolder) {
    const fs::path mine = work / "mine";
    add("performance/b_py.py", trivial_plugin);
    add("unit/z_py.py", trivial_plugin);
    write_file(mine / "performance/a_py.py", trivial_plugin);
    write_file(mine / "unit/x_py.py", trivial_plugin);
    write_file(mine / "unit/z_py.py.txt", "");  // not a plugin, listed as such
    const Discovery d = discover_plugins(PluginFolders{{plugins, mine}, "--plugins-dir"});
    std::vector<std::string> found;
    for (const DiscoveredPlugin& plugin : d.plugins) found.push_back(plugin.category + "/" + plugin.name);
    EXPECT_EQ(found, (std::vector<std::string>{"unit/z_py", "unit/x_py", "performance/b_py", "performance/a_py"}));
    EXPECT_EQ(find_python_plugin(d, "a_py")->folder, mine);
    EXPECT_EQ(find_python_plugin(d, "b_py")->folder, plugins);
    ASSERT_NE(find_rejected(d, "z_py.py.txt"), nullptr);
    EXPECT_EQ(folders_text(d), plugins.string() + " and " + mine.string());
}

TEST_F(PythonDiscovery, ASourceFolderIsReadForThePythonFilesOfItsCategoryFoldersOnly) {
    // The source tree's plugins/: CMakeLists.txt, the sources of built plugins in folders of
    // their own (a shipped Python plugin among them, copied into the build's folder), and a
    // file dropped in.
    const fs::path source = work / "source/plugins";
    write_file(source / "CMakeLists.txt", "add_subdirectory(performance/shipped_py)\n");
    write_file(source / "performance/shipped_py/CMakeLists.txt", "bench_add_python_plugin(shipped_py ...)\n");
    write_file(source / "performance/shipped_py/shipped_py.py", trivial_plugin);
    write_file(source / "performance/model/model.cpp", "");
    write_file(source / "performance/model/model_definition.py", trivial_plugin);
    write_file(source / "performance/dropped_py.py", trivial_plugin);
    write_file(source / "performance/notes.txt", "");
    write_file(source / "unit/package_py/__init__.py", trivial_plugin);
    add("performance/shipped_py.py", trivial_plugin);  // the build's copy
    ASSERT_TRUE(is_source_folder(source));
    ASSERT_FALSE(is_source_folder(plugins));
    const Discovery d = discover_plugins(PluginFolders{{plugins, source}, "the default"});
    std::vector<std::string> found;
    for (const DiscoveredPlugin& plugin : d.plugins)
        found.push_back(plugin.path.lexically_relative(work.path()).string());
    EXPECT_EQ(found, (std::vector<std::string>{"source/plugins/unit/package_py", "plugins/performance/shipped_py.py",
                                               "source/plugins/performance/dropped_py.py"}));
    EXPECT_TRUE(d.rejected.empty()) << d.rejected.front().path << ": " << d.rejected.front().reason;
    EXPECT_EQ(d.source_folders, std::vector<fs::path>{source});
    EXPECT_EQ(folders_text(d), plugins.string() + " and " + source.string() + " (Python files only)");
}

TEST_F(PythonDiscovery, TheSameNameInTwoFoldersIsAnErrorNamingBothFiles) {
    const fs::path mine = work / "mine";
    add("performance/same_py.py", trivial_plugin);
    write_file(mine / "performance/same_py.py", trivial_plugin);
    EXPECT_EQ(discovery_error(PluginFolders{{plugins, mine}, "--plugins-dir"}),
              "two plugins named performance/same_py in two plugin folders: " +
                  (plugins / "performance/same_py.py").string() + " and " + (mine / "performance/same_py.py").string() +
                  "; benchhost does not choose between them: rename or remove one, or leave its folder out of "
                  "those searched (" +
                  plugins.string() + ":" + mine.string() + ")");
    // A broken plugin has its name too; another category is another plugin.
    write_file(mine / "performance/same_py.py", "def run_benchmark(ctx:\n");
    EXPECT_NE(discovery_error(PluginFolders{{plugins, mine}, ""}).find("two plugins named performance/same_py in"),
              std::string::npos);
    fs::rename(mine / "performance", mine / "unit");
    EXPECT_EQ(discovery_error(PluginFolders{{plugins, mine}, ""}), "no error");
    // One folder named twice (through a link) is read once.
    fs::create_directory_symlink(plugins, work / "link");
    EXPECT_EQ(discovery_error(PluginFolders{plugin_folder_list({plugins.string(), (work / "link").string()}, {}), ""}),
              "no error");
}

TEST_F(PythonDiscovery, AFolderThatIsNotThereIsNamedWithWhoChoseIt) {
    add("unit/a_py.py", trivial_plugin);
    const fs::path missing = work / "missing";
    EXPECT_EQ(discovery_error(PluginFolders{{plugins, missing}, "BENCHHOST_PLUGINS_DIR"}),
              "plugin folder " + missing.string() + " (from BENCHHOST_PLUGINS_DIR) does not exist or is not a folder");
    EXPECT_EQ(discovery_error(PluginFolders{{missing}, ""}),
              "plugin folder " + missing.string() + " does not exist or is not a folder");
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
