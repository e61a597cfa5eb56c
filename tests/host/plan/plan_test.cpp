#include "plan/plan.hpp"
#include "util/id_pattern.hpp"

#include <cstring>
#include <map>

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
    d.plugins.push_back(
        plugin("performance", "mock_benchmark", {"variant", "batch_size"}, {"mock_benchmark", "generate"}, true));
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

TEST(Plan, CompileModesMultiplyTheCompiledVariantOnly) {
    Discovery d;
    d.plugins.push_back(plugin("performance", "resnet50", {"variant", "batch_size", "compile_mode"}, {"resnet50"}));
    RunOptions options = options_with_defaults();
    options.config.axes["compile_mode"] = {"default", "torchscript"};
    const Plan plan = make_plan(d, options);
    const std::vector<std::string> expected = {
        "performance/resnet50/resnet50[variant=eager,batch_size=1]",
        "performance/resnet50/resnet50[variant=compiled,batch_size=1,compile_mode=default]",
        "performance/resnet50/resnet50[variant=compiled,batch_size=1,compile_mode=torchscript]",
        "performance/resnet50/resnet50[variant=kernelized,batch_size=1]",
    };
    EXPECT_EQ(ids(plan), expected);
    EXPECT_EQ(plan.scenarios[1].config.compile_mode, "default");
    EXPECT_EQ(plan.scenarios[2].config.compile_mode, "torchscript");
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(Plan, SeveralValuesOfAnAxisAPluginDoesNotVaryOverAreWarnedAbout) {
    RunOptions options = options_with_defaults();
    options.include = {"resnet50"};
    EXPECT_TRUE(make_plan(sample_discovery(), options).warnings.empty());
    options.config.axes["dtype"] = {"bfloat16", "float32"};
    options.config.axis_origins["dtype"] = "my.yaml:3:9";
    const Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.warnings.size(), 1u);  // once per plugin and axis, not per benchmark
    EXPECT_EQ(plan.warnings[0],
              "resnet50 does not vary over dtype: of bfloat16,float32 (my.yaml:3:9) only the first (bfloat16) is used");
    for (const auto& s : plan.scenarios) EXPECT_EQ(s.config.dtype, "bfloat16");
}

TEST(Plan, DefaultValuesOfAnAxisAPluginDoesNotVaryOverAreNeverWarnedAbout) {
    // tensor_ops has no variant axis; the built-in defaults have three variants.
    RunOptions options = options_with_defaults();
    options.include = {"tensor_ops"};
    Plan plan = make_plan(sample_discovery(), options);
    EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.at(0);
    for (const auto& s : plan.scenarios) EXPECT_EQ(s.config.variant, bench::Variant::eager);

    // The same values, given on the command line, are the user's: warned about.
    options.command_line.axes["variant"] = {"eager", "compiled", "kernelized"};
    options.command_line.axis_origins["variant"] = "--variants";
    plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(plan.warnings[0],
              "tensor_ops does not vary over variant: of eager,compiled,kernelized (--variants) only "
              "the first (eager) is used");
}

TEST(Plan, AMockThatIsSkippedIsNotWarnedAboutForTheAxesItDoesNotVaryOver) {
    // A config's compile modes apply to every plugin; the mock has none. Without
    // --enable-mock it does not run, and a new user's first run should not warn about it.
    RunOptions options = options_with_defaults();
    options.include = {"mock_benchmark"};
    options.config.axes["compile_mode"] = {"default", "torchscript"};
    options.config.axis_origins["compile_mode"] = "configs/default.yaml:10:16";
    EXPECT_TRUE(make_plan(sample_discovery(), options).warnings.empty());
    options.enable_mock = true;
    const Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(plan.warnings[0],
              "mock_benchmark does not vary over compile_mode: of default,torchscript "
              "(configs/default.yaml:10:16) only the first (default) is used");
}

