// Runs of the host binary over a plugins folder of the test's own: the set-up the
// end-to-end tests share. A temporary folder with a plugins folder in it, the host run in
// it with the test's own options (HostRunTest: plans, a run's life cycle), or with the
// build's mock installed there (MockHostTest: shards, serving, monitors, the run, report
// and export commands). A short run, one warm-up and three measured iterations, over
// plugins written or copied into it, read back: the scenarios of its reports (by name) or
// of its summary (by id) (MockRunTest). And the runs of the mock's eager forward pass
// alone, sized by each test, that the tests of statistics, A/B runs, histories and CI
// outputs make (MockPassTest).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
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

/// The build's mock plugin: work of a known cost a call (--param base_units), and a
/// `slowdown` parameter that injects a regression.
inline fs::path mock_plugin() { return built_plugin("performance/libmock_benchmark.so"); }

/// A fixture of runs of the host binary: a temporary folder `work` and the plugins folder
/// `plugins` in it, which the test fills (install_plugin); host() runs benchhost in `work`
/// with any arguments, run_into() a run over `plugins` with the test's options alone (no
/// short-run defaults: short_run_arguments and MockRunTest add those).
class HostRunTest : public ::testing::Test {
protected:
    /// benchhost with `args`, in `work`, with `env` ("KEY=VALUE") added to its environment.
    ProcessResult host(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) const {
        std::vector<std::string> argv = {benchhost_binary().string()};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, work.path(), env);
    }

    /// `benchhost run --plugins-dir PLUGINS --output-dir OUTPUT`, then `options`, with
    /// `env` as host() has it.
    ProcessResult run_into(const fs::path& output, const std::vector<std::string>& options,
                           const std::vector<std::string>& env = {}) const {
        std::vector<std::string> args = {"run", "--plugins-dir", plugins.string(), "--output-dir", output.string()};
        args.insert(args.end(), options.begin(), options.end());
        return host(args, env);
    }

    TempDir work;
    fs::path plugins = work / "plugins";
};

/// HostRunTest with the build's mock installed in `plugins` (performance/).
class MockHostTest : public HostRunTest {
protected:
    void SetUp() override { install_plugin(mock_plugin(), plugins, "performance"); }
};

/// A fixture of short runs: a temporary folder `work`, the plugins folder `plugins` in it
/// that the test fills (add, install_plugin), and run(), which runs the host over it into
/// `output` and reads the scenarios back.
class MockRunTest : public HostRunTest {
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
        last = host(short_run_arguments(output, options), env);
        EXPECT_EQ(last.exit_code, expected_exit) << last.out << last.err;
        return read_scenarios(output, reports);
    }

    fs::path output = work / "out";
    std::vector<std::string> env;  // more variables for the host, "KEY=VALUE"
    ProcessResult last;
    std::vector<rapidjson::Document> reports;
};

/// How a run of the mock's eager forward pass alone is sized.
struct MockPass {
    std::optional<int> warmup = std::nullopt;  // --warmup-iterations; none: the host's default
    int measured = 3;  // --measurement-iterations
    std::optional<int> rounds = std::nullopt;  // --rounds; none: the host's default
    long long base_units = 0;  // --param base_units: the work of one call
};

/// The options that choose the mock's eager forward pass alone and size it: --enable-mock
/// --include mock_benchmark/mock_benchmark --variants eager, then [--warmup-iterations W]
/// --measurement-iterations N [--rounds R] --monitor-interval 0 --param base_units=U.
inline std::vector<std::string> mock_pass_options(const MockPass& pass) {
    std::vector<std::string> options = {"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--variants",
                                        "eager"};
    if (pass.warmup) options.insert(options.end(), {"--warmup-iterations", std::to_string(*pass.warmup)});
    options.insert(options.end(), {"--measurement-iterations", std::to_string(pass.measured)});
    if (pass.rounds) options.insert(options.end(), {"--rounds", std::to_string(*pass.rounds)});
    options.insert(options.end(),
                   {"--monitor-interval", "0", "--param", "base_units=" + std::to_string(pass.base_units)});
    return options;
}

/// A fixture of runs of the mock: a temporary folder `work`, the mock installed in its
/// plugins folder `plugins` (MockHostTest); host() runs benchhost in `work`, run_mock() the
/// mock's eager forward pass as the fixture sizes it.
class MockPassTest : public MockHostTest {
protected:
    /// `pass` sizes every run of the mock; `options` follow its options in each (--quiet).
    explicit MockPassTest(MockPass pass, std::vector<std::string> options = {})
        : pass_(pass), options_(std::move(options)) {}

    /// The options of the fixture's runs of the mock (mock_pass_options, then its own),
    /// for a command of the test's own (ab's sides).
    std::vector<std::string> mock_options() const {
        std::vector<std::string> options = mock_pass_options(pass_);
        options.insert(options.end(), options_.begin(), options_.end());
        return options;
    }

    /// `benchhost run --plugins-dir PLUGINS --output-dir OUTPUT`, mock_options(), then
    /// `extra`, with `env` as host() has it.
    ProcessResult run_mock(const fs::path& output, const std::vector<std::string>& extra = {},
                           const std::vector<std::string>& env = {}) const {
        std::vector<std::string> options = mock_options();
        options.insert(options.end(), extra.begin(), extra.end());
        return run_into(output, options, env);
    }

private:
    MockPass pass_;
    std::vector<std::string> options_;
};

}  // namespace benchtest
