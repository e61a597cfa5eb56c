// Distributed scenarios, run by the real host: a benchmark declared distributed runs as
// world_size rank processes with torchrun's environment, each pinned to its share of the
// cores; every rank's samples are gathered; a rank that raises, crashes, exits or hangs
// ends its scenario, named, with no rank left running, and the run goes on (a Python
// rank's hang and a C++ one's alike, and a C++ rank's progress from its start to its end); a
// taken rendezvous port is passed over. The plugins
// are written here into a folder of the test's own; those that meet in collectives use
// the venv's PyTorch (gloo).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../support/mock_run.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

class DistributedTest : public MockRunTest {
protected:
    DistributedTest() { output = work / "results"; }

    void SetUp() override {
        MockRunTest::SetUp();
        fs::create_directories(out);
    }

    /// Runs the host on `plugins` with `args`, the ranks writing into `out`; returns the
    /// scenarios by name.
    std::map<std::string, Scenario> run(std::vector<std::string> args, int expected_exit) {
        args.insert(args.begin(), {"--param", "out=" + out.string()});
        return MockRunTest::run(args, expected_exit);
    }

    static std::vector<double> samples(const Scenario& s, const char* name) {
        std::vector<double> values;
        const auto& m = (*s.report)["measurements"];
        if (!m.HasMember(name) || !m[name].HasMember("measurements")) return values;
        for (const auto& v : m[name]["measurements"].GetArray()) values.push_back(v.GetDouble());
        return values;
    }
    static std::string info(const Scenario& s, const char* key) {
        const auto& i = (*s.report)["info"];
        return i.HasMember(key) ? i[key].GetString() : "(none)";
    }
    static std::string warnings(const Scenario& s) {
        std::string text;
        for (const auto& w : (*s.report)["warnings"].GetArray()) text += std::string(w.GetString()) + "\n";
        return text;
    }

    /// Both ranks of `s` recorded `count` samples of series `name` (`name`.rank0, .rank1),
    /// and the scenario's `name` is, sample by sample, the slower rank's.
    static void expect_two_ranks_gathered(const Scenario& s, const std::string& name, std::size_t count) {
        const auto merged = samples(s, name.c_str()), zero = samples(s, (name + ".rank0").c_str()),
                   one = samples(s, (name + ".rank1").c_str());
        ASSERT_EQ(merged.size(), count);
        ASSERT_EQ(zero.size(), count);
        ASSERT_EQ(one.size(), count);
        for (std::size_t i = 0; i < count; ++i) EXPECT_DOUBLE_EQ(merged[i], std::max(zero[i], one[i])) << i;
    }

    /// The pids the ranks wrote into `out` (<name>.pid files), and those of them still running.
    std::vector<pid_t> survivors() const {
        std::vector<pid_t> alive;
        for (const auto& file : fs::directory_iterator(out)) {
            if (file.path().extension() != ".pid") continue;
            const pid_t pid = std::stoi(read_file(file.path()));
            if (kill(pid, 0) == 0 || errno != ESRCH) alive.push_back(pid);
        }
        return alive;
    }
    std::size_t pid_files() const {
        std::size_t count = 0;
        for (const auto& file : fs::directory_iterator(out)) count += file.path().extension() == ".pid";
        return count;
    }

    /// `hangs` (2 ranks) timed out after `timeout_s`, naming rank 1, which hung in its
    /// second sample while rank 0 waited at the next barrier; both wrote a pid file, and
    /// neither survived.
    void expect_rank_1_hung(const Scenario& hangs, int timeout_s) const {
        EXPECT_EQ(hangs.status, "timed_out") << hangs.reason;
        EXPECT_NE(hangs.reason.find("timed out after " + std::to_string(timeout_s) +
                                    " s: rank 1 was behind the others, timing sample 2"),
                  std::string::npos)
            << hangs.reason;
        EXPECT_NE(hangs.reason.find("rank 0 was waiting at sample 3's barrier"), std::string::npos) << hangs.reason;
        EXPECT_NE(hangs.reason.find("every rank was killed"), std::string::npos) << hangs.reason;
        EXPECT_EQ(pid_files(), 2u);
        EXPECT_TRUE(survivors().empty());
    }

    fs::path out = work / "out";  // what the ranks write
};

// Records each rank's environment, CPUs and threads into out/, and a series of samples
// that differ by rank; no collective, no PyTorch.
const char* const env_plugin = R"(import json
import os

