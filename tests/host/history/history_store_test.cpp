// The run history, in an SQLite file and in a PostgreSQL database (a throw-away cluster,
// tests/support/postgres.hpp; skipped where PostgreSQL is not installed): runs stored
// with the statistics they computed, read back by filter and by scenario, stored once,
// several writers at once, and the files and databases it must refuse (and leave as
// they are).
#include "history/history_store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <random>
#include <thread>

#include "history/postgres_store.hpp"
#include "history/schema_migrations.hpp"

#include "analysis/scenario_statistics.hpp"
#include "history/series_history.hpp"

#include "../../support/builders.hpp"
#include "../../support/postgres.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

/// A run of two scenarios (latency medians `ms` and 2 ms), with its statistics, started
/// at `started_at` on a machine with `cpu`.
RunRecord a_run(const std::string& started_at, double ms, unsigned seed, const std::string& cpu = "Xeon") {
    RunRecord record =
        record_of({Outcome("performance", "mock", "a").series("latency", "ms", jittered_samples(ms, 20, seed)),
                   Outcome("performance", "mock", "b").series("latency", "ms", jittered_samples(2, 20, seed + 1))});
    record.started_at = started_at;
    record.timestamp = started_at;
    record.hardware["host"]["hostname"] = "testhost";
    record.hardware["cpu"]["model"] = cpu;
    record.finished = true;
    for (ScenarioOutcome& outcome : record.outcomes) compute_statistics(outcome, true);
    return record;
}

enum class Backend { sqlite, postgres };

/// The store's behaviour, on each backend.
class HistoryStoreTest : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        if (GetParam() == Backend::sqlite) return;
        cluster = std::make_unique<PostgresCluster>();
        if (!cluster->running()) GTEST_SKIP() << cluster->why_not();
        location = cluster->url();
    }
    std::unique_ptr<HistoryStore> open(bool create = true) { return open_history(location, create); }
    /// Runs `statements` on the history with the backend's own client (sqlite3, psql), as
    /// another program would.
    ProcessResult sql(const std::string& statements) {
        if (GetParam() == Backend::sqlite) return run_process({"/usr/bin/sqlite3", file.string(), statements});
        return cluster->psql(statements);
    }
    TempDir work;
    fs::path file = work / "history.db";
    std::string location = file.string();
    std::unique_ptr<PostgresCluster> cluster;
};

INSTANTIATE_TEST_SUITE_P(Backends, HistoryStoreTest, ::testing::Values(Backend::sqlite, Backend::postgres),
                         [](const ::testing::TestParamInfo<Backend>& backend) {
                             return backend.param == Backend::sqlite ? "SQLite" : "PostgreSQL";
                         });

