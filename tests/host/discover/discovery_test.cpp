#include "discover/discovery.hpp"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "../../support/handshake.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

const fs::path fixtures = BENCH_TEST_FIXTURE_PLUGIN_DIR;
const fs::path handshake_fixtures = BENCH_TEST_HANDSHAKE_PLUGIN_DIR;
const fs::path single_plugin = fixtures / "performance/libfixture_single.so";

const DiscoveredPlugin* find_plugin(const Discovery& d, const std::string& name) {
    for (const auto& p : d.plugins)
        if (p.name == name) return &p;
    return nullptr;
}

std::string reason_for(const Discovery& d, const std::string& file_name) {
    for (const auto& r : d.rejected)
        if (r.path.filename() == file_name) return r.reason;
    return "(not rejected)";
}

std::string abi_text(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }

TEST(Discovery, FindsFixturePluginsTheirBenchmarksAndHandshake) {
    const Discovery d = discover_plugins(fixtures);
    const DiscoveredPlugin* single = find_plugin(d, "fixture_single");
    ASSERT_NE(single, nullptr);
    EXPECT_EQ(single->category, "performance");
    EXPECT_STREQ(single->info.version, "1.2.3");
    EXPECT_EQ(single->axes, (std::vector<std::string>{"variant", "batch_size"}));
    ASSERT_EQ(single->benchmarks.size(), 1u);
    EXPECT_EQ(single->id(single->benchmarks[0]), "performance/fixture_single/fixture_single");
    EXPECT_EQ(single->benchmarks[0].symbol, "run_benchmark");

    const DiscoveredPlugin* multi = find_plugin(d, "fixture_multi");
    ASSERT_NE(multi, nullptr);
    EXPECT_EQ(multi->category, "unit");
    std::vector<std::string> names;
    for (const auto& b : multi->benchmarks) names.push_back(b.name);
    EXPECT_EQ(names, (std::vector<std::string>{"alpha", "beta", "gamma"}));
    EXPECT_TRUE(multi->axes.empty());
    EXPECT_FALSE(multi->mock());
}

TEST(Discovery, RefusesWhatIsNotAPluginWithTheReason) {
    const Discovery d = discover_plugins(fixtures);
    EXPECT_EQ(find_plugin(d, "not_a_plugin"), nullptr);
    EXPECT_EQ(find_plugin(d, "text_file"), nullptr);
    EXPECT_EQ(reason_for(d, "libnot_a_plugin.so"),
              "exports no entry point (run_benchmark or benchmark_<name>): not a benchhost plugin");
    EXPECT_EQ(reason_for(d, "libtext_file.so").rfind("not an ELF file", 0), 0u) << reason_for(d, "libtext_file.so");
}

TEST(Discovery, ReportsForeignAbiStrayFilesAndForeignArchitectures) {
    TempDir dir;
    fs::create_directories(dir / "unit");
    write_plugin_with_abi(single_plugin, dir / "performance/libold_major.so", 0, 9);
    write_plugin_with_abi(single_plugin, dir / "performance/libnewer_minor.so", bench::abi_major, bench::abi_minor + 1);
    write_file(dir / "README.txt", "plugins go in unit/, integration/ or performance/");
    write_file(dir / "unit/notes.md", "#");
    fs::create_directories(dir / "unit/subfolder");
    std::string aarch64 = read_file(fixtures / "performance/libfixture_single.so");
    aarch64[18] = static_cast<char>(183);  // e_machine = EM_AARCH64
    aarch64[19] = 0;
    write_file(dir / "integration/libarm.so", aarch64);

    const Discovery d = discover_plugins(dir.path());
    EXPECT_TRUE(d.plugins.empty());
    const std::string major = std::to_string(bench::abi_major);
    const std::string host_abi = major + "." + std::to_string(bench::abi_minor);
    EXPECT_EQ(reason_for(d, "libold_major.so"), "built for SDK ABI 0.9, this host supports ABI " + major +
                                                    ".x (up to " + host_abi + "): rebuild the plugin against this SDK");
    EXPECT_EQ(reason_for(d, "libnewer_minor.so"),
              "built for SDK ABI " + major + "." + std::to_string(bench::abi_minor + 1) +
                  ", newer than this host's ABI " + host_abi + ": update benchhost");
    EXPECT_EQ(reason_for(d, "libarm.so"), "built for aarch64 (64-bit), host is x86_64 (64-bit)");
    EXPECT_EQ(reason_for(d, "README.txt"), "not in a category folder (unit, integration or performance)");
    EXPECT_EQ(reason_for(d, "notes.md"), "not a plugin: only lib<name>.so files are loaded");
    EXPECT_EQ(reason_for(d, "subfolder"), "not a regular file");
}

TEST(Discovery, ReadsHowEachPluginWasCompiled) {
    const Discovery d = discover_plugins(handshake_fixtures);
    const DiscoveredPlugin* unoptimized = find_plugin(d, "fixture_unoptimized");
    const DiscoveredPlugin* optimized = find_plugin(d, "fixture_optimized");
    ASSERT_NE(unoptimized, nullptr);
    ASSERT_NE(optimized, nullptr);
    const PluginBuild slow = unoptimized->build();
    EXPECT_TRUE(slow.known);
    EXPECT_FALSE(slow.optimized);
    EXPECT_TRUE(slow.assertions);
    EXPECT_TRUE(slow.sanitizers.empty());
    EXPECT_TRUE(slow.compiler.starts_with("GCC ") || slow.compiler.starts_with("Clang ")) << slow.compiler;
    const PluginBuild fast = optimized->build();
    EXPECT_TRUE(fast.known);
    EXPECT_TRUE(fast.optimized);
    EXPECT_FALSE(fast.assertions);
    EXPECT_EQ(fast.compiler, slow.compiler);
}

