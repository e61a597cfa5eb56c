// End to end: what the host makes of a plugin's handshake beyond its ABI. How the plugin
// was compiled (an -O0 build with assertions beside an -O2 one; one built against an
// older ABI minor) in `list`, in a run's warnings and in every report; and a handshake
// name that is not the file's.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <bench/abi.hpp>

#include "../support/handshake.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

const fs::path handshake_fixtures = BENCH_TEST_HANDSHAKE_PLUGIN_DIR;
const fs::path unoptimized_plugin = handshake_fixtures / "unit/libfixture_unoptimized.so";
const fs::path optimized_plugin = handshake_fixtures / "unit/libfixture_optimized.so";
const fs::path renamed_plugin = handshake_fixtures / "unit/librenamed.so";

std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
        ++count;
    return count;
}

const std::string unoptimized_warning =
    "was built without optimization and with assertions on (NDEBUG not defined): timings may be slower than an "
    "optimized build's; rebuild it with the build type Release (-DCMAKE_BUILD_TYPE=Release)";

class HandshakeTest : public ::testing::Test {
protected:
    ProcessResult host(std::vector<std::string> args) {
        args.insert(args.begin(), benchhost_binary().string());
        return run_process(args, work.path());
    }
    ProcessResult run(std::vector<std::string> args) {
        std::vector<std::string> argv = {"run",
                                         "--plugins-dir",
                                         plugins.string(),
                                         "--output-dir",
                                         output.string(),
                                         "--warmup-iterations",
                                         "0",
                                         "--measurement-iterations",
                                         "2"};
        argv.insert(argv.end(), args.begin(), args.end());
        return host(argv);
    }

    TempDir work;
    fs::path plugins = work / "plugins";
    fs::path output = work / "out";
};

TEST_F(HandshakeTest, ARunWarnsOncePerUnoptimizedPluginAndEveryReportShowsEachBuild) {
    install_plugin(unoptimized_plugin, plugins, "unit");
    install_plugin(optimized_plugin, plugins, "unit");
    const ProcessResult result = run({});
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;

    // Once, for the -O0 plugin only, naming it, what it means and how to fix it.
    const std::string warning = "plugin unit/fixture_unoptimized (" +
                                (plugins / "unit/libfixture_unoptimized.so").string() + ") " + unoptimized_warning;
    EXPECT_EQ(count_of(result.err, warning), 1u) << result.err;
    EXPECT_EQ(count_of(result.err, "plugin unit/fixture_optimized ("), 0u) << result.err;

    // benchmark_summary.json: each plugin with its build.
    const auto summary = read_json(output / "benchmark_summary.json");
    ASSERT_TRUE(summary.HasMember("plugins"));
    std::map<std::string, const rapidjson::Value*> builds;
    for (const auto& plugin : summary["plugins"].GetArray()) {
        EXPECT_STREQ(plugin["category"].GetString(), "unit");
        EXPECT_STREQ(plugin["version"].GetString(), "1.0.0");
        builds[plugin["plugin"].GetString()] = &plugin["build"];
    }
    ASSERT_EQ(builds.size(), 2u);
    const rapidjson::Value& slow = *builds.at("fixture_unoptimized");
    EXPECT_TRUE(slow["known"].GetBool());
    EXPECT_FALSE(slow["optimized"].GetBool());
    EXPECT_TRUE(slow["assertions"].GetBool());
    const rapidjson::Value& fast = *builds.at("fixture_optimized");
    EXPECT_TRUE(fast["optimized"].GetBool());
    EXPECT_FALSE(fast["assertions"].GetBool());

    // The plugin report: with every scenario's metadata.
    const auto reports = files_matching(output / "fixture_unoptimized", "fixture_unoptimized_", ".json");
    ASSERT_EQ(reports.size(), 1u);
    const auto report = read_json(reports[0]);
    for (const auto& scenario : report["benchmark_scenarios"].GetArray()) {
        const auto& build = scenario["metadata"]["plugin_build"];
        EXPECT_TRUE(build["known"].GetBool());
        EXPECT_FALSE(build["optimized"].GetBool());
        EXPECT_STREQ(build["compiler"].GetString(), slow["compiler"].GetString());
    }

    // report.md and report.html: a line per plugin, the warning beside the -O0 one.
    const std::string compiler = slow["compiler"].GetString();
    const std::string md = read_file(output / "report.md");
    EXPECT_NE(md.find("## Plugins\n\n"), std::string::npos) << md;
    EXPECT_NE(md.find("- `unit/fixture_unoptimized` 1.0.0, build: not optimized, assertions on, " + compiler +
                      ". **Warning:** built without optimization"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("- `unit/fixture_optimized` 1.0.0, build: optimized, assertions off, " + compiler + "\n"),
              std::string::npos)
        << md;
    const std::string html = read_file(output / "report.html");
    EXPECT_NE(html.find("<details id=\"plugins\"><summary>The plugins</summary>"), std::string::npos);
    EXPECT_NE(html.find("<li><code>unit/fixture_unoptimized</code> 1.0.0, build: not optimized, assertions on"),
              std::string::npos)
        << html;

    // Written again from the run folder alone, the reports say the same.
    fs::remove(output / "report.md");
    const ProcessResult again = host({"report", output.string()});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(read_file(output / "report.md"), md);
}

TEST_F(HandshakeTest, APluginOfAnOlderMinorRunsWithItsBuildUnknown) {
    const std::uint16_t older = bench::build_info_abi_minor - 1;
    write_plugin_with_abi(optimized_plugin, plugins / "unit/libfixture_optimized.so", bench::abi_major, older,
                          bench::plugin_info_size_without_build);
    const std::string abi = std::to_string(bench::abi_major) + "." + std::to_string(older);

    const ProcessResult list = host({"list", "--plugins-dir", plugins.string()});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("(ABI " + abi + ")\n    build:      unknown (built against SDK ABI " + abi +
                            "; plugins record it from ABI " + std::to_string(bench::abi_major) + "." +
                            std::to_string(bench::build_info_abi_minor) + ")\n"),
              std::string::npos)
        << list.out;

    const ProcessResult result = run({});
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("1 scenario: 1 succeeded"), std::string::npos) << result.out;
    EXPECT_EQ(result.err.find("plugin unit/fixture_optimized ("), std::string::npos) << result.err;
    const auto summary = read_json(output / "benchmark_summary.json");
    ASSERT_EQ(summary["plugins"].Size(), 1u);
    EXPECT_FALSE(summary["plugins"][0]["build"]["known"].GetBool());
    EXPECT_FALSE(summary["plugins"][0]["build"].HasMember("optimized"));
    EXPECT_NE(read_file(output / "report.md").find("- `unit/fixture_optimized` 1.0.0, build: unknown\n"),
              std::string::npos);
}