TEST(Plan, VariantsAPluginDoesNotDeclareAreNotPlanned) {
    Discovery discovery = sample_discovery();
    discovery.plugins[1].info.variants = bench::eager_bit | bench::compiled_bit;  // resnet50
    RunOptions options = options_with_defaults();
    options.include = {"resnet50"};
    Plan plan = make_plan(discovery, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{"performance/resnet50/resnet50[variant=eager,batch_size=1]",
                                                   "performance/resnet50/resnet50[variant=compiled,batch_size=1]"}));
    EXPECT_EQ(plan.notes,
              std::vector<std::string>{"resnet50: kernelized not planned (the plugin declares eager,compiled)"});
    EXPECT_TRUE(plan.warnings.empty());

    // A plugin not selected says nothing; one that does not say (0) gets all three.
    options.include = {"tensor_ops"};
    EXPECT_TRUE(make_plan(discovery, options).notes.empty());
    discovery.plugins[1].info.variants = 0;
    options.include = {"resnet50"};
    EXPECT_EQ(make_plan(discovery, options).scenarios.size(), 3u);

    // Asking only for variants the plugin lacks plans nothing of it, and says so.
    discovery.plugins[1].info.variants = bench::compiled_bit;
    options.command_line.axes["variant"] = {"eager", "kernelized"};
    options.command_line.axis_origins["variant"] = "--variants";
    plan = make_plan(discovery, options);
    EXPECT_TRUE(plan.scenarios.empty());
    EXPECT_EQ(plan.warnings,
              std::vector<std::string>{"resnet50: not planned: the plugin declares compiled, none of the "
                                       "variants asked for (eager,kernelized, from --variants)"});
}

TEST(Plan, ABenchmarkWithVariantsOfItsOwnIsPlannedWithThose) {
    Discovery discovery = sample_discovery();
    DiscoveredPlugin& resnet = discovery.plugins[1];
    resnet.benchmarks.push_back({"train", "benchmark_train", bench::eager_bit});
    RunOptions options = options_with_defaults();
    options.include = {"resnet50"};
    Plan plan = make_plan(discovery, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{"performance/resnet50/resnet50[variant=eager,batch_size=1]",
                                                   "performance/resnet50/resnet50[variant=compiled,batch_size=1]",
                                                   "performance/resnet50/resnet50[variant=kernelized,batch_size=1]",
                                                   "performance/resnet50/train[variant=eager,batch_size=1]"}));
    EXPECT_EQ(plan.notes, std::vector<std::string>{
                              "resnet50/train: compiled,kernelized not planned (the benchmark declares eager)"});
    EXPECT_TRUE(plan.warnings.empty());

    // What it declares beyond its plugin's does not count: the plugin's say first.
    resnet.info.variants = bench::compiled_bit | bench::kernelized_bit;
    resnet.benchmarks.back().variants = bench::eager_bit | bench::compiled_bit;
    EXPECT_EQ(resnet.variants(resnet.benchmarks.back()), std::vector<std::string>{"compiled"});
    plan = make_plan(discovery, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{"performance/resnet50/resnet50[variant=compiled,batch_size=1]",
                                                   "performance/resnet50/resnet50[variant=kernelized,batch_size=1]",
                                                   "performance/resnet50/train[variant=compiled,batch_size=1]"}));
}

