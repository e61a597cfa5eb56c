#include "report/report_writer.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include <rapidjson/document.h>
#include "../../support/builders.hpp"
#include "../../support/csv.hpp"

#include "../../support/report_schema.hpp"
#include "model/run_record.hpp"
#include "run/hardware_info.hpp"
#include "util/atomic_file.hpp"

namespace {

namespace fs = std::filesystem;
using benchhost::RunRecord;
using benchhost::ScenarioOutcome;
using benchtest::parse_csv;

// A fresh folder under the system's temporary folder, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        static int counter = 0;
        const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
        path_ = fs::temp_directory_path() / ("benchhost_report_test_" + std::to_string(::getpid()) + "_" +
                                             std::to_string(ticks) + "_" + std::to_string(counter++));
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

rapidjson::Document parse_file(const fs::path& path) {
    rapidjson::Document document;
    const std::string text = read_file(path);
    document.Parse(text.data(), text.size());  // strict JSON: no NaN tokens accepted
    if (document.HasParseError()) {
        ADD_FAILURE() << path << " is not valid JSON at offset " << document.GetErrorOffset();
    }
    return document;
}

const rapidjson::Value& member(const rapidjson::Value& object, const char* key) {
    static const rapidjson::Value null_value;
    EXPECT_TRUE(object.IsObject()) << "looking up '" << key << "' in a non-object";
    if (!object.IsObject()) return null_value;
    const auto it = object.FindMember(key);
    EXPECT_NE(it, object.MemberEnd()) << "key '" << key << "' is missing";
    return it == object.MemberEnd() ? null_value : it->value;
}

std::string str(const rapidjson::Value& value) {
    EXPECT_TRUE(value.IsString());
    return value.IsString() ? std::string(value.GetString(), value.GetStringLength()) : std::string();
}

double num(const rapidjson::Value& value) {
    EXPECT_TRUE(value.IsNumber());
    return value.IsNumber() ? value.GetDouble() : std::nan("");
}

ScenarioOutcome make_outcome(const std::string& category, const std::string& plugin, const std::string& scenario,
                             bench::Status status, const std::string& reason = {}) {
    return benchtest::Outcome(category, plugin, scenario)
        .axis("batch", "4")
        .status(status, reason)
        .edit([&](ScenarioOutcome& outcome) {
            outcome.config.batch_size = 4;
            outcome.config.variant = bench::Variant::compiled;
            outcome.config.params.set("size", "224");
            outcome.plugin_path = "/opt/plugins/" + category + "/lib" + plugin + ".so";
            outcome.plugin_version = "1.2.3";
            outcome.wall_time_s = 1.25;
        });
}

RunRecord written_record() {
    RunRecord record = benchtest::record_of();
    record.finished_at = "2026-11-22T11:51:00Z";
    record.hardware["cpu"]["model"] = "Test CPU";
    record.hardware["cpu"]["logical_cores"] = "2";
    record.hardware["memory"]["total_mib"] = "4096";
    record.run_config["timeout"] = "60";
    record.run_config["isolation"] = "process";

    // alpha/inference: a full success.
    auto ok = make_outcome("performance", "alpha", "inference", bench::Status::success);
    ok.result.series.push_back({"latency", "ms", {5, 1, 4, 2, 3}, 1});
    ok.result.series.push_back({"throughput", "samples/s", {100, 200, 300}, 1});
    ok.result.series.push_back({"empty", "ms", {}, 1});
    // What a plain Python function returns under its own key: seconds.
    ok.result.series.push_back({"execution_time", "s", {0.0125, 0.0121, 0.0123}, 1});
    ok.result.scalars.push_back({"peak_rss", 512, "MiB"});
    ok.result.scalars.push_back({"parameters", 25557032, ""});
    ok.result.info["framework"] = "libtorch";
    ok.result.info["model"] = "res\"net, 50";
    ok.log_tail = "kept only for failures";
    record.outcomes.push_back(ok);

    // beta/skipme: skipped.
    record.outcomes.push_back(make_outcome("unit", "beta", "skipme", bench::Status::skipped, "mock disabled"));

    // alpha/broken: failed, with a log tail and text that needs care.
    auto broken = make_outcome("performance", "alpha", "broken", bench::Status::failed, "bad \"output\", see log");
    broken.log_tail = "line 1\nline 2 \xFF invalid byte\n";
    record.outcomes.push_back(broken);

    // beta/crash: crashed.
    auto crash = make_outcome("unit", "beta", "crash", bench::Status::crashed, "worker died on signal 11 (SIGSEGV)");
    crash.log_tail = "Segmentation fault";
    record.outcomes.push_back(crash);

    // beta/generate: success with token series in seconds.
    auto generate = make_outcome("unit", "beta", "generate", bench::Status::success);
    generate.result.series.push_back({"latency", "s", {0.5}, 1});
    generate.result.series.push_back({"time_to_first_token", "ms", {10, 20}, 1});
    generate.result.series.push_back({"tokens_per_second", "tokens/s", {40, 50}, 1});
    record.outcomes.push_back(generate);
    return record;
}

class ReportWriterTest : public ::testing::Test {
protected:
    // Whatever a test wrote matches docs/schema.
    void TearDown() override {
        if (fs::exists(dir.path() / "benchmark_summary.json")) benchtest::expect_reports_match_schema(dir.path());
    }

