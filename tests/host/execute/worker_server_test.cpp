// Process isolation through the worker server (execute/worker_server.hpp): scenarios
// run by execute_scenario() in this test process, which is the host here: its main()
// below also serves as the worker server, as benchhost's does. The tests check
// behaviour, never speed: how scenarios end, how a worker is set up, that a timeout
// kills the worker's whole group, that a server that dies is replaced, and that no
// process or zombie is left behind.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include "execute/executor.hpp"
#include "execute/memory_cgroup.hpp"
#include "execute/worker_server.hpp"
#include "json/result_json.hpp"

#include "../../support/processes.hpp"
#include "../../support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace benchhost;
using namespace std::chrono_literals;
using benchtest::TempDir;

const fs::path fixtures = BENCH_TEST_FIXTURE_PLUGIN_DIR;
const fs::path broken_fixtures = BENCH_TEST_BROKEN_PLUGIN_DIR;
const fs::path worker_fixture = fs::path(BENCH_TEST_EXECUTE_FIXTURE_DIR) / "integration/libfixture_worker.so";
const fs::path faults_fixture = fixtures / "integration/libfixture_faults.so";
const fs::path hostile_fixture = broken_fixtures / "integration/libfixture_hostile.so";

PlannedScenario planned(const fs::path& plugin, const std::string& benchmark, const std::string& symbol = "") {
    PlannedScenario scenario;
    std::string name = plugin.stem().string();
    if (name.starts_with("lib")) name.erase(0, 3);
    scenario.config.category = plugin.parent_path().filename().string();
    scenario.config.plugin = name;
    scenario.config.benchmark = benchmark;
    scenario.config.scenario_name = benchmark;
    scenario.config.warmup_iterations = 0;
    scenario.config.measurement_iterations = 3;
    scenario.plugin_path = plugin;
    scenario.plugin_version = "1.0.0";
    scenario.symbol = symbol.empty() ? "benchmark_" + benchmark : symbol;
    return scenario;
}

// ---------------------------------------------------------------- processes, from /proc

/// The parent and the state letter of `pid`; {0, 0} when it does not exist.
std::pair<pid_t, char> parent_and_state(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return {0, 0};
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    return {parent, state};
}

std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = std::stoi(name);
        if (parent_and_state(pid).first == parent) found.push_back(pid);
    }
    return found;
}

/// Waits until `condition` holds; false when it still does not after `limit`.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(10ms);
    }
    return true;
}

/// No such process, or a zombie that only its parent (or init) can still reap.
bool dead(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    const char state = parent_and_state(pid).second;
    return state == 0 || state == 'Z';
}