TEST(Plan, ABenchmarkWithAxesOfItsOwnIsExpandedOverThose) {
    // A Python plugin's @benchhost.benchmark: tokenize declares no axes (it runs once),
    // matmul its own batch sizes and variant; the plugin's own benchmark keeps its axes.
    Discovery d;
    DiscoveredPlugin p = plugin("unit", "two_py", {"variant", "batch_size"}, {"two_py", "tokenize", "matmul"});
    p.info.variants = bench::eager_bit | bench::compiled_bit;
    p.benchmarks[1].axes = std::vector<std::string>{};
    p.benchmarks[2].axes = std::vector<std::string>{"variant", "batch_size", "seq_len"};
    p.benchmarks[2].axis_values = {{"batch_size", {"1", "8"}}, {"seq_len", {"128"}}};
    p.benchmarks[2].variants = bench::kernelized_bit;  // its own: not the plugin's
    p.benchmarks[2].own_variants = true;
    d.plugins.push_back(p);
    RunOptions options = options_with_defaults();
    Plan plan = make_plan(d, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{
                             "unit/two_py/two_py[variant=eager,batch_size=1]",
                             "unit/two_py/two_py[variant=compiled,batch_size=1]",
                             "unit/two_py/tokenize",
                             "unit/two_py/matmul[variant=kernelized,batch_size=1,seq_len=128]",
                             "unit/two_py/matmul[variant=kernelized,batch_size=8,seq_len=128]",
                         }));
    EXPECT_EQ(plan.scenarios[2].config.variant, bench::Variant::eager);  // the first configured value
    EXPECT_EQ(plan.scenarios[3].symbol, "benchmark_matmul");
    EXPECT_EQ(plan.scenarios[4].config.batch_size, 8);
    EXPECT_EQ(plan.scenarios[4].config.params.get_string("seq_len"), "128");  // a custom axis's value is a parameter
    EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.at(0);
    EXPECT_EQ(plan.notes,
              (std::vector<std::string>{"two_py: kernelized not planned (the plugin declares eager,compiled)",
                                        "two_py/matmul: eager,compiled not planned (the benchmark declares "
                                        "kernelized)"}));

    // The run's values win over the declared ones; an axis it does not vary over is said once per benchmark.
    options.command_line.axes["batch_size"] = {"2", "4"};
    options.command_line.axis_origins["batch_size"] = "--batch-sizes";
    options.command_line.axes["variant"] = {"eager", "kernelized"};
    options.command_line.axis_origins["variant"] = "--variants";
    options.command_line.axes["seq_len"] = {"64"};
    options.command_line.axis_origins["seq_len"] = "--axis seq_len";
    plan = make_plan(d, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{
                             "unit/two_py/two_py[variant=eager,batch_size=2]",
                             "unit/two_py/two_py[variant=eager,batch_size=4]",
                             "unit/two_py/tokenize",
                             "unit/two_py/matmul[variant=kernelized,batch_size=2,seq_len=64]",
                             "unit/two_py/matmul[variant=kernelized,batch_size=4,seq_len=64]",
                         }));
    EXPECT_EQ(plan.warnings, (std::vector<std::string>{
                                 "two_py/tokenize does not vary over batch_size: of 2,4 (--batch-sizes) only the "
                                 "first (2) is used",
                                 "two_py/tokenize does not vary over variant: of eager,kernelized (--variants) only "
                                 "the first (eager) is used",
                             }));
    EXPECT_EQ(plan.notes,
              (std::vector<std::string>{"two_py: kernelized not planned (the plugin declares eager,compiled)",
                                        "two_py/matmul: eager not planned (the benchmark declares kernelized)"}));
}

TEST(Plan, ADistributedBenchmarkIsExpandedOverTheWorldSizesAndNoOtherIs) {
    // all_reduce declares the world size (a distributed benchmark), matmul does not:
    // --world-sizes expands the one and leaves the other alone, unwarned, not distributed.
    Discovery d;
    DiscoveredPlugin p = plugin("unit", "ranks_py", {"dtype"}, {"all_reduce", "matmul"});
    p.benchmarks[0].axes = std::vector<std::string>{"world_size"};
    d.plugins.push_back(p);
    d.plugins.push_back(plugin("unit", "cpp_ranks", {"variant", "world_size"}, {"cpp_ranks"}));
    d.plugins.back().info.variants = bench::eager_bit;
    RunOptions options = options_with_defaults();
    Plan plan = make_plan(d, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{
                             "unit/ranks_py/all_reduce[world_size=1]",
                             "unit/ranks_py/matmul[dtype=float32]",
                             "unit/cpp_ranks/cpp_ranks[variant=eager,world_size=1]",
                         }));
    EXPECT_EQ(plan.scenarios[0].config.world_size, 1);  // the default: one rank
    EXPECT_EQ(plan.scenarios[1].config.world_size, 0);  // not distributed
    EXPECT_EQ(plan.scenarios[2].config.world_size, 1);

    options.command_line.axes["world_size"] = {"1", "2", "4"};
    options.command_line.axis_origins["world_size"] = "--world-sizes";
    plan = make_plan(d, options);
    EXPECT_EQ(ids(plan), (std::vector<std::string>{
                             "unit/ranks_py/all_reduce[world_size=1]",
                             "unit/ranks_py/all_reduce[world_size=2]",
                             "unit/ranks_py/all_reduce[world_size=4]",
                             "unit/ranks_py/matmul[dtype=float32]",
                             "unit/cpp_ranks/cpp_ranks[variant=eager,world_size=1]",
                             "unit/cpp_ranks/cpp_ranks[variant=eager,world_size=2]",
                             "unit/cpp_ranks/cpp_ranks[variant=eager,world_size=4]",
                         }));
    EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.at(0);
    EXPECT_EQ(plan.scenarios[2].config.world_size, 4);
    EXPECT_EQ(plan.scenarios[3].config.world_size, 0);
    // The world size is part of a scenario's identity: world sizes are not variants of each other.
    EXPECT_NE(variant_group_key(plan.scenarios[0].config), variant_group_key(plan.scenarios[1].config));
    EXPECT_FALSE(differ_only_in_variant(plan.scenarios[4].config, plan.scenarios[5].config));

    // World sizes it declares are its own where the run sets none.
    d.plugins[0].benchmarks[0].axis_values = {{"world_size", {"2"}}};
    options.command_line.axes.erase("world_size");
    plan = make_plan(d, options);
    EXPECT_EQ(plan.scenarios[0].config.scenario_id(), "unit/ranks_py/all_reduce[world_size=2]");
}