    TempDir dir;
    RunRecord record = written_record();
};

TEST_F(ReportWriterTest, WritesOneReportPerPluginAndTheSummaryAndTheCsv) {
    const auto written = benchhost::write_reports(record, dir.path());
    ASSERT_EQ(written.plugin_reports.size(), 2u);
    EXPECT_EQ(written.plugin_reports.at("alpha"), dir.path() / "alpha" / "alpha_20261122_115000.json");
    EXPECT_EQ(written.plugin_reports.at("beta"), dir.path() / "beta" / "beta_20261122_115000.json");
    EXPECT_EQ(written.summary, dir.path() / "benchmark_summary.json");
    EXPECT_EQ(written.csv, dir.path() / "benchmark_results_20261122_115000.csv");
    for (const auto& [plugin, path] : written.plugin_reports) EXPECT_TRUE(fs::is_regular_file(path)) << path;
    EXPECT_TRUE(fs::is_regular_file(written.summary));
    EXPECT_TRUE(fs::is_regular_file(written.csv));

    // Nothing but the reports: no temporary files left behind.
    std::size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
        if (entry.is_regular_file()) {
            ++files;
            EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
        }
    }
    EXPECT_EQ(files, 4u);
}

TEST_F(ReportWriterTest, PluginReportPath) {
    EXPECT_EQ(benchhost::plugin_report_path("alpha", "20261122_115000"), fs::path("alpha/alpha_20261122_115000.json"));
}

