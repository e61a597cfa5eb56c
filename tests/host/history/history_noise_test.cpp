// The spread between runs learned from a history (history/history_noise.hpp): the window
// of runs it reads, which points it learns from (the machine's, the configuration's, not
// the run's own), and what it says with too few runs. First over a store whose rows the
// test sets, then over an SQLite history.
#include "history/history_noise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/scenario_statistics.hpp"

#include "../../support/builders.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

/// A store that answers with the rows the test gives it, and remembers what it was asked.
class RowsStore final : public HistoryStore {
public:
    AddResult add_run(const RunRecord&, const std::string&, bool) override { throw HistoryError("rows: read only"); }
    std::vector<HistoryRun> runs(const RunFilter& filter) override {
        runs_asked.push_back(filter);
        std::vector<HistoryRun> out = run_rows;
        if (filter.limit > 0 && out.size() > filter.limit) out.resize(filter.limit);
        return out;
    }
    std::vector<HistoryPoint> points(const std::string& pattern, const RunFilter& filter, bool) override {
        points_asked.emplace_back(pattern, filter);
        return point_rows;
    }
    long long merged_run_holding(const HistoryRun&) override { return 0; }
    int schema_version() override { return history_schema_version; }
    std::string where() const override { return "rows"; }
    std::optional<std::uintmax_t> size_bytes() override { return std::nullopt; }

    std::vector<HistoryRun> run_rows;  // the newest first
    std::vector<HistoryPoint> point_rows;
    std::vector<RunFilter> runs_asked;
    std::vector<std::pair<std::string, RunFilter>> points_asked;
};

/// `count` runs on `machine`, the newest first, a minute apart before 12:00.
std::vector<HistoryRun> runs_on(const std::string& machine, int count) {
    std::vector<HistoryRun> runs;
    for (int i = 0; i < count; ++i) {
        HistoryRun run;
        run.machine = machine;
        run.started_at = "2026-11-22T11:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ":00Z";
        runs.push_back(run);
    }
    return runs;
}

HistoryRun the_run() {
    HistoryRun run;
    run.machine = "m1";
    run.started_at = "2026-11-22T12:00:00Z";
    return run;
}

TEST(HistoryNoise, AFullWindowStartsAtTheOldestOfItsThreeLookbacksAndOneRuns) {
    RowsStore store;
    store.run_rows = runs_on("m1", 12);
    const RunFilter filter = recent_runs_filter(store, the_run(), 3);
    ASSERT_EQ(store.runs_asked.size(), 1u);
    EXPECT_EQ(store.runs_asked[0].limit, 10u);
    EXPECT_EQ(store.runs_asked[0].machine, "m1");
    EXPECT_EQ(store.runs_asked[0].until, "2026-11-22T12:00:00Z");
    EXPECT_EQ(filter.machine, "m1");
    EXPECT_EQ(filter.until, "2026-11-22T12:00:00Z");
    EXPECT_EQ(filter.since, store.run_rows[9].started_at);  // the tenth newest
    EXPECT_EQ(filter.limit, 0u);
}

TEST(HistoryNoise, AWindowTheHistoryDoesNotFillHasNoStart) {
    RowsStore store;
    store.run_rows = runs_on("m1", 9);
    const RunFilter filter = recent_runs_filter(store, the_run(), 3);
    EXPECT_EQ(store.runs_asked.at(0).limit, 10u);
    EXPECT_EQ(filter.since, "");
    EXPECT_EQ(filter.until, "2026-11-22T12:00:00Z");
}

/// A record with the hardware that makes its machine, and a run option that makes its configuration.
RunRecord next_run(const std::string& cpu, const std::string& rounds) {
    RunRecord record = record_of({Outcome("performance", "mock", "a").series("latency", "ms", {10, 11, 12})});
    record.started_at = "2026-11-22T12:00:00Z";
    record.hardware["cpu"]["model"] = cpu;
    record.run_config["rounds"] = rounds;
    return record;
}

/// A point of `scenario`'s series `series` with median `median`, in `run`.
HistoryPoint noise_point(const std::shared_ptr<const HistoryRun>& run, const std::string& scenario,
                         const std::string& series, double median) {
    HistoryPoint p;
    p.run = run;
    p.scenario_id = scenario;
    p.status = "success";
    p.series.name = series;
    p.series.unit = "ms";
    p.series.summary.median = median;
    return p;
}

