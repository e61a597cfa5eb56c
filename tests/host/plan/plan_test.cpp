#include "plan/plan.hpp"

#include <cstring>

#include <gtest/gtest.h>

namespace {

using namespace benchhost;

DiscoveredPlugin plugin(const std::string& category, const std::string& name, std::vector<std::string> axes,
                        std::vector<std::string> benchmarks, bool mock = false) {
    DiscoveredPlugin p;
    p.category = category;
    p.name = name;
    p.path = "/plugins/" + category + "/lib" + name + ".so";
    std::strcpy(p.info.version, "1.0");
    p.info.mock = mock ? 1 : 0;
    p.axes = std::move(axes);
    for (const auto& b : benchmarks) p.benchmarks.push_back({b, b == name ? "run_benchmark" : "benchmark_" + b});
    return p;
}

Discovery sample_discovery() {
    Discovery d;
    d.plugins.push_back(plugin("unit", "tensor_ops", {"dtype"}, {"matmul", "softmax"}));
    d.plugins.push_back(plugin("performance", "resnet50", {"variant", "batch_size"}, {"resnet50"}));
    d.plugins.push_back(plugin("performance", "mock_benchmark", {"variant", "batch_size"}, {"mock_benchmark", "generate"}, true));
    return d;
}

RunOptions options_with_defaults() {
    RunOptions options;
    options.defaults = builtin_scenario_defaults();
    return options;
}

std::vector<std::string> ids(const Plan& plan) {
    std::vector<std::string> out;
    for (const auto& s : plan.scenarios) out.push_back(s.config.scenario_id());
    return out;
}

TEST(Plan, ExpandsOnlyTheAxesAPluginDeclares) {
    RunOptions options = options_with_defaults();
    options.config.axes["batch_size"] = {"1", "8"};
    options.config.axes["dtype"] = {"float32", "bfloat16"};
    const Plan plan = make_plan(sample_discovery(), options);
    const std::vector<std::string> expected = {
        "unit/tensor_ops/matmul[dtype=float32]",
        "unit/tensor_ops/matmul[dtype=bfloat16]",
        "unit/tensor_ops/softmax[dtype=float32]",
        "unit/tensor_ops/softmax[dtype=bfloat16]",
        "performance/resnet50/resnet50[variant=eager,batch_size=1]",
        "performance/resnet50/resnet50[variant=eager,batch_size=8]",
        "performance/resnet50/resnet50[variant=compiled,batch_size=1]",
        "performance/resnet50/resnet50[variant=compiled,batch_size=8]",
        "performance/resnet50/resnet50[variant=kernelized,batch_size=1]",
        "performance/resnet50/resnet50[variant=kernelized,batch_size=8]",
        "performance/mock_benchmark/mock_benchmark",
        "performance/mock_benchmark/generate",
    };
    EXPECT_EQ(ids(plan), expected);
    // An axis the plugin does not vary over still sets its first value.
    EXPECT_EQ(plan.scenarios[4].config.dtype, "float32");
    EXPECT_EQ(plan.scenarios[0].config.batch_size, 1);
    EXPECT_EQ(plan.scenarios[5].config.batch_size, 8);
    EXPECT_EQ(plan.scenarios[6].config.variant, bench::Variant::compiled);
    EXPECT_EQ(plan.scenarios[0].symbol, "benchmark_matmul");
    EXPECT_EQ(plan.scenarios[4].symbol, "run_benchmark");
}

TEST(Plan, SeveralValuesOfAnAxisAPluginDoesNotVaryOverAreWarnedAbout) {
    RunOptions options = options_with_defaults();
    options.include = {"resnet50"};
    EXPECT_TRUE(make_plan(sample_discovery(), options).warnings.empty());
    options.config.axes["dtype"] = {"bfloat16", "float32"};
    const Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.warnings.size(), 1u);  // once per plugin and axis, not per benchmark
    EXPECT_EQ(plan.warnings[0], "resnet50 does not vary over dtype: of bfloat16,float32 only the first (bfloat16) is used");
    for (const auto& s : plan.scenarios) EXPECT_EQ(s.config.dtype, "bfloat16");
}

TEST(Plan, MockPluginIsSkippedUnlessEnabled) {
    RunOptions options = options_with_defaults();
    options.include = {"mock"};
    Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.scenarios.size(), 2u);
    for (const auto& s : plan.scenarios) EXPECT_EQ(s.skip_reason, "mock plugin: run with --enable-mock to include it");

    options.enable_mock = true;
    plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.scenarios.size(), 6u);  // 2 benchmarks x 3 variants x 1 batch size
    for (const auto& s : plan.scenarios) EXPECT_TRUE(s.skip_reason.empty());
}