TEST_F(ReportWriterTest, PluginReportHasEveryKey) {
    const auto written = benchhost::write_reports(record, dir.path());
    const auto report = parse_file(written.plugin_reports.at("alpha"));
    ASSERT_TRUE(report.IsObject());
    EXPECT_EQ(str(member(report, "model_name")), "alpha");
    EXPECT_EQ(member(report, "schema_version").GetInt(), benchhost::report_schema_version);
    const auto& scenarios = member(report, "benchmark_scenarios");
    ASSERT_TRUE(scenarios.IsArray());
    ASSERT_EQ(scenarios.Size(), 2u);  // alpha's two outcomes, in order

    const auto& ok = scenarios[0];
    EXPECT_EQ(str(member(ok, "scenario_name")), "inference[batch=4]");
    EXPECT_EQ(str(member(ok, "scenario_id")), "performance/alpha/inference[batch=4]");
    EXPECT_EQ(str(member(ok, "benchmark")), "inference");
    EXPECT_EQ(str(member(ok, "status")), "success");
    EXPECT_FALSE(ok.HasMember("reason"));
    EXPECT_FALSE(ok.HasMember("log_tail"));  // success: no log tail
    EXPECT_DOUBLE_EQ(num(member(ok, "wall_time_s")), 1.25);

    const auto& metadata = member(ok, "metadata");
    EXPECT_EQ(str(member(metadata, "timestamp")), "2026-11-22T11:50:00Z");
    EXPECT_EQ(str(member(metadata, "commit_id")), "abc123");
    EXPECT_EQ(str(member(metadata, "plugin_version")), "1.2.3");
    EXPECT_EQ(str(member(metadata, "plugin_path")), "/opt/plugins/performance/libalpha.so");
    const auto& hardware = member(metadata, "hardware_info");
    EXPECT_EQ(str(member(member(hardware, "cpu"), "model")), "Test CPU");
    EXPECT_EQ(str(member(member(hardware, "memory"), "total_mib")), "4096");
    const auto& config = member(metadata, "config");
    EXPECT_EQ(str(member(config, "plugin")), "alpha");
    EXPECT_EQ(str(member(config, "variant")), "compiled");
    EXPECT_EQ(member(config, "batch_size").GetInt(), 4);
    EXPECT_EQ(str(member(config, "dtype")), "float32");
    EXPECT_EQ(member(config, "warmup_iterations").GetInt(), 3);
    const auto& size = member(member(config, "params"), "size");
    ASSERT_TRUE(size.IsArray());
    ASSERT_EQ(size.Size(), 1u);
    EXPECT_EQ(str(size[0]), "224");

    const auto& measurements = member(ok, "measurements");
    const auto& latency = member(measurements, "latency");
    EXPECT_DOUBLE_EQ(num(member(latency, "mean")), 3);
    EXPECT_DOUBLE_EQ(num(member(latency, "median")), 3);
    EXPECT_DOUBLE_EQ(num(member(latency, "std")), std::sqrt(2.5));
    EXPECT_DOUBLE_EQ(num(member(latency, "min")), 1);
    EXPECT_DOUBLE_EQ(num(member(latency, "max")), 5);
    EXPECT_DOUBLE_EQ(num(member(latency, "p25")), 2);
    EXPECT_DOUBLE_EQ(num(member(latency, "p75")), 4);
    EXPECT_DOUBLE_EQ(num(member(latency, "p90")), 4.6);
    EXPECT_DOUBLE_EQ(num(member(latency, "p95")), 4.8);
    EXPECT_DOUBLE_EQ(num(member(latency, "p99")), 4.96);
    EXPECT_EQ(member(latency, "count").GetUint64(), 5u);
    // Samples 1..5: cv = sqrt(2.5) / 3; no outliers; the median's interval holds 3.
    EXPECT_DOUBLE_EQ(num(member(latency, "cv")), std::sqrt(2.5) / 3);
    const auto& ci = member(member(latency, "ci95"), "median");
    ASSERT_TRUE(ci.IsArray());
    EXPECT_LE(num(ci[0]), 3.0);
    EXPECT_GE(num(ci[1]), 3.0);
    EXPECT_EQ(member(member(latency, "outliers"), "high_severe").GetUint64(), 0u);
    EXPECT_TRUE(member(latency, "stable").IsBool());
    EXPECT_EQ(str(member(latency, "unit")), "ms");
    EXPECT_EQ(member(latency, "inner_iterations").GetInt64(), 1);
    const auto& raw = member(latency, "measurements");
    ASSERT_TRUE(raw.IsArray());
    ASSERT_EQ(raw.Size(), 5u);
    const double expected_raw[] = {5, 1, 4, 2, 3};  // as measured, not sorted
    for (rapidjson::SizeType i = 0; i < raw.Size(); ++i) EXPECT_DOUBLE_EQ(num(raw[i]), expected_raw[i]);

    // An empty series has no statistics: null, which strict JSON readers accept.
    const auto& empty = member(measurements, "empty");
    EXPECT_EQ(member(empty, "count").GetUint64(), 0u);
    for (const char* key : {"mean", "median", "std", "min", "max", "p25", "p75", "p90", "p95", "p99"}) {
        EXPECT_TRUE(member(empty, key).IsNull()) << key;
    }

    const auto& peak = member(measurements, "peak_rss");
    EXPECT_DOUBLE_EQ(num(member(peak, "value")), 512);
    EXPECT_EQ(str(member(peak, "unit")), "MiB");
    EXPECT_TRUE(measurements.HasMember("throughput"));
    EXPECT_TRUE(measurements.HasMember("parameters"));

    EXPECT_EQ(str(member(member(ok, "info"), "framework")), "libtorch");

    const auto& broken = scenarios[1];
    EXPECT_EQ(str(member(broken, "scenario_id")), "performance/alpha/broken[batch=4]");
    EXPECT_EQ(str(member(broken, "status")), "failed");
    EXPECT_EQ(str(member(broken, "reason")), "bad \"output\", see log");
    // The invalid byte of the log tail is replaced, so that the file stays valid UTF-8.
    EXPECT_EQ(str(member(broken, "log_tail")), "line 1\nline 2 \xEF\xBF\xBD invalid byte\n");
    EXPECT_TRUE(member(broken, "measurements").IsObject());
    EXPECT_EQ(member(broken, "measurements").MemberCount(), 0u);
}

