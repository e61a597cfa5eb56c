// The serving load's options: each value's parser, the options checked together, and
// what the summary records. Reading them from the YAML is tested with the config
// (run_config_test.cpp), from the command line with it (cli_test.cpp).
#include "config/load_options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace {

using namespace benchhost;

std::string check_error(const bench::LoadConfig& load) {
    try {
        check_load(load);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "no error";
}

TEST(LoadOptions, ValuesAreReadOrRefusedNamingWhere) {
    EXPECT_EQ(load_mode_value("x", "multi-stream"), bench::LoadMode::multi_stream);
    EXPECT_THROW(load_mode_value("x", "none"), ConfigError);  // not a mode to ask for
    EXPECT_DOUBLE_EQ(rate_value("x", "12.5"), 12.5);
    EXPECT_DOUBLE_EQ(duration_ms_value("x", "2s"), 2000);
    EXPECT_EQ(count_value("x", "0", 0), 0);
    try {
        count_value("option --queries", "0", 1);
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_STREQ(e.what(), "option --queries: expected an integer from 1 to 100000000, got '0'");
    }
}

TEST(LoadOptions, TheOptionsAreCheckedTogether) {
    bench::LoadConfig load;
    EXPECT_EQ(check_error(load), "no error");  // no load at all
    load.mode = bench::LoadMode::server;
    load.concurrency = 2;
    EXPECT_EQ(check_error(load), "no error");
    load.samples_per_query = 3;
    EXPECT_EQ(check_error(load), "--samples-per-query needs --load multi-stream");
    load.samples_per_query = 0;
    load.mode = bench::LoadMode::offline;
    EXPECT_EQ(check_error(load), "--concurrency needs --load server");
}

TEST(LoadOptions, TheSummaryDescribesTheLoadOnlyWhenThereIsOne) {
    EXPECT_TRUE(describe_load({}).empty());
    bench::LoadConfig load;
    load.mode = bench::LoadMode::server;
    load.target_qps = 25;
    load.slos = {{"latency", 200}};
    const auto described = describe_load(load);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"mode", "server"}, {"queries", "200"}, {"target_qps", "25"}, {"burstiness", "1"}, {"load_seed", "1"},
        {"late_tolerance_ms", "1"}, {"slo", "latency=200ms"}};
    EXPECT_EQ(described, expected);
}

}  // namespace
