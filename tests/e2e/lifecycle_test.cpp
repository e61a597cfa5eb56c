// The life of a run around its scenarios: interruption by Ctrl-C, a host killed with
// kill -9, resuming an interrupted run, refusing untrusted plugin folders, and GPU clocks
// locked for a run (through the fake NVML of tests/fixtures/fake_nvml) unlocked however
// it ends.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;
using namespace std::chrono_literals;

const fs::path fixtures = BENCH_TEST_FIXTURE_PLUGIN_DIR;

/// A running host, started in the background with its output in files.
class BackgroundHost {
public:
    BackgroundHost(const std::vector<std::string>& args, const fs::path& cwd) {
        std::vector<std::string> argv = {benchhost_binary().string()};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> raw;
        for (auto& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
        raw.push_back(nullptr);
        const fs::path out = cwd / "host.stdout", err = cwd / "host.stderr";
        pid_ = fork();
        if (pid_ == 0) {
            if (chdir(cwd.c_str()) != 0) _exit(126);
            freopen(out.c_str(), "w", stdout);
            freopen(err.c_str(), "w", stderr);
            execv(raw[0], raw.data());
            _exit(127);
        }
    }
    ~BackgroundHost() {
        if (pid_ > 0 && !exited_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    pid_t pid() const { return pid_; }
    /// Exit code, -signal when killed; -1000 when it did not end within `limit`.
    int wait(std::chrono::milliseconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        int status = 0;
        while (std::chrono::steady_clock::now() < deadline) {
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
            }
            std::this_thread::sleep_for(20ms);
        }
        return -1000;
    }

private:
    pid_t pid_ = -1;
    bool exited_ = false;
};

/// Waits until `file` contains `text`.
bool wait_for_text(const fs::path& file, const std::string& text, std::chrono::milliseconds limit = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (fs::exists(file) && read_file(file).find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

/// Children of `parent`, from /proc.
std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string stat;
        try {
            stat = read_file(entry.path() / "stat");
        } catch (...) {
            continue;
        }
        const auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid == parent) found.push_back(std::stoi(name));
    }
    return found;
}

bool process_gone(pid_t pid, std::chrono::milliseconds limit = 3s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (kill(pid, 0) != 0) return true;
        try {  // a zombie waiting for init to reap it is gone as well
            const std::string stat = read_file(fs::path("/proc") / std::to_string(pid) / "stat");
            if (stat.substr(stat.rfind(')') + 2, 1) == "Z") return true;
        } catch (...) {
            return true;
        }
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

class LifecycleTest : public HostRunTest {
protected:
    void SetUp() override {
        install_plugin(fixtures / "unit/libfixture_multi.so", plugins, "unit");
        install_plugin(fixtures / "integration/libfixture_faults.so", plugins, "integration");
    }
    std::vector<std::string> run_args(std::vector<std::string> extra) {
        std::vector<std::string> args = {
            "run", "--plugins-dir", plugins.string(), "--output-dir", output.string(), "--measurement-iterations",
            "3",   "--include",     "fixture_multi",  "--include",    "hangs"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }
    /// Resumes the run in `output` (fixture_multi and hangs, which now times out after
    /// 1 s), then `extra`.
    ProcessResult resume(const std::vector<std::string>& extra = {}) const {
        std::vector<std::string> args = {"run",       "--plugins-dir", plugins.string(), "--resume", output.string(),
                                         "--include", "fixture_multi", "--include",      "hangs",    "--timeout",
                                         "1"};
        args.insert(args.end(), extra.begin(), extra.end());
        return host(args);
    }
    fs::path log_file() {
        const auto logs = files_matching(output, "benchmark_run_", ".log");
        return logs.empty() ? output / "missing.log" : logs[0];
    }

    fs::path output = work / "out";
};

TEST_F(LifecycleTest, CtrlCStopsTheWorkerKeepsFinishedScenariosAndResumeFinishesTheRun) {
    const std::string history = (work / "history.db").string();
    BackgroundHost background(run_args({"--history", history}), work.path());
    ASSERT_TRUE(wait_for_text(output / "benchmark_summary.json", "gamma"));  // three finished
    ASSERT_TRUE(wait_for_text(log_file(), "[4/4] integration/fixture_faults/hangs"));
    std::this_thread::sleep_for(200ms);  // the worker is hanging now
    const std::vector<pid_t> workers = children_of(background.pid());
    kill(background.pid(), SIGINT);
    EXPECT_EQ(background.wait(10s), 130);
    for (pid_t worker : workers) EXPECT_TRUE(process_gone(worker)) << "worker " << worker << " outlived the run";

    auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_TRUE(summary["run_metadata"]["interrupted"].GetBool());
    EXPECT_STREQ(summary["run_metadata"]["state"].GetString(), "interrupted");
    EXPECT_EQ(summary["run_metadata"]["total_benchmarks"].GetInt(), 3);
    EXPECT_EQ(summary["run_metadata"]["successful_runs"].GetInt(), 3);
    const std::string first_timestamp = summary["run_metadata"]["timestamp"].GetString();
    const std::string run_id = summary["run_metadata"]["run_id"].GetString();
    EXPECT_EQ(run_id.size(), 32u);
    expect_reports_match_schema(output);  // an interrupted run's files match docs/schema

    // Resuming runs only what is missing, into the same folder and files.
    const ProcessResult resumed = resume({"--history", history});
    EXPECT_EQ(resumed.exit_code, 1) << resumed.err;  // the hang now times out
    EXPECT_NE(resumed.err.find("unit/fixture_multi/alpha: already reported"), std::string::npos) << resumed.err;
    summary = read_json(output / "benchmark_summary.json");
    EXPECT_FALSE(summary["run_metadata"]["interrupted"].GetBool());
    EXPECT_STREQ(summary["run_metadata"]["state"].GetString(), "complete");
    EXPECT_EQ(summary["run_metadata"]["timestamp"].GetString(), first_timestamp);
    EXPECT_EQ(summary["run_metadata"]["run_id"].GetString(), run_id);  // the same run
    // Recorded when interrupted and again when resumed: one run in the history, as it ended.
    EXPECT_NE(resumed.err.find("history: updated"), std::string::npos) << resumed.err;
    const ProcessResult listed = host({"history", "list", "--history", history});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_NE(listed.out.find("\n1 run in "), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find(" 4  complete "), std::string::npos) << listed.out;  // its four scenarios
    EXPECT_EQ(summary["run_metadata"]["total_benchmarks"].GetInt(), 4);
    EXPECT_EQ(summary["run_metadata"]["successful_runs"].GetInt(), 3);
    EXPECT_EQ(summary["run_metadata"]["failed_runs"].GetInt(), 1);
    EXPECT_EQ(files_matching(output / "fixture_multi", "fixture_multi_", ".json").size(), 1u);
    const auto multi = read_json(files_matching(output / "fixture_multi", "fixture_multi_", ".json")[0]);
    EXPECT_EQ(multi["benchmark_scenarios"].Size(), 3u);
    EXPECT_EQ(multi["benchmark_scenarios"][0]["measurements"]["latency"]["measurements"].Size(), 3u);
}

TEST_F(LifecycleTest, SecondCtrlCExitsAtOnce) {
    BackgroundHost background(run_args({}), work.path());
    ASSERT_TRUE(wait_for_text(output / "benchmark_summary.json", "gamma"));  // the log exists from here on
    ASSERT_TRUE(wait_for_text(log_file(), "[4/4] integration/fixture_faults/hangs"));
    kill(background.pid(), SIGINT);
    kill(background.pid(), SIGINT);
    const int code = background.wait(5s);
    EXPECT_TRUE(code == 130) << code;
}

TEST_F(LifecycleTest, KillMinusNineLeavesCompleteFilesAndNoWorker) {
    BackgroundHost background(run_args({}), work.path());
    ASSERT_TRUE(wait_for_text(output / "benchmark_summary.json", "gamma"));
    ASSERT_TRUE(wait_for_text(log_file(), "[4/4] integration/fixture_faults/hangs"));
    std::this_thread::sleep_for(200ms);
    const std::vector<pid_t> workers = children_of(background.pid());
    ASSERT_FALSE(workers.empty());
    kill(background.pid(), SIGKILL);
    EXPECT_EQ(background.wait(5s), -SIGKILL);
    for (pid_t worker : workers) EXPECT_TRUE(process_gone(worker)) << "worker " << worker << " outlived the host";

    // What was written is whole: every JSON file parses, no temporary file is left.
    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_STREQ(summary["run_metadata"]["state"].GetString(), "running");
    EXPECT_EQ(summary["run_metadata"]["successful_runs"].GetInt(), 3);
    for (const auto& entry : fs::recursive_directory_iterator(output)) {
        const std::string name = entry.path().filename().string();
        EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
        if (name.ends_with(".json")) {
            EXPECT_NO_THROW(read_json(entry.path())) << name;
        }
    }
    expect_reports_match_schema(output);  // and matches docs/schema
}

TEST_F(LifecycleTest, KillMinusNineThenResumeRunsOnlyWhatTheJournalLacks) {
    BackgroundHost background(run_args({}), work.path());
    // The journal has every scenario that ended the moment it ended.
    ASSERT_TRUE(wait_for_text(output / "journal.jsonl", "\"benchmark\":\"gamma\""));
    ASSERT_TRUE(wait_for_text(log_file(), "[4/4] integration/fixture_faults/hangs"));
    kill(background.pid(), SIGKILL);
    EXPECT_EQ(background.wait(5s), -SIGKILL);
    const std::string journal = read_file(output / "journal.jsonl");
    EXPECT_EQ(journal.back(), '\n');  // whole lines only
    for (const char* benchmark : {"alpha", "beta", "gamma"})
        EXPECT_NE(journal.find(std::string("\"benchmark\":\"") + benchmark + "\""), std::string::npos) << benchmark;

    const ProcessResult resumed = resume();
    EXPECT_EQ(resumed.exit_code, 1) << resumed.err;  // the hang times out
    // Resumed without --measurement-iterations 3 and with --timeout 1: each is named.
    EXPECT_NE(resumed.err.find("--resume: the run in " + output.string() + " was started with other settings ("),
              std::string::npos)
        << resumed.err;
    EXPECT_NE(resumed.err.find("measurement_iterations 3, now 10"), std::string::npos) << resumed.err;
    EXPECT_NE(resumed.err.find("timeout_s 600, now 1"), std::string::npos) << resumed.err;
    EXPECT_NE(resumed.err.find("; it was started with: "), std::string::npos) << resumed.err;
    for (const char* benchmark : {"alpha", "beta", "gamma"})
        EXPECT_NE(resumed.err.find(std::string("unit/fixture_multi/") + benchmark + ": already reported"),
                  std::string::npos)
            << resumed.err;
    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_STREQ(summary["run_metadata"]["state"].GetString(), "complete");
    EXPECT_EQ(summary["run_metadata"]["total_benchmarks"].GetInt(), 4);
    EXPECT_EQ(summary["run_metadata"]["successful_runs"].GetInt(), 3);
    EXPECT_EQ(summary["run_metadata"]["failed_runs"].GetInt(), 1);
    const auto multi = read_json(files_matching(output / "fixture_multi", "fixture_multi_", ".json")[0]);
    ASSERT_EQ(multi["benchmark_scenarios"].Size(), 3u);
    EXPECT_EQ(multi["benchmark_scenarios"][2]["measurements"]["latency"]["measurements"].Size(), 3u);
    expect_reports_match_schema(output);
}

TEST_F(LifecycleTest, ResumingWithTheSameOptionsSaysNothingOfSettings) {
    const std::vector<std::string> options = {"--measurement-iterations", "3", "--include", "fixture_multi/alpha"};
    ASSERT_EQ(run_into(output, options).exit_code, 0);
    std::vector<std::string> again = {"run", "--plugins-dir", plugins.string(), "--resume", output.string()};
    again.insert(again.end(), options.begin(), options.end());
    const ProcessResult same = host(again);
    EXPECT_EQ(same.exit_code, 0) << same.err;
    EXPECT_EQ(same.err.find("was started with other settings"), std::string::npos) << same.err;
    EXPECT_EQ(same.out.find("was started with other settings"), std::string::npos) << same.out;

    again.insert(again.end(), {"--warmup-iterations", "1"});
    const ProcessResult other = host(again);
    EXPECT_EQ(other.exit_code, 0) << other.err;
    EXPECT_NE(other.err.find("other settings (warmup_iterations 3, now 1)"), std::string::npos) << other.err;
}

TEST_F(LifecycleTest, UntrustedPluginFoldersAndFilesAreRefused) {
    // A folder anyone can write: nothing runs.
    fs::permissions(plugins, fs::perms::others_write | fs::perms::others_exec, fs::perm_options::add);
    ProcessResult result = run_into(output, {});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("is writable by everyone (mode 0757)"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("--allow-untrusted-plugins"), std::string::npos) << result.err;

    result =
        run_into(output, {"--allow-untrusted-plugins", "--include", "fixture_multi", "--measurement-iterations", "2"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    fs::permissions(plugins, fs::perms::others_write, fs::perm_options::remove);

    // A plugin file anyone can write: that plugin is rejected, the others run.
    fs::remove_all(output);
    const fs::path plugin = plugins / "unit/libfixture_multi.so";
    fs::permissions(plugin, fs::perms::others_write, fs::perm_options::add);
    install_plugin(fixtures / "performance/libfixture_single.so", plugins, "performance");
    result = run_into(output, {"--exclude", "fixture_faults", "--measurement-iterations", "2"});
    EXPECT_EQ(result.exit_code, 1) << result.err;
    const auto summary = read_json(output / "benchmark_summary.json");
    std::map<std::string, std::pair<std::string, std::string>> by_plugin;
    for (const auto& entry : summary["results"].GetArray())
        by_plugin[entry["plugin"].GetString()] = {entry["status"].GetString(), entry["reason"].GetString()};
    EXPECT_EQ(by_plugin["fixture_single"].first, "success");
    EXPECT_EQ(by_plugin["fixture_multi"].first, "rejected");
    EXPECT_EQ(by_plugin["fixture_multi"].second.rfind(plugin.string() + ": the file is writable by everyone", 0), 0u)
        << by_plugin["fixture_multi"].second;
}

TEST_F(LifecycleTest, ParamsFromTheCommandLineReachThePlugin) {
    const ProcessResult result = run_into(output, {"--include", "fixture_multi/alpha", "--measurement-iterations", "2",
                                                   "--param", "sizes=1,2,3", "--param", "label=x=y"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto report = read_json(files_matching(output / "fixture_multi", "fixture_multi_", ".json").at(0));
    const auto& params = report["benchmark_scenarios"][0]["metadata"]["config"]["params"];
    ASSERT_TRUE(params.HasMember("sizes"));
    EXPECT_EQ(params["sizes"].Size(), 3u);
    EXPECT_STREQ(params["label"][0].GetString(), "x=y");

    const ProcessResult bad = host({"run", "--plugins-dir", plugins.string(), "--param", "novalue"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("option --param: 'novalue' is not KEY=VALUE"), std::string::npos) << bad.err;
}

TEST_F(LifecycleTest, WorkersGetOnlyTheDocumentedEnvironment) {
    const ProcessResult result =
        run_into(output, {"--include", "environment"},
                 {"SECRET_TOKEN=hunter2", "OMP_NUM_THREADS=3", "GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824",
                  "MALLOC_ARENA_MAX=2"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto report = read_json(files_matching(output / "fixture_faults", "fixture_faults_", ".json").at(0));
    const auto& info = report["benchmark_scenarios"][0]["info"];
    EXPECT_STREQ(info["BENCHHOST_WORKER"].GetString(), "1");
    EXPECT_STREQ(info["OMP_NUM_THREADS"].GetString(), "3");
    EXPECT_STREQ(info["SECRET_TOKEN"].GetString(), "(unset)");
    // The allocator's settings reach the worker: they change what it measures.
    EXPECT_STREQ(info["GLIBC_TUNABLES"].GetString(), "glibc.malloc.trim_threshold=1073741824");
    EXPECT_STREQ(info["MALLOC_ARENA_MAX"].GetString(), "2");
    // Those are the user's choice: benchhost adds none of its own. Then 64 MiB is above
    // glibc's mmap threshold: freed, it goes back to the system, and writing it again
    // faults every page in (16,384 of 4 KiB).
    EXPECT_STREQ(info["MALLOC_MMAP_THRESHOLD_"].GetString(), "(unset)");
    EXPECT_STREQ(info["BENCHHOST_MALLOC"].GetString(), "(unset)");
    EXPECT_GT(std::stol(info["refaults_64mib"].GetString()), 8000);

    // Without them, the workers keep what they free, however large.
    const fs::path kept = work / "kept";
    ASSERT_EQ(run_into(kept, {"--include", "environment"}).exit_code, 0);
    const auto kept_report = read_json(files_matching(kept / "fixture_faults", "fixture_faults_", ".json").at(0));
    const auto& kept_info = kept_report["benchmark_scenarios"][0]["info"];
    EXPECT_STREQ(kept_info["MALLOC_MMAP_THRESHOLD_"].GetString(), "4294967296");
    EXPECT_STREQ(kept_info["MALLOC_TRIM_THRESHOLD_"].GetString(), "4294967296");
    EXPECT_STREQ(kept_info["BENCHHOST_MALLOC"].GetString(), "kept");
    EXPECT_LT(std::stol(kept_info["refaults_64mib"].GetString()), 1000);
}

TEST_F(LifecycleTest, OutputFolderThatCannotBeCreatedStopsTheRunBeforeItStarts) {
    write_file(work / "a_file", "x");
    const ProcessResult result = run_into(work / "a_file/out", {});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("cannot create output folder " + (work / "a_file/out").string()), std::string::npos)
        << result.err;
}

// A full disk, simulated with a file size limit: writing a report fails, the scenario
// is marked failed, and the run goes on to the end.
TEST_F(LifecycleTest, FullDiskFailsTheRunButItGoesOnToTheEnd) {
    const std::vector<std::string> argv = {benchhost_binary().string(),
                                           "run",
                                           "--plugins-dir",
                                           plugins.string(),
                                           "--output-dir",
                                           output.string(),
                                           "--include",
                                           "fixture_multi",
                                           "--measurement-iterations",
                                           "300"};
    std::vector<char*> raw;
    for (const auto& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
    raw.push_back(nullptr);
    const fs::path err_file = work / "host.stderr";
    const pid_t pid = fork();
    if (pid == 0) {
        freopen(err_file.c_str(), "w", stderr);
        freopen("/dev/null", "w", stdout);
        signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
        const rlimit limit{12 * 1024, 12 * 1024};
        setrlimit(RLIMIT_FSIZE, &limit);
        execv(raw[0], raw.data());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const std::string err = read_file(err_file);
    ASSERT_TRUE(WIFEXITED(status)) << err;
    EXPECT_EQ(WEXITSTATUS(status), 1) << err;
    EXPECT_NE(err.find("File too large"), std::string::npos) << err;
    // The run went on to the end: the third scenario succeeded.
    const auto last = err.rfind("[3/3] ");
    ASSERT_NE(last, std::string::npos) << err;
    EXPECT_NE(err.substr(last, err.find('\n', last) - last).find(": success"), std::string::npos) << err;
}

TEST_F(LifecycleTest, PluginNamesCannotEscapeTheOutputFolder) {
    const std::string bytes = read_file(fixtures / "performance/libfixture_single.so");
    write_file(plugins / "performance/lib..so", bytes);
    write_file(plugins / "performance/lib\x01evil.so", bytes);
    const ProcessResult result = run_into(output, {"--category", "performance"});
    EXPECT_EQ(result.exit_code, 1) << result.err;
    const auto summary = read_json(output / "benchmark_summary.json");
    ASSERT_EQ(summary["results"].Size(), 2u);
    for (const auto& entry : summary["results"].GetArray()) {
        EXPECT_STREQ(entry["status"].GetString(), "rejected");
        EXPECT_NE(std::string(entry["reason"].GetString()).find("may only use letters, digits"), std::string::npos);
        const fs::path report = output / entry["report"].GetString();
        EXPECT_TRUE(fs::exists(report)) << report;
        EXPECT_EQ(fs::weakly_canonical(report).string().rfind(fs::weakly_canonical(output).string(), 0), 0u) << report;
    }
    // Nothing was written beside the output folder.
    for (const auto& entry : fs::directory_iterator(work.path())) {
        const std::string name = entry.path().filename().string();
        EXPECT_TRUE(name == "plugins" || name == "out" || name.starts_with("host.")) << name;
    }
}

}  // namespace

namespace {

/// The fake NVML on the library path of the hosts this test starts, with `script`, and
/// the log of the clock locks it was asked for.
class FakeNvml {
public:
    explicit FakeNvml(const std::string& script) {
        write_file(dir_ / "script.txt", script);
        const char* path = std::getenv("LD_LIBRARY_PATH");
        saved_path_ = path ? path : "";
        setenv("LD_LIBRARY_PATH", (std::string(BENCH_TEST_FAKE_NVML_DIR) + ":" + saved_path_).c_str(), 1);
        setenv("BENCH_FAKE_NVML_SCRIPT", (dir_ / "script.txt").c_str(), 1);
        setenv("BENCH_FAKE_NVML_LOG", log().c_str(), 1);
    }
    ~FakeNvml() {
        setenv("LD_LIBRARY_PATH", saved_path_.c_str(), 1);
        unsetenv("BENCH_FAKE_NVML_SCRIPT");
        unsetenv("BENCH_FAKE_NVML_LOG");
    }
    fs::path log() const { return dir_ / "nvml.log"; }
    std::string calls() const { return fs::exists(log()) ? read_file(log()) : ""; }

private:
    TempDir dir_;
    std::string saved_path_;
};

}  // namespace

TEST_F(LifecycleTest, GpuClocksLockedForTheRunAreUnlockedWhenCtrlCStopsIt) {
    FakeNvml nvml("name Fake H100\n");
    BackgroundHost background(run_args({"--lock-clocks", "base", "--devices", "cuda"}), work.path());
    ASSERT_TRUE(wait_for_text(output / "benchmark_summary.json", "gamma"));  // the log exists from here on
    ASSERT_TRUE(wait_for_text(log_file(), "[4/4] integration/fixture_faults/hangs"));
    EXPECT_EQ(nvml.calls(), "lock 0 0xffffff01 0xffffff01\n");  // locked while it runs
    kill(background.pid(), SIGINT);
    EXPECT_EQ(background.wait(10s), 130);
    EXPECT_EQ(nvml.calls(), "lock 0 0xffffff01 0xffffff01\nreset 0\n");
    const std::string log = read_file(log_file());
    EXPECT_NE(log.find("GPU clocks locked for the run: base clock on GPU 0 (Fake H100)"), std::string::npos) << log;
    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_STREQ(summary["context"]["gpu"]["locked_clocks"].GetString(), "base clock on GPU 0 (Fake H100)");
    expect_reports_match_schema(output);
}

TEST_F(LifecycleTest, GpuClocksThatCannotBeLockedStopTheRunBeforeItsFirstScenario) {
    FakeNvml nvml("lock_error 4\n");
    const ProcessResult denied = host(run_args({"--lock-clocks", "1410", "--devices", "cuda:0"}));
    EXPECT_EQ(denied.exit_code, 2) << denied.err;
    EXPECT_NE(
        denied.err.find("--lock-clocks: cannot lock the clocks of GPU 0 (Fake NVML GPU) at 1410 MHz: "
                        "nvmlDeviceSetGpuLockedClocks failed: Insufficient Permissions (locking clocks needs root)"),
        std::string::npos)
        << denied.err;
    EXPECT_FALSE(fs::exists(output / "fixture_multi"));  // nothing ran
    EXPECT_EQ(nvml.calls(), "");

    // A CPU-only plan locks nothing, and says so.
    const ProcessResult cpu = run_into(work / "cpu", {"--include", "fixture_multi", "--measurement-iterations", "3",
                                                      "--lock-clocks", "base", "--devices", "cpu"});
    EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_NE(cpu.err.find("--lock-clocks base: no scenario runs on a GPU, so no clock was locked"), std::string::npos)
        << cpu.err;

    // --throttle-cooldown and --discard-throttled act on a CUDA device only: a CPU-only plan says so.
    const std::string cooldown_warning =
        "--throttle-cooldown: no scenario runs on a CUDA device (--devices cuda), so no cool-down is taken";
    const std::string discard_warning =
        "--discard-throttled: no scenario runs on a CUDA device (--devices cuda), so no sample is discarded";
    const ProcessResult throttle_cpu =
        run_into(work / "throttle-cpu", {"--include", "fixture_multi", "--measurement-iterations", "3",
                                         "--throttle-cooldown", "2", "--discard-throttled", "--devices", "cpu"});
    EXPECT_EQ(throttle_cpu.exit_code, 0) << throttle_cpu.err;
    EXPECT_NE(throttle_cpu.err.find(cooldown_warning), std::string::npos) << throttle_cpu.err;
    EXPECT_NE(throttle_cpu.err.find(discard_warning), std::string::npos) << throttle_cpu.err;
    const ProcessResult throttle_gpu =
        run_into(work / "throttle-gpu", {"--include", "fixture_multi", "--measurement-iterations", "3",
                                         "--throttle-cooldown", "2", "--discard-throttled", "--devices", "cuda"});
    EXPECT_EQ(throttle_gpu.err.find(cooldown_warning), std::string::npos) << throttle_gpu.err;
    EXPECT_EQ(throttle_gpu.err.find(discard_warning), std::string::npos) << throttle_gpu.err;

    const ProcessResult bad = host(run_args({"--lock-clocks", "fast"}));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("'fast' is not a clock: 'base' (the GPU's base clock) or MHz, e.g. 1410"), std::string::npos)
        << bad.err;
}