TEST_F(ReportWriterTest, ReportsArePrettyPrinted) {
    const auto written = benchhost::write_reports(record, dir.path());
    const std::string text = read_file(written.summary);
    EXPECT_EQ(text.rfind("{\n  \"schema_version\": " + std::to_string(benchhost::report_schema_version) +
                             ",\n  \"run_metadata\": {\n    \"timestamp\"",
                         0),
              0u)
        << text;
    EXPECT_EQ(text.back(), '\n');
}

TEST_F(ReportWriterTest, SummaryHasMetadataTotalsAndOneEntryPerScenario) {
    const auto written = benchhost::write_reports(record, dir.path());
    const auto summary = parse_file(written.summary);
    ASSERT_TRUE(summary.IsObject());
    EXPECT_EQ(member(summary, "schema_version").GetInt(), benchhost::report_schema_version);

    const auto& meta = member(summary, "run_metadata");
    EXPECT_EQ(str(member(meta, "timestamp")), "20261122_115000");
    EXPECT_EQ(str(member(meta, "started_at")), "2026-11-22T11:50:00Z");
    EXPECT_EQ(str(member(meta, "finished_at")), "2026-11-22T11:51:00Z");
    EXPECT_EQ(str(member(meta, "host")), "testhost");
    EXPECT_EQ(str(member(meta, "commit_id")), "abc123");
    EXPECT_EQ(str(member(meta, "host_version")), "0.1.0");
    EXPECT_FALSE(member(meta, "interrupted").GetBool());
    EXPECT_EQ(str(member(member(meta, "config"), "isolation")), "process");
    EXPECT_EQ(member(meta, "total_benchmarks").GetInt(), 5);
    EXPECT_EQ(member(meta, "successful_runs").GetInt(), 2);
    EXPECT_EQ(member(meta, "failed_runs").GetInt(), 2);  // failed and crashed
    EXPECT_EQ(member(meta, "skipped_runs").GetInt(), 1);
    EXPECT_DOUBLE_EQ(num(member(meta, "success_rate")), 0.5);  // 2 of the 4 that ran: the skip is not counted

    EXPECT_EQ(str(member(member(member(summary, "context"), "cpu"), "logical_cores")), "2");

    const auto& results = member(summary, "results");
    ASSERT_TRUE(results.IsArray());
    ASSERT_EQ(results.Size(), 5u);
    const char* const ids[] = {"performance/alpha/inference[batch=4]", "unit/beta/skipme[batch=4]",
                               "performance/alpha/broken[batch=4]", "unit/beta/crash[batch=4]",
                               "unit/beta/generate[batch=4]"};
    const char* const statuses[] = {"success", "skipped", "failed", "crashed", "success"};
    for (rapidjson::SizeType i = 0; i < results.Size(); ++i) {
        const auto& entry = results[i];
        EXPECT_EQ(str(member(entry, "scenario_id")), ids[i]);
        EXPECT_EQ(str(member(entry, "status")), statuses[i]);
        for (const char* key :
             {"category", "plugin", "benchmark", "scenario_name", "reason", "variant", "dtype", "device", "report"}) {
            EXPECT_TRUE(member(entry, key).IsString()) << key;
        }
        EXPECT_EQ(member(entry, "batch_size").GetInt(), 4);
        EXPECT_TRUE(member(entry, "headline").IsObject());
        EXPECT_DOUBLE_EQ(num(member(entry, "wall_time_s")), 1.25);
        // The report path is relative to the output folder and names an existing file.
        const std::string report = str(member(entry, "report"));
        EXPECT_TRUE(fs::is_regular_file(dir.path() / report)) << report;
    }
    EXPECT_EQ(str(member(results[0], "report")), "alpha/alpha_20261122_115000.json");
    EXPECT_EQ(str(member(results[1], "report")), "beta/beta_20261122_115000.json");
    EXPECT_EQ(str(member(results[1], "reason")), "mock disabled");
    EXPECT_EQ(str(member(results[0], "variant")), "compiled");
    EXPECT_EQ(str(member(results[0], "plugin")), "alpha");
    EXPECT_EQ(str(member(results[0], "category")), "performance");

    const auto& headline = member(results[0], "headline");
    const auto& latency = member(headline, "latency");
    EXPECT_DOUBLE_EQ(num(member(latency, "median")), 3);
    EXPECT_DOUBLE_EQ(num(member(latency, "mean")), 3);
    EXPECT_DOUBLE_EQ(num(member(latency, "p95")), 4.8);
    EXPECT_EQ(str(member(latency, "unit")), "ms");
    EXPECT_DOUBLE_EQ(num(member(member(headline, "throughput"), "median")), 200);
    // Every other series with samples, after those: a Python function's returned figure too.
    const auto& execution_time = member(headline, "execution_time");
    EXPECT_DOUBLE_EQ(num(member(execution_time, "median")), 0.0123);
    EXPECT_DOUBLE_EQ(num(member(execution_time, "mean")), 0.0123);
    EXPECT_EQ(str(member(execution_time, "unit")), "s");
    EXPECT_FALSE(headline.HasMember("empty"));
    std::vector<std::string> names;
    for (const auto& m : headline.GetObject()) names.emplace_back(m.name.GetString());
    EXPECT_EQ(names, (std::vector<std::string>{"latency", "throughput", "execution_time"}));
    EXPECT_EQ(member(results[1], "headline").MemberCount(), 0u);
    const auto& generate = member(results[4], "headline");
    EXPECT_TRUE(generate.HasMember("time_to_first_token"));
    EXPECT_TRUE(generate.HasMember("tokens_per_second"));
}

