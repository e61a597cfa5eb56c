// The serving load's options: read from the YAML and the command line, the command line
// over the YAML, and checked together, every error naming the option.
#include "config/load_options.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "cli/cli.hpp"
#include "config/run_config.hpp"

namespace {

using namespace benchhost;
namespace fs = std::filesystem;

RunOptions from_yaml(const std::string& yaml) {
    RunOptions options;
    load_config_text(yaml, "test.yaml", options);
    return options;
}

std::string yaml_error(const std::string& yaml) {
    try {
        from_yaml(yaml);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "no error";
}

ParsedCommandLine parse(std::vector<const char*> args) {
    args.insert(args.begin(), "benchhost");
    return parse_command_line(static_cast<int>(args.size()), args.data());
}

std::string cli_error(std::vector<const char*> args) {
    testing::internal::CaptureStderr();
    const ParsedCommandLine parsed = parse(std::move(args));
    const std::string printed = testing::internal::GetCapturedStderr();
    return std::to_string(parsed.exit_code) + " " + printed;
}

TEST(LoadOptions, YamlKeysSetTheLoad) {
    const bench::LoadConfig load = from_yaml(R"(
load: server
queries: 500
min_duration: 2.5
target_qps: 40
burstiness: 0.5
late_tolerance: 500us
load_seed: 9
slo: {ttft: 500ms, tpot: 50ms}
)").load;
    EXPECT_EQ(load.mode, bench::LoadMode::server);
    EXPECT_EQ(load.queries, 500);
    EXPECT_DOUBLE_EQ(load.min_duration_s, 2.5);
    EXPECT_DOUBLE_EQ(load.target_qps, 40);
    EXPECT_DOUBLE_EQ(load.burstiness, 0.5);
    EXPECT_DOUBLE_EQ(load.late_tolerance_ms, 0.5);
    EXPECT_EQ(load.seed, 9u);
    EXPECT_EQ(load.slos, (std::vector<bench::Slo>{{"ttft", 500}, {"tpot", 50}}));
    EXPECT_EQ(from_yaml("slo: latency=0.2s\n").load.slos, (std::vector<bench::Slo>{{"latency", 200}}));
}

TEST(LoadOptions, WrongYamlValuesNameTheKeyAndWhere) {
    EXPECT_EQ(yaml_error("load: fast\n"),
              "test.yaml:1:7: 'load': 'fast' is not a load: single-stream, multi-stream, server or offline");
    EXPECT_EQ(yaml_error("target_qps: 0\n"), "test.yaml:1:13: 'target_qps': the rate must be above 0 queries/s, got 0");
    EXPECT_EQ(yaml_error("slo: {latency: 200}\n"),
              "test.yaml:1:6: 'slo': latency=200: the bound needs a unit: us, ms or s (e.g. latency=200ms)");
    EXPECT_EQ(yaml_error("late_tolerance: 2\n"),
              "test.yaml:1:17: 'late_tolerance': expected a duration above 0 with its unit (us, ms or s, e.g. 1ms), got '2'");
    EXPECT_EQ(yaml_error("target_qs: 5\n"), "test.yaml:1:1: unknown key 'target_qs' (did you mean 'target_qps'?)");
}

TEST(LoadOptions, TheCommandLineOverridesTheYaml) {
    const fs::path dir = fs::temp_directory_path() / ("load_options_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path config = dir / "serve.yaml";
    {
        std::ofstream out(config);
        out << "load: server\ntarget_qps: 40\nslo: latency=1s\nqueries: 300\n";
    }
    const auto parsed = parse({"run", "--config", config.c_str(), "--concurrency", "4", "--slo", "ttft=20ms"});
    fs::remove_all(dir);
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const bench::LoadConfig& load = std::get<RunCommand>(*parsed.command).options.load;
    EXPECT_EQ(load.mode, bench::LoadMode::server);
    EXPECT_EQ(load.concurrency, 4);
    EXPECT_EQ(load.target_qps, 0);  // the closed loop given replaces the config's open loop
    EXPECT_EQ(load.queries, 300);
    EXPECT_EQ(load.slos, (std::vector<bench::Slo>{{"ttft", 20}}));
}

TEST(LoadOptions, WrongOptionsExitTwoNamingTheOption) {
    EXPECT_EQ(cli_error({"run", "--load", "server", "--target-qps", "0"}),
              "2 benchhost: error: option --target-qps: the rate must be above 0 queries/s, got 0\n");
    EXPECT_EQ(cli_error({"run", "--load", "server", "--target-qps", "-1"}),
              "2 benchhost: error: option --target-qps: the rate must be above 0 queries/s, got -1\n");
    EXPECT_EQ(cli_error({"run", "--load", "server", "--target-qps", "often"}),
              "2 benchhost: error: option --target-qps: expected a rate in queries per second, got 'often'\n");
    EXPECT_EQ(cli_error({"run", "--load", "single-stream", "--slo", "latency=200"}),
              "2 benchhost: error: option --slo: latency=200: the bound needs a unit: us, ms or s (e.g. latency=200ms)\n");
    EXPECT_EQ(cli_error({"run", "--load", "single-stream", "--slo", "p50=2ms"}),
              "2 benchhost: error: option --slo: unknown metric 'p50' (expected latency, ttft, tpot or itl)\n");
    EXPECT_EQ(cli_error({"run", "--load", "server", "--target-qps", "5", "--burstiness", "0"}),
              "2 benchhost: error: option --burstiness: expected the gamma shape of the gaps between arrivals, above 0 "
              "(1: Poisson), got '0'\n");
    EXPECT_EQ(cli_error({"run", "--load", "server", "--concurrency", "0"}),
              "2 benchhost: error: option --concurrency: expected an integer from 1 to 100000000, got '0'\n");
}

TEST(LoadOptions, OptionsOfAModeNeedThatMode) {
    EXPECT_EQ(cli_error({"run", "--load", "server"}),
              "2 benchhost: error: --load server needs --target-qps R (queries/s, above 0) or --concurrency N (clients)\n");
    EXPECT_EQ(cli_error({"run", "--load", "server", "--target-qps", "5", "--concurrency", "2"}),
              "2 benchhost: error: --load server takes --target-qps (open loop: arrivals at that rate) or --concurrency "
              "(closed loop: that many clients), not both\n");
    EXPECT_EQ(cli_error({"run", "--target-qps", "5"}), "2 benchhost: error: --target-qps needs --load server\n");
    EXPECT_EQ(cli_error({"run", "--load", "offline", "--samples-per-query", "4"}),
              "2 benchhost: error: --samples-per-query needs --load multi-stream\n");
    EXPECT_EQ(cli_error({"run", "--load", "server", "--concurrency", "2", "--burstiness", "2"}),
              "2 benchhost: error: --burstiness needs --load server --target-qps R (it shapes the arrivals at that rate)\n");
    EXPECT_EQ(cli_error({"run", "--slo", "latency=1s"}),
              "2 benchhost: error: --queries, --min-duration, --late-tolerance and --slo need --load MODE "
              "(single-stream, multi-stream, server or offline)\n");
    const auto ok = parse({"run", "--load", "multi-stream", "--samples-per-query", "4", "--queries", "10"});
    ASSERT_TRUE(ok.command) << ok.exit_code;
    EXPECT_EQ(std::get<RunCommand>(*ok.command).options.load.samples_per_query, 4);
}

TEST(LoadOptions, TheSummaryDescribesTheLoadOnlyWhenThereIsOne) {
    EXPECT_TRUE(describe_load({}).empty());
    bench::LoadConfig load;
    load.mode = bench::LoadMode::server;
    load.target_qps = 25;
    load.slos = {{"latency", 200}};
    const auto described = describe_load(load);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"load", "server"}, {"queries", "200"}, {"target_qps", "25"}, {"burstiness", "1"}, {"load_seed", "1"},
        {"late_tolerance_ms", "1"}, {"slo", "latency=200ms"}};
    EXPECT_EQ(described, expected);
}

}  // namespace