TEST(Plan, APluginsSectionNamingNoPluginFoundIsWarnedAbout) {
    RunOptions options = options_with_defaults();
    options.plugin_settings["resnet5"].axes["batch_size"] = {"8"};
    options.plugin_settings_where["resnet5"] = "my.yaml:7:3";
    options.plugin_settings["tensor_ops"].axes["dtype"] = {"float16"};
    options.plugin_settings["gpt3_large_xl"].warmup_iterations = 1;
    Discovery discovery = sample_discovery();
    discovery.folders = {{"/plugins"}, ""};
    const Plan plan = make_plan(discovery, options);
    const std::vector<std::string> expected = {
        "unknown plugin 'gpt3_large_xl' in plugins: no plugin of that name was found in /plugins, so its settings "
        "are not used",
        "my.yaml:7:3: unknown plugin 'resnet5' in plugins (did you mean 'resnet50'?): no plugin of that name was "
        "found in /plugins, so its settings are not used"};
    EXPECT_EQ(plan.warnings, expected);
}

TEST(Plan, ACustomAxisNoSelectedPluginVariesOverIsWarnedAbout) {
    RunOptions options = options_with_defaults();
    options.command_line.axes["seq_len"] = {"128", "512"};
    options.command_line.axis_origins["seq_len"] = "--axis seq_len";
    options.include = {"tensor_ops"};
    Plan plan = make_plan(sample_discovery(), options);
    EXPECT_EQ(plan.scenarios.size(), 2u);  // not expanded
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(plan.warnings[0],
              "--axis seq_len: no selected plugin varies over 'seq_len' (a plugin declares its axes in "
              "BENCH_PLUGIN's .axes; `benchhost list` shows them), so its values are not used");

    // A plugin that declares it is swept over it.
    Discovery discovery = sample_discovery();
    discovery.plugins[0].axes.push_back("seq_len");
    plan = make_plan(discovery, options);
    EXPECT_TRUE(plan.warnings.empty());
    EXPECT_EQ(plan.scenarios.size(), 4u);
    EXPECT_EQ(plan.scenarios[1].config.scenario_name, "matmul[dtype=float32,seq_len=512]");
    EXPECT_EQ(plan.scenarios[1].config.params.get_int("seq_len"), 512);
}

TEST(Plan, TheCommandLinesAxisOverridesAPluginSectionsCustomAxis) {
    RunOptions options = options_with_defaults();
    options.plugin_settings["tensor_ops"].axes["size"] = {"128", "256"};
    options.command_line.axes["size"] = {"64"};
    options.include = {"matmul"};
    const Plan plan = make_plan(sample_discovery(), options);
    EXPECT_EQ(ids(plan), std::vector<std::string>{"unit/tensor_ops/matmul[dtype=float32,size=64]"});
}