TEST(Plan, IncludeExcludeAndCategorySelect) {
    RunOptions options = options_with_defaults();
    options.include = {"unit/*"};
    EXPECT_EQ(make_plan(sample_discovery(), options).scenarios.size(), 2u);

    options.include = {"tensor_ops"};
    options.exclude = {"*softmax"};
    EXPECT_EQ(ids(make_plan(sample_discovery(), options)), std::vector<std::string>{"unit/tensor_ops/matmul[dtype=float32]"});

    options = options_with_defaults();
    options.categories = {"unit"};
    EXPECT_EQ(make_plan(sample_discovery(), options).scenarios.size(), 2u);

    options = options_with_defaults();
    options.exclude = {"performance/"};
    EXPECT_EQ(make_plan(sample_discovery(), options).scenarios.size(), 2u);
}

TEST(Plan, IncludeMatchingNothingWarnsWithTheKnownIds) {
    RunOptions options = options_with_defaults();
    options.include = {"bert", "resnet"};
    const Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_NE(plan.warnings[0].find("--include 'bert' matches no benchmark"), std::string::npos);
    EXPECT_NE(plan.warnings[0].find("performance/resnet50/resnet50"), std::string::npos);
}

TEST(Plan, PluginSectionAddsCustomAxesAndParams) {
    RunOptions options = options_with_defaults();
    options.plugin_settings["tensor_ops"].axes["size"] = {"128", "256"};
    options.plugin_settings["tensor_ops"].params.set("repeat", "3");
    options.include = {"matmul"};
    const Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.scenarios.size(), 2u);
    EXPECT_EQ(plan.scenarios[1].config.scenario_name, "matmul[dtype=float32,size=256]");
    EXPECT_EQ(plan.scenarios[1].config.params.get_int("size"), 256);
    EXPECT_EQ(plan.scenarios[1].config.params.get_int("repeat"), 3);
}

TEST(Plan, GlobAndSubstringPatterns) {
    EXPECT_TRUE(matches_pattern("performance/resnet50/resnet50", "resnet"));
    EXPECT_TRUE(matches_pattern("performance/resnet50/resnet50", "perf*/resnet50/*"));
    EXPECT_FALSE(matches_pattern("performance/resnet50/resnet50", "unit/*"));
    EXPECT_TRUE(matches_pattern("unit/tensor_ops/matmul", "unit/tensor_ops/mat?ul"));
}

}  // namespace

namespace {

TEST(Plan, RoundsInterleaveVariantsInRotatingOrder) {
    RunOptions options = options_with_defaults();
    options.include = {"resnet50"};
    options.command_line.axes["batch_size"] = {"1", "8"};
    const Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.scenarios.size(), 6u);  // 3 variants x 2 batch sizes
    const std::vector<std::size_t> order = execution_order(plan, 3);
    ASSERT_EQ(order.size(), 18u);
    const auto variant_at = [&](std::size_t k) { return std::string(bench::to_string(plan.scenarios[order[k]].config.variant)); };
    const auto batch_at = [&](std::size_t k) { return plan.scenarios[order[k]].config.batch_size; };
    // Round 1: eager, compiled, kernelized of batch 1, then of batch 8; round 2 starts
    // each group with compiled, round 3 with kernelized.
    EXPECT_EQ(variant_at(0), "eager");
    EXPECT_EQ(variant_at(1), "compiled");
    EXPECT_EQ(variant_at(2), "kernelized");
    EXPECT_EQ(batch_at(0), batch_at(2));
    EXPECT_NE(batch_at(2), batch_at(3));
    EXPECT_EQ(variant_at(6), "compiled");
    EXPECT_EQ(variant_at(8), "eager");
    EXPECT_EQ(variant_at(12), "kernelized");
    // Every scenario runs exactly three times.
    std::vector<int> runs(plan.scenarios.size());
    for (const std::size_t index : order) ++runs[index];
    for (const int n : runs) EXPECT_EQ(n, 3);
    // One round is the plan's order.
    const std::vector<std::size_t> once = execution_order(plan, 1);
    for (std::size_t i = 0; i < once.size(); ++i) EXPECT_EQ(once[i], i);
}

TEST(Plan, VariantsOfTheSameBenchmarkAndAxes) {
    bench::ScenarioConfig a;
    a.plugin = "p";
    a.benchmark = "b";
    bench::ScenarioConfig b = a;
    b.variant = bench::Variant::compiled;
    b.compile_mode = "fast";
    EXPECT_TRUE(differ_only_in_variant(a, b));
    b.batch_size = 8;
    EXPECT_FALSE(differ_only_in_variant(a, b));
    b = a;
    b.params.set("seq_len", "128");
    EXPECT_FALSE(differ_only_in_variant(a, b));
}

}  // namespace