double sd_of_logs(const std::vector<double>& values) {
    double mean = 0;
    for (const double v : values) mean += std::log(v);
    mean /= static_cast<double>(values.size());
    double squares = 0;
    for (const double v : values) squares += (std::log(v) - mean) * (std::log(v) - mean);
    return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

TEST(HistoryNoise, LearnedOnlyFromEarlierRunsOfTheSameMachineAndConfiguration) {
    const RunRecord next = next_run("Xeon", "1");
    const HistoryRun me = history_run_of(next, "");
    const HistoryRun elsewhere = history_run_of(next_run("Epyc", "1"), "");
    const HistoryRun other_config = history_run_of(next_run("Xeon", "3"), "");
    ASSERT_NE(me.machine, elsewhere.machine);
    ASSERT_NE(me.config_hash, other_config.config_hash);

    RowsStore store;
    const std::vector<double> medians = {10.0, 10.3, 9.8, 10.1, 9.9, 10.2};
    for (std::size_t i = 0; i < medians.size(); ++i) {
        auto earlier = std::make_shared<HistoryRun>(me);
        earlier->key = "earlier-" + std::to_string(i);
        store.point_rows.push_back(noise_point(earlier, "performance/mock/a", "latency", medians[i]));
        store.point_rows.push_back(noise_point(earlier, "performance/mock/a", "", 99));  // a point without a series
    }
    // Far off, each would widen the noise: another machine (were the store to return it),
    // another configuration, and the run itself, stored already.
    auto machine = std::make_shared<HistoryRun>(elsewhere);
    machine->key = "elsewhere";
    auto config = std::make_shared<HistoryRun>(other_config);
    config->key = "other-config";
    store.point_rows.push_back(noise_point(machine, "performance/mock/a", "latency", 30));
    store.point_rows.push_back(noise_point(config, "performance/mock/a", "latency", 30));
    store.point_rows.push_back(noise_point(std::make_shared<HistoryRun>(me), "performance/mock/a", "latency", 30));

    const std::map<std::string, HistoryNoise> noise = history_noise_for(store, next);
    ASSERT_EQ(noise.size(), 1u);
    const HistoryNoise& latency = noise.at(history_noise_key("performance/mock/a", "latency"));
    EXPECT_EQ(latency.runs, 6u);
    EXPECT_NEAR(latency.sd, sd_of_logs(medians), 1e-12);
    // Every scenario, on the run's machine, up to the run.
    ASSERT_EQ(store.points_asked.size(), 1u);
    EXPECT_EQ(store.points_asked[0].first, "*");
    EXPECT_EQ(store.points_asked[0].second.machine, me.machine);
    EXPECT_EQ(store.points_asked[0].second.until, "2026-11-22T12:00:00Z");
}

TEST(HistoryNoise, ASeriesWithFewerThanFiveEarlierRunsHasNoNoise) {
    const RunRecord next = next_run("Xeon", "1");
    const HistoryRun me = history_run_of(next, "");
    RowsStore store;
    const std::vector<double> medians = {10.0, 10.3, 9.9, 10.2, 10.05};
    for (std::size_t i = 0; i < medians.size(); ++i) {
        auto earlier = std::make_shared<HistoryRun>(me);
        earlier->key = "earlier-" + std::to_string(i);
        store.point_rows.push_back(noise_point(earlier, "performance/mock/a", "latency", medians[i]));
        if (i < 4) store.point_rows.push_back(noise_point(earlier, "performance/mock/a", "ttft", medians[i] / 5));
    }
    const std::map<std::string, HistoryNoise> noise = history_noise_for(store, next);
    EXPECT_EQ(noise.count(history_noise_key("performance/mock/a", "latency")), 1u);
    EXPECT_EQ(noise.count(history_noise_key("performance/mock/a", "ttft")), 0u);
}

/// A run of one scenario with latency median about `ms`, with its statistics, started
/// at `started_at` on a machine with `cpu`.
RunRecord noise_run(const std::string& started_at, double ms, unsigned seed, const std::string& cpu = "Xeon") {
    RunRecord record =
        record_of({Outcome("performance", "mock", "a").series("latency", "ms", jittered_samples(ms, 20, seed))});
    record.started_at = started_at;
    record.timestamp = started_at;
    record.hardware["host"]["hostname"] = "testhost";
    record.hardware["cpu"]["model"] = cpu;
    record.finished = true;
    for (ScenarioOutcome& outcome : record.outcomes) compute_statistics(outcome, true);
    return record;
}

double median_of(const RunRecord& record) {
    return record.outcomes.at(0).statistics.series.at(0).analysis.summary.median;
}

TEST(HistoryNoise, AnSQLiteHistoryGivesTheSpreadOfItsEarlierRunsMedians) {
    TempDir dir;
    auto store = open_history((dir / "history.db").string(), true);
    std::vector<double> medians;
    const std::vector<double> levels = {10.0, 10.4, 9.7, 10.2, 9.9, 10.1};
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const RunRecord earlier =
            noise_run("2026-11-22T10:0" + std::to_string(i) + ":00Z", levels[i], static_cast<unsigned>(10 + i));
        store->add_run(earlier, "/runs/" + std::to_string(i), false);
        medians.push_back(median_of(earlier));
    }
    store->add_run(noise_run("2026-11-22T10:30:00Z", 20, 1, "Epyc"), "/runs/epyc", false);  // another machine
    store->add_run(noise_run("2026-11-22T13:00:00Z", 20, 2), "/runs/later", false);  // after the run
    const RunRecord next = noise_run("2026-11-22T12:00:00Z", 30, 3);
    store->add_run(next, "/runs/next", false);  // the run itself

    const std::map<std::string, HistoryNoise> noise = history_noise_for(*store, next);
    ASSERT_EQ(noise.size(), 1u);
    const HistoryNoise& latency = noise.at(history_noise_key("performance/mock/a", "latency"));
    EXPECT_EQ(latency.runs, 6u);
    EXPECT_NEAR(latency.sd, sd_of_logs(medians), 1e-9);
}

}  // namespace
