// The monitors' reports on the host side: the worker protocol, the report files and
// reading them back, the options, and the hardware record with its warnings.
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include <rapidjson/document.h>
#include "../../support/error_of.hpp"

#include "../../support/test_support.hpp"
#include "cli/cli.hpp"
#include "config/run_config.hpp"
#include "json/result_json.hpp"
#include "report/report_reader.hpp"
#include "report/report_writer.hpp"
#include "run/hardware_info.hpp"

namespace {

using namespace benchhost;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
using fs_path = std::filesystem::path;

bench::MonitorReport gpu_report() {
    bench::MonitorReport report;
    report.available = true;
    report.metrics["gpu_utilization"] = {45.5, 10, 90, 12, "%"};
    report.metrics["process_memory_used"] = {nan, nan, nan, 0, "MiB"};  // never read
    report.values["energy_per_iteration"] = {0.125, "J"};
    report.values["sample_count"] = {14, "samples"};
    report.flags["throttled"] = true;
    report.info["device"] = "Fake \"GPU\"";
    report.warnings = {"GPU 0 throttled"};
    report.timeline.time_s = {0, 0.05, 0.1};
    report.timeline.series["gpu_utilization"] = {10, nan, 90};
    report.timeline.series["in_measurement"] = {0, 1, 1};
    return report;
}

bench::ScenarioResult monitored_result() {
    bench::ScenarioResult result;
    result.series.push_back({"latency", "ms", {1, 2, 3}, 1});
    result.monitors["gpu_metrics"] = gpu_report();
    bench::MonitorReport cpu;
    cpu.available = true;
    cpu.metrics["cpu_utilization"] = {98.5, 90, 100, 3, "%"};
    cpu.values["peak_rss"] = {812.25, "MiB"};
    cpu.flags["loaded"] = false;
    result.monitors["cpu_metrics"] = cpu;
    result.warnings = {"GPU 0 throttled", "second \xC3\xA9"};
    return result;
}

using benchtest::error_of;

TEST(MonitorProtocol, ResultWithMonitorsRoundTripsExactly) {
    const bench::ScenarioResult result = monitored_result();
    EXPECT_EQ(result_from_json(result_to_json(result)), result);
    bench::ScenarioResult disabled;
    disabled.monitors["gpu_metrics"].reason = "monitoring is disabled (monitor interval 0)";
    EXPECT_EQ(result_from_json(result_to_json(disabled)), disabled);
}

TEST(MonitorProtocol, ResultsWithoutMonitorsStillRead) {
    const bench::ScenarioResult read =
        result_from_json(R"({"status":"success","reason":"","series":[],"scalars":[],"info":{}})");
    EXPECT_TRUE(read.monitors.empty());
    EXPECT_TRUE(read.warnings.empty());
}

TEST(MonitorProtocol, BadMonitorsAreNamed) {
    const std::string head = R"({"status":"success","reason":"","series":[],"scalars":[],"info":{},)";
    EXPECT_EQ(error_of([&] {
                  result_from_json(head + R"("monitors":{"status":{}}})");
              }).rfind("result JSON: field 'monitors.status': a monitor's name must be", 0),
              0u);
    EXPECT_EQ(error_of([&] { result_from_json(head + R"("monitors":{"gpu_metrics":{"available":1}}})"); }),
              "result JSON: field 'monitors.gpu_metrics.available' must be true or false");
    std::string json = result_to_json(monitored_result());
    const auto at = json.find(R"("count":12)");
    ASSERT_NE(at, std::string::npos);
    json.replace(at, 10, R"("count":"12")");
    EXPECT_EQ(error_of([&] { result_from_json(json); }),
              "result JSON: field 'monitors.gpu_metrics.metrics.gpu_utilization.count' must be an integer");
    EXPECT_EQ(error_of([&] { result_from_json(head + R"("warnings":[1]})"); }),
              "result JSON: field 'warnings[0]' must be a string");
    EXPECT_TRUE(is_monitor_name("gpu_metrics"));
    EXPECT_FALSE(is_monitor_name("_metrics"));
    EXPECT_FALSE(is_monitor_name("GPU_metrics"));
    EXPECT_FALSE(is_monitor_name("metadata"));
}

TEST(MonitorProtocol, TheFuzzSeedWithMonitorsReads) {
    const std::string json =
        benchtest::read_file(fs_path(BENCH_TEST_SOURCE_DIR) / "tests/fuzz/corpus/result_json/monitors.json");
    const bench::ScenarioResult result = result_from_json(json);
    ASSERT_EQ(result.monitors.size(), 2u);
    const bench::MetricStats& power = result.monitors.at("gpu_metrics").metrics.at("power");
    EXPECT_TRUE(std::isnan(power.mean));
    EXPECT_TRUE(std::isnan(power.min));  // null reads as NaN
    EXPECT_TRUE(std::isinf(power.max));
    EXPECT_EQ(result_from_json(result_to_json(result)), result);
}

RunRecord monitored_record() {
    RunRecord record;
    record.timestamp = "20261122_120000";
    record.started_at = "2026-11-22T12:00:00Z";
    record.hardware["cpu"]["model"] = "Test CPU";
    record.hardware_warnings = {"the machine is loaded: load average 5 over the 2 CPUs"};
    ScenarioOutcome outcome;
    outcome.config.category = "performance";
    outcome.config.plugin = "alpha";
    outcome.config.benchmark = "alpha";
    outcome.config.scenario_name = "alpha";
    outcome.result = monitored_result();
    outcome.started_at = "2026-11-22T12:00:01Z";
    record.outcomes.push_back(outcome);
    return record;
}

TEST(MonitorReports, PluginReportAndSummaryCarryThem) {
    benchtest::TempDir dir;
    const RunRecord record = monitored_record();
    const WrittenReports written = write_reports(record, dir.path());

    rapidjson::Document report;
    report.Parse(benchtest::read_file(written.plugin_reports.at("alpha")).c_str());  // strict JSON
    ASSERT_FALSE(report.HasParseError());
    const auto& scenario = report["benchmark_scenarios"][0];
    const auto& gpu = scenario["gpu_metrics"];
    EXPECT_TRUE(gpu["available"].GetBool());
    EXPECT_FALSE(gpu.HasMember("reason"));
    EXPECT_DOUBLE_EQ(gpu["metrics"]["gpu_utilization"]["mean"].GetDouble(), 45.5);
    EXPECT_EQ(gpu["metrics"]["gpu_utilization"]["count"].GetInt(), 12);
    EXPECT_STREQ(gpu["metrics"]["gpu_utilization"]["unit"].GetString(), "%");
    EXPECT_TRUE(gpu["metrics"]["process_memory_used"]["mean"].IsNull());  // NaN: null
    EXPECT_DOUBLE_EQ(gpu["values"]["energy_per_iteration"]["value"].GetDouble(), 0.125);
    EXPECT_STREQ(gpu["values"]["energy_per_iteration"]["unit"].GetString(), "J");
    EXPECT_TRUE(gpu["flags"]["throttled"].GetBool());
    EXPECT_STREQ(gpu["info"]["device"].GetString(), "Fake \"GPU\"");
    EXPECT_TRUE(gpu["timeline"]["series"]["gpu_utilization"][1].IsNull());
    EXPECT_DOUBLE_EQ(scenario["cpu_metrics"]["values"]["peak_rss"]["value"].GetDouble(), 812.25);
    ASSERT_EQ(scenario["warnings"].Size(), 2u);
    EXPECT_STREQ(scenario["warnings"][0].GetString(), "GPU 0 throttled");
    const auto& hardware = scenario["metadata"]["hardware_info"];
    EXPECT_STREQ(hardware["cpu"]["model"].GetString(), "Test CPU");
    ASSERT_EQ(hardware["warnings"].Size(), 1u);

    rapidjson::Document summary;
    summary.Parse(benchtest::read_file(written.summary).c_str());
    ASSERT_FALSE(summary.HasParseError());
    EXPECT_EQ(summary["context"]["warnings"].Size(), 1u);
    const auto& entry = summary["results"][0];
    EXPECT_EQ(entry["warnings"].Size(), 2u);
    const auto& headline = entry["monitors"]["gpu_metrics"];
    EXPECT_TRUE(headline["throttled"].GetBool());
    EXPECT_DOUBLE_EQ(headline["gpu_utilization"]["mean"].GetDouble(), 45.5);
    EXPECT_DOUBLE_EQ(headline["energy_per_iteration"]["value"].GetDouble(), 0.125);
    EXPECT_DOUBLE_EQ(entry["monitors"]["cpu_metrics"]["peak_rss"]["value"].GetDouble(), 812.25);
    benchtest::expect_reports_match_schema(dir.path());  // docs/schema
}

TEST(MonitorReports, ReadBackForResume) {
    benchtest::TempDir dir;
    const RunRecord record = monitored_record();
    write_reports(record, dir.path());
    const RunRecord read = read_run(dir.path());
    ASSERT_EQ(read.outcomes.size(), 1u);
    EXPECT_EQ(read.outcomes[0].result, record.outcomes[0].result);
    EXPECT_EQ(read.hardware_warnings, record.hardware_warnings);
    EXPECT_EQ(read.hardware.at("cpu").at("model"), "Test CPU");
}

TEST(MonitorOptions, IntervalFromYamlAndCommandLine) {
    RunOptions options;
    EXPECT_DOUBLE_EQ(options.monitor_interval_ms, 50);
    load_config_text("monitor_interval: 0\n", "test.yaml", options);
    EXPECT_DOUBLE_EQ(options.monitor_interval_ms, 0);
    load_config_text("monitor_interval: 12.5\n", "test.yaml", options);
    EXPECT_DOUBLE_EQ(options.monitor_interval_ms, 12.5);
    EXPECT_THROW(load_config_text("monitor_interval: -1\n", "test.yaml", options), ConfigError);
    try {
        load_config_text("monitor_intervals: 5\n", "test.yaml", options);
        FAIL() << "expected an error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'monitor_interval'"), std::string::npos) << e.what();
    }

    const char* argv[] = {"benchhost", "run", "--monitor-interval", "20"};
    const ParsedCommandLine parsed = parse_command_line(4, argv);
    ASSERT_TRUE(parsed.command.has_value());
    EXPECT_DOUBLE_EQ(std::get<RunCommand>(*parsed.command).options.monitor_interval_ms, 20);
    const char* worker[] = {"benchhost", "worker", "--plugin", "p", "--symbol",           "s",
                            "--config",  "c",      "--result", "r", "--monitor-interval", "0"};
    const ParsedCommandLine worker_parsed = parse_command_line(12, worker);
    ASSERT_TRUE(worker_parsed.command.has_value());
    EXPECT_DOUBLE_EQ(std::get<WorkerCommand>(*worker_parsed.command).monitor_interval_ms, 0);
}

