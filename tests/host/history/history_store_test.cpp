// The run history in an SQLite file: runs stored with the statistics they computed,
// read back by filter and by scenario, stored once, several writers at once, and the
// files it must refuse (and leave as they are).
#include "history/history_store.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <thread>

#include "analysis/scenario_statistics.hpp"
#include "history/series_history.hpp"

#include "../../support/builders.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

/// A run of two scenarios (latency medians `ms` and 2 ms), with its statistics, started
/// at `started_at` on a machine with `cpu`.
RunRecord a_run(const std::string& started_at, double ms, unsigned seed, const std::string& cpu = "Xeon") {
    RunRecord record = record_of({Outcome("performance", "mock", "a").series("latency", "ms", jittered_samples(ms, 20, seed)),
                                  Outcome("performance", "mock", "b").series("latency", "ms", jittered_samples(2, 20, seed + 1))});
    record.started_at = started_at;
    record.timestamp = started_at;
    record.hardware["host"]["hostname"] = "testhost";
    record.hardware["cpu"]["model"] = cpu;
    record.finished = true;
    for (ScenarioOutcome& outcome : record.outcomes) compute_statistics(outcome, true);
    return record;
}

class HistoryStoreTest : public ::testing::Test {
protected:
    std::unique_ptr<HistoryStore> open(bool create = true) { return open_history(file.string(), create); }
    TempDir work;
    fs::path file = work / "history.db";
};

TEST_F(HistoryStoreTest, ARunIsStoredWithTheStatisticsItComputed) {
    const RunRecord record = a_run("2026-11-24T10:00:00Z", 10, 1);
    {
        auto store = open();
        const AddResult added = store->add_run(record, "/runs/one", true);
        EXPECT_TRUE(added.added);
        EXPECT_EQ(added.scenarios, 2u);
        EXPECT_EQ(store->schema_version(), history_schema_version);
    }
    auto store = open(false);  // read back through a new connection
    const std::vector<HistoryRun> runs = store->runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].started_at, "2026-11-24T10:00:00Z");
    EXPECT_EQ(runs[0].commit_id, "abc123");
    EXPECT_EQ(runs[0].host_name, "testhost");
    EXPECT_EQ(runs[0].source, "/runs/one");
    EXPECT_EQ(runs[0].scenarios, 2u);
    EXPECT_TRUE(runs[0].complete);
    EXPECT_EQ(runs[0].machine.size(), 16u);
    EXPECT_NE(runs[0].machine_text.find("cpu.model=Xeon"), std::string::npos) << runs[0].machine_text;

    const std::vector<HistoryPoint> points = store->points("mock/a", {}, true);
    ASSERT_EQ(points.size(), 1u);
    const SeriesStatistics& computed = *record.outcomes[0].statistics.find("latency");
    const HistorySeries& stored = points[0].series;
    EXPECT_EQ(points[0].scenario_id, "performance/mock/a");
    EXPECT_EQ(points[0].status, "success");
    EXPECT_EQ(stored.unit, "ms");
    EXPECT_EQ(stored.summary.count, 20u);
    EXPECT_DOUBLE_EQ(stored.summary.median, computed.analysis.summary.median);
    EXPECT_DOUBLE_EQ(stored.summary.p95, computed.analysis.summary.p95);
    EXPECT_DOUBLE_EQ(stored.ci_low, computed.analysis.median_ci.low);
    EXPECT_EQ(stored.samples, record.outcomes[0].result.series[0].samples);  // raw samples, as asked
    EXPECT_TRUE(store->points("mock/a", {}, false)[0].series.samples.empty());
    // A glob selects too; a pattern matching nothing gives nothing.
    EXPECT_EQ(store->points("performance/mock/[ab]", {}).size(), 2u);
    EXPECT_TRUE(store->points("nothing", {}).empty());
}

TEST_F(HistoryStoreTest, ARunAddedAgainChangesNothingAndRunsOfOneSecondStayApart) {
    auto store = open();
    const RunRecord first = a_run("2026-11-24T10:00:00Z", 10, 1);
    ASSERT_TRUE(store->add_run(first, "/runs/one", false).added);
    const AddResult again = store->add_run(first, "/elsewhere/one", false);
    EXPECT_FALSE(again.added);
    EXPECT_EQ(store->runs({}).size(), 1u);
    // Another run started in the same second, of the same scenarios: another run.
    EXPECT_TRUE(store->add_run(a_run("2026-11-24T10:00:00Z", 10, 7), "/runs/two", false).added);
    EXPECT_EQ(store->runs({}).size(), 2u);
}