TEST_F(ReportWriterTest, SummaryRecordsAnInterruptedRun) {
    record.interrupted = true;
    const auto summary = parse_file(benchhost::write_reports(record, dir.path()).summary);
    EXPECT_TRUE(member(member(summary, "run_metadata"), "interrupted").GetBool());
}

TEST_F(ReportWriterTest, WhatTheCompilerDidReachesTheCsvAndTheSummary) {
    // alpha/inference compiled with torch.compile: a graph break, a recompile in sample 3,
    // under fresh caches; beta/generate a package loaded from the cache (no compile time).
    ScenarioOutcome& compiled = record.outcomes[0];
    for (const auto& [name, value] : {std::pair{"graph_breaks", 1.0}, std::pair{"recompiles", 1.0},
                                      std::pair{"unique_graphs", 2.0}, std::pair{"recompiled_samples", 1.0}})
        compiled.result.scalars.push_back({name, value, "count"});
    compiled.result.scalars.push_back({"compile_time", 2.5, "s"});
    compiled.result.info["fx_graph_cache"] = "bypass (mkldnn tensors unpickleable)";
    compiled.result.info["compile_caches"] = "cold: fresh, empty compile caches for this scenario";
    compiled.result.info["graph_break_reasons"] = "Unsupported Tensor.item() call";
    compiled.result.info["recompile_reasons"] = "tensor 'x' size mismatch at index 0. expected 1, actual 2";
    compiled.result.info["compiled_samples"] = "latency: 2";
    record.outcomes[4].result.info["compile_cache"] = "hit: /cache/aot-inductor/a/model.pt2; miss: /cache/b/model.pt2";

    const auto written = benchhost::write_reports(record, dir.path());
    const auto rows = parse_csv(read_file(written.csv));
    ASSERT_EQ(rows.size(), 6u);
    const std::vector<std::string> last_columns = {"compile_time_ms", "compile_cache", "graph_breaks",
                                                   "recompiles",      "unique_graphs", "recompiled_samples"};
    ASSERT_GE(rows[0].size(), last_columns.size());
    EXPECT_EQ(std::vector<std::string>(rows[0].end() - 6, rows[0].end()), last_columns);
    for (const auto& row : rows) ASSERT_EQ(row.size(), rows[0].size());
    EXPECT_EQ(std::vector<std::string>(rows[1].end() - 6, rows[1].end()),
              (std::vector<std::string>{"2500", "bypass", "1", "1", "2", "1"}));
    EXPECT_EQ(std::vector<std::string>(rows[5].end() - 6, rows[5].end()),
              (std::vector<std::string>{"", "hit; miss", "", "", "", ""}));
    EXPECT_EQ(std::vector<std::string>(rows[2].end() - 6, rows[2].end()), std::vector<std::string>(6, ""));

    const auto summary = parse_file(written.summary);
    const auto& results = member(summary, "results");
    const auto& compiler = member(results[0], "compiler");
    EXPECT_DOUBLE_EQ(num(member(compiler, "compile_time_ms")), 2500);
    EXPECT_EQ(str(member(compiler, "compile_cache")), "bypass");
    EXPECT_EQ(str(member(compiler, "compile_caches")), "cold");
    EXPECT_DOUBLE_EQ(num(member(compiler, "graph_breaks")), 1);
    EXPECT_DOUBLE_EQ(num(member(compiler, "recompiles")), 1);
    EXPECT_DOUBLE_EQ(num(member(compiler, "unique_graphs")), 2);
    EXPECT_DOUBLE_EQ(num(member(compiler, "recompiled_samples")), 1);
    EXPECT_EQ(str(member(compiler, "graph_break_reasons")), "Unsupported Tensor.item() call");
    EXPECT_EQ(str(member(compiler, "recompile_reasons")), "tensor 'x' size mismatch at index 0. expected 1, actual 2");
    EXPECT_EQ(str(member(compiler, "compiled_samples")), "latency: 2");
    EXPECT_EQ(str(member(member(results[4], "compiler"), "compile_cache")), "hit; miss");
    EXPECT_FALSE(results[1].HasMember("compiler"));  // nothing compiled: no entry
}