TEST_P(HistoryStoreTest, ARunIsStoredWithTheStatisticsItComputed) {
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

TEST_P(HistoryStoreTest, AHistoryOfVersionOneIsMigratedAndKeepsEverything) {
    // tests/fixtures/history/v1_*.sql: histories that benchhost wrote with schema
    // version 1 (two runs of the mock, eager and compiled, 5 samples a series; the second
    // with --history-samples), dumped with sqlite3 .dump and pg_dump.
    const fs::path fixtures = fs::path(BENCH_TEST_SOURCE_DIR) / "tests/fixtures/history";
    if (GetParam() == Backend::sqlite) {
        const ProcessResult load = run_process(
            {"/usr/bin/sqlite3", file.string(), ".read " + (fixtures / "v1_sqlite.sql").string()}, work.path());
        ASSERT_EQ(load.exit_code, 0) << load.err;
    } else {
        const ProcessResult load = cluster->psql_file(fixtures / "v1_postgresql.sql");
        ASSERT_EQ(load.exit_code, 0) << load.err << load.out;
    }
    {
        auto store = open(false);  // migrated when opened
        EXPECT_EQ(store->schema_version(), history_schema_version);
        const std::vector<HistoryRun> runs = store->runs({});
        ASSERT_EQ(runs.size(), 2u);
        for (const HistoryRun& run : runs) {
            EXPECT_EQ(run.scenarios, 2u);
            EXPECT_TRUE(run.complete);
        }
        const std::vector<HistoryPoint> points = store->points("mock_benchmark", {}, true);
        ASSERT_EQ(points.size(), 8u);  // 2 runs x 2 scenarios x (latency, throughput)
        for (const HistoryPoint& point : points) {
            EXPECT_EQ(point.status, "success");
            EXPECT_EQ(point.series.summary.count, 5u) << point.scenario_id;
            EXPECT_GT(point.series.summary.median, 0) << point.scenario_id;
            EXPECT_LE(point.series.ci_low, point.series.summary.median);
            EXPECT_GE(point.series.ci_high, point.series.summary.median);
            // The second run was recorded with its samples, the first without.
            EXPECT_EQ(point.series.samples.size(), point.run->id == runs[0].id ? 5u : 0u) << point.run->id;
        }
        EXPECT_EQ(points[0].series.name, "latency");
        EXPECT_EQ(points[0].series.unit, "ms");
        // Known by the ids their folders derive: their keys behind sixteen zeros.
        for (const HistoryRun& run : runs) {
            EXPECT_EQ(run.key.size(), 32u) << run.key;
            EXPECT_EQ(run.key.substr(0, 16), std::string(16, '0')) << run.key;
        }
        EXPECT_NE(runs[0].key, runs[1].key);
        // And it takes new runs, merged ones with their shards.
        EXPECT_TRUE(store->add_run(a_run("2026-11-24T20:00:00Z", 10, 1), "/runs/new", false).added);
        HistoryRun shard;
        shard.started_at = "2026-11-24T20:00:00Z";
        shard.host_name = "testhost";
        shard.shard_index = 1;
        shard.shard_count = 1;
        EXPECT_EQ(store->merged_run_holding(shard), 0);
    }
    auto store = open(false);
    EXPECT_EQ(store->runs({}).size(), 3u);
    EXPECT_EQ(store->points("mock/a", {}).size(), 1u);
    EXPECT_EQ(store->points("mock_benchmark", {}).size(), 8u);
}

TEST_P(HistoryStoreTest, AHistoryOfVersionTwoIsMigratedFromThere) {
    // Version 2 is version 3 without the merged runs' shards: a history made now, with
    // that table (and version 5's series notes) dropped and version 2 recorded, is what a
    // benchhost of version 2 wrote. Opened, it gets only the migrations from version 2 up,
    // and keeps its runs.
    {
        auto store = open();
        ASSERT_TRUE(store->add_run(a_run("2026-11-24T10:00:00Z", 10, 1), "/runs/one", true).added);
    }
    const ProcessResult downgrade =
        sql("DROP TABLE merged_shards; ALTER TABLE series DROP COLUMN note; "
            "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    ASSERT_EQ(downgrade.exit_code, 0) << downgrade.err;
    {
        auto store = open(false);  // migrated when opened
        EXPECT_EQ(store->schema_version(), history_schema_version);
        ASSERT_EQ(store->runs({}).size(), 1u);
        const std::vector<HistoryPoint> points = store->points("mock/", {}, true);
        ASSERT_EQ(points.size(), 2u);
        EXPECT_EQ(points[0].series.samples.size(), 20u);
        // The table of version 3 is there again: a merged run's shards are stored.
        RunRecord merged = a_run("2026-11-24T11:00:00Z", 10, 2);
        ShardRecord shard_record;
        shard_record.index = 1;
        shard_record.host_name = "node1";
        shard_record.started_at = "2026-11-24T11:00:01Z";
        merged.shards.push_back(shard_record);
        const AddResult added = store->add_run(merged, "/runs/merged", false);
        ASSERT_TRUE(added.added);
        HistoryRun shard;
        shard.shard_index = 1;
        shard.shard_count = 1;
        shard.host_name = "node1";
        shard.started_at = "2026-11-24T11:00:01Z";
        EXPECT_EQ(store->merged_run_holding(shard), added.run_id);
    }
    EXPECT_EQ(open(false)->runs({}).size(), 2u);
}

TEST_P(HistoryStoreTest, AMergedRunKnowsTheShardsItHolds) {
    // Merged from two shards, started on two hosts; each shard's row is found by its
    // index, count, start and host, and nothing else is.
    RunRecord merged = a_run("2026-11-24T10:00:00Z", 10, 1);
    for (int k = 1; k <= 2; ++k) {
        ShardRecord shard;
        shard.index = k;
        shard.host_name = "node" + std::to_string(k);
        shard.started_at = "2026-11-24T10:00:0" + std::to_string(k) + "Z";
        shard.source = "/runs/shard" + std::to_string(k);
        merged.shards.push_back(shard);
    }
    long long id = 0;
    {
        auto store = open();
        const AddResult added = store->add_run(merged, "/runs/merged", false);
        ASSERT_TRUE(added.added);
        id = added.run_id;
        ASSERT_TRUE(store->add_run(a_run("2026-11-24T11:00:00Z", 10, 3), "/runs/other", false).added);
    }
    auto store = open(false);
    HistoryRun shard;
    shard.shard_count = 2;
    for (int k = 1; k <= 2; ++k) {
        shard.shard_index = k;
        shard.host_name = "node" + std::to_string(k);
        shard.started_at = "2026-11-24T10:00:0" + std::to_string(k) + "Z";
        EXPECT_EQ(store->merged_run_holding(shard), id) << k;
    }
    HistoryRun other = shard;
    other.shard_count = 3;  // a shard of another plan, started at the same time
    EXPECT_EQ(store->merged_run_holding(other), 0);
    other = shard;
    other.host_name = "node1";  // shard 2's start, shard 1's host
    EXPECT_EQ(store->merged_run_holding(other), 0);
    other = shard;
    other.started_at = "2026-11-24T10:00:03Z";
    EXPECT_EQ(store->merged_run_holding(other), 0);
}

TEST_P(HistoryStoreTest, ARunAddedAgainChangesNothingAndRunsOfOneSecondStayApart) {
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

TEST_P(HistoryStoreTest, RunsOfOneSecondWithTheSameSamplesAreTwoRunsWhenTheirIdsDiffer) {
    // Started in the same second, with the same samples: what a run was known by before
    // runs had ids is the same for both. Their ids tell them apart.
    RunRecord first = a_run("2026-11-24T10:00:00Z", 10, 1);
    RunRecord second = a_run("2026-11-24T10:00:00Z", 10, 1);
    first.run_id = "0123456789abcdef0123456789abcdef";
    second.run_id = "fedcba9876543210fedcba9876543210";
    auto store = open();
    const AddResult one = store->add_run(first, "/runs/one", false);
    const AddResult two = store->add_run(second, "/runs/two", false);
    EXPECT_TRUE(one.added);
    EXPECT_TRUE(two.added);
    EXPECT_NE(one.run_id, two.run_id);
    // The same run id recorded again, from another folder: one run, unchanged.
    const AddResult again = store->add_run(first, "/elsewhere/one", false);
    EXPECT_FALSE(again.added);
    EXPECT_FALSE(again.replaced);
    EXPECT_EQ(again.run_id, one.run_id);
    std::vector<HistoryRun> runs = open(false)->runs({});
    ASSERT_EQ(runs.size(), 2u);
    std::sort(runs.begin(), runs.end(), [](const HistoryRun& a, const HistoryRun& b) { return a.id < b.id; });
    EXPECT_EQ(runs[0].key, first.run_id);
    EXPECT_EQ(runs[0].source, "/runs/one");
    EXPECT_EQ(runs[1].key, second.run_id);
    EXPECT_EQ(store->points("mock/a", {}).size(), 2u);
}

TEST_P(HistoryStoreTest, ARunResumedAfterItWasStoredReplacesWhatWasStoredOfIt) {
    // Interrupted after its first scenario and recorded, then resumed and recorded again:
    // one run, as it ended the second time, under the number it had.
    const RunRecord whole = a_run("2026-11-24T10:00:00Z", 10, 1);
    RunRecord interrupted = whole;
    interrupted.run_id = "00112233445566778899aabbccddeeff";
    interrupted.outcomes.pop_back();
    interrupted.finished = false;
    interrupted.interrupted = true;
    interrupted.finished_at = "2026-11-24T10:01:00Z";
    RunRecord resumed = whole;
    resumed.run_id = interrupted.run_id;
    resumed.finished_at = "2026-11-24T10:05:00Z";
    auto store = open();
    const AddResult first = store->add_run(interrupted, "/runs/one", true);
    ASSERT_TRUE(first.added);
    EXPECT_EQ(first.scenarios, 1u);
    const AddResult second = store->add_run(resumed, "/runs/one", true);
    EXPECT_FALSE(second.added);
    EXPECT_TRUE(second.replaced);
    EXPECT_EQ(second.run_id, first.run_id);
    EXPECT_EQ(second.scenarios, 2u);
    // The folder as it was before it was resumed (a copy) changes nothing, nor does the
    // resumed run again.
    EXPECT_FALSE(store->add_run(interrupted, "/copy/one", true).replaced);
    EXPECT_FALSE(store->add_run(resumed, "/runs/one", true).replaced);

    auto reopened = open(false);
    const std::vector<HistoryRun> runs = reopened->runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].id, first.run_id);
    EXPECT_EQ(runs[0].scenarios, 2u);
    EXPECT_TRUE(runs[0].complete);
    EXPECT_EQ(runs[0].finished_at, "2026-11-24T10:05:00Z");
    EXPECT_EQ(runs[0].source, "/runs/one");
    const std::vector<HistoryPoint> points = reopened->points("mock/", {}, true);
    ASSERT_EQ(points.size(), 2u);  // each scenario's series once
    EXPECT_EQ(points[0].scenario_id, "performance/mock/a");
    EXPECT_EQ(points[0].series.samples, whole.outcomes[0].result.series[0].samples);
    EXPECT_EQ(points[1].scenario_id, "performance/mock/b");
}

TEST_P(HistoryStoreTest, ARunFolderWithoutAnIdIsKnownByTheIdDerivedFromItAsBefore) {
    const RunRecord old = a_run("2026-11-24T10:00:00Z", 10, 1);
    const std::string id = run_id_of(old);
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(id.substr(0, 16), std::string(16, '0'));
    EXPECT_EQ(run_id_of(a_run("2026-11-24T10:00:00Z", 10, 1)), id);  // the same folder, the same id
    EXPECT_NE(run_id_of(a_run("2026-11-24T10:00:00Z", 10, 2)), id);  // other samples, another run
    RunRecord with_id = old;
    with_id.run_id = "ffeeddccbbaa99887766554433221100";
    EXPECT_EQ(run_id_of(with_id), with_id.run_id);

    auto store = open();
    ASSERT_TRUE(store->add_run(old, "/runs/old", false).added);
    EXPECT_FALSE(store->add_run(old, "/runs/old", false).added);
    EXPECT_EQ(store->runs({})[0].key, id);
}

TEST_P(HistoryStoreTest, AHistoryOfVersionThreeIsMigratedAndFindsItsRunsByTheirFolders) {
    // Version 3 knew a run by 16 hex digits, what run_id_of now puts behind sixteen zeros
    // for a folder without an id: a history made now of runs without ids, their keys cut
    // back to those digits, version 5's series notes dropped and version 3 recorded, is
    // what a benchhost of version 3 wrote.
    const RunRecord one = a_run("2026-11-24T10:00:00Z", 10, 1);
    const RunRecord two = a_run("2026-11-24T10:00:00Z", 10, 7);  // the same second, other samples
    {
        auto store = open();
        ASSERT_TRUE(store->add_run(one, "/runs/one", true).added);
        ASSERT_TRUE(store->add_run(two, "/runs/two", true).added);
    }
    const ProcessResult downgrade =
        sql("UPDATE runs SET run_key = substr(run_key, 17); ALTER TABLE series DROP COLUMN note; "
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    ASSERT_EQ(downgrade.exit_code, 0) << downgrade.err;
    const ProcessResult keys = sql("SELECT run_key FROM runs ORDER BY id");
    ASSERT_EQ(keys.exit_code, 0) << keys.err;
    EXPECT_NE(keys.out.find(run_id_of(one).substr(16)), std::string::npos) << keys.out;
    {
        auto store = open(false);  // migrated when opened
        EXPECT_EQ(store->schema_version(), history_schema_version);
        std::vector<HistoryRun> runs = store->runs({});
        ASSERT_EQ(runs.size(), 2u);
        std::sort(runs.begin(), runs.end(), [](const HistoryRun& a, const HistoryRun& b) { return a.id < b.id; });
        EXPECT_EQ(runs[0].key, run_id_of(one));
        EXPECT_EQ(runs[1].key, run_id_of(two));
        // Their folders added again are the runs stored; a run of the same second and
        // samples with an id of its own is another run.
        EXPECT_FALSE(store->add_run(one, "/runs/one", false).added);
        EXPECT_FALSE(store->add_run(two, "/runs/two", false).added);
        RunRecord with_id = one;
        with_id.run_id = "0123456789abcdef0123456789abcdef";
        EXPECT_TRUE(store->add_run(with_id, "/runs/three", false).added);
        EXPECT_EQ(store->points("mock/a", {}, true)[0].series.samples.size(), 20u);  // the figures kept
    }
    EXPECT_EQ(open(false)->runs({}).size(), 3u);
}

TEST_P(HistoryStoreTest, AHistoryOfVersionFourIsMigratedAndKeepsTheReasonsOfGraphBreaksFromThen) {
    // Version 4 is version 5 without the series' notes: a history made now, that column
    // dropped and version 4 recorded, is what a benchhost of version 4 wrote. Opened, its
    // runs are read as before, with no note; a run added then keeps its breaks' reasons.
    const auto with_breaks = [](RunRecord record, const std::string& reasons) {
        ScenarioOutcome& outcome = record.outcomes[0];
        outcome.result.scalars.push_back({"graph_breaks", 1, "count"});
        outcome.result.info["graph_break_reasons"] = reasons;
        return record;
    };
    const RunRecord before = with_breaks(a_run("2026-11-24T10:00:00Z", 10, 1), "stored by version 4");
    {
        auto store = open();
        ASSERT_TRUE(store->add_run(before, "/runs/one", false).added);
    }
    const ProcessResult downgrade =
        sql("ALTER TABLE series DROP COLUMN note; UPDATE meta SET value = '4' WHERE key = 'schema_version'");
    ASSERT_EQ(downgrade.exit_code, 0) << downgrade.err;
    auto store = open(false);  // migrated when opened
    EXPECT_EQ(store->schema_version(), history_schema_version);
    const auto breaks_of = [&](const std::string& started_at) {
        for (const HistoryPoint& point : store->points("mock/a", {}))
            if (point.run->started_at == started_at && point.series.name == "graph_breaks") return point.series;
        ADD_FAILURE() << "no graph_breaks of the run started at " << started_at;
        return HistorySeries{};
    };
    const HistorySeries old_breaks = breaks_of("2026-11-24T10:00:00Z");
    EXPECT_EQ(old_breaks.summary.median, 1);
    EXPECT_EQ(old_breaks.note, "") << "version 4 did not keep it";
    const RunRecord after = with_breaks(a_run("2026-11-24T11:00:00Z", 10, 2),
                                        "Unsupported Tensor.item() call with capture_scalar_outputs=False");
    ASSERT_TRUE(store->add_run(after, "/runs/two", false).added);
    EXPECT_EQ(breaks_of("2026-11-24T11:00:00Z").note,
              "Unsupported Tensor.item() call with capture_scalar_outputs=False");
    EXPECT_EQ(breaks_of("2026-11-24T10:00:00Z").note, "");
}

TEST_P(HistoryStoreTest, RunsAreSelectedByMachineBranchAndTime) {
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
    EXPECT_EQ(points[0].run->source, "r1");
    EXPECT_NEAR(points[1].series.summary.median, 12, 0.2);
}

TEST_P(HistoryStoreTest, WritersAtOnceLoseNothing) {
    open();  // made once, as the first run would
    constexpr int writers = 4, runs_each = 15;
    std::vector<std::thread> threads;
    std::vector<std::string> errors(writers);
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            try {
                auto store = open_history(location, true);  // a connection of its own, as another process has
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

TEST_P(HistoryStoreTest, TheSameRunAddedAtOnceIsStoredOnce) {
    open();
    const RunRecord record = a_run("2026-11-24T10:00:00Z", 10, 1);
    constexpr int writers = 4;
    std::vector<std::thread> threads;
    std::vector<int> added(writers, -1);
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            try {
                added[w] = open_history(location, true)->add_run(record, "r", true).added ? 1 : 0;
            } catch (const std::exception&) {
                added[w] = -1;
            }
        });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(std::count(added.begin(), added.end(), 1), 1);
    EXPECT_EQ(std::count(added.begin(), added.end(), 0), writers - 1);
    auto store = open(false);
    ASSERT_EQ(store->runs({}).size(), 1u);
    EXPECT_EQ(store->runs({})[0].scenarios, 2u);
    EXPECT_EQ(store->points("mock/", {}).size(), 2u);
}

class SqliteHistoryTest : public ::testing::Test {
protected:
    std::unique_ptr<HistoryStore> open(bool create = true) { return open_history(file.string(), create); }
    TempDir work;
    fs::path file = work / "history.db";
};

TEST_F(SqliteHistoryTest, WhatIsNotAHistoryIsRefusedAndLeftAsItIs) {
    const auto error_of = [&](bool create) {
        try {
            open(create);
        } catch (const HistoryError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // Missing, when only reading.
    EXPECT_EQ(error_of(false),
              file.string() + ": no history there (a run with --history " + file.string() + " makes one)");
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
    const ProcessResult bump =
        run_process({"/usr/bin/sqlite3", file.string(), "UPDATE meta SET value = '99' WHERE key = 'schema_version'"});
    if (bump.exit_code != 0) GTEST_SKIP() << "the sqlite3 command is not installed: " << bump.err;
    EXPECT_EQ(error_of(true), file.string() +
                                  ": written by a newer benchhost (history schema 99; this one reads up to " +
                                  std::to_string(history_schema_version) + "): use that benchhost, or another file");
}

// ---- The migration flow both backends share (history/schema_migrations.hpp) -------

/// A database for migrate_schema that notes, in order, what it is asked: "read", "before
/// N", "begin", each SQL text, "commit" or "rollback". read_version() answers `versions`
/// in turn, the last one again and again.
class FakeSchemaDatabase : public SchemaDatabase {
public:
    explicit FakeSchemaDatabase(std::vector<int> versions) : versions_(std::move(versions)) {}

    std::string where() const override { return "fake.db"; }
    int read_version() override {
        log.push_back("read");
        const int version = versions_.front();
        if (versions_.size() > 1) versions_.erase(versions_.begin());
        return version;
    }
    void before_schema_change(int version) override { log.push_back("before " + std::to_string(version)); }
    void in_transaction(const std::function<void()>& work) override {
        log.push_back("begin");
        try {
            work();
        } catch (...) {
            log.push_back("rollback");
            throw;
        }
        log.push_back("commit");
    }
    void execute(const char* sql) override {
        log.push_back(sql);
        if (sql == fail_on) throw HistoryError("fake.db: " + fail_on + " failed");
    }

    std::vector<std::string> log;
    std::string fail_on;  // the SQL that fails

private:
    std::vector<int> versions_;
};

/// SQL that names itself: "tables of version 1", "migration to 2", ...
SchemaSql named_steps() {
    static const auto names = [] {
        std::array<std::string, history_schema_version - 1> out;
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = "migration to " + std::to_string(i + 2);
        return out;
    }();
    SchemaSql sql{.tables_v1 = "tables of version 1"};
    for (std::size_t i = 0; i < names.size(); ++i) sql.migrations[i] = names[i].c_str();
    return sql;
}

/// The SQL that migrates a history from `version` up, each step with the version it records.
std::vector<std::string> steps_from(int version) {
    std::vector<std::string> steps;
    for (; version < history_schema_version; ++version) {
        steps.push_back("migration to " + std::to_string(version + 1));
        steps.push_back(schema_version_sql(version + 1));
    }
    return steps;
}

std::string migration_error(FakeSchemaDatabase& database) {
    try {
        migrate_schema(database, named_steps());
    } catch (const HistoryError& e) {
        return e.what();
    }
    return "no error";
}

TEST(SchemaMigrations, AnEmptyDatabaseGetsTheTablesOfVersionOneThenEveryMigrationInOneTransaction) {
    FakeSchemaDatabase database({0});
    migrate_schema(database, named_steps());
    std::vector<std::string> expected = {"read", "before 0", "begin", "read", "tables of version 1", new_meta_sql()};
    for (const std::string& step : steps_from(1)) expected.push_back(step);
    expected.push_back("commit");
    EXPECT_EQ(database.log, expected);
}

TEST(SchemaMigrations, AnOlderHistoryIsMigratedFromItsOwnVersionUp) {
    for (int stored = 1; stored < history_schema_version; ++stored) {
        FakeSchemaDatabase database({stored});
        migrate_schema(database, named_steps());
        std::vector<std::string> expected = {"read", "before " + std::to_string(stored), "begin", "read"};
        for (const std::string& step : steps_from(stored)) expected.push_back(step);
        expected.push_back("commit");
        EXPECT_EQ(database.log, expected) << stored;
    }
}

TEST(SchemaMigrations, AHistoryOfThisVersionIsLeftAsItIs) {
    FakeSchemaDatabase database({history_schema_version});
    migrate_schema(database, named_steps());
    EXPECT_EQ(database.log, std::vector<std::string>{"read"});
}

TEST(SchemaMigrations, ANewerHistoryIsRefusedNamingItsVersionAndNeverChanged) {
    const std::string newer = "fake.db: written by a newer benchhost (history schema " +
                              std::to_string(history_schema_version + 1) + "; this one reads up to " +
                              std::to_string(history_schema_version) + "): use that benchhost, or another file";
    FakeSchemaDatabase database({history_schema_version + 1});
    EXPECT_EQ(migration_error(database), newer);
    EXPECT_EQ(database.log, std::vector<std::string>{"read"});
    // Made newer by another process between the first look and the transaction.
    FakeSchemaDatabase overtaken({1, history_schema_version + 1});
    EXPECT_EQ(migration_error(overtaken), newer);
    EXPECT_EQ(overtaken.log, (std::vector<std::string>{"read", "before 1", "begin", "read", "rollback"}));
}

TEST(SchemaMigrations, WhatAnotherProcessMigratedMeanwhileIsNotMigratedAgain) {
    FakeSchemaDatabase database({0, history_schema_version});
    migrate_schema(database, named_steps());
    EXPECT_EQ(database.log, (std::vector<std::string>{"read", "before 0", "begin", "read", "commit"}));
    // Made by another process as version 1 and not migrated yet: migrated from there.
    FakeSchemaDatabase made({0, 1});
    migrate_schema(made, named_steps());
    std::vector<std::string> expected = {"read", "before 0", "begin", "read"};
    for (const std::string& step : steps_from(1)) expected.push_back(step);
    expected.push_back("commit");
    EXPECT_EQ(made.log, expected);
}

TEST(SchemaMigrations, AFailingMigrationRollsBackAndStopsThere) {
    FakeSchemaDatabase database({1});
    database.fail_on = "migration to " + std::to_string(history_schema_version);
    EXPECT_EQ(migration_error(database), "fake.db: " + database.fail_on + " failed");
    ASSERT_GE(database.log.size(), 2u);
    EXPECT_EQ(database.log.back(), "rollback");
    EXPECT_EQ(database.log[database.log.size() - 2], database.fail_on);  // nothing after it, no version recorded
}

// ---- PostgreSQL only --------------------------------------------------------------

class PostgresHistoryTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!cluster.running()) GTEST_SKIP() << cluster.why_not();
    }
    std::string error_of(const std::string& url, bool create) {
        try {
            open_history(url, create);
        } catch (const HistoryError& e) {
            return e.what();
        }
        return "no error";
    }
    PostgresCluster cluster;
};

TEST_F(PostgresHistoryTest, ProcessesStartingAtOnceMakeTheTablesOnce) {
    // An empty database, and several writers opening it at the same moment: the tables
    // are made once (under an advisory lock), and no run is lost.
    constexpr int writers = 3, runs_each = 5;
    std::vector<std::thread> threads;
    std::vector<std::string> errors(writers);
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            try {
                auto store = open_history(cluster.url(), true);
                for (int i = 0; i < runs_each; ++i)
                    store->add_run(a_run("2026-11-24T10:00:00Z", 10, static_cast<unsigned>(1000 * w + i)), "r", false);
            } catch (const std::exception& e) {
                errors[w] = e.what();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& error : errors) EXPECT_EQ(error, "");
    auto store = open_history(cluster.url(), false);
    EXPECT_EQ(store->runs({}).size(), static_cast<std::size_t>(writers * runs_each));
    EXPECT_EQ(store->schema_version(), history_schema_version);
    EXPECT_EQ(store->where(), cluster.url());
    ASSERT_TRUE(store->size_bytes().has_value());
    EXPECT_GT(*store->size_bytes(), 0u);
}

TEST_F(PostgresHistoryTest, WhatIsNotAHistoryIsRefusedAndLeftAsItIs) {
    // An empty database, when only reading: nothing is made.
    EXPECT_EQ(error_of(cluster.url(), false),
              cluster.url() + ": no history there (a run with --history " + cluster.url() + " makes one)");
    // A database with tables of its own.
    ASSERT_EQ(cluster.createdb("other").exit_code, 0);
    ASSERT_EQ(cluster.psql("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')", "other").exit_code, 0);
    EXPECT_EQ(error_of(cluster.url("other"), true),
              cluster.url("other") + ": a PostgreSQL database, but not a benchhost history (it has no meta table)");
    const ProcessResult users = cluster.psql(
        "SELECT count(*) FROM users; SELECT count(*) FROM pg_tables WHERE "
        "schemaname = 'public'",
        "other");
    EXPECT_EQ(users.exit_code, 0) << users.err;
    EXPECT_EQ(users.out, "1\n1\n") << "the database is left as it was";
    // A meta table of something else.
    ASSERT_EQ(cluster.psql("CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('format', 'x')", "other")
                  .exit_code,
              0);
    EXPECT_EQ(error_of(cluster.url("other"), true),
              cluster.url("other") + ": a PostgreSQL database, but not a benchhost history (meta.format is 'x')");
    // A newer benchhost's history.
    open_history(cluster.url(), true)->add_run(a_run("2026-11-24T10:00:00Z", 10, 1), "r", false);
    ASSERT_EQ(cluster.psql("UPDATE meta SET value = '99' WHERE key = 'schema_version'").exit_code, 0);
    EXPECT_EQ(error_of(cluster.url(), true),
              cluster.url() + ": written by a newer benchhost (history schema 99; this one reads up to " +
                  std::to_string(history_schema_version) + "): use that benchhost, or another database");
}

TEST_F(PostgresHistoryTest, AWrongPasswordIsNamedWithoutThePassword) {
    // A user who must give a password (scram-sha-256), and a URL with the wrong one.
    ASSERT_EQ(cluster.psql("CREATE ROLE bencher LOGIN PASSWORD 'right-one'").exit_code, 0);
    const ProcessResult hba = cluster.authenticate_first("host all bencher 127.0.0.1/32 scram-sha-256");
    ASSERT_EQ(hba.exit_code, 0) << hba.err;
    const std::string at = "@127.0.0.1:" + std::to_string(cluster.port()) + "/bench";
    const std::string error = error_of("postgresql://bencher:wrong-one" + at, true);
    EXPECT_TRUE(error.starts_with("postgresql://bencher" + at + ": could not connect: ")) << error;
    EXPECT_NE(error.find("password authentication failed for user \"bencher\""), std::string::npos) << error;
    EXPECT_EQ(error.find("wrong-one"), std::string::npos) << error;
    // The right one connects (the database is empty: nothing to read).
    EXPECT_EQ(error_of("postgresql://bencher:right-one" + at, false),
              "postgresql://bencher" + at + ": no history there (a run with --history postgresql://bencher" + at +
                  " makes one)");
}

TEST_F(PostgresHistoryTest, AServerThatIsNotThereIsNamedWithoutThePassword) {
    const std::string url =
        "postgresql://bench:s3cret@127.0.0.1:" + std::to_string(PostgresCluster::free_port()) + "/bench";
    const std::string error = error_of(url, true);
    EXPECT_TRUE(error.starts_with("postgresql://bench@127.0.0.1:")) << error;
    EXPECT_NE(error.find(": could not connect: "), std::string::npos) << error;
    EXPECT_NE(error.find("Connection refused"), std::string::npos) << error;
    EXPECT_EQ(error.find("s3cret"), std::string::npos) << error;
}

TEST(PostgresUrl, ThePasswordIsLeftOutOfMessages) {
    EXPECT_EQ(url_without_password("postgresql://u:pw@h:5432/db"), "postgresql://u@h:5432/db");
    EXPECT_EQ(url_without_password("postgres://u@h/db"), "postgres://u@h/db");
    EXPECT_EQ(url_without_password("postgresql://h/db?password=pw"), "postgresql://h/db");
    EXPECT_EQ(url_without_password("postgresql://h/db?password=pw&sslmode=disable"),
              "postgresql://h/db?sslmode=disable");
    EXPECT_EQ(url_without_password("postgresql://h/db?sslmode=disable&password=pw"),
              "postgresql://h/db?sslmode=disable");
    EXPECT_EQ(url_without_password("postgresql://127.0.0.1:5/db"), "postgresql://127.0.0.1:5/db");
    EXPECT_TRUE(is_postgres_location("postgres://h/db"));
    EXPECT_FALSE(is_postgres_location("history.db"));
}

}  // namespace

namespace {

/// A point of `scenario`'s latency on `machine` with median `ms`, run number `run`.
HistoryPoint point(const std::string& scenario, const std::string& machine, double ms, int run) {
    HistoryPoint p;
    HistoryRun r;
    r.id = run;
    r.machine = machine;
    p.run = std::make_shared<const HistoryRun>(r);
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
