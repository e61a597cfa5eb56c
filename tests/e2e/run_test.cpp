// End to end: the real benchhost binary over real plugins, checking the files a user
// gets. The mock plugin does work of known cost, so the measured figures can be
// checked too.
#include <gtest/gtest.h>

#include <map>

#include <bench/version.hpp>

#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;

class RunTest : public MockHostTest {
protected:
    ProcessResult run(const std::vector<std::string>& args) { return run_into(output, args); }

    /// Median latency of each scenario in the summary, by scenario name.
    std::map<std::string, double> medians() {
        std::map<std::string, double> out;
        const auto summary = read_json(output / "benchmark_summary.json");
        for (const auto& entry : summary["results"].GetArray())
            out[entry["scenario_name"].GetString()] = entry["headline"]["latency"]["median"].GetDouble();
        return out;
    }

    fs::path output = work / "out";
};

TEST_F(RunTest, MockRunWritesReportsSummaryCsvAndLog) {
    const ProcessResult result =
        run({"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--warmup-iterations", "1",
             "--measurement-iterations", "7", "--batch-sizes", "1,2", "--variants", "eager"});
    ASSERT_EQ(result.exit_code, 0) << result.err;

    // The console summary table: the variant said once, a row per batch size.
    EXPECT_NE(result.out.find("Axes with one value in this run: variant=eager\n"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\nperformance/mock_benchmark/mock_benchmark\n  BATCH_SIZE  STATUS"), std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("\n  2           success"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("2 scenarios: 2 succeeded, 0 failed (100.0% of those that ran), 0 skipped"),
              std::string::npos)
        << result.out;

    const auto reports = files_matching(output / "mock_benchmark", "mock_benchmark_", ".json");
    ASSERT_EQ(reports.size(), 1u);
    const auto report = read_json(reports[0]);
    EXPECT_STREQ(report["model_name"].GetString(), "mock_benchmark");
    const auto& scenarios = report["benchmark_scenarios"];
    ASSERT_EQ(scenarios.Size(), 2u);
    for (const auto& scenario : scenarios.GetArray()) {
        EXPECT_STREQ(scenario["status"].GetString(), "success");
        for (const char* key : {"timestamp", "commit_id", "hardware_info", "config"})
            EXPECT_TRUE(scenario["metadata"].HasMember(key)) << key;
        const auto& latency = scenario["measurements"]["latency"];
        for (const char* key : {"mean", "median", "std", "min", "max", "p25", "p75", "p90", "p95", "p99", "unit"})
            EXPECT_TRUE(latency.HasMember(key)) << key;
        EXPECT_STREQ(latency["unit"].GetString(), "ms");
        EXPECT_EQ(latency["measurements"].Size(), 7u);
        EXPECT_GT(latency["min"].GetDouble(), 0.0);
        EXPECT_LE(latency["min"].GetDouble(), latency["median"].GetDouble());
        EXPECT_LE(latency["median"].GetDouble(), latency["max"].GetDouble());
        EXPECT_TRUE(scenario["measurements"].HasMember("throughput"));
        EXPECT_TRUE(scenario["measurements"].HasMember("peak_rss"));
    }

    const auto summary = read_json(output / "benchmark_summary.json");
    const auto& meta = summary["run_metadata"];
    EXPECT_EQ(meta["total_benchmarks"].GetInt(), 2);
    EXPECT_EQ(meta["successful_runs"].GetInt(), 2);
    EXPECT_EQ(meta["failed_runs"].GetInt(), 0);
    EXPECT_EQ(meta["skipped_runs"].GetInt(), 0);
    EXPECT_DOUBLE_EQ(meta["success_rate"].GetDouble(), 1.0);
    // The settings, for the record: the command line as given, and the scenario settings.
    const auto& config = meta["config"];
    EXPECT_EQ(std::string(config["command_line"].GetString()),
              benchhost_binary().string() + " run --plugins-dir " + plugins.string() + " --output-dir " +
                  output.string() +
                  " --enable-mock --include mock_benchmark/mock_benchmark --warmup-iterations 1"
                  " --measurement-iterations 7 --batch-sizes 1,2 --variants eager");
    EXPECT_EQ(std::string(config["working_directory"].GetString()), work.path().string());
    EXPECT_STREQ(config["warmup_iterations"].GetString(), "1");
    EXPECT_STREQ(config["measurement_iterations"].GetString(), "7");
    EXPECT_STREQ(config["axes.batch_size"].GetString(), "1,2");
    EXPECT_STREQ(config["axes.variant"].GetString(), "eager");
    const std::string md = read_file(output / "report.md");
    EXPECT_NE(md.find("| Sampling | 1 warmup, 7 samples |"), std::string::npos) << md;
    EXPECT_NE(md.find("```sh\n" + std::string(config["command_line"].GetString()) + "\n```"), std::string::npos) << md;
    ASSERT_EQ(summary["results"].Size(), 2u);
    const std::string report_path = summary["results"][0]["report"].GetString();
    EXPECT_TRUE(fs::exists(output / report_path)) << report_path;

    const auto csv = files_matching(output, "benchmark_results_", ".csv");
    ASSERT_EQ(csv.size(), 1u);
    const std::string csv_text = read_file(csv[0]);
    EXPECT_EQ(std::count(csv_text.begin(), csv_text.end(), '\n'), 3);  // header and two rows
    EXPECT_EQ(csv_text.rfind("framework,model,", 0), 0u);

    const auto logs = files_matching(output, "benchmark_run_", ".log");
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_NE(read_file(logs[0]).find("[2/2]"), std::string::npos);
}

TEST_F(RunTest, MockIsSkippedWithoutEnableMock) {
    const ProcessResult result = run({});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_EQ(summary["run_metadata"]["total_benchmarks"].GetInt(), 2);  // one per benchmark, not expanded
    EXPECT_EQ(summary["run_metadata"]["skipped_runs"].GetInt(), 2);
    for (const auto& entry : summary["results"].GetArray()) {
        EXPECT_STREQ(entry["status"].GetString(), "skipped");
        EXPECT_NE(std::string(entry["reason"].GetString()).find("--enable-mock"), std::string::npos);
    }
}

TEST_F(RunTest, IncludeAndExcludeSelectBenchmarks) {
    ProcessResult result = run({"--enable-mock", "--include", "generate", "--variants", "eager",
                                "--measurement-iterations", "2", "--num-tokens-to-generate", "3"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto names = medians();
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names.begin()->first, "generate[variant=eager,batch_size=1]");
    const auto report = read_json(files_matching(output / "mock_benchmark", "mock_benchmark_", ".json").at(0));
    const auto& measurements = report["benchmark_scenarios"][0]["measurements"];
    for (const char* series : {"time_to_first_token", "tokens_per_second", "time_per_output_token", "latency"})
        EXPECT_TRUE(measurements.HasMember(series)) << series;

    fs::remove_all(output);
    result = run({"--enable-mock", "--exclude", "*/generate", "--variants", "eager", "--measurement-iterations", "2"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    names = medians();
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names.begin()->first, "mock_benchmark[variant=eager,batch_size=1]");
}

// The mock's compiled variant does 0.8 and its kernelized 0.6 of the eager work: the
// host's measurements must show it. The machine is shared, so each variant runs in two
// runs, in opposite orders, and its fastest sample is compared: interference only ever
// adds time, and drift of the machine cannot favour one variant.
TEST_F(RunTest, MeasuredVariantRatiosMatchTheMocksKnownCost) {
    std::map<std::string, double> fastest;
    for (const char* order : {"eager,compiled,kernelized", "kernelized,compiled,eager"}) {
        fs::remove_all(output);
        const ProcessResult result = run({"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--variants",
                                          order, "--warmup-iterations", "3", "--measurement-iterations", "31"});
        ASSERT_EQ(result.exit_code, 0) << result.err;
        const auto report = read_json(files_matching(output / "mock_benchmark", "mock_benchmark_", ".json").at(0));
        for (const auto& scenario : report["benchmark_scenarios"].GetArray()) {
            const std::string variant = scenario["metadata"]["config"]["variant"].GetString();
            const double min = scenario["measurements"]["latency"]["min"].GetDouble();
            fastest[variant] = fastest.count(variant) ? std::min(fastest[variant], min) : min;
        }
    }
    const double eager = fastest.at("eager"), compiled = fastest.at("compiled"), kernelized = fastest.at("kernelized");
    EXPECT_NEAR(compiled / eager, 0.8, 0.06) << "eager " << eager << " ms, compiled " << compiled << " ms";
    EXPECT_NEAR(kernelized / eager, 0.6, 0.06) << "eager " << eager << " ms, kernelized " << kernelized << " ms";
}

TEST_F(RunTest, InProcessIsolationGivesTheSameResults) {
    const ProcessResult result = run({"--enable-mock", "--isolation", "none", "--variants", "eager",
                                      "--measurement-iterations", "3", "--num-tokens-to-generate", "2"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(medians().size(), 2u);
}

TEST_F(RunTest, DefaultOutputFolderIsTimestampedWithALatestLink) {
    const ProcessResult result = host({"--plugins-dir", plugins.string(), "--enable-mock", "--variants", "eager",
                                       "--measurement-iterations", "2", "--include", "mock_benchmark/mock_benchmark"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const fs::path latest = work / "benchmark_results/latest";
    ASSERT_TRUE(fs::is_symlink(latest));
    const std::string target = fs::read_symlink(latest).string();
    EXPECT_EQ(target.size(), 15u) << target;  // YYYYmmdd_HHMMSS
    EXPECT_TRUE(fs::exists(latest / "benchmark_summary.json"));
}

TEST_F(RunTest, BadConfigurationExitsWithTwoAndRunsNothing) {
    write_file(work / "bad.yaml", "warmup_iterations: 1\nbatch_sizes: [1, 0]\n");
    ProcessResult result = run({"--enable-mock", "--config", (work / "bad.yaml").string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("bad.yaml:2:14: 'batch_sizes': axis 'batch_size': '0' is not an integer >= 1"),
              std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(output));

    result = run({"--variants", "eager,jit"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("option --variants: axis 'variant': 'jit' is not a variant"), std::string::npos)
        << result.err;

    result = run({"--no-such-option"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--no-such-option"), std::string::npos) << result.err;

    result = host({"run", "--plugins-dir", (work / "missing").string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("does not exist"), std::string::npos) << result.err;
}

TEST_F(RunTest, ListShowsPluginsAndBenchmarkIds) {
    write_file(plugins / "unit/notes.txt", "not a plugin");
    const ProcessResult result = host({"list", "--plugins-dir", plugins.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("performance/mock_benchmark/mock_benchmark"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("performance/mock_benchmark/generate"), std::string::npos);
    EXPECT_NE(result.out.find("(mock: runs with --enable-mock)"), std::string::npos);
    EXPECT_NE(result.out.find("notes.txt: not a plugin"), std::string::npos) << result.out;
    // Each plugin's version, SDK ABI, variants and axes.
    EXPECT_NE(result.out.find("performance/mock_benchmark  version 1.0.0"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("SDK:        0.1.0 (ABI " + std::to_string(BENCH_SDK_ABI_MAJOR) + "." +
                              std::to_string(BENCH_SDK_ABI_MINOR) + ")"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("variants:   eager, compiled, kernelized"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("axes:       variant, batch_size"), std::string::npos) << result.out;
}

TEST_F(RunTest, DryRunPrintsThePlanAndWritesNothing) {
    const ProcessResult result =
        run({"--dry-run", "--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--variants", "eager,compiled",
             "--batch-sizes", "1,4", "--rounds", "2", "--min-time", "0.5"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("Plan: 4 scenarios from 1 plugin"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("4 to run, 2 rounds each (8 runs)"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("performance/mock_benchmark/mock_benchmark[variant=compiled,batch_size=4]"),
              std::string::npos);
    EXPECT_NE(result.out.find("3 warmup, at least 10 samples, at least 0.5 s"), std::string::npos) << result.out;
    EXPECT_FALSE(fs::exists(output));  // not even the output folder

    // Without --enable-mock the plan says why the mock would be skipped.
    const ProcessResult skipped = run({"--dry-run", "--include", "mock_benchmark/mock_benchmark"});
    ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
    EXPECT_NE(skipped.out.find("skipped: "), std::string::npos) << skipped.out;
    EXPECT_NE(skipped.out.find("0 to run"), std::string::npos) << skipped.out;
}

TEST_F(RunTest, QuietPrintsOnlyTheSummary) {
    const ProcessResult result = run({"--quiet", "--enable-mock", "--include", "mock_benchmark/mock_benchmark",
                                      "--variants", "eager", "--measurement-iterations", "3"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err.find("[info]"), std::string::npos) << result.err;
    EXPECT_NE(result.out.find("1 scenario: 1 succeeded"), std::string::npos) << result.out;
    // Not quiet and not a terminal: plain progress lines, with the time left.
    const ProcessResult verbose = run({"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--variants",
                                       "eager,compiled", "--measurement-iterations", "3"});
    ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
    EXPECT_NE(verbose.err.find("[1/2] performance/mock_benchmark/mock_benchmark[variant=eager,batch_size=1]: success"),
              std::string::npos)
        << verbose.err;
    EXPECT_NE(verbose.err.find("1/2 done, 0:0"), std::string::npos) << verbose.err;
    EXPECT_NE(verbose.err.find("left)"), std::string::npos) << verbose.err;
}

}  // namespace

namespace {

class Isolation : public MockHostTest {};

// Each way a scenario can end, as the user sees it in the summary.
TEST_F(Isolation, EveryEndOfAWorkerIsClassified) {
    const fs::path output = work / "out";
    install_plugin(fs::path(BENCH_TEST_FIXTURE_PLUGIN_DIR) / "integration/libfixture_faults.so", plugins,
                   "integration");
    const ProcessResult result =
        run_into(output, {"--timeout", "2", "--enable-mock", "--variants", "eager", "--measurement-iterations", "3",
                          "--exclude", "generate", "--exclude", "environment"});
    EXPECT_EQ(result.exit_code, 1) << result.err;  // some failed

    std::map<std::string, std::pair<std::string, std::string>> outcomes;  // benchmark -> status, reason
    const auto summary = read_json(output / "benchmark_summary.json");
    for (const auto& entry : summary["results"].GetArray())
        outcomes[entry["benchmark"].GetString()] = {entry["status"].GetString(), entry["reason"].GetString()};

    using Outcome = std::pair<std::string, std::string>;
    EXPECT_EQ(outcomes["ok"], Outcome("success", ""));
    EXPECT_EQ(outcomes["skips"], Outcome("skipped", "bfloat16 is not supported here"));
    EXPECT_EQ(outcomes["throws"], Outcome("failed", "threw std::runtime_error: model file is corrupt"));
    EXPECT_EQ(outcomes["segfaults"], Outcome("crashed", "crashed with SIGSEGV (Segmentation fault)"));
    EXPECT_EQ(outcomes["aborts"], Outcome("crashed", "crashed with SIGABRT (Aborted)"));
    EXPECT_EQ(outcomes["exits"], Outcome("exited", "the worker exited with status 3 before reporting a result"));
    EXPECT_EQ(outcomes["hangs"], Outcome("timed_out", "timed out after 2 s; the worker was killed"));
    // The good plugin beside them ran and was measured.
    EXPECT_EQ(outcomes["mock_benchmark"].first, "success");

    const auto& meta = summary["run_metadata"];
    EXPECT_EQ(meta["total_benchmarks"].GetInt(), 8);
    EXPECT_EQ(meta["successful_runs"].GetInt(), 2);
    EXPECT_EQ(meta["skipped_runs"].GetInt(), 1);
    EXPECT_EQ(meta["failed_runs"].GetInt(), 5);

    // A failed scenario's report keeps what the plugin said.
    const auto report = read_json(files_matching(output / "fixture_faults", "fixture_faults_", ".json").at(0));
    bool found_exit_output = false;
    for (const auto& scenario : report["benchmark_scenarios"].GetArray())
        if (std::string(scenario["benchmark"].GetString()) == "exits")
            found_exit_output = std::string(scenario["log_tail"].GetString()).find("giving up") != std::string::npos;
    EXPECT_TRUE(found_exit_output);
}

}  // namespace
