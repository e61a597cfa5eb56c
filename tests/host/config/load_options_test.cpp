// The serving load's options: each value's parser, the options checked together, and
// what the summary records. Reading them from the YAML is tested with the config
// (run_config_test.cpp), from the command line with it (cli_test.cpp).
#include "config/load_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(LoadOptions, AnOptionOfTheLoadWithoutALoadIsNamedAsGiven) {
    bench::LoadConfig load;
    load.slos = bench::parse_slos("latency=1s");
    EXPECT_EQ(check_error(load), "--slo needs --load MODE (single-stream, multi-stream, server or offline)");
    load.queries = 10;
    EXPECT_EQ(check_error(load),
              "--queries and --slo need --load MODE (single-stream, multi-stream, server or offline)");
    load.min_duration_s = 1;
    load.late_tolerance_ms = 2;
    EXPECT_EQ(check_error(load),
              "--queries, --min-duration, --late-tolerance and --slo need --load MODE (single-stream, "
              "multi-stream, server or offline)");
    load.mode = bench::LoadMode::single_stream;
    EXPECT_EQ(check_error(load), "no error");
}

TEST(LoadOptions, FindPeakNeedsAServerLoadWithAnSloAndNoRate) {
    bench::LoadConfig load;
    load.find_peak = true;
    EXPECT_EQ(check_error(load),
              "--find-peak needs --load server (it searches the highest rate of arrivals that meets "
              "the SLO), got no --load");
    load.mode = bench::LoadMode::offline;
    EXPECT_EQ(check_error(load),
              "--find-peak needs --load server (it searches the highest rate of arrivals that meets "
              "the SLO), got --load offline");
    load.mode = bench::LoadMode::server;
    EXPECT_EQ(check_error(load),
              "--find-peak needs --slo METRIC=BOUND (e.g. --slo latency=50ms, or "
              "ttft=500ms,tpot=50ms): the bound that each rate's p99 must meet");
    load.slos = {{"latency", 50}};
    EXPECT_EQ(check_error(load), "no error");  // no rate: the search finds it
    load.burstiness = 0.5;
    EXPECT_EQ(check_error(load), "no error");  // the arrivals of every rate are gamma's
    load.target_qps = 250;
    EXPECT_EQ(check_error(load), "--find-peak searches the rate itself: leave out --target-qps (got 250)");
    load.target_qps = 0;
    load.concurrency = 4;
    EXPECT_EQ(check_error(load),
              "--find-peak searches a rate of arrivals: leave out --concurrency (closed-loop clients)");

    bench::LoadConfig plain;
    plain.mode = bench::LoadMode::server;
    plain.target_qps = 10;
    plain.peak_precision = 0.1;
    EXPECT_EQ(check_error(plain), "--peak-precision needs --find-peak");
    plain.peak_precision = 0;
    slo_value("option --slo", "p95:latency=20ms", plain);
    EXPECT_EQ(plain.slo_percentile, 95);
    EXPECT_EQ(plain.slos, (std::vector<bench::Slo>{{"latency", 20}}));
    EXPECT_EQ(check_error(plain),
              "--slo p95:...: a percentile is what --find-peak judges each rate by; it needs "
              "--find-peak (the goodput counts the queries that meet every bound)");
}

TEST(LoadOptions, AnSloNamesItsPercentileBeforeItsBounds) {
    bench::LoadConfig load;
    slo_value("x", "p99.9:ttft=500ms,tpot=50ms", load);
    EXPECT_DOUBLE_EQ(load.slo_percentile, 99.9);
    EXPECT_EQ(load.slos, (std::vector<bench::Slo>{{"ttft", 500}, {"tpot", 50}}));
    slo_value("x", "latency=1s", load);
    EXPECT_EQ(load.slo_percentile, 0);  // none named: the headline's
    for (const char* wrong : {"p100:latency=1s", "p0:latency=1s", "99:latency=1s", "pp9:latency=1s", "p95:"}) {
        try {
            slo_value("option --slo", wrong, load);
            ADD_FAILURE() << wrong;
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("option --slo: ", 0), 0u) << e.what();
        }
    }
    try {
        slo_value("option --slo", "p100:latency=1s", load);
    } catch (const ConfigError& e) {
        EXPECT_STREQ(e.what(),
                     "option --slo: 'p100' is not a percentile: expected pNN before the bounds, above p0 and "
                     "below p100 (e.g. p95:latency=200ms)");
    }
    EXPECT_DOUBLE_EQ(peak_precision_value("x", "2%"), 0.02);
    EXPECT_DOUBLE_EQ(peak_precision_value("x", "0.1"), 0.1);
    EXPECT_THROW(peak_precision_value("x", "0"), ConfigError);
    EXPECT_THROW(peak_precision_value("x", "100%"), ConfigError);
}

TEST(LoadOptions, BatchingNeedsALoadAndWaitingNeedsABatchAboveOne) {
    bench::LoadConfig load;
    load.max_batch = 4;
    EXPECT_EQ(check_error(load),
              "--max-batch needs --load MODE (it batches the queries of a benchmark that serves in batches)");
    load.max_batch_wait_ms = 2;
    EXPECT_EQ(check_error(load),
              "--max-batch and --max-batch-wait need --load MODE (they batch the queries of a benchmark that "
              "serves in batches)");
    load.max_batch_wait_ms = 0;
    load.mode = bench::LoadMode::offline;
    EXPECT_EQ(check_error(load), "no error");
    load.max_batch = 1;
    load.max_batch_wait_ms = 2;
    EXPECT_EQ(check_error(load), "--max-batch-wait needs --max-batch N above 1 (a batch of one never waits)");
    load.max_batch = 8;
    EXPECT_EQ(check_error(load), "no error");
    const auto described = describe_load(load);
    EXPECT_NE(std::find(described.begin(), described.end(), std::pair<std::string, std::string>{"max_batch", "8"}),
              described.end());
    EXPECT_NE(
        std::find(described.begin(), described.end(), std::pair<std::string, std::string>{"max_batch_wait_ms", "2"}),
        described.end());
}

TEST(LoadOptions, TheSummaryDescribesTheLoadOnlyWhenThereIsOne) {
    EXPECT_TRUE(describe_load({}).empty());
    bench::LoadConfig load;
    load.mode = bench::LoadMode::server;
    load.target_qps = 25;
    load.slos = {{"latency", 200}};
    const auto described = describe_load(load);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"mode", "server"}, {"queries", "200"},         {"target_qps", "25"},    {"burstiness", "1"},
        {"load_seed", "1"}, {"late_tolerance_ms", "1"}, {"slo", "latency=200ms"}};
    EXPECT_EQ(described, expected);

    load.target_qps = 0;
    load.find_peak = true;
    load.slo_percentile = 95;
    const std::vector<std::pair<std::string, std::string>> search = {
        {"mode", "server"},  {"queries", "200"}, {"find_peak", "true"},      {"peak_precision", "0.05"},
        {"burstiness", "1"}, {"load_seed", "1"}, {"late_tolerance_ms", "1"}, {"slo", "p95:latency=200ms"}};
    EXPECT_EQ(describe_load(load), search);
}

}  // namespace
