#include "report/report_reader.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "../../support/error_of.hpp"
#include "../../support/test_support.hpp"
#include "json/report_schema.hpp"
#include "report/comparison_reporter.hpp"
#include "report/report_writer.hpp"

namespace {

using namespace benchhost;
using benchtest::error_of;

ScenarioOutcome stored_outcome(const std::string& plugin, const std::string& name, bench::Status status) {
    ScenarioOutcome o;
    o.config.category = "performance";
    o.config.plugin = plugin;
    o.config.benchmark = plugin;
    o.config.scenario_name = name;
    o.config.batch_size = 8;
    o.config.variant = bench::Variant::compiled;
    o.config.params.set("sizes", bench::Params::Values{"1", "2"});
    o.result.status = status;
    o.result.reason = status == bench::Status::success ? "" : "it broke";
    o.result.series.push_back({"latency", "ms", {1.5, 2.5, 3.5}, 4});
    o.result.scalars.push_back({"peak_rss", 12.25, "MiB"});
    o.result.info["framework"] = "mock";
    o.plugin_path = "/plugins/performance/lib" + plugin + ".so";
    o.plugin_version = "1.0";
    o.started_at = "2026-11-22T12:00:00Z";
    o.wall_time_s = 0.5;
    if (status != bench::Status::success) o.log_tail = "last words\n";
    return o;
}

TEST(ReportReader, ReadsBackWhatTheWriterWrote) {
    benchtest::TempDir dir;
    RunRecord record;
    record.run_id = "0123456789abcdef0123456789abcdef";
    record.timestamp = "20261122_120000";
    record.started_at = "2026-11-22T12:00:00Z";
    record.commit_id = "abc123";
    record.hardware["cpu"]["model"] = "Test CPU";
    record.run_config["isolation"] = "process";
    record.outcomes = {stored_outcome("alpha", "alpha[batch_size=8]", bench::Status::success),
                       stored_outcome("beta", "beta", bench::Status::crashed),
                       stored_outcome("alpha", "alpha[batch_size=16]", bench::Status::failed)};
    record.outcomes[0].rounds = 2;
    record.outcomes[0].round_sizes["latency"] = {2, 1};
    write_reports(record, dir.path());

    const RunRecord read = read_run(dir.path());
    EXPECT_EQ(read.run_id, record.run_id);
    EXPECT_EQ(read.timestamp, record.timestamp);
    EXPECT_EQ(read.commit_id, "abc123");
    EXPECT_EQ(read.hardware.at("cpu").at("model"), "Test CPU");
    ASSERT_EQ(read.outcomes.size(), 3u);
    // Grouped by report: both alpha scenarios, then beta.
    EXPECT_EQ(read.outcomes[0].config, record.outcomes[0].config);
    EXPECT_EQ(read.outcomes[0].result, record.outcomes[0].result);
    EXPECT_EQ(read.outcomes[1].config.scenario_name, "alpha[batch_size=16]");
    EXPECT_EQ(read.outcomes[2].result.status, bench::Status::crashed);
    EXPECT_EQ(read.outcomes[2].result.reason, "it broke");
    EXPECT_EQ(read.outcomes[2].log_tail, "last words\n");
    EXPECT_EQ(read.outcomes[0].plugin_path, record.outcomes[0].plugin_path);
    EXPECT_DOUBLE_EQ(read.outcomes[0].wall_time_s, 0.5);
    EXPECT_EQ(read.outcomes[0].rounds, 2);
    EXPECT_EQ(read.outcomes[0].round_sizes, record.outcomes[0].round_sizes);
    EXPECT_TRUE(read.outcomes[1].round_sizes.empty());
}

TEST(ReportReader, NonFiniteSamplesComeBackAsNaN) {
    benchtest::TempDir dir;
    RunRecord record;
    record.timestamp = "20261122_120000";
    record.outcomes = {stored_outcome("alpha", "alpha", bench::Status::success)};
    record.outcomes[0].result.series[0].samples = {1.0, std::nan(""), 3.0};
    write_reports(record, dir.path());
    const RunRecord read = read_run(dir.path());
    EXPECT_TRUE(std::isnan(read.outcomes[0].result.series[0].samples[1]));
}

TEST(ReportReader, ErrorsNameTheFileAndTheField) {
    auto error_of = [](const std::string& json) {
        try {
            parse_plugin_report(json, "report.json");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of("{"), "report.json: invalid JSON: parse error at offset 1: Missing a name for object member.");
    EXPECT_EQ(error_of("{}"), "report.json.benchmark_scenarios: is missing");
    EXPECT_EQ(error_of(R"({"benchmark_scenarios": [1]})"), "report.json.benchmark_scenarios[0]: must be an object");
    const std::string error = error_of(R"({"benchmark_scenarios": [{"status": "success", "metadata": {}}]})");
    EXPECT_EQ(error, "report.json.benchmark_scenarios[0].metadata.config: is missing");
}

TEST(ReportReader, SummaryMayNotPointOutsideTheRunFolder) {
    benchtest::TempDir dir;
    benchtest::write_file(dir / "benchmark_summary.json",
                          R"({"run_metadata": {"timestamp": "t", "started_at": "s"},
                              "results": [{"report": "../../etc/passwd"}]})");
    try {
        read_run(dir.path());
        FAIL() << "accepted a path outside the folder";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("must be a path inside the run folder"), std::string::npos) << e.what();
    }
}