TEST_F(ReportWriterTest, ARunWithoutACompilerHasNoCompilerColumns) {
    const auto written = benchhost::write_reports(record, dir.path());
    EXPECT_EQ(read_file(written.csv).find("compile_time_ms"), std::string::npos);
}

TEST_F(ReportWriterTest, CsvHasHeaderOneQuotedRowPerScenario) {
    const auto written = benchhost::write_reports(record, dir.path());
    const std::string text = read_file(written.csv);
    const std::string header =
        "framework,model,scenario,variant,device,batch_size,dtype,status,latency_mean_ms,latency_p50_ms,"
        "latency_p90_ms,latency_p95_ms,latency_p99_ms,throughput,throughput_unit,peak_memory_mb,timestamp,"
        "git_commit,world_size,"
        // Then the other series with samples, two columns each, in order of first appearance
        // (not "empty", which has none).
        "execution_time_median,execution_time_unit,time_to_first_token_median,time_to_first_token_unit\n";
    EXPECT_EQ(text.substr(0, header.size()), header);
    // The model name holds a quote and a comma: quoted, quote doubled.
    EXPECT_NE(text.find(",\"res\"\"net, 50\","), std::string::npos) << text;

    const auto rows = parse_csv(text);
    ASSERT_EQ(rows.size(), 6u);  // header + 5 scenarios
    for (const auto& row : rows) EXPECT_EQ(row.size(), 23u);

    const auto& ok = rows[1];
    EXPECT_EQ(ok[0], "libtorch");
    EXPECT_EQ(ok[1], "res\"net, 50");
    EXPECT_EQ(ok[2], "performance/alpha/inference[batch=4]");
    EXPECT_EQ(ok[3], "compiled");
    EXPECT_EQ(ok[4], "cpu");
    EXPECT_EQ(ok[5], "4");
    EXPECT_EQ(ok[6], "float32");
    EXPECT_EQ(ok[7], "success");
    EXPECT_DOUBLE_EQ(std::stod(ok[8]), 3);  // mean
    EXPECT_DOUBLE_EQ(std::stod(ok[9]), 3);  // p50
    EXPECT_DOUBLE_EQ(std::stod(ok[10]), 4.6);  // p90
    EXPECT_DOUBLE_EQ(std::stod(ok[11]), 4.8);  // p95
    EXPECT_DOUBLE_EQ(std::stod(ok[12]), 4.96);  // p99
    EXPECT_DOUBLE_EQ(std::stod(ok[13]), 200);
    EXPECT_EQ(ok[14], "samples/s");
    EXPECT_DOUBLE_EQ(std::stod(ok[15]), 512);
    EXPECT_EQ(ok[16], "2026-11-22T11:50:00Z");
    EXPECT_EQ(ok[17], "abc123");
    EXPECT_EQ(ok[18], "");  // not distributed: no world size
    EXPECT_DOUBLE_EQ(std::stod(ok[19]), 0.0123);  // execution_time's median, as measured
    EXPECT_EQ(ok[20], "s");
    EXPECT_EQ(ok[21], "");  // no time_to_first_token
    EXPECT_EQ(ok[22], "");

    const auto& skipped = rows[2];
    EXPECT_EQ(skipped[0], "");  // no framework
    EXPECT_EQ(skipped[1], "beta");  // model falls back to the plugin name
    EXPECT_EQ(skipped[7], "skipped");
    for (std::size_t i = 8; i <= 15; ++i) EXPECT_EQ(skipped[i], "") << i;
    for (std::size_t i = 18; i <= 22; ++i) EXPECT_EQ(skipped[i], "") << i;

    const auto& generate = rows[5];
    EXPECT_DOUBLE_EQ(std::stod(generate[9]), 500);  // 0.5 s in ms
    EXPECT_DOUBLE_EQ(std::stod(generate[13]), 45);  // tokens_per_second median
    EXPECT_EQ(generate[14], "tokens/s");
    EXPECT_EQ(generate[19], "");
    EXPECT_DOUBLE_EQ(std::stod(generate[21]), 15);  // time_to_first_token's median
    EXPECT_EQ(generate[22], "ms");
}