TEST_F(HandshakeTest, ListShowsEachBuildAndBothNamesOfARenamedPlugin) {
    install_plugin(unoptimized_plugin, plugins, "unit");
    install_plugin(optimized_plugin, plugins, "unit");
    install_plugin(renamed_plugin, plugins, "unit");
    const ProcessResult result = host({"list", "--plugins-dir", plugins.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string& out = result.out;

    EXPECT_NE(out.find("  unit/renamed (handshake name: trivial)  version 1.0.0\n"), std::string::npos) << out;
    EXPECT_NE(out.find("benchmarks: unit/renamed/renamed\n"), std::string::npos) << out;
    EXPECT_NE(out.find("Warnings:\n  " + (plugins / "unit/librenamed.so").string() +
                       ": BENCH_PLUGIN names the plugin 'trivial', the file 'renamed'; the file name is used"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("  unit/fixture_optimized  version 1.0.0\n"), std::string::npos) << out;  // names agree

    EXPECT_NE(out.find("    build:      not optimized, assertions on, "), std::string::npos) << out;
    EXPECT_NE(out.find("    warning:    built without optimization and with assertions on"), std::string::npos) << out;
    EXPECT_NE(out.find("    build:      optimized, assertions off, "), std::string::npos) << out;
    EXPECT_EQ(count_of(out, "    warning:    "), 1u) << out;
}

TEST_F(HandshakeTest, ARunNamesTheCauseWhenTheHandshakeNameMatchesNothing) {
    install_plugin(renamed_plugin, plugins, "unit");
    const ProcessResult result = run({"--include", "trivial"});
    const std::string warning = (plugins / "unit/librenamed.so").string() +
                                ": BENCH_PLUGIN names the plugin 'trivial', the file 'renamed'; the file name is used "
                                "(benchmark ids unit/renamed/...)";
    EXPECT_EQ(count_of(result.err, warning), 1u) << result.out << result.err;
    // Selected by the file's name, it runs.
    const ProcessResult by_file = run({"--include", "renamed"});
    ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
    EXPECT_NE(by_file.out.find("unit/renamed/renamed"), std::string::npos) << by_file.out;
}

}  // namespace

namespace {

TEST_F(HandshakeTest, TheDryRunShowsTheBuildAndNameWarningsARunWouldLog) {
    install_plugin(unoptimized_plugin, plugins, "unit");
    install_plugin(optimized_plugin, plugins, "unit");
    install_plugin(renamed_plugin, plugins, "unit");
    const ProcessResult result = run({"--dry-run"});
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_EQ(count_of(result.out, "warning: plugin unit/fixture_unoptimized ("), 1u) << result.out;
    EXPECT_EQ(count_of(result.out, "warning: plugin unit/fixture_optimized ("), 0u) << result.out;
    EXPECT_EQ(count_of(result.out, "BENCH_PLUGIN names the plugin 'trivial', the file 'renamed'"), 1u) << result.out;
    EXPECT_FALSE(fs::exists(output));  // nothing written
}

}  // namespace
