#include "json/result_json.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "../../support/error_of.hpp"

namespace {

using benchhost::config_from_json;
using benchhost::config_to_json;
using benchhost::result_from_json;
using benchhost::result_to_json;

bench::ScenarioConfig sample_config() {
    bench::ScenarioConfig config;
    config.category = "performance";
    config.plugin = "resnet";
    config.benchmark = "inference";
    config.scenario_name = "inference[variant=compiled,batch=8]";
    config.variant = bench::Variant::compiled;
    config.compile_mode = "max-autotune";
    config.batch_size = 8;
    config.dtype = "bfloat16";
    config.device = "cpu";
    config.threads = 2;
    config.warmup_iterations = 5;
    config.measurement_iterations = 50;
    config.num_tokens_to_generate = 64;
    config.model_id = "gpt2 \"small\"\n\xC3\xA9";
    config.params.set("image_size", "224");
    config.params.set("layers", bench::Params::Values{"1", "2", "3"});
    config.params.set("empty", bench::Params::Values{});
    return config;
}

bench::ScenarioResult sample_result() {
    bench::ScenarioResult result;
    result.status = bench::Status::failed;
    result.reason = "output mismatch: max error 1e-3 > 1e-5";
    result.series.push_back({"latency", "ms", {1.5, 2.25, 0.1, 1e-300, 123456789.123456789}, 1});
    result.series.push_back({"tokens_per_second", "tokens/s", {}, 1});
    result.series.push_back({"tiny", "ns", {0.57, 0.58}, 1000000});
    result.scalars.push_back({"parameters", 25557032, ""});
    result.scalars.push_back({"peak_rss", 812.5, "MiB"});
    result.info["framework"] = "libtorch";
    result.info["model"] = "resnet50";
    result.accuracy.push_back({"resnet50", "/data/imagenet/val", 50000, 38000, 46500});
    return result;
}

using benchtest::error_of;

TEST(ResultJson, ConfigRoundTrips) {
    const bench::ScenarioConfig config = sample_config();
    EXPECT_EQ(config_from_json(config_to_json(config)), config);
}

TEST(ResultJson, DefaultConfigRoundTrips) {
    const bench::ScenarioConfig config;
    EXPECT_EQ(config_from_json(config_to_json(config)), config);
}

TEST(ResultJson, ConfigWritesVariantAndParamsAsText) {
    const std::string json = config_to_json(sample_config());
    EXPECT_NE(json.find("\"variant\":\"compiled\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"layers\":[\"1\",\"2\",\"3\"]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"image_size\":[\"224\"]"), std::string::npos) << json;
}

TEST(ResultJson, ResultRoundTripsExactly) {
    const bench::ScenarioResult result = sample_result();
    EXPECT_EQ(result_from_json(result_to_json(result)), result);
}

TEST(ResultJson, EveryStatusRoundTrips) {
    for (const auto status : {bench::Status::success, bench::Status::skipped, bench::Status::failed,
                              bench::Status::crashed, bench::Status::timed_out, bench::Status::exited}) {
        bench::ScenarioResult result;
        result.status = status;
        EXPECT_EQ(result_from_json(result_to_json(result)).status, status) << bench::to_string(status);
    }
}

TEST(ResultJson, NonFiniteNumbersRoundTrip) {
    bench::ScenarioResult result;
    const double inf = std::numeric_limits<double>::infinity();
    result.series.push_back({"latency", "ms", {1.0, std::nan(""), inf, -inf}, 1});
    result.scalars.push_back({"ratio", std::nan(""), ""});
    const bench::ScenarioResult back = result_from_json(result_to_json(result));
    ASSERT_EQ(back.series.size(), 1u);
    const auto& samples = back.series[0].samples;
    ASSERT_EQ(samples.size(), 4u);
    EXPECT_EQ(samples[0], 1.0);
    EXPECT_TRUE(std::isnan(samples[1]));
    EXPECT_EQ(samples[2], inf);
    EXPECT_EQ(samples[3], -inf);
    ASSERT_EQ(back.scalars.size(), 1u);
    EXPECT_TRUE(std::isnan(back.scalars[0].value));
}

TEST(ResultJson, NullReadsAsNaN) {
    const auto result =
        result_from_json(R"({"status":"success","reason":"","series":[{"name":"x","unit":"ms","inner_iterations":1,)"
                         R"("samples":[null,2]}],"scalars":[{"name":"s","value":null,"unit":""}],"info":{}})");
    ASSERT_EQ(result.series.size(), 1u);
    EXPECT_TRUE(std::isnan(result.series[0].samples[0]));
    EXPECT_EQ(result.series[0].samples[1], 2.0);
    EXPECT_TRUE(std::isnan(result.scalars[0].value));
}

TEST(ResultJson, MissingResultFieldIsNamedWithItsPath) {
    const std::string json = R"({"status":"success","reason":"","series":[)"
                             R"({"name":"a","unit":"ms","inner_iterations":1,"samples":[]},)"
                             R"({"name":"b","unit":"ms","inner_iterations":1,"samples":[]},)"
                             R"({"name":"c","inner_iterations":1,"samples":[]}],"scalars":[],"info":{}})";
    EXPECT_EQ(error_of([&] { result_from_json(json); }), "result JSON: field 'series[2].unit' is missing");
}

TEST(ResultJson, MissingTopLevelFieldsAreNamed) {
    EXPECT_EQ(error_of([] { result_from_json(R"({"reason":"","series":[],"scalars":[],"info":{}})"); }),
              "result JSON: field 'status' is missing");
    EXPECT_EQ(error_of([] { result_from_json(R"({"status":"success","reason":"","series":[],"info":{}})"); }),
              "result JSON: field 'scalars' is missing");
    EXPECT_EQ(error_of([] { config_from_json(R"({"category":"unit"})"); }), "config JSON: field 'plugin' is missing");
}

TEST(ResultJson, WrongTypesAreNamed) {
    EXPECT_EQ(error_of([] {
                  result_from_json(R"({"status":"success","reason":"","series":[)"
                                   R"({"name":"a","unit":"ms","inner_iterations":1,"samples":[1,"x"]}],)"
                                   R"("scalars":[],"info":{}})");
              }),
              "result JSON: field 'series[0].samples[1]' must be a number or null");
    EXPECT_EQ(
        error_of([] { result_from_json(R"({"status":"success","reason":"","series":{},"scalars":[],"info":{}})"); }),
        "result JSON: field 'series' must be an array");
    EXPECT_EQ(error_of([] {
                  result_from_json(R"({"status":"success","reason":"","series":[],"scalars":[],"info":{"k":1}})");
              }),
              "result JSON: field 'info.k' must be a string");

    std::string config = config_to_json(sample_config());
    const auto at = config.find("\"batch_size\":8");
    ASSERT_NE(at, std::string::npos);
    config.replace(at, 14, "\"batch_size\":\"8\"");
    EXPECT_EQ(error_of([&] { config_from_json(config); }), "config JSON: field 'batch_size' must be an integer");
}

TEST(ResultJson, UnknownEnumValuesAreRejected) {
    EXPECT_EQ(
        error_of([] { result_from_json(R"({"status":"great","reason":"","series":[],"scalars":[],"info":{}})"); }),
        "result JSON: field 'status' has an unknown value 'great'");
    std::string config = config_to_json(sample_config());
    const auto at = config.find("\"compiled\"");
    ASSERT_NE(at, std::string::npos);
    config.replace(at, 10, "\"jit\"");
    EXPECT_EQ(error_of([&] { config_from_json(config); }), "config JSON: field 'variant' has an unknown value 'jit'");
}

TEST(ResultJson, InvalidJsonReportsOffsetAndMessage) {
    EXPECT_EQ(error_of([] { result_from_json(R"({"status": )"); }).rfind("result JSON: parse error at offset 11: ", 0),
              0u);
    const std::string message = error_of([] { result_from_json("{\"status\" \"success\"}"); });
    EXPECT_EQ(message, "result JSON: parse error at offset 10: Missing a colon after a name of object member.");
    EXPECT_EQ(error_of([] { result_from_json(""); }), "result JSON: parse error at offset 0: The document is empty.");
    EXPECT_EQ(error_of([] { config_from_json("[]"); }), "config JSON: expected an object at the top level");
}

TEST(ResultJson, TrailingGarbageIsAnError) {
    const std::string json = result_to_json(bench::ScenarioResult{}) + "x";
    EXPECT_NE(error_of([&] { result_from_json(json); }).find("parse error"), std::string::npos);
}

TEST(ResultJson, UnknownFieldsAreIgnored) {
    std::string json = result_to_json(sample_result());
    json.insert(1, R"("future_field":{"a":[1,2]},)");
    EXPECT_EQ(result_from_json(json), sample_result());
}

}  // namespace