TEST_F(ReportWriterTest, EmptyRunStillWritesSummaryAndCsv) {
    RunRecord empty;
    empty.timestamp = "20260101_000000";
    const auto written = benchhost::write_reports(empty, dir.path());
    EXPECT_TRUE(written.plugin_reports.empty());
    const auto summary = parse_file(written.summary);
    EXPECT_EQ(member(member(summary, "run_metadata"), "total_benchmarks").GetInt(), 0);
    EXPECT_TRUE(member(member(summary, "run_metadata"), "success_rate").IsNull());  // none ran
    EXPECT_EQ(parse_csv(read_file(written.csv)).size(), 1u);
}

TEST_F(ReportWriterTest, UnwritableFolderNamesTheFile) {
    const fs::path blocker = dir.path() / "blocker";
    std::ofstream(blocker) << "a file where a folder should be";
    try {
        benchhost::write_reports(record, blocker);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what())
                      .find("cannot write " + (blocker / "alpha" / "alpha_20261122_115000.json").string()),
                  std::string::npos)
            << error.what();
    }
}

TEST(RunTotals, CountsEveryFailureKindAndTheRate) {
    RunRecord record;
    for (const auto status :
         {bench::Status::success, bench::Status::success, bench::Status::success, bench::Status::skipped,
          bench::Status::failed, bench::Status::crashed, bench::Status::timed_out, bench::Status::exited}) {
        ScenarioOutcome outcome;
        outcome.result.status = status;
        record.outcomes.push_back(outcome);
    }
    const auto totals = benchhost::count_totals(record);
    EXPECT_EQ(totals.total, 8);
    EXPECT_EQ(totals.successful, 3);
    EXPECT_EQ(totals.skipped, 1);
    EXPECT_EQ(totals.failed, 4);
    EXPECT_EQ(totals.ran(), 7);
    EXPECT_DOUBLE_EQ(totals.success_rate(), 3.0 / 7.0);  // over the scenarios that ran
    EXPECT_TRUE(std::isnan(benchhost::count_totals(RunRecord{}).success_rate()));
    RunRecord skipped;
    skipped.outcomes.resize(2);
    for (auto& outcome : skipped.outcomes) outcome.result.status = bench::Status::skipped;
    EXPECT_EQ(benchhost::count_totals(skipped).ran(), 0);
    EXPECT_TRUE(std::isnan(benchhost::count_totals(skipped).success_rate()));
}

