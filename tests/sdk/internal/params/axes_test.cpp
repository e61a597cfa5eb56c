#include <bench/internal/params/axes.hpp>

#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace {

TEST(Axes, CartesianProductVariesTheLastAxisFastest) {
    const std::vector<bench::Axis> axes = {{"variant", {"eager", "compiled", "kernelized"}},
                                           {"batch_size", {"1", "8"}}};
    const auto points = bench::cartesian_product(axes);
    ASSERT_EQ(points.size(), 6u);
    EXPECT_EQ(points[0], (bench::AxisPoint{{"variant", "eager"}, {"batch_size", "1"}}));
    EXPECT_EQ(points[1], (bench::AxisPoint{{"variant", "eager"}, {"batch_size", "8"}}));
    EXPECT_EQ(points[5], (bench::AxisPoint{{"variant", "kernelized"}, {"batch_size", "8"}}));
}

TEST(Axes, ProductOfThreeAxesHasEveryCombinationOnce) {
    const std::vector<bench::Axis> axes = {{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}, {"c", {"p", "q"}}};
    const auto points = bench::cartesian_product(axes);
    ASSERT_EQ(points.size(), 12u);
    std::set<bench::AxisPoint> unique(points.begin(), points.end());
    EXPECT_EQ(unique.size(), 12u);
}

TEST(Axes, NoAxesGiveOneEmptyPointAndEmptyAxesAreIgnored) {
    EXPECT_EQ(bench::cartesian_product({}), std::vector<bench::AxisPoint>{bench::AxisPoint{}});
    const auto points = bench::cartesian_product({{"variant", {}}, {"batch_size", {"4"}}});
    ASSERT_EQ(points.size(), 1u);
    EXPECT_EQ(points[0], (bench::AxisPoint{{"batch_size", "4"}}));
}

TEST(Axes, ApplyingAPointSetsConfigFieldsAndParameters) {
    const bench::ScenarioConfig config = bench::apply_axis_point({}, {{"variant", "compiled"},
                                                                      {"batch_size", "32"},
                                                                      {"dtype", "bfloat16"},
                                                                      {"device", "cuda:1"},
                                                                      {"threads", "2"},
                                                                      {"compile_mode", "max-autotune"},
                                                                      {"seq_len", "512"}});
    EXPECT_EQ(config.variant, bench::Variant::compiled);
    EXPECT_EQ(config.batch_size, 32);
    EXPECT_EQ(config.dtype, "bfloat16");
    EXPECT_EQ(config.device, "cuda:1");
    EXPECT_EQ(config.threads, 2);
    EXPECT_EQ(config.compile_mode, "max-autotune");
    EXPECT_EQ(config.params.get_int("seq_len"), 512);
}

TEST(Axes, InvalidValuesAreRejectedWithTheAxisName) {
    bench::ScenarioConfig config;
    auto message = [&](const char* axis, const char* value) {
        try {
            bench::apply_axis_value(config, axis, value);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(message("variant", "turbo"), "axis 'variant': 'turbo' is not a variant (eager, compiled or kernelized)");
    EXPECT_EQ(message("batch_size", "0"), "axis 'batch_size': '0' is not an integer >= 1");
    EXPECT_EQ(message("batch_size", "8x"), "axis 'batch_size': '8x' is not an integer >= 1");
    EXPECT_NE(message("dtype", "float8").find("is not a dtype"), std::string::npos);
    EXPECT_NE(message("device", "tpu").find("is not a device"), std::string::npos);
    EXPECT_EQ(message("threads", "-1"), "axis 'threads': '-1' is not an integer >= 0");
}

TEST(Axes, AVeryLongDeviceNameIsRejectedNotACrash) {
    // A regular expression used to check this recursed per character (found by fuzzing).
    bench::ScenarioConfig config;
    EXPECT_THROW(bench::apply_axis_value(config, "device", "cuda:" + std::string(100'000, '1')), std::invalid_argument);
    EXPECT_NO_THROW(bench::apply_axis_value(config, "device", "cuda:12"));
    EXPECT_THROW(bench::apply_axis_value(config, "device", "cuda:"), std::invalid_argument);
}

TEST(Axes, ScenarioNameListsTheAxisValues) {
    EXPECT_EQ(bench::scenario_name("matmul", {}), "matmul");
    EXPECT_EQ(bench::scenario_name("resnet50", {{"variant", "eager"}, {"batch_size", "8"}}),
              "resnet50[variant=eager,batch_size=8]");
}

}  // namespace