TEST(HardwareRecord, WarnsAsNanobenchDoes) {
    HardwareInfo info;
    info["build"]["build_type"] = "Release";
    info["build"]["optimized"] = "yes";
    info["load"]["load_average_1m"] = "0.5";
    info["load"]["cpus_available"] = "2";
    EXPECT_TRUE(hardware_warnings(info).empty());

    info["build"]["build_type"] = "Debug";
    info["build"]["optimized"] = "no";
    info["cpu"]["scaling_governor"] = "powersave";
    info["cpu"]["turbo"] = "on";
    info["load"]["load_average_1m"] = "3.5";
    const auto warnings = hardware_warnings(info);
    ASSERT_EQ(warnings.size(), 4u);
    EXPECT_NE(warnings[0].find("not an optimized build (build type 'Debug')"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[1].find("frequency scaling is on (governor 'powersave')"), std::string::npos) << warnings[1];
    EXPECT_NE(warnings[2].find("turbo is on"), std::string::npos) << warnings[2];
    EXPECT_NE(warnings[3].find("load average 3.5 over the 2 CPUs"), std::string::npos) << warnings[3];
}

TEST(HardwareRecord, CollectsTheNewSections) {
    const HardwareInfo info = collect_hardware_info();
    for (const char* key : {"model", "logical_cores", "cpus_available", "frequency_scaling", "turbo"})
        EXPECT_TRUE(info.at("cpu").contains(key)) << key;
    EXPECT_TRUE(info.at("load").contains("load_average_1m"));
    EXPECT_TRUE(info.at("gpu").contains("available"));
    if (info.at("gpu").at("available") == "no") {
        EXPECT_FALSE(info.at("gpu").at("reason").empty());
    }
    EXPECT_FALSE(info.at("build").at("git_commit").empty());
    EXPECT_EQ(info.at("build").at("optimized"), "yes");  // the tests build Release
    EXPECT_TRUE(info.at("libtorch").contains("version_at_build"));
}

TEST(HardwareRecord, CalibrationCacheIsReadDefensively) {
    benchtest::TempDir dir;
    EXPECT_TRUE(read_calibration(dir / "absent.json").empty());
    benchtest::write_file(dir / "bad.json", "{not json");
    EXPECT_EQ(read_calibration(dir / "bad.json").at("error").rfind((dir / "bad.json").string() + ": ", 0), 0u);
    benchtest::write_file(dir / "array.json", "[1, 2]");
    EXPECT_NE(read_calibration(dir / "array.json").at("error").find("not a JSON object"), std::string::npos);
    benchtest::write_file(dir / "deep.json", std::string(100000, '['));  // no stack overflow
    EXPECT_NE(read_calibration(dir / "deep.json").at("error").find("not valid JSON"), std::string::npos);
    benchtest::write_file(
        dir / "good.json",
        R"({"version":1,"entries":{"Xeon|float32|threads=1":{"gflops":112.25,"method":"onednn_linear",)"
        R"("torch_version":"1.13.1","measured_at_unix":1},"odd":[1,2]},"note":{"a":true}})");
    const auto calibration = read_calibration(dir / "good.json");
    EXPECT_EQ(calibration.at("file"), (dir / "good.json").string());
    EXPECT_EQ(calibration.at("peak Xeon|float32|threads=1"), "112.2 GFLOP/s (onednn_linear, LibTorch 1.13.1)");
    EXPECT_EQ(calibration.at("ignored"), "odd: not an object");
    EXPECT_EQ(calibration.size(), 3u);
}

TEST(HardwareRecord, PluginsAndLibTorchAsTheScenariosReported) {
    HardwareInfo info;
    ScenarioOutcome outcome;
    outcome.config.plugin = "resnet50";
    outcome.plugin_version = "1.2.0";
    outcome.result.info = {{"framework", "libtorch"},
                           {"torch_version", "1.13.1"},
                           {"mkldnn", "yes"},
                           {"threads", "1"},
                           {"model", "ResNet-50"}};
    add_reported_facts(info, outcome);
    outcome.result.info["threads"] = "2";
    add_reported_facts(info, outcome);
    add_reported_facts(info, outcome);
    EXPECT_EQ(info.at("plugins").at("resnet50"), "version 1.2.0, commit unknown");
    EXPECT_EQ(info.at("libtorch").at("torch_version"), "1.13.1");
    EXPECT_EQ(info.at("libtorch").at("mkldnn"), "yes");
    EXPECT_EQ(info.at("libtorch").at("threads"), "1 | 2");
    EXPECT_FALSE(info.at("libtorch").contains("model"));

    ScenarioOutcome mock;
    mock.config.plugin = "mock";
    mock.plugin_version = "1.0.0";
    mock.result.info = {{"framework", "mock"}, {"torch_version", "x"}, {"git_commit", "abc123"}};
    add_reported_facts(info, mock);
    EXPECT_EQ(info.at("plugins").at("mock"), "version 1.0.0, commit abc123");
    EXPECT_EQ(info.at("libtorch").at("torch_version"), "1.13.1");  // only LibTorch plugins count
}

}  // namespace
