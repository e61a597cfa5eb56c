// The Google Benchmark JSON export (host/src/report/files/gbench_json_reporter.hpp) and `benchhost export`.
#include "report/files/gbench_json_reporter.hpp"

#include <gtest/gtest.h>

#include "../../../support/builders.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "../../../support/mock_run.hpp"
#include "../../../support/test_support.hpp"
#include "report/report_reader.hpp"

namespace {

using namespace benchtest;
using benchhost::RunRecord;
using benchhost::ScenarioOutcome;
using rapidjson::Value;

ScenarioOutcome gbench_outcome(const std::string& benchmark, bench::Variant variant, bench::Status status) {
    return benchtest::Outcome("performance", "alpha", benchmark).variant(variant).status(status);
}

RunRecord gbench_record() {
    RunRecord record = benchtest::record_of();
    record.hardware["cpu"]["logical_cores"] = "2";
    record.hardware["cpu"]["current_mhz"] = "2794.748";
    record.hardware["cpu"]["frequency_scaling"] = "on (governor powersave)";
    record.hardware["load"]["load_average_1m"] = "0.50";
    record.hardware["load"]["load_average_5m"] = "0.25";
    record.hardware["load"]["load_average_15m"] = "0.125";
    record.hardware["build"]["optimized"] = "yes";

    auto eager = gbench_outcome("infer", bench::Variant::eager, bench::Status::success);
    eager.result.series.push_back({"latency", "ms", {5, 1, 4, 2, 3}, 1});
    eager.result.series.push_back({"throughput", "samples/s", {100, 200}, 1});  // not a time
    eager.result.series.push_back({"step", "us", {10, 20, 30, 40}, 100});
    eager.result.series.push_back({"latency", "ms", {99}, 1});  // a second of the name: the report drops it
    record.outcomes.push_back(eager);

    auto compiled = gbench_outcome("infer", bench::Variant::compiled, bench::Status::success);
    compiled.result.series.push_back({"latency", "s", {0.002, std::nan(""), 0.001}, 1});
    record.outcomes.push_back(compiled);

    auto failed = gbench_outcome("broken", bench::Variant::eager, bench::Status::failed);
    failed.result.series.push_back({"latency", "ms", {1, 2}, 1});
    record.outcomes.push_back(failed);

    auto single = gbench_outcome("once", bench::Variant::eager, bench::Status::success);
    single.result.series.push_back({"latency", "ns", {750}, 1});
    record.outcomes.push_back(single);
    return record;
}

rapidjson::Document gbench_document(const std::string& json) {
    rapidjson::Document document;
    document.Parse(json.c_str());
    EXPECT_FALSE(document.HasParseError()) << "offset " << document.GetErrorOffset() << " in\n" << json;
    return document;
}

std::vector<std::string> keys(const Value& object) {
    std::vector<std::string> out;
    for (const auto& member : object.GetObject()) out.emplace_back(member.name.GetString());
    return out;
}

/// The entries of "benchmarks" with this run_name, by run_type "iteration" / aggregate name.
struct GbenchRun {
    std::vector<const Value*> iterations;
    std::map<std::string, const Value*> aggregates;
};
std::map<std::string, GbenchRun> runs(const Value& document) {
    std::map<std::string, GbenchRun> out;
    for (const auto& entry : document["benchmarks"].GetArray()) {
        GbenchRun& run = out[entry["run_name"].GetString()];
        if (std::string(entry["run_type"].GetString()) == "iteration") {
            run.iterations.push_back(&entry);
        } else {
            run.aggregates[entry["aggregate_name"].GetString()] = &entry;
        }
    }
    return out;
}

TEST(GbenchExport, OneIterationEntryPerSampleThenTheAggregates) {
    const auto document = gbench_document(benchhost::to_gbench_json(gbench_record()));
    const auto by_run = runs(document);
    // Successful scenarios' time series only: not throughput, not the failed scenario.
    std::vector<std::string> names;
    for (const auto& [name, run] : by_run) names.push_back(name);
    EXPECT_EQ(names,
              (std::vector<std::string>{
                  "performance/alpha/infer[variant=compiled]/latency", "performance/alpha/infer[variant=eager]/latency",
                  "performance/alpha/infer[variant=eager]/step", "performance/alpha/once[variant=eager]/latency"}));

    const GbenchRun& latency = by_run.at("performance/alpha/infer[variant=eager]/latency");
    ASSERT_EQ(latency.iterations.size(), 5u);
    const double samples[] = {5, 1, 4, 2, 3};
    for (int i = 0; i < 5; ++i) {
        const Value& e = *latency.iterations[static_cast<std::size_t>(i)];
        EXPECT_STREQ(e["name"].GetString(), "performance/alpha/infer[variant=eager]/latency");
        EXPECT_EQ(e["repetitions"].GetInt(), 5);
        EXPECT_EQ(e["repetition_index"].GetInt(), i);
        EXPECT_EQ(e["threads"].GetInt(), 1);
        EXPECT_EQ(e["iterations"].GetInt(), 1);
        EXPECT_DOUBLE_EQ(e["real_time"].GetDouble(), samples[i]);
        EXPECT_DOUBLE_EQ(e["cpu_time"].GetDouble(), samples[i]);  // wall time only
        EXPECT_STREQ(e["time_unit"].GetString(), "ms");
    }
    ASSERT_EQ(latency.aggregates.size(), 4u);
    EXPECT_DOUBLE_EQ((*latency.aggregates.at("mean"))["real_time"].GetDouble(), 3.0);
    EXPECT_DOUBLE_EQ((*latency.aggregates.at("median"))["real_time"].GetDouble(), 3.0);
    EXPECT_DOUBLE_EQ((*latency.aggregates.at("stddev"))["real_time"].GetDouble(), std::sqrt(2.5));  // n - 1
    EXPECT_DOUBLE_EQ((*latency.aggregates.at("cv"))["real_time"].GetDouble(), std::sqrt(2.5) / 3.0);
    for (const auto& [name, entry] : latency.aggregates) {
        EXPECT_EQ(std::string((*entry)["name"].GetString()), "performance/alpha/infer[variant=eager]/latency_" + name);
        EXPECT_STREQ((*entry)["aggregate_unit"].GetString(), name == "cv" ? "percentage" : "time");
        EXPECT_EQ((*entry)["iterations"].GetInt(), 5);  // as Google Benchmark: the repetitions
        EXPECT_EQ((*entry)["repetitions"].GetInt(), 5);
        EXPECT_FALSE(entry->HasMember("repetition_index"));
        EXPECT_DOUBLE_EQ((*entry)["cpu_time"].GetDouble(), (*entry)["real_time"].GetDouble());
    }

    // Microseconds stay microseconds; inner iterations are Google Benchmark's iterations;
    // the median of an even count is the mean of the middle two.
    const GbenchRun& step = by_run.at("performance/alpha/infer[variant=eager]/step");
    ASSERT_EQ(step.iterations.size(), 4u);
    EXPECT_STREQ((*step.iterations[0])["time_unit"].GetString(), "us");
    EXPECT_EQ((*step.iterations[0])["iterations"].GetInt(), 100);
    EXPECT_DOUBLE_EQ((*step.aggregates.at("median"))["real_time"].GetDouble(), 25.0);
    EXPECT_DOUBLE_EQ((*step.aggregates.at("mean"))["real_time"].GetDouble(), 25.0);

    // Seconds are written as milliseconds; a NaN sample is left out.
    const GbenchRun& compiled = by_run.at("performance/alpha/infer[variant=compiled]/latency");
    ASSERT_EQ(compiled.iterations.size(), 2u);
    EXPECT_STREQ((*compiled.iterations[0])["time_unit"].GetString(), "ms");
    EXPECT_DOUBLE_EQ((*compiled.iterations[0])["real_time"].GetDouble(), 2.0);
    EXPECT_DOUBLE_EQ((*compiled.iterations[1])["real_time"].GetDouble(), 1.0);
    EXPECT_EQ((*compiled.iterations[1])["repetitions"].GetInt(), 2);
    EXPECT_DOUBLE_EQ((*compiled.aggregates.at("median"))["real_time"].GetDouble(), 1.5);

    // One sample: no aggregates, as Google Benchmark does for one repetition.
    const GbenchRun& once = by_run.at("performance/alpha/once[variant=eager]/latency");
    ASSERT_EQ(once.iterations.size(), 1u);
    EXPECT_TRUE(once.aggregates.empty());
    EXPECT_STREQ((*once.iterations[0])["time_unit"].GetString(), "ns");

    EXPECT_EQ(benchhost::gbench_iteration_count(gbench_record()), 5u + 4u + 2u + 1u);
}

TEST(GbenchExport, FamiliesAreBenchmarkAndSeriesInstancesTheScenarios) {
    const auto document = gbench_document(benchhost::to_gbench_json(gbench_record()));
    std::map<std::string, std::pair<int, int>> indices;  // run_name -> family, instance
    for (const auto& entry : document["benchmarks"].GetArray()) {
        const std::pair<int, int> index{entry["family_index"].GetInt(), entry["per_family_instance_index"].GetInt()};
        const auto [it, added] = indices.emplace(entry["run_name"].GetString(), index);
        EXPECT_EQ(it->second, index) << "every entry of a run has the same indices";
    }
    using P = std::pair<int, int>;
    EXPECT_EQ(indices["performance/alpha/infer[variant=eager]/latency"], P(0, 0));
    EXPECT_EQ(indices["performance/alpha/infer[variant=eager]/step"], P(1, 0));
    EXPECT_EQ(indices["performance/alpha/infer[variant=compiled]/latency"], P(0, 1));
    EXPECT_EQ(indices["performance/alpha/once[variant=eager]/latency"], P(2, 0));
}

// Field names and their order as Google Benchmark 1.7.1's JSONReporter writes them
// (src/json_reporter.cc; checked against the output of Debian's libbenchmark 1.7.1).
TEST(GbenchExport, FieldsAreGoogleBenchmarks) {
    const auto document = gbench_document(benchhost::to_gbench_json(gbench_record()));
    ASSERT_TRUE(document.IsObject());
    EXPECT_EQ(keys(document), (std::vector<std::string>{"context", "benchmarks"}));

    const Value& context = document["context"];
    const std::vector<std::string> gbench_context = {"date",     "host_name",   "executable",
                                                     "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
                                                     "caches",   "load_avg",    "library_build_type"};
    std::vector<std::string> context_keys = keys(context);
    ASSERT_GE(context_keys.size(), gbench_context.size());
    context_keys.resize(gbench_context.size());  // then custom context, strings
    EXPECT_EQ(context_keys, gbench_context);
    EXPECT_STREQ(context["date"].GetString(), "2026-11-22T11:50:00+00:00");
    EXPECT_STREQ(context["host_name"].GetString(), "testhost");
    EXPECT_EQ(context["num_cpus"].GetInt(), 2);
    EXPECT_EQ(context["mhz_per_cpu"].GetInt(), 2795);
    EXPECT_TRUE(context["cpu_scaling_enabled"].GetBool());
    EXPECT_TRUE(context["caches"].IsArray());
    ASSERT_EQ(context["load_avg"].Size(), 3u);
    EXPECT_DOUBLE_EQ(context["load_avg"][2].GetDouble(), 0.125);
    EXPECT_STREQ(context["library_build_type"].GetString(), "release");
    EXPECT_STREQ(context["benchhost_commit"].GetString(), "abc123");
    for (const char* custom : {"benchhost_version", "benchhost_commit", "benchhost_run"})
        EXPECT_TRUE(context[custom].IsString()) << custom;  // custom context is text, as AddCustomContext's

    const Value& iteration = document["benchmarks"][0];
    EXPECT_EQ(keys(iteration),
              (std::vector<std::string>{"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                                        "repetitions", "repetition_index", "threads", "iterations", "real_time",
                                        "cpu_time", "time_unit"}));
    EXPECT_STREQ(iteration["run_type"].GetString(), "iteration");
    const Value& aggregate = document["benchmarks"][5];
    EXPECT_STREQ(aggregate["run_type"].GetString(), "aggregate");
    EXPECT_EQ(keys(aggregate),
              (std::vector<std::string>{"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                                        "repetitions", "threads", "aggregate_name", "aggregate_unit", "iterations",
                                        "real_time", "cpu_time", "time_unit"}));
}

TEST(GbenchExport, AnEmptyRunHasNoBenchmarks) {
    RunRecord record;
    const auto document = gbench_document(benchhost::to_gbench_json(record));
    EXPECT_TRUE(document["benchmarks"].IsArray());
    EXPECT_EQ(document["benchmarks"].Size(), 0u);
    EXPECT_EQ(document["context"]["num_cpus"].GetInt(), 0);
    EXPECT_EQ(document["context"]["load_avg"].Size(), 0u);
}

// ---- benchhost export on a real run ---------------------------------------------

class ExportCommandTest : public MockHostTest {
protected:
    void SetUp() override {
        MockHostTest::SetUp();
        const ProcessResult run =
            run_into(output, {"--enable-mock", "--variants", "eager,compiled", "--warmup-iterations", "1",
                              "--measurement-iterations", "4", "--num-tokens-to-generate", "2"});
        ASSERT_EQ(run.exit_code, 0) << run.err;
    }
    ProcessResult export_run(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {"export"};
        argv.insert(argv.end(), args.begin(), args.end());
        return host(argv);
    }