TEST(Plan, AnEmptyPlanSaysWhatWasFoundAndWhatTheSelectionLeft) {
    Discovery discovery = sample_discovery();
    discovery.folders = {{"/plugins"}, ""};
    discovery.rejected.push_back(
        {"/plugins/libstray.so", "not in a category folder (unit, integration or performance)", "", ""});
    discovery.rejected.push_back({"/plugins/unit/libbroken.so", "empty file", "unit", "broken"});
    RunOptions options = options_with_defaults();
    options.categories = {"integration"};
    Plan plan = make_plan(discovery, options);
    ASSERT_TRUE(plan.scenarios.empty());
    const std::vector<std::string> expected = {
        "found in /plugins: unit: 2 plugins (3 benchmarks); integration: none; performance: 2 plugins (3 benchmarks)",
        "/plugins/libstray.so: not in a category folder (unit, integration or performance)",
        "plugins are lib<name>.so files in /plugins/unit, /plugins/integration or /plugins/performance",
        "--category integration: no benchmarks were found in that category"};
    EXPECT_EQ(empty_plan_reasons(plan, discovery, options), expected);

    options = options_with_defaults();
    options.include = {"unit/"};
    options.exclude = {"matmul", "softmax", "broken"};
    plan = make_plan(discovery, options);
    ASSERT_TRUE(plan.scenarios.empty());
    EXPECT_EQ(empty_plan_reasons(plan, discovery, options).back(),
              "--exclude matmul, softmax, broken: excludes all 3 benchmarks selected before it");
}

TEST(Plan, ABrokenPluginsReasonNamesItsFileOnce) {
    // A .so's reason is said after its path; a Python file's begins with it (its parser's
    // "file:line: ..."), and is not prefixed again.
    Discovery discovery = sample_discovery();
    discovery.rejected.push_back({"/plugins/unit/libbroken.so", "empty file", "unit", "broken"});
    discovery.rejected.push_back({"/plugins/unit/bad_py.py",
                                  "/plugins/unit/bad_py.py:1: BENCHHOST_PLUGIN has an unknown key 'axis'", "unit",
                                  "bad_py"});
    RunOptions options = options_with_defaults();
    options.include = {"broken", "bad_py"};
    const Plan plan = make_plan(discovery, options);
    std::map<std::string, std::string> reasons;
    for (const PlannedScenario& scenario : plan.scenarios) reasons[scenario.config.plugin] = scenario.reject_reason;
    EXPECT_EQ(reasons["broken"], "/plugins/unit/libbroken.so: empty file");
    EXPECT_EQ(reasons["bad_py"], "/plugins/unit/bad_py.py:1: BENCHHOST_PLUGIN has an unknown key 'axis'");
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
    EXPECT_EQ(ids(make_plan(sample_discovery(), options)),
              std::vector<std::string>{"unit/tensor_ops/matmul[dtype=float32]"});

    options = options_with_defaults();
    options.categories = {"unit"};
    EXPECT_EQ(make_plan(sample_discovery(), options).scenarios.size(), 2u);

    options = options_with_defaults();
    options.exclude = {"performance/"};
    EXPECT_EQ(make_plan(sample_discovery(), options).scenarios.size(), 2u);
}

TEST(Plan, IncludeMatchingNothingWarnsWithExamplesOfTheIds) {
    RunOptions options = options_with_defaults();
    options.include = {"bert", "resnet"};
    Plan plan = make_plan(sample_discovery(), options);
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(plan.warnings[0],
              "--include 'bert' matches none of the 5 benchmarks (ids look like unit/tensor_ops/matmul, "
              "unit/tensor_ops/softmax, performance/resnet50/resnet50; `benchhost list` shows them all)");
    EXPECT_EQ(plan.benchmarks_included, 1u);

    options.categories = {"unit"};  // two ids: all shown
    plan = make_plan(sample_discovery(), options);
    EXPECT_EQ(plan.warnings.at(0),
              "--include 'bert' matches none of the 2 benchmarks (unit/tensor_ops/matmul, "
              "unit/tensor_ops/softmax)");
    EXPECT_EQ(make_plan(Discovery{}, options).warnings.at(0),
              "--include 'bert' matches no benchmark (no benchmarks were found)");
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
    // A scenario's id, brackets and all, matches itself (as a glob it would not).
    const std::string scenario = "performance/mock/mock[variant=eager,batch_size=1]";
    EXPECT_TRUE(matches_pattern(scenario, scenario));
    EXPECT_TRUE(matches_pattern(scenario, "mock[variant=eager"));
    EXPECT_FALSE(matches_pattern("performance/mock/mock[variant=compiled,batch_size=1]", scenario));
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
    const auto variant_at = [&](std::size_t k) {
        return std::string(bench::to_string(plan.scenarios[order[k]].config.variant));
    };
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

}  // namespace