TEST_F(HistoryStoreTest, RunsAreSelectedByMachineBranchAndTime) {
    auto store = open();
    store->add_run(a_run("2026-11-20T10:00:00Z", 10, 1), "r1", false);
    store->add_run(a_run("2026-11-21T10:00:00Z", 11, 2, "EPYC"), "r2", false);
    ::setenv("BENCH_BRANCH", "feature-x", 1);
    store->add_run(a_run("2026-11-22T10:00:00Z", 12, 3), "r3", false);
    ::unsetenv("BENCH_BRANCH");
    const std::vector<HistoryRun> all = store->runs({});
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].source, "r3");  // the newest first
    EXPECT_EQ(all[0].branch, "feature-x");
    EXPECT_NE(all[0].machine, all[1].machine);  // another CPU: another machine
    EXPECT_EQ(all[0].machine, all[2].machine);

    EXPECT_EQ(store->runs({.machine = all[1].machine.substr(0, 6)}).size(), 1u);
    EXPECT_EQ(store->runs({.machine = "testhost"}).size(), 3u);
    EXPECT_EQ(store->runs({.branch = "feature-x"}).size(), 1u);
    EXPECT_EQ(store->runs({.since = "2026-11-21"}).size(), 2u);
    EXPECT_EQ(store->runs({.until = "2026-11-21"}).size(), 1u);
    EXPECT_EQ(store->runs({.limit = 2}).size(), 2u);
    // A scenario over time, oldest first, on one machine.
    const auto points = store->points("mock/a", {.machine = all[0].machine});
    ASSERT_EQ(points.size(), 2u);
    EXPECT_EQ(points[0].run.source, "r1");
    EXPECT_NEAR(points[1].series.summary.median, 12, 0.2);
}

TEST_F(HistoryStoreTest, WritersAtOnceLoseNothing) {
    open();  // made once, as the first run would
    constexpr int writers = 4, runs_each = 15;
    std::vector<std::thread> threads;
    std::vector<std::string> errors(writers);
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            try {
                auto store = open_history(file.string(), true);  // a connection of its own, as another process has
                for (int i = 0; i < runs_each; ++i)
                    store->add_run(a_run("2026-11-24T10:00:00Z", 10, static_cast<unsigned>(1000 * w + i)), "r", false);
            } catch (const std::exception& e) {
                errors[w] = e.what();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& error : errors) EXPECT_EQ(error, "");
    EXPECT_EQ(open()->runs({}).size(), static_cast<std::size_t>(writers * runs_each));
}

TEST_F(HistoryStoreTest, WhatIsNotAHistoryIsRefusedAndLeftAsItIs) {
    const auto error_of = [&](bool create) {
        try {
            open(create);
        } catch (const HistoryError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // Missing, when only reading.
    EXPECT_EQ(error_of(false), file.string() + ": no history there (a run with --history " + file.string() + " makes one)");
    EXPECT_FALSE(fs::exists(file));
    // Not a database: refused, never overwritten.
    write_file(file, "these are not the bytes of a database, but a user's file\n");
    EXPECT_EQ(error_of(true), file.string() + ": file is not a database");
    EXPECT_EQ(read_file(file), "these are not the bytes of a database, but a user's file\n");
    // A folder.
    fs::remove(file);
    fs::create_directories(file);
    EXPECT_EQ(error_of(true), file.string() + ": is a folder, not a history file");
    fs::remove(file);
    // A newer benchhost's history: refused, its version named.
    open()->add_run(a_run("2026-11-24T10:00:00Z", 10, 1), "r", false);
    const ProcessResult bump = run_process(
        {"/usr/bin/sqlite3", file.string(), "UPDATE meta SET value = '99' WHERE key = 'schema_version'"});
    if (bump.exit_code != 0) GTEST_SKIP() << "the sqlite3 command is not installed: " << bump.err;
    EXPECT_EQ(error_of(true), file.string() + ": written by a newer benchhost (history schema 99; this one reads up to " +
                                  std::to_string(history_schema_version) + "): use that benchhost, or another file");
}

}  // namespace

namespace {

/// A point of `scenario`'s latency on `machine` with median `ms`, run number `run`.
HistoryPoint point(const std::string& scenario, const std::string& machine, double ms, int run) {
    HistoryPoint p;
    p.run.id = run;
    p.run.machine = machine;
    p.scenario_id = scenario;
    p.status = "success";
    p.series.name = "latency";
    p.series.unit = "ms";
    p.series.summary.median = ms;
    return p;
}

TEST(SeriesHistories, OneTablePerScenarioSeriesAndMachineWithTheStepsOfItsMedians) {
    std::vector<HistoryPoint> points;
    std::mt19937_64 rng(3);
    std::normal_distribution<double> noise(0, 0.01);
    for (int run = 0; run < 40; ++run) {
        // On machine A a step of +10% at run 25; machine B, twice as fast, stays flat.
        points.push_back(point("performance/mock/a", "A", 10 * (run >= 25 ? 1.10 : 1.0) * (1 + noise(rng)), run));
        points.push_back(point("performance/mock/a", "B", 5 * (1 + noise(rng)), run));
    }
    HistoryPoint failed = point("performance/mock/a", "A", NAN, 99);
    failed.series.name.clear();  // a run in which the scenario failed has no series
    points.push_back(failed);

    const std::vector<SeriesHistory> histories = series_histories(points);
    ASSERT_EQ(histories.size(), 2u);
    EXPECT_EQ(histories[0].machine, "A");
    EXPECT_EQ(histories[0].points.size(), 40u);
    ASSERT_EQ(histories[0].steps.size(), 1u);
    const auto& [index, step] = *histories[0].steps.begin();
    EXPECT_NEAR(static_cast<double>(index), 25, 2);
    EXPECT_NEAR(step.relative_change, 0.10, 0.02);
    EXPECT_TRUE(histories[1].steps.empty()) << "a flat history has no step";
    EXPECT_TRUE(series_histories(points, "throughput").empty());
}

}  // namespace
