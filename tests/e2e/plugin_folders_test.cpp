// Plugin folders, with the real host: a Python file dropped into the source tree's
// plugins/<category>/ runs with no build step, beside the built plugins; --plugins-dir
// and BENCHHOST_PLUGINS_DIR name several folders; a plugin name in two folders is an
// error. The source tree and the build folder are the test's own: a copy of the host in
// <build>/bin/, whose <build>/CMakeCache.txt names the source tree, as CMake writes it.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "../support/mock_run.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

const char* const measured_plugin = R"(def run_benchmark(ctx):
    ctx.measure("latency", lambda: sum(range(100)))
)";

class PluginFoldersTest : public ::testing::Test {
protected:
    void SetUp() override {
        fs::permissions(work.path(), fs::perms::owner_all);
        // A build folder: the host, the SDK's and the Python loader's libraries (bin/../lib),
        // the cache naming the source tree, and the build's copy of a shipped Python plugin.
        fs::create_directories(build / "bin");
        fs::copy_file(benchhost_binary(), host);
        fs::create_directory_symlink(fs::path(BENCH_TEST_BUILD_DIR) / "lib", build / "lib");
        write_file(build / "CMakeCache.txt", "benchhost_BINARY_DIR:STATIC=" + build.string() +
                                                 "\nbenchhost_SOURCE_DIR:STATIC=" + source.string() + "\n");
        // The source tree's plugins/, as the project's: a CMakeLists.txt, each shipped plugin in
        // a folder of its own, copied by bench_add_python_plugin into the build's plugins/.
        write_file(source / "plugins/CMakeLists.txt", "add_subdirectory(performance/shipped_py)\n");
        write_file(source / "plugins/performance/shipped_py/CMakeLists.txt",
                   "bench_add_python_plugin(shipped_py CATEGORY performance SOURCES shipped_py.py)\n");
        write_file(source / "plugins/performance/shipped_py/shipped_py.py", measured_plugin);
        write_file(build / "plugins/performance/shipped_py.py", measured_plugin);
    }

    /// Runs `args` with the host of the build folder (`executable`), BENCHHOST_PLUGINS_DIR
    /// set to `variable` (empty: as if unset); returns the status of each scenario of the
    /// run folder, by id (the plugins have no axes: category/plugin/benchmark).
    std::map<std::string, std::string> run(std::vector<std::string> args, int expected_exit,
                                           const std::string& variable = "", const fs::path& executable = {}) {
        fs::remove_all(output);
        std::vector<std::string> argv = short_run_arguments(output, args);
        argv.insert(argv.begin(), executable.empty() ? host.string() : executable.string());
        last = run_process(argv, work.path(), {"BENCHHOST_PLUGINS_DIR=" + variable});
        EXPECT_EQ(last.exit_code, expected_exit) << last.out << last.err;
        summary.SetNull();
        if (!fs::exists(output / "benchmark_summary.json")) return {};
        summary = read_json(output / "benchmark_summary.json");
        return summary_statuses(summary);
    }

    /// The folders the run recorded (run_metadata.config.plugins_dir).
    std::string recorded_folders() const {
        if (!summary.IsObject()) return "(no benchmark_summary.json)";
        return summary["run_metadata"]["config"]["plugins_dir"].GetString();
    }

    TempDir work;
    fs::path build = work / "build", source = work / "source", host = build / "bin" / "benchhost";
    fs::path output = work / "out";
    ProcessResult last;
    rapidjson::Document summary;
};

TEST_F(PluginFoldersTest, APythonFileDroppedIntoTheSourceTreeRunsWithNoBuild) {
    write_file(source / "plugins/performance/dropped_py.py", measured_plugin);
    const auto statuses = run({}, 0);
    EXPECT_EQ(statuses, (std::map<std::string, std::string>{{"performance/dropped_py/dropped_py", "success"},
                                                            {"performance/shipped_py/shipped_py", "success"}}));
    EXPECT_EQ(recorded_folders(), (build / "plugins").string() + ":" + (source / "plugins").string());
    // `list` shows it, and nothing of the source tree's other files.
    const ProcessResult list = run_process({host.string(), "list"}, work.path(), {"BENCHHOST_PLUGINS_DIR="});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("Plugins in " + (build / "plugins").string() + " and " + (source / "plugins").string() +
                            " (Python files only):"),
              std::string::npos)
        << list.out;
    EXPECT_NE(list.out.find("file:       " + (source / "plugins/performance/dropped_py.py").string()),
              std::string::npos)
        << list.out;
    EXPECT_EQ(list.out.find("Not plugins"), std::string::npos) << list.out;
    // The same file in the build's folder too (copied there by hand, or a plugin of that
    // name added to the build): which of the two is meant is not guessed.
    fs::copy_file(source / "plugins/performance/dropped_py.py", build / "plugins/performance/dropped_py.py");
    run({}, 2);
    EXPECT_NE(last.err.find("benchhost: error: two plugins named performance/dropped_py in two plugin folders: " +
                            (build / "plugins/performance/dropped_py.py").string() + " and " +
                            (source / "plugins/performance/dropped_py.py").string()),
              std::string::npos)
        << last.err;
}