// ---- validation against docs/schema -------------------------------------------------

// A run folder written by the host, whose files a test then edits.
struct WrittenRun {
    benchtest::TempDir dir;
    std::filesystem::path summary, report;
    WrittenRun() {
        RunRecord record;
        record.timestamp = "20261122_120000";
        record.started_at = "2026-11-22T12:00:00Z";
        record.outcomes = {stored_outcome("alpha", "alpha", bench::Status::success)};
        const WrittenReports written = write_reports(record, dir.path());
        summary = written.summary;
        report = written.plugin_reports.at("alpha");
    }
    static void edit(const std::filesystem::path& file, const std::string& from, const std::string& to) {
        std::string text = benchtest::read_file(file);
        const auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
        benchtest::write_file(file, text);
    }
};

TEST(ReportReader, TheEmbeddedSchemasAreDocsSchema) {
    for (const ReportSchema schema : {ReportSchema::report, ReportSchema::summary, ReportSchema::comparison}) {
        const std::string file =
            benchtest::read_file(std::filesystem::path(BENCH_SCHEMA_DIR) / schema_file_name(schema));
        EXPECT_EQ(embedded_schema_text(schema), file) << schema_file_name(schema);
    }
}

TEST(ReportReader, AReportOfTheWrongTypeIsRefusedNamingThePointer) {
    WrittenRun run;
    WrittenRun::edit(run.report, "\"wall_time_s\": 0.5", "\"wall_time_s\": \"slow\"");
    const std::string error = error_of([&] { read_run(run.dir.path()); });
    EXPECT_EQ(error,
              run.report.string() + ": does not match report.schema.json (schema_version " +
                  std::to_string(report_schema_version) +
                  "): /benchmark_scenarios/0/wall_time_s: type: expected [\"number\",\"null\"], got string \"slow\"");
    // The checked reader alone would have said so too, less precisely: the schema is read first.
    EXPECT_EQ(error_of([&] {
                  parse_plugin_report(benchtest::read_file(run.report), "r.json");
              }).rfind("r.json: does not match", 0),
              0u);
}

TEST(ReportReader, WhatTheSchemaForbidsIsRefusedInTheSummaryToo) {
    WrittenRun run;
    WrittenRun::edit(run.summary, "\"run_metadata\": {", "\"run_metadata\": {\n    \"colour\": \"red\",");
    EXPECT_EQ(error_of([&] { read_run(run.dir.path()); }),
              run.summary.string() + ": does not match summary.schema.json (schema_version " +
                  std::to_string(report_schema_version) +
                  "): /run_metadata/colour: additionalProperties: field 'colour' is not allowed here");
}

