#include "json/report_reader.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "../../support/test_support.hpp"
#include "report/report_writer.hpp"

namespace {

using namespace benchhost;

ScenarioOutcome outcome(const std::string& plugin, const std::string& name, bench::Status status) {
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
    record.timestamp = "20261122_120000";
    record.started_at = "2026-11-22T12:00:00Z";
    record.commit_id = "abc123";
    record.hardware["cpu"]["model"] = "Test CPU";
    record.run_config["isolation"] = "process";
    record.outcomes = {outcome("alpha", "alpha[batch_size=8]", bench::Status::success),
                       outcome("beta", "beta", bench::Status::crashed),
                       outcome("alpha", "alpha[batch_size=16]", bench::Status::failed)};
    write_reports(record, dir.path());

    const RunRecord read = read_run(dir.path());
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
}

TEST(ReportReader, NonFiniteSamplesComeBackAsNaN) {
    benchtest::TempDir dir;
    RunRecord record;
    record.timestamp = "20261122_120000";
    record.outcomes = {outcome("alpha", "alpha", bench::Status::success)};
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

}  // namespace
