// End to end: runs recorded in a history file with `run --history`, and read back with
// `benchhost history list|show|add`, and as a dashboard with `history report`, rendered
// by headless Chromium (skipped without it; its screenshot kept as
// <build>/test-artifacts/history_report.png); and in a PostgreSQL database (a throw-away
// cluster, tests/support/postgres.hpp) by shards running at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <thread>

#include "../support/chromium.hpp"
#include "../support/mock_run.hpp"
#include "../support/postgres.hpp"

namespace {

using namespace benchtest;

/// The mock's eager scenario, 8 samples.
class HistoryTest : public MockPassTest {
protected:
    HistoryTest() : MockPassTest({.measured = 8, .base_units = 300000}) {}

    fs::path history = work / "history.db";
};

TEST_F(HistoryTest, RunsAreRecordedAndShownOverTime) {
    ASSERT_EQ(run_mock(work / "one", {"--history", history.string()}).exit_code, 0);
    const ProcessResult second = run_mock(work / "two", {"--history", history.string(), "--history-samples"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_NE(second.err.find("history: recorded as run 2 in " + history.string()), std::string::npos) << second.err;

    const ProcessResult list = host({"history", "list", "--history", history.string()});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("2 runs in " + history.string()), std::string::npos) << list.out;
    EXPECT_NE(list.out.find((work / "two").string()), std::string::npos) << list.out;
    EXPECT_LT(list.out.find((work / "two").string()), list.out.find((work / "one").string())) << "the newest first";
    // Each run's id, as its summary has it (the first 12 hex digits).
    for (const char* folder : {"one", "two"}) {
        const rapidjson::Document summary = read_json(work / folder / "benchmark_summary.json");
        const std::string id = summary["run_metadata"]["run_id"].GetString();
        ASSERT_EQ(id.size(), 32u) << folder;
        EXPECT_NE(list.out.find(" " + id.substr(0, 12) + " "), std::string::npos) << folder << "\n" << list.out;
    }

    const ProcessResult show =
        host({"history", "show", "mock_benchmark", "--series", "latency", "--history", history.string()});
    EXPECT_EQ(show.exit_code, 0) << show.err;
    EXPECT_NE(show.out.find("performance/mock_benchmark/mock_benchmark[variant=eager,batch_size=1]  latency  on "),
              std::string::npos)
        << show.out;
    EXPECT_EQ(std::count(show.out.begin(), show.out.end(), '\n'), 5) << show.out;  // title, header, 2 runs, blank
    EXPECT_EQ(show.out.find("throughput"), std::string::npos) << show.out;

    // Adding the run folders again changes nothing.
    const ProcessResult add = host({"history", "add", (work / "one").string(),
                                    (work / "two" / "benchmark_summary.json").string(), "--history", history.string()});
    EXPECT_EQ(add.exit_code, 0) << add.err;
    EXPECT_NE(add.out.find("one: already there as run 1"), std::string::npos) << add.out;
    EXPECT_NE(add.out.find("two: already there as run 2"), std::string::npos) << add.out;

    const ProcessResult none = host({"history", "show", "no_such_scenario", "--history", history.string()});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no scenario in " + history.string() + " matches 'no_such_scenario'"), std::string::npos)
        << none.err;
    // A pattern that matches in runs the filters leave out: the filters are named.
    const ProcessResult filtered = host({"history", "show", "mock_benchmark", "--history", history.string(),
                                         "--machine", "elsewhere", "--since", "2026"});
    EXPECT_EQ(filtered.exit_code, 2);
    EXPECT_NE(filtered.err.find("matches 'mock_benchmark' in the runs that --machine elsewhere, --since 2026 select"),
              std::string::npos)
        << filtered.err;
}

TEST_F(HistoryTest, AMergedRunIsNotAddedBesideItsShards) {
    // Two shards of a plan of two scenarios; only the first records its run.
    const std::vector<std::string> plan = {"--variants", "eager,compiled"};
    auto shard = [&](int k, bool record) {
        std::vector<std::string> extra = plan;
        extra.insert(extra.end(), {"--shard", std::to_string(k) + "/2"});
        if (record) extra.insert(extra.end(), {"--history", history.string()});
        return run_mock(work / ("shard" + std::to_string(k)), extra);
    };
    ASSERT_EQ(shard(1, true).exit_code, 0);
    ASSERT_EQ(shard(2, false).exit_code, 0);
    const fs::path merged = work / "merged";
    const ProcessResult merge =
        host({"merge", merged.string(), (work / "shard1").string(), (work / "shard2").string()});
    ASSERT_EQ(merge.exit_code, 0) << merge.err;

    // Its first shard is there: the merged run would count that shard's scenario twice.
    const ProcessResult partly = host({"history", "add", merged.string(), "--history", history.string()});
    EXPECT_EQ(partly.exit_code, 1);
    EXPECT_NE(partly.err.find("merged: merged from 2 shards, of which 1/2 (run 1) is in the history already"),
              std::string::npos)
        << partly.err;
    EXPECT_NE(partly.err.find("add the other shards' folders instead: " + (work / "shard2").string()),
              std::string::npos)
        << partly.err;

    // With both shards there, the merged run is there already.
    ASSERT_EQ(host({"history", "add", (work / "shard2").string(), "--history", history.string()}).exit_code, 0);
    const ProcessResult whole = host({"history", "add", merged.string(), "--history", history.string()});
    EXPECT_EQ(whole.exit_code, 0) << whole.err;
    EXPECT_NE(whole.out.find("merged: already there as its shards 1/2 (run 1), 2/2 (run 2)"), std::string::npos)
        << whole.out;
    const ProcessResult list = host({"history", "list", "--history", history.string()});
    EXPECT_NE(list.out.find("2 runs in " + history.string()), std::string::npos) << list.out;
}

TEST_F(HistoryTest, AShardOfAMergedRunInTheHistoryIsNotAddedBesideIt) {
    const std::vector<std::string> plan = {"--variants", "eager,compiled"};
    for (const int k : {1, 2}) {
        std::vector<std::string> extra = plan;
        extra.insert(extra.end(), {"--shard", std::to_string(k) + "/2"});
        ASSERT_EQ(run_mock(work / ("shard" + std::to_string(k)), extra).exit_code, 0);
    }
    const fs::path merged = work / "merged";
    const ProcessResult merge =
        host({"merge", merged.string(), (work / "shard1").string(), (work / "shard2").string()});
    ASSERT_EQ(merge.exit_code, 0) << merge.err;
    const ProcessResult first = host({"history", "add", merged.string(), "--history", history.string()});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_NE(first.out.find("merged: added (2 scenarios) as run 1"), std::string::npos) << first.out;

    // Its shards' scenarios are in run 1: stored again, each would count twice.
    const ProcessResult shards =
        host({"history", "add", (work / "shard1").string(), (work / "shard2").string(), "--history", history.string()});
    EXPECT_EQ(shards.exit_code, 0) << shards.err;
    EXPECT_NE(shards.out.find("shard1: already there in merged run 1"), std::string::npos) << shards.out;
    EXPECT_NE(shards.out.find("shard2: already there in merged run 1"), std::string::npos) << shards.out;
    const ProcessResult list = host({"history", "list", "--history", history.string()});
    EXPECT_NE(list.out.find("1 run in " + history.string()), std::string::npos) << list.out;
}

TEST_F(HistoryTest, AHistoryThatCannotBeWrittenStopsTheRunBeforeItStarts) {
    write_file(history, "not a database\n");
    const ProcessResult run = run_mock(work / "out", {"--history", history.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find(history.string() + ": file is not a database"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(work / "out")) << "nothing ran";
    EXPECT_EQ(read_file(history), "not a database\n");
    // A dry run exits as the run would, and writes nothing.
    const ProcessResult dry = run_mock(work / "out", {"--history", history.string(), "--dry-run"});
    EXPECT_EQ(dry.exit_code, 2);
    EXPECT_NE(dry.err.find(history.string() + ": file is not a database"), std::string::npos) << dry.err;
    const fs::path nowhere = work / "no-such-folder" / "history.db";
    const ProcessResult dry_nowhere = run_mock(work / "out", {"--history", nowhere.string(), "--dry-run"});
    EXPECT_EQ(dry_nowhere.exit_code, 2);
    EXPECT_NE(dry_nowhere.err.find(nowhere.string() + ": cannot be made: its folder " +
                                   (work / "no-such-folder").string() + " does not exist"),
              std::string::npos)
        << dry_nowhere.err;
    const ProcessResult dry_new = run_mock(work / "out", {"--history", (work / "new.db").string(), "--dry-run"});
    EXPECT_EQ(dry_new.exit_code, 0) << dry_new.err;
    EXPECT_FALSE(fs::exists(work / "new.db")) << "a dry run makes no history";

    const ProcessResult samples = run_mock(work / "out", {"--history-samples"});
    EXPECT_EQ(samples.exit_code, 2);
    EXPECT_NE(samples.err.find("--history-samples needs --history"), std::string::npos) << samples.err;
    const ProcessResult missing = host({"history", "list", "--history", (work / "missing.db").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no history there"), std::string::npos) << missing.err;
}

TEST_F(HistoryTest, AFolderThatIsNotARunIsNamedAndTheOthersAreAdded) {
    ASSERT_EQ(run_mock(work / "one").exit_code, 0);
    fs::create_directories(work / "empty");
    // A folder that is not there (a glob that matched nothing, a run removed) is one too.
    const ProcessResult add = host({"history", "add", (work / "empty").string(), (work / "gone").string(),
                                    (work / "one").string(), "--history", history.string()});
    EXPECT_EQ(add.exit_code, 1);
    EXPECT_NE(add.err.find((work / "empty").string()), std::string::npos) << add.err;
    EXPECT_NE(add.err.find((work / "gone" / "benchmark_summary.json").string() + ": cannot be read"), std::string::npos)
        << add.err;
    EXPECT_NE(add.out.find("one: added (1 scenario) as run 1"), std::string::npos) << add.out;
}

TEST_F(HistoryTest, TheGateFailsARunSlowerThanItsHistoryAndPassesTheSameCode) {
    // Six runs of a build, then one of a build whose slower_on_new is 30% slower, all
    // into one history: the gate fails the last, with its evidence, and passes the
    // runs of the first build.
    const fs::path ab_fixtures = BENCH_TEST_AB_FIXTURE_DIR;
    const auto run_fixture = [&](const std::string& side, const std::string& name,
                                 std::vector<std::string> extra = {}) {
        wait_for_next_second();  // the fixture's samples never vary
        install_plugin(ab_fixtures / side / "performance/libfixture_ab.so", plugins, "performance");
        std::vector<std::string> args = {"run",
                                         "--plugins-dir",
                                         plugins.string(),
                                         "--output-dir",
                                         (work / name).string(),
                                         "--include",
                                         "fixture_ab/slower_on_new",
                                         "--variants",
                                         "eager",
                                         "--measurement-iterations",
                                         "30",
                                         "--monitor-interval",
                                         "0",
                                         "--param",
                                         "wait=sleep",  // a spin is stretched by a load, a sleep is not
                                         "--history",
                                         history.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return host(args);
    };
    for (int i = 1; i <= 6; ++i) ASSERT_EQ(run_fixture("base", "base" + std::to_string(i)).exit_code, 0);
    // The new build against the last run of the old, judged by the spread of the runs
    // before it, as compare --history judges it below; and recorded.
    const ProcessResult gated =
        run_fixture("new", "new", {"--baseline", (work / "base6").string(), "--fail-on-regression"});
    EXPECT_EQ(gated.exit_code, 1) << gated.out << gated.err;
    EXPECT_NE(gated.out.find("slower (noise of 6 runs in the history)"), std::string::npos) << gated.out;
    EXPECT_NE(read_file(work / "new" / "comparison.json").find("\"evidence\": \"history\""), std::string::npos);
    EXPECT_NE(gated.err.find("history: recorded as run 7 in "), std::string::npos) << gated.err;

    const ProcessResult check = host({"history", "check", "--history", history.string()});
    EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
    EXPECT_NE(check.out.find("Run 7 ("), std::string::npos) << check.out;
    const std::size_t row = check.out.find("performance/fixture_ab/slower_on_new");
    ASSERT_NE(row, std::string::npos) << check.out;
    const std::string line = check.out.substr(row, check.out.find('\n', row) - row);
    EXPECT_NE(line.find("latency  6 "), std::string::npos) << line;  // judged by the six runs before it
    EXPECT_NE(line.find("slower"), std::string::npos) << line;
    EXPECT_NE(check.out.find("1 slower, 0 faster, 0 same, 0 inconclusive (threshold 5%"), std::string::npos)
        << check.out;

    // The sixth run of the first build, against the five before it: not slower.
    const ProcessResult same = host({"history", "check", "--run", "6", "--history", history.string()});
    EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
    EXPECT_EQ(same.out.find(" slower\n"), std::string::npos) << same.out;
    // The fifth: four runs before it, too few to judge by.
    const ProcessResult few = host({"history", "check", "--run", "5", "--history", history.string()});
    EXPECT_EQ(few.exit_code, 0) << few.out << few.err;
    EXPECT_NE(few.out.find("inconclusive (4 earlier runs, fewer than 5: too few to learn the noise from)"),
              std::string::npos)
        << few.out;

    // compare of the last two runs, judged by the spread of the runs before them.
    const ProcessResult compare = host({"compare", (work / "base6").string(), (work / "new").string(), "--history",
                                        history.string(), "--json", (work / "comparison.json").string()});
    EXPECT_EQ(compare.exit_code, 0) << compare.err;
    EXPECT_NE(compare.out.find("slower (noise of 6 runs in the history)"), std::string::npos) << compare.out;
    const std::string json = read_file(work / "comparison.json");
    EXPECT_NE(json.find("\"evidence\": \"history\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"history_runs\": 6"), std::string::npos) << json;

    const ProcessResult missing = host({"history", "check", "--run", "99", "--history", history.string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no run 99 in " + history.string()), std::string::npos) << missing.err;
    const ProcessResult nothing = host({"history", "check", "no_such_benchmark", "--history", history.string()});
    EXPECT_EQ(nothing.exit_code, 2);
    EXPECT_NE(
        nothing.err.find("run 7 in " + history.string() + " has no series of a scenario like 'no_such_benchmark'"),
        std::string::npos)
        << nothing.err;
}

#ifdef BENCH_TEST_PYTHON_PLUGINS
TEST_F(HistoryTest, APythonPluginsRunsAreRecordedAndItsSlowdownFailsTheGate) {
    // Six runs of a Python plugin, then one of a changed copy whose call takes 30% longer,
    // into one history: shown over time, and the last one judged slower. A call sleeps for
    // a set time: work that touches memory, a loop of Python bytecode or hashlib's C code
    // alike, runs up to 2x slower while the machine's speed state lasts (docs/
    // statistics.md, "The machine's speed states"), and a call that spins on the clock is
    // stretched by every process that competes for its core (it failed the gate that
    // way under the load of scripts/ctest_under_load: 19% between runs). A sleeper wakes
    // in time whatever the load.
    const fs::path py = work / "py";
    const std::string plugin = R"(import time

BENCHHOST_PLUGIN = {"name": "wait_py", "version": "1.0.0"}
CALL_S = 0.010


def run_benchmark(ctx):
    ctx.measure("latency", lambda: time.sleep(CALL_S))
)";
    write_file(py / "performance/wait_py.py", plugin);
    const auto run_py = [&](const std::string& name) {
        return host({"run", "--plugins-dir", py.string(), "--output-dir", (work / name).string(),
                     "--measurement-iterations", "30", "--monitor-interval", "0", "--history", history.string()});
    };
    for (int i = 1; i <= 6; ++i) ASSERT_EQ(run_py("run" + std::to_string(i)).exit_code, 0);
    std::string changed = plugin;
    changed.replace(changed.find("CALL_S = 0.010"), 14, "CALL_S = 0.013");
    write_file(py / "performance/wait_py.py", changed);
    const ProcessResult slow = run_py("slow");
    ASSERT_EQ(slow.exit_code, 0) << slow.err;
    EXPECT_NE(slow.err.find("history: recorded as run 7 in "), std::string::npos) << slow.err;

    const ProcessResult show =
        host({"history", "show", "wait_py", "--series", "latency", "--history", history.string()});
    EXPECT_EQ(show.exit_code, 0) << show.err;
    EXPECT_NE(show.out.find("performance/wait_py/wait_py  latency  on "), std::string::npos) << show.out;

    const ProcessResult check = host({"history", "check", "--history", history.string()});
    EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
    const std::size_t row = check.out.find("performance/wait_py/wait_py");
    ASSERT_NE(row, std::string::npos) << check.out;
    const std::string line = check.out.substr(row, check.out.find('\n', row) - row);
    EXPECT_TRUE(std::regex_search(line, std::regex("latency +6 "))) << line;  // judged by the six runs before it
    EXPECT_NE(line.find("slower"), std::string::npos) << line;
}

TEST_F(HistoryTest, AGraphBreakMoreThanTheRunBeforeFailsTheGateWithoutNoiseToLearn) {
    // A compiler count is the same on every run of one build: the run after a change that
    // added a graph break fails `history check` against the one run before it, where a
    // time series would need five to learn its noise, naming the break's reason as the
    // history kept it; the same count passes.
    const fs::path py = work / "py";
    const std::string plugin = R"(BENCHHOST_PLUGIN = {"name": "counts_py", "version": "1.0.0"}
GRAPH_BREAKS = 0


def run_benchmark(ctx):
    ctx.record_scalar("graph_breaks", GRAPH_BREAKS, "count")
    ctx.record_scalar("unique_graphs", GRAPH_BREAKS + 1, "count")
    if GRAPH_BREAKS:
        ctx.set_info("graph_break_reasons", "Unsupported Tensor.item() call with capture_scalar_outputs=False")
    ctx.measure("latency", lambda: sum(range(1000)))
)";
    write_file(py / "performance/counts_py.py", plugin);
    const auto run_py = [&](const std::string& name) {
        return host({"run", "--plugins-dir", py.string(), "--output-dir", (work / name).string(),
                     "--measurement-iterations", "5", "--monitor-interval", "0", "--history", history.string()});
    };
    ASSERT_EQ(run_py("before").exit_code, 0);
    ASSERT_EQ(run_py("same").exit_code, 0);
    const ProcessResult same = host({"history", "check", "--history", history.string()});
    EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
    EXPECT_TRUE(std::regex_search(same.out, std::regex("graph_breaks +1 +0 .* same"))) << same.out;

    std::string changed = plugin;
    changed.replace(changed.find("GRAPH_BREAKS = 0"), 16, "GRAPH_BREAKS = 1");
    write_file(py / "performance/counts_py.py", changed);
    ASSERT_EQ(run_py("break").exit_code, 0);
    const ProcessResult check =
        host({"history", "check", "--history", history.string(), "--junit", (work / "check.xml").string()});
    EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
    const std::string reason = "since the run before: Unsupported Tensor.item() call with capture_scalar_outputs=False";
    EXPECT_NE(check.out.find("slower (graph_breaks 0 -> 1 " + reason + ")"), std::string::npos) << check.out;
    EXPECT_NE(read_file(work / "check.xml").find(reason), std::string::npos) << read_file(work / "check.xml");
    EXPECT_NE(check.out.find("slower (unique_graphs 1 -> 2 since the run before)"), std::string::npos) << check.out;
    // The latency beside them has two earlier runs: too few to judge, not a failure.
    EXPECT_TRUE(std::regex_search(check.out, std::regex("latency .*inconclusive"))) << check.out;
    const ProcessResult show =
        host({"history", "show", "counts_py", "--series", "graph_breaks", "--history", history.string()});
    EXPECT_EQ(show.exit_code, 0) << show.err;
    EXPECT_NE(show.out.find("graph_breaks"), std::string::npos) << show.out;
}
#endif

TEST_F(HistoryTest, ShardsRunningAtOnceRecordIntoOnePostgresDatabase) {
    PostgresCluster cluster;
    if (!cluster.running()) GTEST_SKIP() << cluster.why_not();
    const std::string url = cluster.url();
    // Three shards of a plan of three scenarios, started together on an empty database:
    // the first to come makes the tables, and each records its run.
    std::vector<ProcessResult> shards(3);
    std::vector<std::thread> threads;
    for (int k = 1; k <= 3; ++k) {
        threads.emplace_back([&, k] {
            shards[k - 1] = host({"run",
                                  "--plugins-dir",
                                  plugins.string(),
                                  "--output-dir",
                                  (work / ("shard" + std::to_string(k))).string(),
                                  "--enable-mock",
                                  "--include",
                                  "mock_benchmark/mock_benchmark",
                                  "--variants",
                                  "eager,compiled,kernelized",
                                  "--measurement-iterations",
                                  "5",
                                  "--monitor-interval",
                                  "0",
                                  "--param",
                                  "base_units=100000",
                                  "--shard",
                                  std::to_string(k) + "/3",
                                  "--history",
                                  url});
        });
    }
    for (std::thread& t : threads) t.join();
    for (const ProcessResult& shard : shards) {
        ASSERT_EQ(shard.exit_code, 0) << shard.err;
        EXPECT_NE(shard.err.find("history: recorded as run "), std::string::npos) << shard.err;
        EXPECT_NE(shard.err.find(" in " + url), std::string::npos) << shard.err;
    }

    const ProcessResult list = host({"history", "list", "--history", url});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("3 runs in " + url), std::string::npos) << list.out;
    for (const std::string shard : {" 1/3 ", " 2/3 ", " 3/3 "})
        EXPECT_NE(list.out.find(shard), std::string::npos) << list.out;

    // Every scenario of the plan once, in one of the runs: a table of one run each.
    const ProcessResult show = host({"history", "show", "mock_benchmark", "--series", "latency", "--history", url});
    EXPECT_EQ(show.exit_code, 0) << show.err;
    for (const std::string variant : {"eager", "compiled", "kernelized"}) {
        const std::string title =
            "performance/mock_benchmark/mock_benchmark[variant=" + variant + ",batch_size=1]  latency  on ";
        const std::size_t at = show.out.find(title);
        EXPECT_NE(at, std::string::npos) << show.out;
        EXPECT_EQ(show.out.find(title, at + 1), std::string::npos) << show.out;
    }
    EXPECT_EQ(std::count(show.out.begin(), show.out.end(), '\n'), 12) << show.out;  // 3 x (title, header, 1 run, blank)

    // Adding a shard's folder again changes nothing.
    const ProcessResult add = host({"history", "add", (work / "shard2").string(), "--history", url});
    EXPECT_EQ(add.exit_code, 0) << add.err;
    EXPECT_NE(add.out.find("shard2: already there as run "), std::string::npos) << add.out;
}

TEST_F(HistoryTest, AHistoryLostDuringTheRunKeepsTheRunsReports) {
    // The database goes away while the run measures: the run is not recorded, says so,
    // exits 1, and its folder is whole.
    PostgresCluster cluster;
    if (!cluster.running()) GTEST_SKIP() << cluster.why_not();
    const fs::path out = work / "out";
    ProcessResult run;
    std::thread runner([&] {
        run = host({"run", "--plugins-dir", plugins.string(), "--output-dir", out.string(), "--enable-mock",
                    "--include", "mock_benchmark/mock_benchmark", "--variants", "eager,compiled,kernelized",
                    "--measurement-iterations", "300", "--monitor-interval", "0", "--param", "base_units=1000000",
                    "--history", cluster.url()});
    });
    // Once the first scenario is in the journal (two more, of a second or so each, to go).
    for (int i = 0; i < 600 && !(fs::exists(out / "journal.jsonl") && !read_file(out / "journal.jsonl").empty()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cluster.stop();
    runner.join();
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("history: the run was not recorded: " + cluster.url() + ": "), std::string::npos) << run.err;
    const std::string summary = read_file(out / "benchmark_summary.json");
    std::size_t succeeded = 0;
    for (std::size_t at = summary.find("\"status\": \"success\""); at != std::string::npos;
         at = summary.find("\"status\": \"success\"", at + 1))
        ++succeeded;
    EXPECT_EQ(succeeded, 3u) << "every scenario measured and kept";
    EXPECT_TRUE(fs::exists(out / "report.html"));
    EXPECT_EQ(files_matching(out / "mock_benchmark", "mock_benchmark_", ".json").size(), 1u);
}

TEST_F(HistoryTest, AnUnreachablePostgresStopsTheRunBeforeItStarts) {
    const std::string url = "postgresql://127.0.0.1:" + std::to_string(PostgresCluster::free_port()) + "/bench";
    const ProcessResult run = run_mock(work / "out", {"--history", url});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find(url + ": could not connect: "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("Connection refused"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(work / "out")) << "nothing ran";
}

TEST_F(HistoryTest, HistoryReportWritesADashboardThatChromiumRenders) {
    // Ten runs of the mock: five at 300,000 units of work, then five at 6,000,000: its
    // latency steps up about twenty times at the sixth. A step that large stays clear of
    // what a loaded machine does to the runs' timings: with two busy loops on the 2-core
    // machine a run of the mock took 2.3 times as long as the one before it, and a step
    // of two (or of five) was found a run late, or not at all.
    for (int k = 0; k < 10; ++k) {
        const ProcessResult run =
            run_mock(work / ("run" + std::to_string(k)),
                     {"--history", history.string(), "--param", k < 5 ? "base_units=300000" : "base_units=6000000"});
        ASSERT_EQ(run.exit_code, 0) << run.err;
    }
    const fs::path site = work / "site" / "history";
    const ProcessResult report = host(
        {"history", "report", "--series", "latency", "--history", history.string(), "--output-dir", site.string()});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    EXPECT_NE(report.out.find("wrote " + (site / "index.html").string() +
                              " and 1 page (1 scenario, 1 series on 1 machine, "
                              "10 points) in "),
              std::string::npos)
        << report.out;
    const std::string index = read_file(site / "index.html");
    std::smatch link;
    ASSERT_TRUE(std::regex_search(index, link, std::regex("<a href=\"([A-Za-z0-9_.-]+\\.html)\">"))) << index;
    const fs::path page = site / link[1].str();
    ASSERT_TRUE(fs::exists(page)) << page;
    const std::string html = read_file(page);
    EXPECT_EQ(count(html, "class=\"step-marker\""), 1u) << "the step of the sixth run";
    EXPECT_NE(html.find("class=\"step-marker\" data-x=\"6\""), std::string::npos);

    // Nothing matches: exit 2, as show says it. An output folder that cannot be made: exit 2, naming it.
    const ProcessResult none = host({"history", "report", "no_such_scenario", "--history", history.string(),
                                     "--output-dir", (work / "other").string()});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no scenario in " + history.string() + " matches 'no_such_scenario'"), std::string::npos)
        << none.err;
    write_file(work / "a_file", "");
    const ProcessResult blocked =
        host({"history", "report", "--history", history.string(), "--output-dir", (work / "a_file" / "site").string()});
    EXPECT_EQ(blocked.exit_code, 2);
    EXPECT_NE(blocked.err.find("cannot create the output folder " + (work / "a_file" / "site").string()),
              std::string::npos)
        << blocked.err;

    // In a browser: the index's sparkline, and the page's chart with its band and marker.
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    const ProcessResult index_dom =
        chromium(binary, work / "profile", {"--dump-dom", "file://" + (site / "index.html").string()});
    if (index_dom.exit_code != 0) GTEST_SKIP() << "chromium cannot start here: " << index_dom.err.substr(0, 2000);
    EXPECT_FALSE(console_messages(index_dom.err)) << index_dom.err;
    EXPECT_EQ(count(index_dom.out, "<svg class=\"spark\""), 1u) << index_dom.out.substr(0, 3000);
    const ProcessResult dom = chromium(binary, work / "profile", {"--dump-dom", "file://" + page.string()});
    ASSERT_EQ(dom.exit_code, 0) << dom.err;
    EXPECT_FALSE(console_messages(dom.err)) << dom.err;
    EXPECT_EQ(count(dom.out, "<svg class=\"chart xy\""), 1u);
    EXPECT_EQ(count(dom.out, "class=\"band interval"), 1u);
    EXPECT_EQ(count(dom.out, "class=\"step-marker\""), 1u);
    EXPECT_EQ(count(dom.out, "<circle class=\"pt "), 10u);
    EXPECT_NE(dom.out.find("</html>"), std::string::npos);

    const fs::path artifacts = fs::path(BENCH_TEST_BUILD_DIR) / "test-artifacts";
    fs::create_directories(artifacts);
    const fs::path png = artifacts / "history_report.png";
    fs::remove(png);
    const ProcessResult shot =
        chromium(binary, work / "profile",
                 {"--screenshot=" + png.string(), "--window-size=1280,1200", "file://" + page.string()});
    ASSERT_EQ(shot.exit_code, 0) << shot.err;
    const std::string image = read_file(png);
    ASSERT_GT(image.size(), 24u);
    EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(big_endian(image, 16), 1280u);
    EXPECT_GT(image.size(), 30000u) << "a page with a chart and a table";
}

}  // namespace