TEST(ReportReader, ASeriesThatIsWrongSaysWhyNeitherFormOfAMeasurementMatches) {
    WrittenRun run;
    WrittenRun::edit(run.report, "\"count\": 3", "\"count\": -3");
    const std::string error = error_of([&] { read_run(run.dir.path()); });
    EXPECT_NE(error.find("/benchmark_scenarios/0/measurements/latency: oneOf: matches no alternative"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("/benchmark_scenarios/0/measurements/latency/count: minimum: expected at least 0, got -3"),
              std::string::npos)
        << error;
}

TEST(ReportReader, OlderVersionsAreReadFieldByFieldAndNewerOnesRefused) {
    WrittenRun run;
    // Version 2 did not know what a newer host may add: read what is known.
    const std::string current = "\"schema_version\": " + std::to_string(report_schema_version);
    WrittenRun::edit(run.report, current, "\"schema_version\": 2,\n  \"generator\": \"an older host\"");
    WrittenRun::edit(run.summary, current, "\"schema_version\": 2");
    const RunRecord read = read_run(run.dir.path());
    ASSERT_EQ(read.outcomes.size(), 1u);
    EXPECT_EQ(read.outcomes[0].result.series[0].samples, (std::vector<double>{1.5, 2.5, 3.5}));

    WrittenRun::edit(run.summary, "\"schema_version\": 2", "\"schema_version\": 99");
    EXPECT_EQ(error_of([&] { read_run(run.dir.path()); }),
              run.summary.string() + ".schema_version: is 99, newer than this benchhost reads (" +
                  std::to_string(report_schema_version) + ")");
}

TEST(ReportReader, ASummaryWithoutARunIdIsReadAsBeforeWithAnEmptyOne) {
    WrittenRun run;
    RunRecord record;
    record.run_id = "00112233445566778899aabbccddeeff";
    record.timestamp = "20261122_120000";
    record.started_at = "2026-11-22T12:00:00Z";
    record.outcomes = {stored_outcome("alpha", "alpha", bench::Status::success)};
    write_reports(record, run.dir.path());
    const std::string id_field = "\"run_id\": \"" + record.run_id + "\",";
    ASSERT_NE(benchtest::read_file(run.summary).find(id_field), std::string::npos);
    EXPECT_EQ(read_run(run.dir.path()).run_id, record.run_id);

    // As a benchhost wrote it before runs had ids (schema_version 10): no run_id.
    WrittenRun::edit(run.summary, id_field, "");
    const std::string current = "\"schema_version\": " + std::to_string(report_schema_version);
    WrittenRun::edit(run.summary, current, "\"schema_version\": 10");
    const RunRecord read = read_run(run.dir.path());
    EXPECT_EQ(read.run_id, "");
    EXPECT_EQ(read.timestamp, record.timestamp);
    ASSERT_EQ(read.outcomes.size(), 1u);
    EXPECT_EQ(read.outcomes[0].result.series[0].samples, (std::vector<double>{1.5, 2.5, 3.5}));

    // One that is not 32 lower-case hex digits is refused, naming it.
    WrittenRun::edit(run.summary, "\"schema_version\": 10", current);
    WrittenRun::edit(run.summary, "\"timestamp\": ", "\"run_id\": \"ABC\", \"timestamp\": ");
    const std::string error = error_of([&] { read_run(run.dir.path()); });
    EXPECT_NE(error.find("/run_metadata/run_id"), std::string::npos) << error;
}

/// A comparison with a row of each kind of evidence, what a confirmation adds, the
/// lists, and figures that were not finite.
Comparison every_kind_of_comparison() {
    Comparison c;
    c.base_label = "runs/base";
    c.new_label = "runs/new";
    c.options.threshold = 0.03;
    c.options.alpha = 0.01;
    c.options.noise_floor = 0.2;
    c.incomparable = {"cpu.model: A (base) vs B (new)"};
    SeriesComparison samples;
    samples.scenario_id = "performance/mock/eager";
    samples.series = "latency";
    samples.base_median_ms = 2.5;
    samples.new_median_ms = 3.125;
    samples.base_samples = 20;
    samples.new_samples = 21;
    samples.ratio = 1.25;
    samples.ratio_ci = {1.125, 1.375};
    samples.p_value = 0.0004;
    samples.verdict = Verdict::slower;
    SeriesComparison rounds = samples;
    rounds.scenario_id = "performance/mock/compiled";
    rounds.evidence = "rounds";
    rounds.base_rounds = 3;
    rounds.new_rounds = 5;
    rounds.verdict = Verdict::inconclusive;
    rounds.note = "the rounds disagree";
    rounds.first = SeriesComparison::First{1.5, {1.25, 1.75}, Verdict::slower, 2, 2};
    SeriesComparison history = samples;
    history.scenario_id = "performance/mock/kernelized";
    history.evidence = "history";
    history.history_runs = 12;
    history.verdict = Verdict::same;
    history.ratio_ci = {};  // none
    SeriesComparison pairs = samples;
    pairs.series = "ttft";
    pairs.evidence = "pairs";
    pairs.verdict = Verdict::faster;
    pairs.verdict_level = 0.99;
    pairs.verdict_ci = {0.5, 0.875};
    c.rows = {samples, rounds, history, pairs};
    c.geomean_ratio = NAN;
    c.only_in_base = {"performance/gone/eager"};
    c.only_in_new = {"performance/new/eager"};
    c.not_compared = {"performance/mock/x: failed in new run (crashed)"};
    c.notes = {"a note"};
    c.differences = std::vector<SideDifference>{{"param slowdown", "(none)", "1.05"}, {"cpu.model", "A", "B"}};
    c.base_load = {3, 12.5, 0.25, 1.5};
    c.new_load = {0, NAN, NAN, NAN};
    return c;
}

TEST(ReportReader, AComparisonReadBackIsWrittenAgainByteForByte) {
    const std::string json = comparison_json(every_kind_of_comparison());
    const Comparison read = parse_comparison(json, "comparison.json");
    EXPECT_EQ(comparison_json(read), json);
    ASSERT_EQ(read.rows.size(), 4u);
    EXPECT_EQ(read.rows[0].p_value, 0.0004);
    EXPECT_EQ(read.rows[1].first->verdict, Verdict::slower);
    EXPECT_FALSE(read.rows[2].ratio_ci.valid());
    EXPECT_EQ(read.regressions(), 1u);
    EXPECT_EQ(read.differences, every_kind_of_comparison().differences);
    // An A/B comparison is read as one.
    Comparison ab = every_kind_of_comparison();
    ab.options.paired = true;
    EXPECT_TRUE(parse_comparison(comparison_json(ab), "comparison.json").options.paired);
}

TEST(ReportReader, AComparisonWrittenBeforeDifferencesDoesNotKnowThem) {
    // Written with nothing different, it says so; an older one, without the field, says nothing.
    Comparison same = every_kind_of_comparison();
    same.differences.emplace();
    const Comparison read_same = parse_comparison(comparison_json(same), "comparison.json");
    ASSERT_TRUE(read_same.differences.has_value());
    EXPECT_TRUE(read_same.differences->empty());
    Comparison older = every_kind_of_comparison();
    older.differences.reset();
    std::string json = comparison_json(older);
    const std::string current = "\"schema_version\": " + std::to_string(comparison_schema_version);
    json.replace(json.find(current), current.size(), "\"schema_version\": 5");
    const Comparison read_older = parse_comparison(json, "comparison.json");
    EXPECT_FALSE(read_older.differences.has_value());
    EXPECT_EQ(read_older.rows.size(), 4u);
}

TEST(ReportReader, AComparisonThatIsWrongIsRefusedNamingTheField) {
    const std::string json = comparison_json(every_kind_of_comparison());
    std::string wrong = json;
    wrong.replace(wrong.find("\"slower\""), 8, "\"worse\"");
    EXPECT_NE(
        error_of([&] { parse_comparison(wrong, "c.json"); }).find("c.json: does not match comparison.schema.json"),
        std::string::npos);
    // An older version is read field by field: the verdict is checked there too.
    const std::string current = "\"schema_version\": " + std::to_string(comparison_schema_version);
    std::string older = wrong;
    older.replace(older.find(current), current.size(), "\"schema_version\": 4");
    EXPECT_EQ(error_of([&] { parse_comparison(older, "c.json"); }),
              "c.json.rows[0].verdict: has an unknown value 'worse'");
    std::string newer = json;
    newer.replace(newer.find(current), current.size(), "\"schema_version\": 99");
    EXPECT_EQ(error_of([&] { parse_comparison(newer, "c.json"); }),
              "c.json.schema_version: is 99, newer than this benchhost reads (" +
                  std::to_string(comparison_schema_version) + ")");
}

TEST(ReportReader, AMissingReportIsNamedWithTheSystemError) {
    WrittenRun run;
    std::filesystem::remove(run.report);
    EXPECT_EQ(error_of([&] { read_run(run.dir.path()); }),
              run.report.string() + ": cannot be read: No such file or directory");
}

}  // namespace