TEST(Discovery, APluginOfAnOlderMinorLoadsWithItsBuildUnknown) {
    static_assert(bench::abi_minor >= bench::build_info_abi_minor);
    const std::uint16_t older = bench::build_info_abi_minor - 1;
    TempDir dir;
    // Older minor, older layout: accepted. The bytes after its layout (here still the
    // fixture's build) are not its own: its build is unknown.
    write_plugin_with_abi(single_plugin, dir / "performance/libolder_minor.so", bench::abi_major, older,
                          bench::plugin_info_size_without_build);
    // A layout that does not go with the minor it claims: refused.
    write_plugin_with_abi(single_plugin, dir / "performance/libolder_minor_newer_layout.so", bench::abi_major, older,
                          sizeof(bench::PluginInfo));
    write_plugin_with_abi(single_plugin, dir / "performance/libcurrent_minor_older_layout.so", bench::abi_major,
                          bench::abi_minor, bench::plugin_info_size_without_build);

    const Discovery d = discover_plugins(dir.path());
    const DiscoveredPlugin* old = find_plugin(d, "older_minor");
    ASSERT_NE(old, nullptr) << reason_for(d, "libolder_minor.so");
    EXPECT_EQ(old->info.abi_minor, older);
    EXPECT_STREQ(old->info.version, "1.2.3");
    EXPECT_FALSE(old->build().known);
    EXPECT_EQ(old->build(), PluginBuild{});
    EXPECT_EQ(reason_for(d, "libolder_minor_newer_layout.so"),
              "bench_plugin_info has size " + std::to_string(sizeof(bench::PluginInfo)) + ", expected " +
                  std::to_string(bench::plugin_info_size_without_build) + " for ABI " +
                  abi_text(bench::abi_major, older));
    EXPECT_EQ(reason_for(d, "libcurrent_minor_older_layout.so"),
              "bench_plugin_info has size " + std::to_string(bench::plugin_info_size_without_build) + ", expected " +
                  std::to_string(sizeof(bench::PluginInfo)) + " for ABI " +
                  abi_text(bench::abi_major, bench::abi_minor));
}

TEST(Discovery, AHandshakeNameThatIsNotTheFileNameIsUsedAsTheFileSaysWithAWarning) {
    const Discovery d = discover_plugins(handshake_fixtures);
    EXPECT_EQ(find_plugin(d, "trivial"), nullptr);
    const DiscoveredPlugin* renamed = find_plugin(d, "renamed");
    ASSERT_NE(renamed, nullptr);
    EXPECT_EQ(renamed->handshake_name(), "trivial");
    ASSERT_EQ(renamed->benchmarks.size(), 1u);
    EXPECT_EQ(renamed->id(renamed->benchmarks[0]), "unit/renamed/renamed");
    // One warning, for that file only: naming it, both names and which one is used.
    ASSERT_EQ(d.warnings.size(), 1u) << ::testing::PrintToString(d.warnings);
    EXPECT_EQ(d.warnings[0], (handshake_fixtures / "unit/librenamed.so").string() +
                                 ": BENCH_PLUGIN names the plugin 'trivial', the file 'renamed'; the file name is used "
                                 "(benchmark ids unit/renamed/...): rename the file to libtrivial.so or the plugin in "
                                 "BENCH_PLUGIN to \"renamed\"");
    // The fixtures whose names agree give none.
    EXPECT_TRUE(discover_plugins(fixtures).warnings.empty());
}

TEST(Discovery, MissingFolderIsAnError) { EXPECT_THROW(discover_plugins("/nonexistent/plugins"), DiscoveryError); }

TEST(Discovery, ALibTorchReplacedUnderTheBuildIsNamedWithBothVersions) {
    TempDir dir;
    // A torch package (version.py) and a libtorch archive (build-version).
    std::ofstream(dir / "version.py") << "__all__ = ['__version__']\n__version__ = '2.14.1+cu130'\ncuda = '13.0'\n";
    EXPECT_EQ(libtorch_install_problem(dir.path(), "2.14.1+cu130"), "");
    const std::string problem = libtorch_install_problem(dir.path(), "2.11.0+cu130");
    EXPECT_NE(problem.find("configured with LibTorch 2.11.0+cu130"), std::string::npos) << problem;
    EXPECT_NE(problem.find("now holds LibTorch 2.14.1+cu130"), std::string::npos) << problem;
    EXPECT_NE(problem.find(dir.path().string()), std::string::npos) << problem;

    TempDir archive;
    std::ofstream(archive / "build-version") << "2.14.1+cpu\n";
    EXPECT_EQ(libtorch_install_problem(archive.path(), "2.14.1+cpu"), "");
    EXPECT_NE(libtorch_install_problem(archive.path(), "2.14.1+cu130").find("now holds LibTorch 2.14.1+cpu"),
              std::string::npos);

    const std::string gone = libtorch_install_problem(dir / "nothing-here", "2.14.1+cu130");
    EXPECT_NE(gone.find("no longer there"), std::string::npos) << gone;
}

TEST(Discovery, SafeNames) {
    EXPECT_TRUE(is_safe_name("resnet50"));
    EXPECT_TRUE(is_safe_name("gpt2-tiny_v1.2"));
    EXPECT_FALSE(is_safe_name(""));
    EXPECT_FALSE(is_safe_name(".."));
    EXPECT_FALSE(is_safe_name("a/b"));
    EXPECT_FALSE(is_safe_name("tab\there"));
}

}  // namespace