    fs::path output = work / "out";
};

TEST_F(ExportCommandTest, ARunFolderExportsEverySampleOfItsReports) {
    const ProcessResult result = export_run({output.string(), "--format", "gbench-json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    const auto document = gbench_document(result.out);
    const auto by_run = runs(document);

    // Every time series of every scenario, sample for sample, as the reports hold them.
    const RunRecord record = benchhost::read_run(output);
    std::size_t series_count = 0;
    for (const auto& outcome : record.outcomes) {
        ASSERT_EQ(outcome.result.status, bench::Status::success);
        for (const auto& series : outcome.result.series) {
            if (series.unit != "ms") continue;
            ++series_count;
            const std::string name = outcome.config.scenario_id() + "/" + series.name;
            ASSERT_EQ(by_run.count(name), 1u) << name;
            const GbenchRun& run = by_run.at(name);
            ASSERT_EQ(run.iterations.size(), series.samples.size()) << name;
            for (std::size_t i = 0; i < series.samples.size(); ++i) {
                EXPECT_DOUBLE_EQ((*run.iterations[i])["real_time"].GetDouble(), series.samples[i]) << name;
                EXPECT_EQ((*run.iterations[i])["iterations"].GetInt64(), series.inner_iterations) << name;
            }
            EXPECT_EQ(run.aggregates.size(), 4u) << name;
        }
    }
    EXPECT_GE(series_count, 4u);  // latency of each scenario, and the generation's token times
    EXPECT_EQ(by_run.size(), series_count);
    EXPECT_TRUE(by_run.count("performance/mock_benchmark/mock_benchmark[variant=eager,batch_size=1]/latency"));
    EXPECT_EQ(std::string(document["context"]["benchhost_run"].GetString()), record.timestamp);
}

TEST_F(ExportCommandTest, TheSummaryFileAndAnOutputFileWork) {
    const fs::path file = work / "exports" / "gbench.json";
    const ProcessResult result = export_run(
        {(output / "benchmark_summary.json").string(), "--format", "gbench-json", "--output", file.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "");
    const ProcessResult to_stdout = export_run({output.string(), "--format", "gbench-json"});
    EXPECT_EQ(read_file(file), to_stdout.out);
}

TEST_F(ExportCommandTest, WrongArgumentsExitWithTwo) {
    ProcessResult result = export_run({(work / "missing").string(), "--format", "gbench-json"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("cannot read the run in"), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "");

    result = export_run({output.string(), "--format", "csv"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("gbench-json"), std::string::npos) << result.err;

    result = export_run({output.string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--format"), std::string::npos) << result.err;

    write_file(work / "notes.txt", "x");
    result = export_run({(work / "notes.txt").string(), "--format", "gbench-json"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("not a run folder"), std::string::npos) << result.err;
}

// Google Benchmark's own compare.py reads the export, where Debian's libbenchmark-tools
// (with python3-numpy and python3-scipy) is installed; skipped otherwise.
TEST_F(ExportCommandTest, GoogleBenchmarksComparePyReadsIt) {
    const ProcessResult files = run_process({"/usr/bin/env", "dpkg", "-L", "libbenchmark-tools"});
    std::string compare_py;
    std::istringstream lines(files.out);
    for (std::string line; std::getline(lines, line);)
        if (line.ends_with("/compare.py")) compare_py = line;
    if (files.exit_code != 0 || compare_py.empty()) GTEST_SKIP() << "libbenchmark-tools (compare.py) is not installed";
    if (run_process({debian_python(), "-c", "import numpy, scipy"}).exit_code != 0)
        GTEST_SKIP() << "compare.py needs python3-numpy and python3-scipy";

    const fs::path a = work / "a.json", b = work / "b.json";
    ASSERT_EQ(export_run({output.string(), "--format", "gbench-json", "--output", a.string()}).exit_code, 0);
    ASSERT_EQ(export_run({output.string(), "--format", "gbench-json", "--output", b.string()}).exit_code, 0);
    const ProcessResult compared =
        run_process({debian_python(), compare_py, "--no-color", "benchmarks", a.string(), b.string()});
    EXPECT_EQ(compared.exit_code, 0) << compared.out << compared.err;
    EXPECT_NE(compared.out.find("mock_benchmark[variant=eager,batch_size=1]/latency"), std::string::npos)
        << compared.out;
}

}  // namespace
