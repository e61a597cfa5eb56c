// A profile's JSON block (json/profile_json.hpp): the protocol's form round-trips exactly
// (trace events and NaN included) through the worker result and the journal; the
// report's form names the trace file instead of its events, matches the schema, and is
// read back by the run folder's reader.
#include "json/profile_json.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"
#include "../../support/error_of.hpp"
#include "../../support/profile_sample.hpp"
#include "../../support/test_support.hpp"
#include "json/result_json.hpp"
#include "report/files/profile_trace_reporter.hpp"
#include "report/report_reader.hpp"
#include "report/report_writer.hpp"

namespace {

using namespace benchhost;

TEST(ProfileJson, TheWorkerResultAndTheJournalCarryTheWholeProfile) {
    bench::ScenarioResult result;
    result.series.push_back({"latency", "ms", {10, 11}, 1});
    result.profile = benchtest::sample_profile();
    const bench::ScenarioResult back = result_from_json(result_to_json(result));
    ASSERT_TRUE(back.profile.has_value());
    EXPECT_EQ(*back.profile, *result.profile);  // NaN parameters and all
    EXPECT_TRUE(std::isnan(back.profile->modules.back().parameters));
    EXPECT_EQ(back.profile->trace.size(), 3u);
    EXPECT_EQ(back, result);

    // The journal line of the scenario, and a result without a profile has none.
    ScenarioOutcome outcome = benchtest::Outcome("performance", "resnet50", "resnet50").variant(bench::Variant::eager);
    outcome.result = result;
    const JournalLine line = parse_journal_line(journal_outcome_line(outcome, 1), "journal.jsonl:2");
    ASSERT_TRUE(line.outcome.has_value());
    EXPECT_EQ(line.outcome->result.profile, result.profile);
    result.profile.reset();
    EXPECT_EQ(result_to_json(result).find("\"profile\""), std::string::npos);

    // --profile in the scenario's config, only when set.
    bench::ScenarioConfig config;
    EXPECT_EQ(config_to_json(config).find("\"profile\""), std::string::npos);
    config.profile = true;
    EXPECT_TRUE(config_from_json(config_to_json(config)).profile);
}

TEST(ProfileJson, AReportNamesTheTraceFileAndReadsBack) {
    benchtest::TempDir dir;
    ScenarioOutcome outcome =
        benchtest::Outcome("performance", "resnet50", "resnet50").variant(bench::Variant::eager).batch_size(1);
    outcome.config.profile = true;
    outcome.result.series.push_back({"latency", "ms", {10, 11, 12}, 1});
    outcome.result.profile = benchtest::sample_profile();
    RunRecord record = benchtest::record_of({outcome});
    const std::string trace_file = profile_trace_file(record.outcomes[0], record.timestamp);
    EXPECT_EQ(trace_file, "traces/resnet50/resnet50_variant_eager_batch_size_1_20261122_115000.json");

    write_reports(record, dir.path());  // the reader checks the files against docs/schema
    const RunRecord read = read_run(dir.path());
    ASSERT_EQ(read.outcomes.size(), 1u);
    EXPECT_TRUE(read.outcomes[0].config.profile);
    ASSERT_TRUE(read.outcomes[0].result.profile.has_value());
    bench::Profile expected = *outcome.result.profile;
    expected.trace.clear();  // in its file, not in the report
    expected.trace_file = trace_file;
    EXPECT_EQ(*read.outcomes[0].result.profile, expected);
    // Read back, it still names its file.
    EXPECT_EQ(profile_trace_file(read.outcomes[0], "20991231_000000"), trace_file);
    const std::string report = benchtest::read_file(dir / "resnet50" / "resnet50_20261122_115000.json");
    EXPECT_NE(report.find("\"trace_file\": \"" + trace_file + "\""), std::string::npos);
    EXPECT_EQ(report.find("\"trace\":"), std::string::npos);
}

TEST(ProfileJson, AStackThatNamesNoFrameIsAnError) {
    const std::string bad =
        R"({"status": "success", "reason": "", "series": [], "scalars": [], "info": {}, "profile": {"call": "f",
        "operator_profiler": "", "calls": 0, "call_ms": 1, "unprofiled_call_ms": 1, "overhead": 1, "operators": [],
        "modules": [], "flame_graphs": [{"name": "native", "source": "perf", "unit": "ms", "frames": ["a"],
        "stacks": [{"value": 1, "frames": [0, 3]}]}], "sampler": "", "samples": 0, "notes": [], "trace": []}})";
    EXPECT_EQ(
        benchtest::error_of([&] { result_from_json(bad); }),
        "result JSON: field 'profile.flame_graphs[0].stacks[0].frames[1]' is not an index into frames (0 to 1 - 1)");
}

}  // namespace