TEST_F(PluginFoldersTest, AHostElsewhereSearchesOnlyItsOwnPluginsFolder) {
    // An installed host has no CMake cache beside it: the source tree is not its concern.
    write_file(source / "plugins/performance/dropped_py.py", measured_plugin);
    fs::remove(build / "CMakeCache.txt");
    const auto statuses = run({}, 0);
    EXPECT_EQ(statuses, (std::map<std::string, std::string>{{"performance/shipped_py/shipped_py", "success"}}));
    EXPECT_EQ(recorded_folders(), (build / "plugins").string());
}

TEST_F(PluginFoldersTest, PluginsDirTakesSeveralFoldersAndAnEmptyEntryForTheDefaultOnes) {
    const fs::path mine = work / "mine", theirs = work / "theirs";
    write_file(mine / "unit/mine_py.py", measured_plugin);
    write_file(theirs / "integration/theirs_py.py", measured_plugin);
    auto statuses = run({"--plugins-dir", mine.string(), "--plugins-dir", theirs.string()}, 0);
    EXPECT_EQ(statuses, (std::map<std::string, std::string>{{"unit/mine_py/mine_py", "success"},
                                                            {"integration/theirs_py/theirs_py", "success"}}));
    EXPECT_EQ(recorded_folders(), mine.string() + ":" + theirs.string());
    // Yours beside the shipped ones: an empty entry stands for the default folders.
    statuses = run({"--plugins-dir", mine.string() + ":"}, 0);
    EXPECT_EQ(statuses, (std::map<std::string, std::string>{{"unit/mine_py/mine_py", "success"},
                                                            {"performance/shipped_py/shipped_py", "success"}}));
    EXPECT_EQ(recorded_folders(),
              mine.string() + ":" + (build / "plugins").string() + ":" + (source / "plugins").string());
}

TEST_F(PluginFoldersTest, TheVariableNamesFoldersWhenTheOptionDoesNot) {
    const fs::path mine = work / "mine";
    write_file(mine / "unit/mine_py.py", measured_plugin);
    auto statuses = run({}, 0, ":" + mine.string());
    EXPECT_EQ(statuses, (std::map<std::string, std::string>{{"unit/mine_py/mine_py", "success"},
                                                            {"performance/shipped_py/shipped_py", "success"}}));
    EXPECT_EQ(recorded_folders(),
              (build / "plugins").string() + ":" + (source / "plugins").string() + ":" + mine.string());
    // --plugins-dir is over it; `list` reads it as `run` does.
    statuses = run({"--plugins-dir", (build / "plugins").string()}, 0, mine.string());
    EXPECT_EQ(statuses, (std::map<std::string, std::string>{{"performance/shipped_py/shipped_py", "success"}}));
    const ProcessResult list =
        run_process({host.string(), "list"}, work.path(), {"BENCHHOST_PLUGINS_DIR=" + mine.string()});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("Plugins in " + mine.string() + ":"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("unit/mine_py"), std::string::npos) << list.out;
    // A folder it names that is not there is an error naming the variable.
    run({}, 2, mine.string() + ":" + (work / "gone").string());
    EXPECT_NE(last.err.find("benchhost: error: plugin folder " + (work / "gone").string() +
                            " (from BENCHHOST_PLUGINS_DIR) does not exist or is not a folder"),
              std::string::npos)
        << last.err;
}

TEST_F(PluginFoldersTest, APluginNameInTwoFoldersIsAnError) {
    const fs::path mine = work / "mine", theirs = work / "theirs";
    write_file(mine / "performance/same_py.py", measured_plugin);
    write_file(theirs / "performance/same_py.py", measured_plugin);
    const auto statuses = run({"--plugins-dir", mine.string() + ":" + theirs.string()}, 2);
    EXPECT_TRUE(statuses.empty());  // nothing ran
    EXPECT_NE(last.err.find("benchhost: error: two plugins named performance/same_py in two plugin folders: " +
                            (mine / "performance/same_py.py").string() + " and " +
                            (theirs / "performance/same_py.py").string() +
                            "; benchhost does not choose between them: rename or remove one, or leave its folder "
                            "out of those searched (" +
                            mine.string() + ":" + theirs.string() + ")"),
              std::string::npos)
        << last.err;
    // A folder that is not there is named with the option that named it.
    run({"--plugins-dir", mine.string(), "--plugins-dir", (work / "gone").string()}, 2);
    EXPECT_NE(last.err.find("plugin folder " + (work / "gone").string() +
                            " (from --plugins-dir) does not exist or is not a folder"),
              std::string::npos)
        << last.err;
}

TEST_F(PluginFoldersTest, AbComparesSidesOfSeveralFolders) {
    const fs::path mine = work / "mine", base = work / "base", next = work / "new";
    write_file(mine / "unit/mine_py.py", measured_plugin);
    write_file(base / "performance/model_py.py", measured_plugin);
    write_file(next / "performance/model_py.py", measured_plugin);
    const ProcessResult dry = run_process({host.string(), "ab", "--base", base.string() + ":" + mine.string(), "--new",
                                           next.string(), "--new", mine.string(), "--dry-run"},
                                          work.path());
    EXPECT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("A/B plan: 2 scenarios on both sides (base " + base.string() + ":" + mine.string() +
                           ", new " + next.string() + ":" + mine.string() + ")"),
              std::string::npos)
        << dry.out;
}

}  // namespace
