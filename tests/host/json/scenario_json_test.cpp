// The blocks that the worker protocol, the journal and the reports share: one writer and
// one reader each, whatever the format.
#include "json/scenario_json.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "../../support/error_of.hpp"
#include "../../support/test_support.hpp"
#include "json/json_parse.hpp"
#include "json/result_json.hpp"
#include "report/report_reader.hpp"
#include "report/report_writer.hpp"

namespace {

using namespace benchhost;
using benchtest::error_of;

constexpr double infinity = std::numeric_limits<double>::infinity();

bench::MonitorReport sample_monitor() {
    bench::MonitorReport report;
    report.available = true;
    report.metrics["gpu_utilization"] = {45.5, 10, 90, 12, "%"};
    report.metrics["power"] = {NAN, NAN, NAN, 0, "W"};
    report.values["energy_per_iteration"] = {0.125, "J"};
    report.flags["throttled"] = true;
    report.info["device"] = "Fake GPU";
    report.warnings = {"GPU 0 throttled"};
    report.timeline.time_s = {0, 0.05, 0.1};
    report.timeline.series["gpu_utilization"] = {1, NAN, 3};
    return report;
}

bench::SamplingReport sampling(double target) {
    bench::SamplingReport report;
    report.stop_reason = "ci_width";
    report.elapsed_s = 1.5;
    report.samples = 7;
    report.target_ci_width = target;
    report.ci_width = 0.02;
    report.clock_resolution_ns = 1;
    report.clock_cost_ns = 20.5;
    return report;
}

// Writes a block with `write` in `format` and reads it back with `read`.
template <class Read>
auto through(JsonFormat format, const std::function<void(JsonOut&)>& write, Read&& read) {
    JsonOut out(format);
    write(out);
    const rapidjson::Document document = FieldReader::parse(out.json(), "test");
    return read(FieldReader(document, "test"));
}

TEST(ScenarioJson, MonitorRoundTripsInBothFormats) {
    const bench::MonitorReport report = sample_monitor();
    for (const JsonFormat format : {protocol_json, report_json}) {
        EXPECT_EQ(through(
                      format, [&](JsonOut& out) { write_monitor(out, report); }, read_monitor),
                  report);
    }
    // An empty reason of an available monitor is left out of the reports only.
    JsonOut strict(report_json), exact(protocol_json);
    write_monitor(strict, report);
    write_monitor(exact, report);
    EXPECT_EQ(strict.json().find("\"reason\""), std::string::npos) << strict.json();
    EXPECT_NE(exact.json().find("\"reason\":\"\""), std::string::npos) << exact.json();
    // The rest is the same document.
    rapidjson::Document a, b;
    ASSERT_EQ(parse_json(strict.json(), a), "");
    ASSERT_EQ(parse_json(exact.json(), b), "");
    b.RemoveMember("reason");
    b["metrics"]["power"]["mean"].SetNull();
    b["metrics"]["power"]["min"].SetNull();
    b["metrics"]["power"]["max"].SetNull();
    b["timeline"]["series"]["gpu_utilization"][1].SetNull();
    EXPECT_TRUE(a == b);
}

TEST(ScenarioJson, SamplingWithoutATargetIsNullInReports) {
    const std::map<std::string, bench::SamplingReport> reports = {{"latency", sampling(0)}, {"tiny", sampling(0.05)}};
    JsonOut strict(report_json);
    write_sampling(strict, reports);
    EXPECT_NE(strict.json().find("\"target_ci_width\": null"), std::string::npos) << strict.json();
    for (const JsonFormat format : {protocol_json, report_json}) {
        EXPECT_EQ(through(
                      format, [&](JsonOut& out) { write_sampling(out, reports); }, read_sampling),
                  reports);
    }
    // The worker protocol keeps whatever it was given.
    const std::map<std::string, bench::SamplingReport> odd = {{"x", sampling(-infinity)}};
    EXPECT_EQ(through(
                  protocol_json, [&](JsonOut& out) { write_sampling(out, odd); }, read_sampling),
              odd);
}

TEST(ScenarioJson, SeriesAndFiguresInTheirTwoForms) {
    const bench::Series series{"latency", "ms", {1.5, NAN, 2.5}, 4};
    const auto listed = through(
        protocol_json, [&](JsonOut& out) { write_series(out, series); },
        [](const FieldReader& r) { return read_series(r); });
    EXPECT_EQ(listed.name, "latency");
    EXPECT_EQ(listed.unit, "ms");
    EXPECT_EQ(listed.inner_iterations, 4);
    ASSERT_EQ(listed.samples.size(), 3u);
    EXPECT_TRUE(std::isnan(listed.samples[1]));

    SeriesStatistics statistics;
    statistics.name = "latency";
    statistics.unit = "ms";
    const auto keyed = through(
        report_json, [&](JsonOut& out) { write_series(out, series, &statistics); },
        [](const FieldReader& r) { return read_series(r, "latency"); });
    EXPECT_EQ(keyed.name, "latency");
    EXPECT_EQ(keyed.inner_iterations, 4);
    EXPECT_EQ(keyed.samples.size(), 3u);

    const bench::Scalar scalar{"peak_rss", 812.5, "MiB"};
    EXPECT_EQ(through(
                  protocol_json, [&](JsonOut& out) { write_figure(out, scalar.value, scalar.unit, scalar.name); },
                  [](const FieldReader& r) { return read_figure(r); }),
              scalar);
    EXPECT_EQ(through(
                  report_json, [&](JsonOut& out) { write_figure(out, scalar.value, scalar.unit); },
                  [](const FieldReader& r) { return read_figure(r, "peak_rss"); }),
              scalar);
}

TEST(ScenarioJson, ConfigAndShardRoundTrip) {
    bench::ScenarioConfig config;
    config.plugin = "alpha";
    config.variant = bench::Variant::kernelized;
    config.model_id = "m";
    config.target_ci_width = 0.05;
    config.throttle_cooldown_s = 2.5;
    config.world_size = 4;  // a distributed scenario's ranks
    config.discard_recompiled = true;
    config.compile_cache = "cold";
    config.params.set("sizes", bench::Params::Values{"1", "2"});
    ShardInfo shard;
    shard.index = 2;
    shard.count = 3;
    shard.plan_scenarios = 40;
    shard.plan_fingerprint = "0123456789abcdef";
    for (const JsonFormat format : {protocol_json, report_json}) {
        EXPECT_EQ(through(
                      format, [&](JsonOut& out) { write_config(out, config); }, read_config),
                  config);
        const ShardInfo back = through(
            format, [&](JsonOut& out) { write_shard(out, shard); }, read_shard);
        EXPECT_EQ(back.index, 2);
        EXPECT_EQ(back.count, 3);
        EXPECT_EQ(back.plan_scenarios, 40u);
        EXPECT_EQ(back.plan_fingerprint, shard.plan_fingerprint);
    }
    // The serving load, when there is one (docs/serving.md).
    config.load.mode = bench::LoadMode::server;
    config.load.queries = 500;
    config.load.target_qps = 12.5;
    config.load.burstiness = 0.5;
    config.load.late_tolerance_ms = 0.25;
    config.load.seed = 7;
    config.load.slos = {{"ttft", 500}, {"tpot", 50}};
    for (const JsonFormat format : {protocol_json, report_json})
        EXPECT_EQ(through(
                      format, [&](JsonOut& out) { write_config(out, config); }, read_config),
                  config);
    config.load.target_qps = 0;
    config.load.find_peak = true;
    config.load.peak_precision = 0.02;
    config.load.slo_percentile = 95;
    config.load.max_batch = 8;
    config.load.max_batch_wait_ms = 2.5;
    for (const JsonFormat format : {protocol_json, report_json})
        EXPECT_EQ(through(
                      format, [&](JsonOut& out) { write_config(out, config); }, read_config),
                  config);
    shard.index = 4;
    EXPECT_EQ(error_of([&] {
                  through(
                      protocol_json, [&](JsonOut& out) { write_shard(out, shard); }, read_shard);
              }),
              "test: field 'index' must be between 1 and count");
}

// The same outcome through the worker protocol, the journal and a report comes back the
// same (what a report cannot hold aside: non-finite numbers are null there).
TEST(ScenarioJson, AnOutcomeReadsBackTheSameThroughEveryFile) {
    ScenarioOutcome outcome;
    outcome.config.category = "performance";
    outcome.config.plugin = "alpha";
    outcome.config.benchmark = "alpha";
    outcome.config.scenario_name = "alpha";
    outcome.config.params.set("k", "v");
    outcome.result.series.push_back({"latency", "ms", {1.5, 2.5, 3.5}, 4});
    outcome.result.scalars.push_back({"peak_rss", 12.25, "MiB"});
    outcome.result.info["framework"] = "mock";
    outcome.result.warnings = {"loaded"};
    outcome.result.monitors["gpu_metrics"] = sample_monitor();
    outcome.result.monitors["gpu_metrics"].metrics.erase("power");
    outcome.result.monitors["gpu_metrics"].timeline.series.clear();
    outcome.result.monitors["cpu_metrics"].reason = "disabled";
    outcome.result.sampling["latency"] = sampling(0);
    bench::PeakSearch search;
    search.percentile = 95;
    search.precision = 0.05;
    search.peak_qps = 400;
    search.end = bench::peak_end_precision;
    search.steps.push_back({"coarse", 400, 398.5, 200, 200, 100, 0, true, "", {{"latency", 20, 2.5, 12.25}}});
    search.steps.push_back({"coarse",
                            800,
                            790,
                            12,
                            200,
                            25,
                            3,
                            false,
                            "3 of 12 queries over the latency bound, enough to take p95 of 200 over it",
                            {{"latency", 20, 41.5, 99.75}}});
    outcome.result.peak_search = search;
    outcome.result.accuracy = {{"original", "/data/val", 10, 7, 9}, {"quantized \"q8\"", "/data/val", 10, 6, 9}};
    outcome.started_at = "2026-11-22T12:00:00Z";
    outcome.wall_time_s = 0.5;

    EXPECT_EQ(config_from_json(config_to_json(outcome.config)), outcome.config);
    EXPECT_EQ(result_from_json(result_to_json(outcome.result)), outcome.result);
    const JournalLine line = parse_journal_line(journal_outcome_line(outcome, 2), "journal");
    ASSERT_TRUE(line.outcome);
    EXPECT_EQ(line.round, 2);
    EXPECT_EQ(line.outcome->config, outcome.config);
    EXPECT_EQ(line.outcome->result, outcome.result);

    benchtest::TempDir dir;
    RunRecord record;
    record.timestamp = "20261122_120000";
    record.started_at = "2026-11-22T12:00:00Z";
    record.outcomes = {outcome};
    write_reports(record, dir.path());
    const RunRecord read = read_run(dir.path());
    ASSERT_EQ(read.outcomes.size(), 1u);
    EXPECT_EQ(read.outcomes[0].config, outcome.config);
    EXPECT_EQ(read.outcomes[0].result, outcome.result);
    ASSERT_TRUE(read.outcomes[0].result.peak_search);
    EXPECT_EQ(read.outcomes[0].result.peak_search->steps.size(), 2u);  // not vacuous
}

// A search that found no peak: its NaN peak is NaN again (null in a report).
TEST(ScenarioJson, APeakSearchWithoutAPeakReadsBackWithoutOne) {
    bench::PeakSearch search;
    search.end = bench::peak_end_no_pass;
    search.precision = 0.05;
    search.steps.push_back({"coarse", 10, 9.5, 3, 200, 0, 0, false, "why", {{"ttft", 5, 7, 8}}});
    for (const JsonFormat format : {protocol_json, report_json}) {
        const bench::PeakSearch back = through(
            format, [&](JsonOut& out) { write_peak_search(out, search); }, read_peak_search);
        EXPECT_TRUE(std::isnan(back.peak_qps));
        EXPECT_EQ(back, search);
    }
}

TEST(ScenarioJson, AccuracyKeepsItsCountsAndWritesTheirFractions) {
    const std::vector<bench::Accuracy> accuracy = {{"original", "val", 10, 7, 9}, {"empty", "none", 0, 0, 0}};
    for (const JsonFormat format : {protocol_json, report_json})
        EXPECT_EQ(through(
                      format, [&](JsonOut& out) { write_accuracy(out, accuracy); }, read_accuracy),
                  accuracy);
    JsonOut out(report_json);
    write_accuracy(out, accuracy);
    const rapidjson::Document written = FieldReader::parse(out.json(), "test");
    EXPECT_DOUBLE_EQ(written["original"]["top1"].GetDouble(), 0.7);
    EXPECT_DOUBLE_EQ(written["original"]["top5"].GetDouble(), 0.9);
    EXPECT_EQ(written["empty"]["top1"].GetDouble(), 0.0);

    // Counts that cannot be are an error naming the model.
    const auto read_text = [](const std::string& json) {
        const rapidjson::Document document = FieldReader::parse(json, "report.json");
        return read_accuracy(FieldReader(document, "report.json"));
    };
    EXPECT_EQ(
        error_of([&] {
            read_text(
                R"({"m": {"dataset": "d", "inputs": 5, "top1_correct": 4, "top5_correct": 3, "top1": 0.8, "top5": 0.6}})");
        }),
        "report.json: field 'm' needs 0 <= top1_correct <= top5_correct <= inputs, got 4, 3, 5");
    EXPECT_EQ(error_of([&] { read_text(R"({"m": {"dataset": "d", "inputs": 5, "top1_correct": 1}})"); }),
              "report.json: field 'm.top5_correct' is missing");
}

TEST(ScenarioJson, ErrorsNameThePathInEveryFile) {
    // The same missing field, as the worker protocol, a journal line and a report say it.
    std::string result = result_to_json(bench::ScenarioResult{});
    result.replace(result.find("\"reason\""), 8, "\"motive\"");
    EXPECT_EQ(error_of([&] { result_from_json(result); }), "result JSON: field 'reason' is missing");
    std::string line = journal_outcome_line(ScenarioOutcome{}, 1);
    line.replace(line.find("\"batch_size\":1"), 14, "\"batch_size\":1.5");
    EXPECT_EQ(error_of([&] { parse_journal_line(line, "journal.jsonl:2"); }),
              "journal.jsonl:2: field 'config.batch_size' must be an integer");
}

}  // namespace