/// No such process at all: not even a zombie.
bool reaped(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

/// The outcome's warnings about processes the worker server stopped.
std::vector<std::string> stopped_warnings(const ScenarioOutcome& outcome) {
    std::vector<std::string> found;
    for (const std::string& warning : outcome.result.warnings)
        if (warning.starts_with("stopped ")) found.push_back(warning);
    return found;
}

pid_t read_pid_file(const fs::path& file) {
    pid_t pid = 0;
    std::ifstream(file) >> pid;
    return pid;
}

class WorkerServer : public ::testing::Test {
protected:
    WorkerServer() : log_("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_text_)) {
        log_.set_level(spdlog::level::debug);
        options_.timeout_s = 60;
    }

    void TearDown() override {
        // No leftover: this process has no child but the running server, not even a
        // zombie of an earlier one.
        const pid_t server = worker_server_pid();
        for (const pid_t child : children_of(getpid()))
            EXPECT_EQ(child, server) << "a child of the test process that is not the worker server";
    }

    ScenarioOutcome run(const PlannedScenario& scenario) { return execute_scenario(scenario, options_, log_); }
    std::string log_text() const { return log_text_.str(); }

    std::ostringstream log_text_;
    spdlog::logger log_;
    ExecutionOptions options_;
    TempDir scratch_;
};

// ---------------------------------------------------------------- results and statuses

TEST_F(WorkerServer, RunsScenariosOneAfterAnotherOnOneServer) {
    const PlannedScenario scenario =
        planned(fixtures / "performance/libfixture_single.so", "fixture_single", "run_benchmark");
    const ScenarioOutcome first = run(scenario);
    ASSERT_EQ(first.result.status, bench::Status::success) << first.result.reason << "\n" << first.log_tail;
    const pid_t server = worker_server_pid();
    EXPECT_GT(server, 0);
    const bench::Series* latency = first.result.find_series("latency");
    ASSERT_NE(latency, nullptr);
    EXPECT_EQ(latency->samples.size(), 3u);
    for (const char* scalar : {"answer", "plugin_load", "peak_rss"})
        EXPECT_NE(first.result.find_scalar(scalar), nullptr) << scalar;
    EXPECT_TRUE(first.result.monitors.count("cpu_metrics")) << "the monitors ran around the entry point";
    EXPECT_GT(first.wall_time_s, 0);
    EXPECT_FALSE(first.crashed_while_loading);

    const ScenarioOutcome second = run(scenario);
    EXPECT_EQ(second.result.status, bench::Status::success) << second.result.reason;
    EXPECT_EQ(worker_server_pid(), server) << "the second scenario ran on the same server";
}

TEST_F(WorkerServer, TellsHowAScenarioEnded) {
    struct Case {
        std::string benchmark;
        bench::Status status;
        std::string reason;
    };
    const std::vector<Case> cases = {
        {"ok", bench::Status::success, ""},
        {"skips", bench::Status::skipped, "bfloat16 is not supported here"},
        {"throws", bench::Status::failed, "threw std::runtime_error: model file is corrupt"},
        {"segfaults", bench::Status::crashed, "crashed with SIGSEGV (Segmentation fault)"},
        {"aborts", bench::Status::crashed, "crashed with SIGABRT (Aborted)"},
        {"exits", bench::Status::exited, "the worker exited with status 3 before reporting a result"},
    };
    for (const Case& c : cases) {
        const ScenarioOutcome outcome = run(planned(faults_fixture, c.benchmark));
        EXPECT_EQ(outcome.result.status, c.status) << c.benchmark << ": " << outcome.result.reason;
        EXPECT_EQ(outcome.result.reason, c.reason) << c.benchmark;
        EXPECT_FALSE(outcome.crashed_while_loading) << c.benchmark;
        if (c.benchmark == "exits") {
            EXPECT_NE(outcome.log_tail.find("giving up"), std::string::npos) << outcome.log_tail;
        }
    }
}

TEST_F(WorkerServer, TellsACrashWhileLoadingFromALoadFailure) {
    const fs::path crashing = broken_fixtures / "integration/libcrash_on_load.so";
    const ScenarioOutcome crashed = run(planned(crashing, "crash_on_load", "run_benchmark"));
    EXPECT_EQ(crashed.result.status, bench::Status::crashed);
    EXPECT_EQ(crashed.result.reason, "crashed with SIGSEGV (Segmentation fault) while loading " + crashing.string());
    EXPECT_TRUE(crashed.crashed_while_loading);

    const fs::path missing = broken_fixtures / "integration/libmissing_dep.so";
    const ScenarioOutcome failed = run(planned(missing, "missing_dep", "run_benchmark"));
    EXPECT_EQ(failed.result.status, bench::Status::failed);
    EXPECT_TRUE(failed.result.reason.starts_with(missing.string() + ": cannot load: ")) << failed.result.reason;
    EXPECT_FALSE(failed.crashed_while_loading);
}

TEST_F(WorkerServer, RejectedAndSkippedScenariosStartNoWorker) {
    stop_worker_server();
    PlannedScenario rejected = planned(faults_fixture, "ok");
    rejected.reject_reason = "broken";
    PlannedScenario skipped = planned(faults_fixture, "ok");
    skipped.skip_reason = "not on this machine";
    EXPECT_EQ(run(rejected).result.status, bench::Status::rejected);
    EXPECT_EQ(run(skipped).result.status, bench::Status::skipped);
    EXPECT_EQ(worker_server_pid(), 0);
}

TEST_F(WorkerServer, OutputGoesToTheLogAndTheTail) {
    const ScenarioOutcome outcome = run(planned(worker_fixture, "prints"));
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    const std::string id = "integration/fixture_worker/prints: ";
    EXPECT_NE(log_text().find(id + "a line on stdout"), std::string::npos) << log_text();
    EXPECT_NE(log_text().find(id + "a line on stderr"), std::string::npos) << log_text();
    EXPECT_NE(outcome.log_tail.find("a line on stdout"), std::string::npos) << outcome.log_tail;
}

TEST_F(WorkerServer, AResultLargerThanAPipeComesThroughWhole) {
    PlannedScenario scenario = planned(worker_fixture, "large_result");
    scenario.config.params.set("bytes", std::to_string(3 << 20));
    const ScenarioOutcome outcome = run(scenario);
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    ASSERT_TRUE(outcome.result.info.count("payload"));
    EXPECT_EQ(outcome.result.info.at("payload").size(), std::size_t{3} << 20);
}

TEST_F(WorkerServer, AMemoryLimitEndsAsOutOfMemory) {
    options_.memory_limit_mib = 256;
    const ScenarioOutcome outcome = run(planned(hostile_fixture, "allocates_without_bound"));
    EXPECT_EQ(outcome.result.status, bench::Status::failed);
    EXPECT_TRUE(outcome.result.reason.starts_with("out of memory: the worker exceeded --memory-limit 256 MiB"))
        << outcome.result.reason;
}

// ---------------------------------------------------------------- the worker process

TEST_F(WorkerServer, AWorkerIsSetUpAsDocumented) {
    options_.memory_limit_mib = 1024;
    options_.monitor_interval_ms = 0;  // the monitors would hold descriptors of their own
    const ScenarioOutcome outcome = run(planned(worker_fixture, "inspects_its_process"));
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    const auto& info = outcome.result.info;
    EXPECT_EQ(info.at("parent"), std::to_string(worker_server_pid())) << "forked by the server";
    EXPECT_EQ(info.at("group_leader"), "yes");
    // The limit: the worker's own memory cgroup where the host can make one, else RLIMIT_DATA.
    const MemoryCgroups& cgroups = MemoryCgroups::system();
    if (cgroups.available()) {
        EXPECT_EQ(info.at("data_limit"), "unlimited");
        const std::string own = "/benchhost-" + std::to_string(getpid()) + "-";
        EXPECT_NE(info.at("cgroups").find(own), std::string::npos) << info.at("cgroups");
        for (const auto& entry : std::filesystem::directory_iterator(cgroups.parent()))
            EXPECT_EQ(entry.path().filename().string().find(own.substr(1)), std::string::npos)
                << entry.path() << ": removed when the worker ended";
    } else {
        EXPECT_EQ(info.at("data_limit"), std::to_string(std::size_t{1024} << 20)) << cgroups.why_not();
    }
    EXPECT_EQ(info.at("address_space_limit"), "unlimited") << "CUDA reserves tens of GiB of address space";
    EXPECT_EQ(info.at("death_signal"), std::to_string(SIGKILL));
    EXPECT_EQ(info.at("descriptors"), "0,1,2,3") << "the standard streams and the result channel, nothing else";
    EXPECT_EQ(info.at("stdout_is_pipe"), "yes");
    for (const char* signal_name : {"SIGINT", "SIGTERM", "SIGPIPE", "SIGCHLD"})
        EXPECT_EQ(info.at(signal_name), "default") << signal_name;
    EXPECT_EQ(info.at("blocked_signals"), "0");
    EXPECT_EQ(info.at("BENCHHOST_WORKER"), "1");
}

TEST_F(WorkerServer, WorkersAndTheServerGetOnlyTheFilteredEnvironment) {
    stop_worker_server();  // the next one starts with this environment
    setenv("SECRET_TOKEN", "hunter2", 1);
    setenv("OMP_NUM_THREADS", "3", 1);
    const ScenarioOutcome outcome = run(planned(worker_fixture, "inspects_its_process"));
    unsetenv("SECRET_TOKEN");
    unsetenv("OMP_NUM_THREADS");
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    EXPECT_EQ(outcome.result.info.at("BENCHHOST_WORKER"), "1");
    EXPECT_EQ(outcome.result.info.at("OMP_NUM_THREADS"), "3");
    EXPECT_EQ(outcome.result.info.at("SECRET_TOKEN"), "(unset)");

    std::ifstream in("/proc/" + std::to_string(worker_server_pid()) + "/environ");
    const std::string environ_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(environ_text.find("BENCHHOST_WORKER=1"), std::string::npos);
    EXPECT_EQ(environ_text.find("SECRET_TOKEN"), std::string::npos) << "the server itself has the filtered environment";
}

TEST_F(WorkerServer, ATimeoutKillsTheWorkersWholeGroup) {
    // Time enough, on a loaded machine, for the worker to load the fixture and fork its
    // child (2 s was not, now and then, with a build beside the tests on two cores).
    options_.timeout_s = 6;
    const fs::path pid_file = scratch_ / "child.pid";
    PlannedScenario scenario = planned(worker_fixture, "forks_and_hangs");
    scenario.config.params.set("pid_file", pid_file.string());
    const ScenarioOutcome outcome = run(scenario);
    EXPECT_EQ(outcome.result.status, bench::Status::timed_out);
    EXPECT_EQ(outcome.result.reason, "timed out after 6 s; the worker was killed");
    const pid_t child = read_pid_file(pid_file);
    ASSERT_GT(child, 1);
    EXPECT_TRUE(eventually([&] { return dead(child); })) << "the worker's child " << child << " outlived it";
    if (!dead(child)) kill(child, SIGKILL);
}

TEST_F(WorkerServer, WhatAWorkerLeavesBehindIsKilledAndReaped) {
    const fs::path pid_file = scratch_ / "child.pid";
    PlannedScenario scenario = planned(hostile_fixture, "leaves_a_child");
    scenario.config.params.set("pid_file", pid_file.string());
    const ScenarioOutcome outcome = run(scenario);
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    const pid_t child = read_pid_file(pid_file);
    ASSERT_GT(child, 1);
    // Killed with the group, and reaped by the server, its subreaper: not even a zombie.
    EXPECT_TRUE(eventually([&] { return reaped(child); })) << "the plugin's child " << child << " is still there";
    // Nothing else is left either: the server's only child is, at most, its spare.
    EXPECT_TRUE(eventually([&] { return children_of(worker_server_pid()).size() <= 1; }))
        << "the server has children left";
    // Stopped by the server, which says so: a fork that executed nothing has no command of its own.
    EXPECT_EQ(stopped_warnings(outcome),
              std::vector<std::string>{"stopped 1 process the scenario left running: a fork of the worker (pid " +
                                       std::to_string(child) + ")"});
    if (!reaped(child)) kill(child, SIGKILL);
}

TEST_F(WorkerServer, WhatAWorkerLeavesInSessionsOfItsOwnIsStoppedAndNamed) {
    const std::vector<std::string> sleep = {"sleep", benchtest::sleep_marker(1)};
    const benchtest::KillsOnExit cleanup(sleep);
    PlannedScenario scenario = planned(hostile_fixture, "leaves_processes_running");
    scenario.config.params.set("marker", sleep[1]);
    const ScenarioOutcome outcome = run(scenario);
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason << "\n" << outcome.log_tail;
    const auto started = std::find_if(outcome.result.scalars.begin(), outcome.result.scalars.end(),
                                      [](const auto& scalar) { return scalar.name == "started"; });
    ASSERT_NE(started, outcome.result.scalars.end());
    EXPECT_EQ(started->value, 3) << "the fixture did not start its three processes";
    // Gone by the time the scenario has ended: one ignored SIGTERM, one lost its parent to it.
    EXPECT_EQ(benchtest::processes_with_command_line(sleep), std::vector<pid_t>{});
    const std::vector<std::string> stopped = stopped_warnings(outcome);
    ASSERT_EQ(stopped.size(), 1u);
    const std::string& warning = stopped[0];
    EXPECT_TRUE(warning.starts_with("stopped 3 processes the scenario left running: sleep " + sleep[1] + " (pid "))
        << warning;
    // The spare forked after them is the server's own, left alone, and runs the next scenario.
    EXPECT_TRUE(eventually([&] { return children_of(worker_server_pid()).size() == 1; }));
    const ScenarioOutcome next = run(planned(faults_fixture, "ok"));
    EXPECT_EQ(next.result.status, bench::Status::success) << next.result.reason;
    EXPECT_EQ(stopped_warnings(next), std::vector<std::string>{});
}

// ---------------------------------------------------------------- the server's life

TEST_F(WorkerServer, AServerKilledWhileIdleIsReplaced) {
    const PlannedScenario scenario = planned(faults_fixture, "ok");
    ASSERT_EQ(run(scenario).result.status, bench::Status::success);
    const pid_t first = worker_server_pid();
    ASSERT_GT(first, 0);
    kill(first, SIGKILL);
    ASSERT_TRUE(eventually([&] { return dead(first); }));

    const ScenarioOutcome outcome = run(scenario);
    EXPECT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    EXPECT_GT(worker_server_pid(), 0);
    EXPECT_NE(worker_server_pid(), first);
    EXPECT_TRUE(reaped(first)) << "the dead server was reaped";
}

TEST_F(WorkerServer, AServerKilledWhileAScenarioRunsIsReportedAndReplaced) {
    start_worker_server();  // from this thread, which outlives the scenario's
    const pid_t server = worker_server_pid();
    ASSERT_GT(server, 0);
    options_.timeout_s = 30;  // far later than the server's end, which stops the hang
    const fs::path pid_file = scratch_ / "worker.pid";
    PlannedScenario hangs = planned(worker_fixture, "writes_its_pid_and_hangs");
    hangs.config.params.set("pid_file", pid_file.string());
    ScenarioOutcome outcome;
    std::thread scenario([&] { outcome = run(hangs); });
    const bool started = eventually([&] { return fs::exists(pid_file); });
    kill(server, SIGKILL);
    scenario.join();
    ASSERT_TRUE(started) << "the worker never ran";
    const pid_t worker = read_pid_file(pid_file);

    EXPECT_EQ(outcome.result.status, bench::Status::crashed);
    EXPECT_EQ(outcome.result.reason, "the worker was killed: the worker server that started it ended");
    EXPECT_FALSE(outcome.crashed_while_loading) << "not the plugin's fault";
    EXPECT_TRUE(eventually([&] { return dead(worker); })) << "the worker " << worker << " outlived its server";
    EXPECT_NE(log_text().find("the worker server ended (killed by SIGKILL"), std::string::npos) << log_text();
    EXPECT_TRUE(reaped(server));

    const ScenarioOutcome next = run(planned(faults_fixture, "ok"));
    EXPECT_EQ(next.result.status, bench::Status::success) << next.result.reason;
    EXPECT_NE(worker_server_pid(), server);
}

TEST_F(WorkerServer, KillingTheHostKillsTheServerAndItsWorker) {
    stop_worker_server();
    const fs::path pid_file = scratch_ / "worker.pid";
    const pid_t host = fork();
    ASSERT_GE(host, 0);
    if (host == 0) {
        // The host: runs a scenario that hangs until it is killed.
        options_.timeout_s = 0;
        PlannedScenario hangs = planned(worker_fixture, "writes_its_pid_and_hangs");
        hangs.config.params.set("pid_file", pid_file.string());
        run(hangs);
        _exit(0);
    }
    const bool started = eventually([&] { return fs::exists(pid_file); });
    const std::vector<pid_t> servers = children_of(host);
    kill(host, SIGKILL);
    waitpid(host, nullptr, 0);
    ASSERT_TRUE(started) << "the host's worker never ran";
    ASSERT_EQ(servers.size(), 1u) << "the host has one child: its worker server";
    const pid_t server = servers.front(), worker = read_pid_file(pid_file);
    EXPECT_TRUE(eventually([&] { return dead(server); })) << "the server " << server << " outlived the host";
    EXPECT_TRUE(eventually([&] { return dead(worker); })) << "the worker " << worker << " outlived the host";
    if (!dead(worker)) kill(worker, SIGKILL);
    if (!dead(server)) kill(server, SIGKILL);
}

TEST_F(WorkerServer, StoppingTheServerLeavesNoProcess) {
    ASSERT_EQ(run(planned(faults_fixture, "ok")).result.status, bench::Status::success);
    const pid_t server = worker_server_pid();
    ASSERT_GT(server, 0);
    const std::vector<pid_t> spares = children_of(server);  // a worker forked ahead, waiting
    stop_worker_server();
    EXPECT_EQ(worker_server_pid(), 0);
    EXPECT_TRUE(reaped(server));
    EXPECT_TRUE(children_of(getpid()).empty());
    for (const pid_t spare : spares) EXPECT_TRUE(eventually([&] { return dead(spare); })) << spare;
}

// ---------------------------------------------------------------- preloaded parents

const fs::path preload_fixture = fs::path(BENCH_TEST_EXECUTE_FIXTURE_DIR) / "libfixture_preload.so";

/// How a request sent straight to the server ended.
struct DirectRun {
    pid_t pid = 0;
    bool ended = false;
    int wait_status = 0;
    std::string result;  // what the worker sent after 'R'
    std::string output;
};

/// Sends `request` to the worker server and reads its pipes to their end.
DirectRun run_request(const WorkerRequest& request) {
    const WorkerLaunch launch = launch_worker(request);
    DirectRun run;
    std::string status, channel;
    bool open[3] = {true, true, true};
    const int fds[3] = {launch.status, launch.output, launch.result};
    std::string* into[3] = {&status, &run.output, &channel};
    char buffer[65536];
    while (open[0] || open[1] || open[2]) {
        pollfd polled[3];
        nfds_t count = 0;
        for (int i = 0; i < 3; ++i)
            if (open[i]) polled[count++] = {fds[i], POLLIN, 0};
        if (poll(polled, count, 60'000) <= 0) break;
        for (nfds_t k = 0; k < count; ++k) {
            if (polled[k].revents == 0) continue;
            const int i = static_cast<int>(std::find(fds, fds + 3, polled[k].fd) - fds);
            const ssize_t n = read(fds[i], buffer, sizeof buffer);
            if (n > 0) into[i]->append(buffer, static_cast<std::size_t>(n));
            else open[i] = false;
        }
    }
    for (const int fd : fds) close(fd);
    for (std::size_t at = 0; at + sizeof(WorkerStatusRecord) <= status.size(); at += sizeof(WorkerStatusRecord)) {
        WorkerStatusRecord record;
        std::memcpy(&record, status.data() + at, sizeof record);
        if (record.kind == WorkerStatusRecord::started) run.pid = record.value;
        if (record.kind == WorkerStatusRecord::ended) run.ended = true, run.wait_status = record.value;
        if (record.kind == WorkerStatusRecord::stopped) at += static_cast<std::size_t>(record.value);
    }
    if (const std::size_t r = channel.find('R'); r != std::string::npos) run.result = channel.substr(r + 1);
    return run;
}

class WorkerPreloads : public WorkerServer {
protected:
    /// reports_preload, with libfixture_preload.so loaded ahead by its parent, whose
    /// environment has FIXTURE_PRELOAD_LOG (the library's loads) and `variables`.
    WorkerRequest request(const std::vector<std::string>& variables = {},
                          const std::string& benchmark = "reports_preload") {
        PlannedScenario scenario = planned(worker_fixture, benchmark);
        scenario.config.params.set("library", preload_fixture.string());
        scenario.config.params.set("pid_file", (scratch_ / "worker.pid").string());
        WorkerRequest made;
        made.plugin = worker_fixture.string();
        made.symbol = scenario.symbol;
        made.config_json = config_to_json(scenario.config);
        made.monitor_interval_ms = 0;
        made.environment = with_variables(worker_environment(), variables);
        made.environment.push_back("FIXTURE_PRELOAD_LOG=" + loads_.string());
        made.preload.libraries = {preload_fixture.string()};
        return made;
    }

    /// The result's info, after checking that the worker ran and succeeded.
    static std::map<std::string, std::string> info_of(const DirectRun& run) {
        EXPECT_GT(run.pid, 0) << run.output;
        EXPECT_TRUE(run.ended && WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == 0) << run.output;
        if (run.result.empty()) return {};
        const bench::ScenarioResult result = result_from_json(run.result);
        EXPECT_EQ(result.status, bench::Status::success) << result.reason << "\n" << run.output;
        return result.info;
    }

    /// The lines of FIXTURE_PRELOAD_LOG: "<pid> <tag>", one a load.
    std::vector<std::string> loads() const {
        std::vector<std::string> lines;
        std::ifstream in(loads_);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }

    fs::path loads_ = scratch_ / "loads.txt";
};

TEST_F(WorkerPreloads, AParentLoadsOnceWhatEveryWorkerItForksHasLoaded) {
    stop_worker_server();
    const DirectRun first = run_request(request());
    const DirectRun second = run_request(request());
    const auto a = info_of(first), b = info_of(second);
    const pid_t server = worker_server_pid();
    ASSERT_EQ(loads().size(), 1u) << "the library was loaded more than once, or never";
    const std::string loader = loads().front().substr(0, loads().front().find(' '));
    for (const auto* info : {&a, &b}) {
        EXPECT_EQ(info->at("loaded"), "yes");
        EXPECT_EQ(info->at("loads"), "1");
        EXPECT_EQ(info->at("loader"), loader) << "loaded by another process than the parent";
        EXPECT_NE(info->at("pid"), loader) << "the worker is the parent itself";
        // The worker is the server's child, as every worker: it reaps it.
        EXPECT_EQ(info->at("parent"), std::to_string(server));
    }
    EXPECT_NE(a.at("pid"), b.at("pid")) << "a worker ran two scenarios";
    EXPECT_EQ(a.at("pid"), std::to_string(first.pid));
    EXPECT_EQ(b.at("pid"), std::to_string(second.pid));
    // The parent stays, a child of the server; the workers are gone, reaped.
    const pid_t parent = std::stoi(loader);
    EXPECT_EQ(parent_and_state(parent).first, server);
    EXPECT_TRUE(eventually([&] { return reaped(first.pid) && reaped(second.pid); }));
}

TEST_F(WorkerPreloads, AnotherEnvironmentGetsAnotherParentLoadedWithIt) {
    const auto a = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=a"})));
    const auto b = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=b"})));
    const auto a_again = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=a"})));
    // The environment was set before the library loaded: its initializer read it.
    EXPECT_EQ(a.at("tag"), "a");
    EXPECT_EQ(b.at("tag"), "b");
    EXPECT_NE(a.at("loader"), b.at("loader"));
    EXPECT_EQ(a_again.at("loader"), a.at("loader"));
    EXPECT_EQ(loads().size(), 2u);
}

TEST_F(WorkerPreloads, AtMostTwoParentsRunTheOneUsedLeastRecentlyGoes) {
    const auto a = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=a"})));
    const auto b = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=b"})));
    const auto c = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=c"})));
    const pid_t first = std::stoi(a.at("loader"));
    EXPECT_TRUE(eventually([&] { return reaped(first); })) << "the parent used least recently still runs";
    EXPECT_FALSE(dead(std::stoi(b.at("loader"))));
    EXPECT_FALSE(dead(std::stoi(c.at("loader"))));
    const auto a_again = info_of(run_request(request({"FIXTURE_PRELOAD_TAG=a"})));
    EXPECT_NE(a_again.at("loader"), a.at("loader"));
    EXPECT_EQ(a_again.at("tag"), "a");
    EXPECT_EQ(loads().size(), 4u);
}

TEST_F(WorkerPreloads, APreloadThatCannotLoadRunsTheRequestThePlainWay) {
    WorkerRequest missing = request();
    missing.preload.libraries = {(scratch_ / "libmissing.so").string()};
    const auto info = info_of(run_request(missing));
    EXPECT_EQ(info.at("loaded"), "no");
    EXPECT_EQ(info.at("parent"), std::to_string(worker_server_pid()));
}

TEST_F(WorkerPreloads, AParentThatCrashesWhileLoadingIsNotTriedAgain) {
    const auto first = info_of(run_request(request({"FIXTURE_PRELOAD_CRASH=1"})));
    const auto second = info_of(run_request(request({"FIXTURE_PRELOAD_CRASH=1"})));
    EXPECT_EQ(first.at("loaded"), "no");
    EXPECT_EQ(second.at("loaded"), "no");
    EXPECT_EQ(loads().size(), 1u) << "a parent was forked again for a preload that crashed";
    // Another environment is another parent, which loads.
    EXPECT_EQ(info_of(run_request(request())).at("loaded"), "yes");
}

TEST_F(WorkerPreloads, APreloadedWorkerIsSetUpAsEveryWorker) {
    WorkerRequest inspects = request({"OMP_NUM_THREADS=3"}, "inspects_its_process");
    const auto info = info_of(run_request(inspects));
    EXPECT_EQ(info.at("group_leader"), "yes");
    EXPECT_EQ(info.at("death_signal"), std::to_string(SIGKILL));
    EXPECT_EQ(info.at("descriptors"), "0,1,2,3");
    EXPECT_EQ(info.at("SIGINT"), "default");
    EXPECT_EQ(info.at("SIGCHLD"), "default");
    EXPECT_EQ(info.at("blocked_signals"), "0");
    EXPECT_EQ(info.at("OMP_NUM_THREADS"), "3");
    EXPECT_EQ(info.at("parent"), std::to_string(worker_server_pid()));
}

TEST_F(WorkerPreloads, StoppingTheServerEndsItsParents) {
    const pid_t parent = std::stoi(info_of(run_request(request())).at("loader"));
    ASSERT_FALSE(dead(parent));
    stop_worker_server();
    EXPECT_TRUE(eventually([&] { return dead(parent); })) << "the parent " << parent << " outlived its server";
    EXPECT_TRUE(children_of(getpid()).empty());
}

TEST_F(WorkerPreloads, KillingTheHostKillsTheServerItsParentAndItsWorker) {
    stop_worker_server();
    const fs::path pid_file = scratch_ / "worker.pid";
    const WorkerRequest hangs = request({}, "writes_its_pid_and_hangs");
    const pid_t host = fork();
    ASSERT_GE(host, 0);
    if (host == 0) {
        run_request(hangs);
        _exit(0);
    }
    const bool started = eventually([&] { return fs::exists(pid_file); });
    const std::vector<pid_t> servers = children_of(host);
    const pid_t worker = read_pid_file(pid_file), worker_parent = parent_and_state(worker).first;
    kill(host, SIGKILL);
    waitpid(host, nullptr, 0);
    ASSERT_TRUE(started) << "the host's worker never ran";
    ASSERT_EQ(servers.size(), 1u) << "the host has one child: its worker server";
    ASSERT_EQ(loads().size(), 1u);
    const pid_t server = servers.front();
    const pid_t parent = std::stoi(loads().front().substr(0, loads().front().find(' ')));
    EXPECT_EQ(worker_parent, server) << "the worker is not the server's child";
    for (const pid_t pid : {server, parent, worker})
        EXPECT_TRUE(eventually([&] { return dead(pid); })) << pid << " outlived the host";
    for (const pid_t pid : {worker, parent, server})
        if (!dead(pid)) kill(pid, SIGKILL);
}

}  // namespace

// This test program is the host, so it is also the worker server: the server is
// /proc/self/exe, started with the argument that run_worker_server_if_requested() knows.
int main(int argc, char** argv) {
    if (const std::optional<int> status = benchhost::run_worker_server_if_requested(argc, argv)) return *status;
    ::testing::InitGoogleTest(&argc, argv);
    const int status = RUN_ALL_TESTS();
    benchhost::stop_worker_server();
    return status;
}
