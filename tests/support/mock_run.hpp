// A short run of the host binary over a plugins folder of the test's own, read back: the
// set-up the end-to-end tests of plugins share. A temporary folder, plugins written or
// copied into it, `benchhost run` with one warm-up and three measured iterations, and the
// scenarios of its reports (by name) or of its summary (by id).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "test_support.hpp"

namespace benchtest {

/// A plugin of the build, by its path under <build>/plugins:
/// built_plugin("performance/libmock_benchmark.so").
inline fs::path built_plugin(const std::string& relative) {
    return fs::path(BENCH_TEST_BUILD_DIR) / "plugins" / relative;
}

/// The arguments of a short run into `output`: `run --output-dir OUTPUT`, one warm-up and
/// three measured iterations, no monitor samples (unless `options` sets
/// --monitor-interval), then `options`.
inline std::vector<std::string> short_run_arguments(const fs::path& output, const std::vector<std::string>& options) {
    std::vector<std::string> args = {
        "run", "--output-dir", output.string(), "--warmup-iterations", "1", "--measurement-iterations", "3"};
    if (std::find(options.begin(), options.end(), "--monitor-interval") == options.end())
        args.insert(args.end(), {"--monitor-interval", "0"});
    args.insert(args.end(), options.begin(), options.end());
    return args;
}

/// A scenario of a plugin's report: its status, its reason ("" when none) and its entry
/// in the report's benchmark_scenarios.
struct ReportedScenario {
    std::string status, reason;
    const rapidjson::Value* report = nullptr;
};

/// Reads every plugin report of the run folder `output` (<output>/<plugin>/*.json) into
/// `reports`, which the scenarios point into; returns the scenarios by name.
inline std::map<std::string, ReportedScenario> read_scenarios(const fs::path& output,
                                                              std::vector<rapidjson::Document>& reports) {
    reports.clear();
    std::map<std::string, ReportedScenario> scenarios;
    for (const auto& folder : fs::directory_iterator(output)) {
        if (!folder.is_directory()) continue;
        for (const auto& file : fs::directory_iterator(folder.path())) {
            if (file.path().extension() != ".json") continue;
            reports.push_back(read_json(file.path()));
            if (!reports.back().HasMember("benchmark_scenarios")) continue;
            for (const auto& s : reports.back()["benchmark_scenarios"].GetArray())
                scenarios[s["scenario_name"].GetString()] =
                    ReportedScenario{s["status"].GetString(), s.HasMember("reason") ? s["reason"].GetString() : "", &s};
        }
    }
    return scenarios;
}

/// The status of each scenario of a benchmark_summary.json, by scenario id.
inline std::map<std::string, std::string> summary_statuses(const rapidjson::Document& summary) {
    std::map<std::string, std::string> statuses;
    for (const auto& scenario : summary["results"].GetArray())
        statuses[scenario["scenario_id"].GetString()] = scenario["status"].GetString();
    return statuses;
}

/// A fixture of short runs: a temporary folder `work`, the plugins folder `plugins` in it
/// that the test fills (add, install_plugin), and run(), which runs the host over it into
/// `output` and reads the scenarios back.
class MockRunTest : public ::testing::Test {
protected:
    using Scenario = ReportedScenario;

    void SetUp() override { fs::permissions(work.path(), fs::perms::owner_all); }

    /// Writes a plugin's source (or any file) at `relative` in `plugins`.
    void add(const std::string& relative, const std::string& source) { write_file(plugins / relative, source); }

    /// Runs the host on `plugins` with `args` (short_run_arguments), in `work`, with `env`;
    /// expects `expected_exit`; keeps the result in `last` and the reports in `reports`;
    /// returns the scenarios by name.
    std::map<std::string, Scenario> run(const std::vector<std::string>& args, int expected_exit) {
        fs::remove_all(output);
        std::vector<std::string> options = {"--plugins-dir", plugins.string()};
        options.insert(options.end(), args.begin(), args.end());
        std::vector<std::string> argv = short_run_arguments(output, options);
        argv.insert(argv.begin(), benchhost_binary().string());
        last = run_process(argv, work.path(), env);
        EXPECT_EQ(last.exit_code, expected_exit) << last.out << last.err;
        return read_scenarios(output, reports);
    }

    TempDir work;
    fs::path plugins = work / "plugins";
    fs::path output = work / "out";
    std::vector<std::string> env;  // more variables for the host, "KEY=VALUE"
    ProcessResult last;
    std::vector<rapidjson::Document> reports;
};

}  // namespace benchtest
