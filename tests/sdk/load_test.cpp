// The serving load's texts: modes, durations with their units, SLOs.
#include <bench/load.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

std::string slo_error(const std::string& text) {
    try {
        bench::parse_slos(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(accepted)";
}

TEST(Load, ModesReadBackTheirNames) {
    for (const auto mode : {bench::LoadMode::single_stream, bench::LoadMode::multi_stream, bench::LoadMode::server,
                            bench::LoadMode::offline})
        EXPECT_EQ(bench::parse_load_mode(bench::to_string(mode)), mode);
    EXPECT_FALSE(bench::parse_load_mode("none"));
    EXPECT_FALSE(bench::parse_load_mode("Server"));
}

TEST(Load, DurationsNeedAUnit) {
    EXPECT_DOUBLE_EQ(bench::parse_duration_ms("200ms").value(), 200);
    EXPECT_DOUBLE_EQ(bench::parse_duration_ms("1.5s").value(), 1500);
    EXPECT_DOUBLE_EQ(bench::parse_duration_ms("250us").value(), 0.25);
    EXPECT_FALSE(bench::parse_duration_ms("200"));
    EXPECT_FALSE(bench::parse_duration_ms("ms"));
    EXPECT_FALSE(bench::parse_duration_ms("-3ms"));
    EXPECT_FALSE(bench::parse_duration_ms("5 min"));
    EXPECT_FALSE(bench::parse_duration_ms("5xs"));
}

TEST(Load, SlosReadEachMetricAndBound) {
    EXPECT_EQ(bench::parse_slos("latency=200ms"), (std::vector<bench::Slo>{{"latency", 200}}));
    EXPECT_EQ(bench::parse_slos("ttft=0.5s,tpot=50ms"), (std::vector<bench::Slo>{{"ttft", 500}, {"tpot", 50}}));
    EXPECT_EQ(bench::to_string(bench::parse_slos("ttft=0.5s,itl=12.5ms")), "ttft=500ms,itl=12.5ms");
}

TEST(Load, AWrongSloSaysWhatIsWrong) {
    EXPECT_EQ(slo_error("latency=200"), "latency=200: the bound needs a unit: us, ms or s (e.g. latency=200ms)");
    EXPECT_EQ(slo_error("p99=200ms"), "unknown metric 'p99' (expected latency, ttft, tpot or itl)");
    EXPECT_EQ(slo_error("latency"), "'latency' is not METRIC=BOUND (e.g. latency=200ms)");
    EXPECT_EQ(slo_error("latency=fast"), "latency=fast: the bound must be a duration with a unit, e.g. 200ms");
    EXPECT_EQ(slo_error("latency=0ms"), "latency=0ms: the bound must be above 0");
    EXPECT_EQ(slo_error("ttft=1s,ttft=2s"), "metric 'ttft' is bounded twice");
    EXPECT_EQ(slo_error(""), "an empty SLO: expected METRIC=BOUND, e.g. latency=200ms");
}

}  // namespace
