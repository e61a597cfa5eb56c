#include "discover/discovery.hpp"

#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

const fs::path fixtures = BENCH_TEST_FIXTURE_PLUGIN_DIR;

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

/// A copy of fixture_single with its handshake's ABI version replaced.
void write_with_abi(const fs::path& target, std::uint16_t major, std::uint16_t minor) {
    std::string bytes = read_file(fixtures / "performance/libfixture_single.so");
    const std::uint32_t magic = bench::plugin_magic;
    const std::string needle(reinterpret_cast<const char*>(&magic), 4);
    const std::size_t at = bytes.find(needle);
    ASSERT_NE(at, std::string::npos);
    std::memcpy(&bytes[at + 4], &major, 2);
    std::memcpy(&bytes[at + 6], &minor, 2);
    write_file(target, bytes);
}

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
    write_with_abi(dir / "performance/libold_major.so", 0, 9);
    write_with_abi(dir / "performance/libnewer_minor.so", bench::abi_major, bench::abi_minor + 1);
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
    EXPECT_EQ(reason_for(d, "libold_major.so"), "built for SDK ABI 0.9, this host supports ABI " + major + ".x (up to " +
                                                     host_abi + "): rebuild the plugin against this SDK");
    EXPECT_EQ(reason_for(d, "libnewer_minor.so"), "built for SDK ABI " + major + "." +
                                                       std::to_string(bench::abi_minor + 1) + ", newer than this host's ABI " +
                                                       host_abi + ": update benchhost");
    EXPECT_EQ(reason_for(d, "libarm.so"), "built for aarch64 (64-bit), host is x86_64 (64-bit)");
    EXPECT_EQ(reason_for(d, "README.txt"), "not in a category folder (unit, integration or performance)");
    EXPECT_EQ(reason_for(d, "notes.md"), "not a plugin: only lib<name>.so files are loaded");
    EXPECT_EQ(reason_for(d, "subfolder"), "not a regular file");
}

TEST(Discovery, MissingFolderIsAnError) {
    EXPECT_THROW(discover_plugins("/nonexistent/plugins"), DiscoveryError);
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