TEST(AtomicFile, CreatesParentsAndReplacesContent) {
    TempDir dir;
    const fs::path path = dir.path() / "a" / "b" / "file.txt";
    benchhost::write_file_atomically(path, "first version, longer");
    EXPECT_EQ(read_file(path), "first version, longer");
    benchhost::write_file_atomically(path, std::string_view("second\0x", 8));
    EXPECT_EQ(read_file(path), std::string("second\0x", 8));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(path.parent_path())) ++entries;
    EXPECT_EQ(entries, 1u);  // no temporary file left
}

TEST(AtomicFile, FailureNamesThePathAndLeavesNoTemporaryFile) {
    TempDir dir;
    const fs::path target = dir.path() / "folder";
    fs::create_directories(target / "child");  // renaming a file over a non-empty folder fails
    try {
        benchhost::write_file_atomically(target, "content");
        FAIL() << "expected an error";
    } catch (const std::runtime_error& error) {
        EXPECT_EQ(std::string(error.what()).rfind("cannot write " + target.string() + ": ", 0), 0u) << error.what();
    }
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
    EXPECT_EQ(entries, 1u);  // only the folder
    EXPECT_TRUE(fs::is_directory(target));
}

TEST(AtomicFile, MissingParentThatCannotBeCreated) {
    TempDir dir;
    const fs::path file = dir.path() / "plain";
    std::ofstream(file) << "x";
    try {
        benchhost::write_file_atomically(file / "sub" / "report.json", "content");
        FAIL() << "expected an error";
    } catch (const std::runtime_error& error) {
        EXPECT_EQ(std::string(error.what()).rfind("cannot write " + (file / "sub" / "report.json").string() + ": ", 0),
                  0u)
            << error.what();
    }
}

TEST(HardwareInfo, CollectsTheBasicsWithoutFailing) {
    const auto info = benchhost::collect_hardware_info();
    ASSERT_TRUE(info.contains("build"));
    EXPECT_FALSE(info.at("build").at("compiler").empty());
    EXPECT_FALSE(info.at("build").at("sdk_version").empty());
    EXPECT_FALSE(info.at("build").at("host_version").empty());
    EXPECT_FALSE(info.at("build").at("build_type").empty());
    ASSERT_TRUE(info.contains("cpu"));
    EXPECT_TRUE(info.at("cpu").contains("logical_cores"));
    ASSERT_TRUE(info.contains("os"));
    EXPECT_FALSE(info.at("os").at("kernel").empty());
    for (const auto& [section, facts] : info) {
        EXPECT_FALSE(facts.empty()) << section;
        for (const auto& [key, value] : facts) EXPECT_FALSE(key.empty()) << section;
    }
}

}  // namespace