import benchhost

NAMES = ["RANK", "LOCAL_RANK", "GROUP_RANK", "ROLE_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "ROLE_WORLD_SIZE",
         "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS"]


@benchhost.benchmark(distributed=True)
def benchmark_env(ctx):
    out = ctx.config.params["out"]
    rank = int(os.environ["RANK"])
    record = {name: os.environ.get(name) for name in NAMES}
    record["cpus"] = sorted(os.sched_getaffinity(0))
    record["threads"] = ctx.config.threads
    record["world_size"] = ctx.config.world_size
    with open(os.path.join(out, f"env_w{ctx.config.world_size}_rank{rank}.json"), "w") as f:
        json.dump(record, f)
    for i in range(3):
        ctx.add_sample("step", 1.0 + i + rank, "ms")


def benchmark_plain(ctx):
    ctx.set_info("world_size_seen", str(ctx.config.world_size))
    ctx.add_sample("step", 1.0, "ms")
)";

TEST_F(DistributedTest, EachRankHasTorchrunsEnvironmentItsOwnCoresAndItsSamplesGathered) {
    add("unit/env_ranks_py.py", env_plugin);
    auto s = run({"--world-sizes", "1,2"}, 0);
    ASSERT_EQ(s.size(), 3u) << last.err;  // env at 1 and 2 ranks; plain ignores --world-sizes
    ASSERT_EQ(s["plain"].status, "success") << s["plain"].reason << last.err;
    EXPECT_EQ(info(s["plain"], "world_size_seen"), "0");
    EXPECT_FALSE((*s["plain"].report)["metadata"]["config"].HasMember("world_size"));

    const Scenario& two = s["env[world_size=2]"];
    ASSERT_EQ(two.status, "success") << two.reason << last.err;
    EXPECT_EQ((*two.report)["metadata"]["config"]["world_size"].GetInt(), 2);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    std::set<int> seen_cpus;
    std::string port;
    for (int rank = 0; rank < 2; ++rank) {
        const auto record = read_json(out / ("env_w2_rank" + std::to_string(rank) + ".json"));
        const std::string r = std::to_string(rank);
        EXPECT_STREQ(record["RANK"].GetString(), r.c_str());
        EXPECT_STREQ(record["LOCAL_RANK"].GetString(), r.c_str());
        EXPECT_STREQ(record["ROLE_RANK"].GetString(), r.c_str());
        EXPECT_STREQ(record["GROUP_RANK"].GetString(), "0");
        EXPECT_STREQ(record["WORLD_SIZE"].GetString(), "2");
        EXPECT_STREQ(record["LOCAL_WORLD_SIZE"].GetString(), "2");
        EXPECT_STREQ(record["ROLE_WORLD_SIZE"].GetString(), "2");
        EXPECT_STREQ(record["MASTER_ADDR"].GetString(), "127.0.0.1");
        if (rank == 0) port = record["MASTER_PORT"].GetString();
        EXPECT_EQ(record["MASTER_PORT"].GetString(), port);
        EXPECT_EQ(record["world_size"].GetInt(), 2);
        // Its own share of the cores, and as many threads.
        const auto& own = record["cpus"].GetArray();
        if (cpus >= 2) {
            EXPECT_EQ(static_cast<long>(own.Size()), cpus / 2);
            for (const auto& cpu : own) EXPECT_TRUE(seen_cpus.insert(cpu.GetInt()).second) << "shared " << cpu.GetInt();
        }
        EXPECT_EQ(record["threads"].GetInt(), static_cast<int>(own.Size()));
        EXPECT_EQ(std::string(record["OMP_NUM_THREADS"].GetString()), std::to_string(own.Size()));
    }
    EXPECT_EQ(info(two, "master_port"), port);
    EXPECT_EQ(info(two, "threads_per_rank"), std::to_string(cpus >= 2 ? cpus / 2 : 1));
    EXPECT_NE(info(two, "rank_cpus").find(" | "), std::string::npos) << info(two, "rank_cpus");
    // Every rank's samples: each its own series; the scenario's, the slowest rank's.
    EXPECT_EQ(samples(two, "step.rank0"), (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(samples(two, "step.rank1"), (std::vector<double>{2, 3, 4}));
    EXPECT_EQ(samples(two, "step"), (std::vector<double>{2, 3, 4}));

    const Scenario& one = s["env[world_size=1]"];
    ASSERT_EQ(one.status, "success") << one.reason;
    EXPECT_EQ(samples(one, "step"), (std::vector<double>{1, 2, 3}));
    const auto alone = read_json(out / "env_w1_rank0.json");
    EXPECT_STREQ(alone["WORLD_SIZE"].GetString(), "1");

    // The world size is in the CSV and the summary.
    const auto summary = read_json(output / "benchmark_summary.json");
    int distributed = 0;
    for (const auto& entry : summary["results"].GetArray()) distributed += entry.HasMember("world_size");
    EXPECT_EQ(distributed, 2);
}

TEST_F(DistributedTest, ATakenPortIsPassedOver) {
    // BENCHHOST_MASTER_PORT names the first port to try; the test holds it.
    add("unit/env_ranks_py.py", env_plugin);
    const int held = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(held, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    ASSERT_EQ(bind(held, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(listen(held, 4), 0);
    socklen_t length = sizeof address;
    ASSERT_EQ(getsockname(held, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const int taken = ntohs(address.sin_port);
    env = {"BENCHHOST_MASTER_PORT=" + std::to_string(taken)};
    auto s = run({"--world-sizes", "2", "--include", "env"}, 0);
    close(held);
    const Scenario& two = s["env[world_size=2]"];
    ASSERT_EQ(two.status, "success") << two.reason << last.err;
    const int used = std::stoi(info(two, "master_port"));
    EXPECT_NE(used, taken);
    EXPECT_GT(used, taken);
    const auto record = read_json(out / "env_w2_rank1.json");
    EXPECT_EQ(std::stoi(record["MASTER_PORT"].GetString()), used);
}

TEST_F(DistributedTest, ACppPluginDeclaresTheWorldSizeAxisAndItsRanksRunAsWorkers) {
    // plugins-dir is the fixture's own folder: unit/libfixture_ranks.so.
    const fs::path fixtures = BENCH_TEST_DISTRIBUTED_FIXTURE_DIR;
    plugins = fixtures;
    auto s = run({"--world-sizes", "2"}, 0);
    const Scenario& two = s["fixture_ranks[world_size=2]"];
    ASSERT_EQ(two.status, "success") << two.reason << last.err;
    EXPECT_EQ(info(two, "seen"), "rank 0 of 2, config world_size 2, master 127.0.0.1");
    EXPECT_EQ(samples(two, "step.rank1"), (std::vector<double>{2, 3, 4}));
    EXPECT_EQ(samples(two, "step"), (std::vector<double>{2, 3, 4}));

    auto failed = run({"--world-sizes", "2", "--param", "fail_rank=1"}, 1);
    const Scenario& one = failed["fixture_ranks[world_size=2]"];
    EXPECT_EQ(one.status, "failed");
    EXPECT_EQ(one.reason.rfind("rank 1 of 2: threw std::runtime_error: rank 1 fails on purpose", 0), 0u) << one.reason;

    // Its ctx.measure cannot meet the other ranks: the plugin does not link the LibTorch
    // layer, which gives their process group. Every rank fails before a sample, saying so.
    auto unlinked = run({"--world-sizes", "2", "--param", "measure=1"}, 1);
    const Scenario& measured = unlinked["fixture_ranks[world_size=2]"];
    EXPECT_EQ(measured.status, "failed");
    EXPECT_NE(measured.reason.find(": threw std::runtime_error: series 'timed': in a distributed scenario (world_size "
                                   "2) every rank times its samples alike, after a barrier of the ranks' process "
                                   "group, and this process has none: link the plugin with the SDK's LibTorch layer "
                                   "(CMake: target_link_libraries(<plugin> PRIVATE bench::sdk_torch)"),
              std::string::npos)
        << measured.reason;
}

// Ranks that meet in gloo collectives (PyTorch): equal ranks, a rank slowed on purpose,
// and a rank 0 that finds its port taken when it listens (another program took it after
// the host looked): the first attempt only.
const char* const torch_plugin = R"(import os
import socket
import time

import benchhost
import benchhost.distributed as bd


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_equal(ctx):
    ctx.measure("latency", lambda: time.sleep(0.004))


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_straggler(ctx):
    pause = 0.024 if bd.rank() == 1 else 0.004
    ctx.measure("latency", lambda: time.sleep(pause))


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_port_race(ctx):
    marker = os.path.join(ctx.config.params["out"], "port_race_attempted")
    thief = None
    if bd.rank() == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        thief = socket.socket()
        thief.bind(("", int(os.environ["MASTER_PORT"])))
        thief.listen(4)
    bd.process_group(ctx)
    ctx.measure("latency", lambda: time.sleep(0.002))
)";

TEST_F(DistributedTest, EveryRanksSamplesAreGatheredAndAStragglerIsNamed) {
    add("unit/torch_ranks_py.py", torch_plugin);
    auto s = run({"--measurement-iterations", "12", "--timeout", "300"}, 0);
    const Scenario& equal = s["equal[world_size=2]"];
    ASSERT_EQ(equal.status, "success") << equal.reason << last.err;
    for (const char* name : {"latency", "latency.rank0", "latency.rank1"})
        EXPECT_EQ(samples(equal, name).size(), 12u) << name;
    // The scenario's sample is the slowest rank's.
    const auto merged = samples(equal, "latency"), zero = samples(equal, "latency.rank0"),
               one = samples(equal, "latency.rank1");
    for (std::size_t i = 0; i < merged.size(); ++i) EXPECT_DOUBLE_EQ(merged[i], std::max(zero[i], one[i])) << i;
    EXPECT_EQ(warnings(equal).find("straggler"), std::string::npos) << warnings(equal);
    EXPECT_EQ(info(equal, "world_size"), "2");

    const Scenario& straggler = s["straggler[world_size=2]"];
    ASSERT_EQ(straggler.status, "success") << straggler.reason << last.err;
    const std::string text = warnings(straggler);
    EXPECT_NE(text.find("rank 1 is a straggler in latency: its median "), std::string::npos) << text;
    EXPECT_EQ(text.find("rank 0 is a straggler"), std::string::npos) << text;

    const Scenario& race = s["port_race[world_size=2]"];
    ASSERT_EQ(race.status, "success") << race.reason << last.err;
    EXPECT_NE(info(race, "master_ports_taken"), "(none)");
    EXPECT_NE(info(race, "master_ports_taken"), info(race, "master_port"));
}

// Rank 1 raises, kills itself mid-sample, or exits, while rank 0 waits for it in a
// collective; then a scenario that is not distributed. Each rank writes its pid.
const char* const faults_plugin = R"(import os
import signal

import benchhost
import benchhost.distributed as bd


def started(ctx, name):
    with open(os.path.join(ctx.config.params["out"], f"{name}_rank{bd.rank()}.pid"), "w") as f:
        f.write(str(os.getpid()))
    bd.process_group(ctx)


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_raises(ctx):
    started(ctx, "raises")
    if bd.rank() == 1:
        raise ValueError("rank 1 fails on purpose")
    bd.barrier()


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_killed(ctx):
    started(ctx, "killed")
    calls = []

    def step():
        calls.append(1)
        if bd.rank() == 1 and len(calls) == 3:  # the warmup call, then the second sample
            os.kill(os.getpid(), signal.SIGKILL)

    ctx.measure("latency", step)


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_exits(ctx):
    started(ctx, "exits")
    if bd.rank() == 1:
        os._exit(3)
    bd.barrier()


def benchmark_after(ctx):
    ctx.add_sample("step", 1.0, "ms")
)";

TEST_F(DistributedTest, ARankThatRaisesCrashesOrExitsEndsItsScenarioNamedAndTheRunGoesOn) {
    add("unit/faults_py.py", faults_plugin);
    auto s = run({"--timeout", "300"}, 1);
    const Scenario &raises = s["raises[world_size=2]"], &killed = s["killed[world_size=2]"],
                   &exits = s["exits[world_size=2]"];
    EXPECT_EQ(raises.status, "failed") << raises.reason;
    EXPECT_EQ(raises.reason.rfind("rank 1 of 2: raised ValueError: rank 1 fails on purpose", 0), 0u) << raises.reason;
    EXPECT_EQ(killed.status, "crashed") << killed.reason;
    EXPECT_EQ(killed.reason.rfind("rank 1 of 2: crashed with SIGKILL", 0), 0u) << killed.reason;
    EXPECT_EQ(exits.status, "exited") << exits.reason;
    EXPECT_EQ(exits.reason.rfind("rank 1 of 2: exited with status 3", 0), 0u) << exits.reason;
    EXPECT_EQ(s["after"].status, "success") << s["after"].reason;
    EXPECT_EQ(pid_files(), 6u);
    EXPECT_TRUE(survivors().empty());
}

TEST_F(DistributedTest, AHangingRankTimesOutNamedAndNoRankSurvives) {
    add("unit/hang_py.py", R"(import os
import time

import benchhost
import benchhost.distributed as bd


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_hangs(ctx):
    with open(os.path.join(ctx.config.params["out"], f"hangs_rank{bd.rank()}.pid"), "w") as f:
        f.write(str(os.getpid()))
    calls = []

    def step():
        calls.append(1)
        if bd.rank() == 1 and len(calls) == 3:
            time.sleep(3600)

    ctx.measure("latency", step)


def benchmark_after(ctx):
    ctx.add_sample("step", 1.0, "ms")
)");
    auto s = run({"--timeout", "45"}, 1);
    expect_rank_1_hung(s["hangs[world_size=2]"], 45);
    EXPECT_EQ(s["after"].status, "success") << s["after"].reason;
}

TEST_F(DistributedTest, TheCollectivesAreCheckedAndTheirBusBandwidthIsNcclTestsFactorOfTheAlgorithms) {
    const fs::path source = fs::path(BENCH_TEST_SOURCE_DIR) / "plugins/performance/collectives/collectives.py";
    add("performance/collectives.py", read_file(source));
    auto s = run({"--param", "sizes=8,4096", "--timeout", "300"}, 0);
    // nccl-tests' factors at 2 ranks.
    const std::map<std::string, double> factors = {
        {"all_reduce", 1.0}, {"all_gather", 0.5}, {"reduce_scatter", 0.5}, {"broadcast", 1.0}, {"all_to_all", 0.5}};
    int ran = 0;
    for (const auto& [collective, factor] : factors) {
        const Scenario& scenario = s[collective + "[world_size=2]"];
        if (scenario.status == "skipped") {  // a collective gloo lacks in this PyTorch: said so
            EXPECT_NE(scenario.reason.find(collective + " on gloo"), std::string::npos) << scenario.reason;
            continue;
        }
        ASSERT_EQ(scenario.status, "success") << collective << ": " << scenario.reason << last.err;
        ++ran;
        EXPECT_EQ(info(scenario, "backend"), "gloo");
        for (const std::string label : {"8B", "4KiB"}) {
            const auto latency = samples(scenario, ("latency." + label).c_str());
            const auto algbw = samples(scenario, ("algbw." + label).c_str());
            const auto busbw = samples(scenario, ("busbw." + label).c_str());
            ASSERT_EQ(latency.size(), 3u) << collective << " " << label;
            ASSERT_EQ(algbw.size(), 3u);
            ASSERT_EQ(busbw.size(), 3u);
            EXPECT_EQ(samples(scenario, ("latency." + label + ".rank1").c_str()).size(), 3u);
            const double bytes = (*scenario.report)["measurements"][("bytes." + label).c_str()]["value"].GetDouble();
            EXPECT_EQ(bytes, label == "8B" ? 8 : 4096);
            for (std::size_t i = 0; i < 3; ++i) {
                EXPECT_NEAR(busbw[i], algbw[i] * factor, 1e-9 * algbw[i]) << collective;
                // The slowest rank's bandwidth goes with the slowest rank's latency.
                EXPECT_NEAR(algbw[i], bytes / (latency[i] / 1e3) / 1e9, 1e-6 * algbw[i]) << collective;
            }
        }
    }
    EXPECT_GE(ran, 4);  // all_reduce, all_gather, broadcast and all_to_all run on gloo
    // --param collective leaves the others out.
    auto only = run({"--param", "sizes=8", "--param", "collective=broadcast", "--timeout", "300"}, 0);
    EXPECT_EQ(only["broadcast[world_size=2]"].status, "success") << only["broadcast[world_size=2]"].reason;
    EXPECT_EQ(only["all_reduce[world_size=2]"].status, "skipped");
    EXPECT_EQ(only["all_reduce[world_size=2]"].reason, "--param collective=broadcast leaves out all_reduce");
}

#if defined(BENCH_TEST_DISTRIBUTED_TORCH_FIXTURE_DIR)
// The C++ SDK's ranks (<bench/torch/distributed.hpp>): c10d's gloo process group, a barrier
// before each sample, every rank's samples gathered as the Python side's are, whether timed
// by measure_ranks or by a plain ctx.measure. --max-time would end rank 1's sampling (24 ms
// a sample) after about 4 samples: it is not applied in a distributed scenario.
TEST_F(DistributedTest, CppRanksMeetInC10dTheirSamplesAreGatheredAndARankThatThrowsIsNamed) {
    plugins = BENCH_TEST_DISTRIBUTED_TORCH_FIXTURE_DIR;
    auto s = run({"--world-sizes", "2", "--measurement-iterations", "12", "--max-time", "0.1", "--param", "slow_rank=1",
                  "--timeout", "120"},
                 0);
    const Scenario& reduced = s["all_reduce[world_size=2]"];
    ASSERT_EQ(reduced.status, "success") << reduced.reason << last.err;
    EXPECT_EQ(info(reduced, "backend"), "gloo");
    EXPECT_EQ(info(reduced, "rank_seen"), "0 of 2");
    expect_two_ranks_gathered(reduced, "latency", 12);

    const Scenario& sleep = s["sleep[world_size=2]"];
    ASSERT_EQ(sleep.status, "success") << sleep.reason << last.err;
    const std::string text = warnings(sleep);
    EXPECT_NE(text.find("rank 1 is a straggler in latency: its median "), std::string::npos) << text;
    EXPECT_EQ(text.find("rank 0 is a straggler"), std::string::npos) << text;

    // A plain ctx.measure meets the other ranks as measure_ranks does: every rank takes
    // --measurement-iterations samples, rank 1's slow ones are the scenario's and it is the
    // straggler, and rank 0, 4 ms a sample, waited for rank 1's 24 ms at each sample's
    // barrier: from its first call on its ctx.measure took 11 x 24 ms at least (unaligned,
    // about 15 x 4 ms with the warmup).
    const Scenario& plain = s["plain[world_size=2]"];
    ASSERT_EQ(plain.status, "success") << plain.reason << last.err;
    EXPECT_EQ(info(plain, "backend"), "gloo");
    expect_two_ranks_gathered(plain, "latency", 12);
    for (const double ms : samples(plain, "latency.rank1")) EXPECT_GE(ms, 24.0);
    const std::string plain_text = warnings(plain);
    EXPECT_NE(plain_text.find("rank 1 is a straggler in latency: its median "), std::string::npos) << plain_text;
    EXPECT_NE(plain_text.find("latency: a distributed scenario takes --measurement-iterations samples on every rank"),
              std::string::npos)
        << plain_text;
    const double rank0_ms = std::stod(read_file(out / "plain_rank0.ms"));
    EXPECT_GE(rank0_ms, 11 * 24.0) << "rank 0's ctx.measure did not wait for rank 1's samples";

    // Rank 1 throws in its second sample while rank 0 waits for it in the all-reduce.
    auto failed =
        run({"--world-sizes", "2", "--include", "all_reduce", "--param", "fail_rank=1", "--timeout", "120"}, 1);
    const Scenario& thrown = failed["all_reduce[world_size=2]"];
    EXPECT_EQ(thrown.status, "failed");
    EXPECT_EQ(thrown.reason.rfind("rank 1 of 2: threw std::runtime_error: rank 1 fails on purpose", 0), 0u)
        << thrown.reason;
}

// A C++ rank that hangs in its second sample while the other goes on to the next barrier:
// at the scenario's timeout every rank is killed, and the reason names the rank behind
// from the progress files measure_ranks writes.
TEST_F(DistributedTest, ACppRankThatHangsTimesOutNamedAndNoRankSurvives) {
    plugins = BENCH_TEST_DISTRIBUTED_TORCH_FIXTURE_DIR;
    auto s = run({"--world-sizes", "2", "--param", "hang_rank=1", "--timeout", "20"}, 1);
    expect_rank_1_hung(s["sleep[world_size=2]"], 20);
    EXPECT_EQ(s["all_reduce[world_size=2]"].status, "success") << s["all_reduce[world_size=2]"].reason;
}

// A C++ rank's progress file says that it started its benchmark and that it finished it,
// as a Python rank's does: rank 1 hangs before its ctx.measure while rank 0 waits for it in
// the rendezvous, then after its samples while rank 0 has finished.
TEST_F(DistributedTest, ACppRanksProgressSaysItStartedAndFinishedItsBenchmark) {
    plugins = BENCH_TEST_DISTRIBUTED_TORCH_FIXTURE_DIR;
    const std::vector<std::string> args{"--world-sizes",
                                        "2",
                                        "--include",
                                        "plain",
                                        "--timeout",
                                        "20",
                                        "--param",
                                        "plain_hang_rank=1",
                                        "--measurement-iterations",
                                        "3",
                                        "--warmup-iterations",
                                        "1"};
    auto at_start = args;
    at_start.insert(at_start.end(), {"--param", "plain_hang_at=start"});
    auto started = run(at_start, 1);
    const Scenario& before = started["plain[world_size=2]"];
    EXPECT_EQ(before.status, "timed_out") << before.reason;
    EXPECT_NE(before.reason.find("timed out after 20 s: rank 1 was behind the others, running the benchmark (before "
                                 "its process group's rendezvous), while rank 0 was in the process group's "
                                 "rendezvous (c10d::TCPStore); every rank was killed"),
              std::string::npos)
        << before.reason;
    EXPECT_EQ(pid_files(), 2u);
    EXPECT_TRUE(survivors().empty());

    auto at_end = args;
    at_end.insert(at_end.end(), {"--param", "plain_hang_at=end"});
    auto finished = run(at_end, 1);
    const Scenario& after = finished["plain[world_size=2]"];
    EXPECT_EQ(after.status, "timed_out") << after.reason;
    EXPECT_NE(after.reason.find("timed out after 20 s: rank 1 was behind the others, timing sample 3 (past its "
                                "barrier), while rank 0 was done with the benchmark; every rank was killed"),
              std::string::npos)
        << after.reason;
    EXPECT_TRUE(survivors().empty());
}

// A Python and a C++ distributed plugin in one run, each at world sizes 1 and 2: the
// collectives' all_reduce and ddp_training's GPT-2 steps, whose parameters are equal on
// every rank after them.
TEST_F(DistributedTest, APythonAndACppDistributedPluginRunInOneRun) {
    add("performance/collectives.py",
        read_file(fs::path(BENCH_TEST_SOURCE_DIR) / "plugins/performance/collectives/collectives.py"));
    const fs::path ddp = BENCH_TEST_DDP_TRAINING_PLUGIN;
    fs::copy_file(ddp, plugins / "performance" / ddp.filename());
    auto s = run({"--world-sizes", "1,2", "--include", "ddp_training", "--include", "all_reduce", "--param", "sizes=8",
                  "--param", "prompt_tokens=8", "--timeout", "120"},
                 0);
    ASSERT_EQ(s.size(), 4u) << last.err;
    for (const char* name : {"all_reduce[world_size=1]", "all_reduce[world_size=2]"})
        EXPECT_EQ(s[name].status, "success") << name << ": " << s[name].reason;
    for (const int world : {1, 2}) {
        // Its other axes are in the name too: ddp_training[world_size=1,batch_size=1,...].
        const std::string prefix = "ddp_training[world_size=" + std::to_string(world) + ",";
        const auto found =
            std::find_if(s.begin(), s.end(), [&](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
        ASSERT_NE(found, s.end()) << prefix << last.err;
        const Scenario& ddp_scenario = found->second;
        ASSERT_EQ(ddp_scenario.status, "success") << world << ": " << ddp_scenario.reason << last.err;
        const auto& measurements = (*ddp_scenario.report)["measurements"];
        EXPECT_EQ(measurements["parameter_difference_across_ranks"]["value"].GetDouble(), 0.0);
        EXPECT_EQ(measurements["samples_per_step"]["value"].GetDouble(), world);
        const auto step = samples(ddp_scenario, "step"), throughput = samples(ddp_scenario, "throughput");
        ASSERT_EQ(step.size(), 3u);
        ASSERT_EQ(throughput.size(), 3u);
        // The slowest rank's step, and the world's samples over it.
        for (std::size_t i = 0; i < step.size(); ++i)
            EXPECT_NEAR(throughput[i], world / (step[i] / 1e3), 1e-6 * throughput[i]);
        EXPECT_EQ(info(ddp_scenario, "backend"), "gloo");
        if (world == 2) {
            const auto zero = samples(ddp_scenario, "step.rank0"), one = samples(ddp_scenario, "step.rank1");
            ASSERT_EQ(zero.size(), 3u);
            ASSERT_EQ(one.size(), 3u);
            for (std::size_t i = 0; i < step.size(); ++i) EXPECT_DOUBLE_EQ(step[i], std::max(zero[i], one[i])) << i;
        }
    }
}
#endif

}  // namespace
