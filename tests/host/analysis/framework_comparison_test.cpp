// One model across frameworks (analysis/framework_comparison.hpp): the scenarios grouped
// by the model their plugins name and the configuration, the fastest found, each other
// entry's distance from it with its interval, and what is left out.
#include "analysis/framework_comparison.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"
#include "../../support/framework_runs.hpp"
#include "analysis/scenario_statistics.hpp"

namespace {

using bench::Variant;
using benchhost::FrameworkComparison;
using benchhost::FrameworkEntry;
using benchhost::ModelGroup;
using benchhost::RunRecord;
using benchtest::jax_flax;
using benchtest::model_scenario;
using benchtest::torch_python;

RunRecord analyzed_run(std::vector<benchhost::ScenarioOutcome> outcomes) {
    RunRecord record = benchtest::record_of(std::move(outcomes));
    benchhost::analyze_run(record);
    return record;
}

std::string plugin_of(const FrameworkEntry& entry) { return entry.outcome->config.plugin; }

TEST(FrameworkComparison, GroupsOneModelAcrossFrameworksAndFindsTheFastest) {
    const RunRecord record = analyzed_run(benchtest::resnet50_in_three_frameworks());
    const FrameworkComparison comparison = benchhost::compare_frameworks(record);
    ASSERT_EQ(comparison.groups.size(), 1u);
    EXPECT_TRUE(comparison.one_framework.empty());
    const ModelGroup& group = comparison.groups.front();
    EXPECT_EQ(group.model, "resnet50");
    EXPECT_EQ(group.series, "latency");
    EXPECT_EQ(group.unit, "ms");
    EXPECT_EQ(group.batch_size, 1);
    EXPECT_EQ(group.dtype, "float32");
    EXPECT_EQ(group.device, "cpu");
    EXPECT_EQ(group.frameworks, (std::vector<std::string>{"libtorch", torch_python, jax_flax}));
    ASSERT_EQ(group.entries.size(), 7u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(plugin_of(group.entries[i]), "resnet50");
    EXPECT_EQ(plugin_of(group.entries[3]), "resnet50_py");
    EXPECT_EQ(plugin_of(group.entries[6]), "resnet50_jax");

    // LibTorch's compiled variant and PyTorch's from Python have the same samples: the
    // first is the fastest, the other tied with it; JAX's compiled is 1.2x behind.
    EXPECT_EQ(group.fastest, 1u);
    const FrameworkEntry& fastest = group.entries[1];
    EXPECT_FALSE(fastest.behind_fastest.has_value());
    EXPECT_FALSE(fastest.tied_with_fastest);
    const FrameworkEntry& python = group.entries[4];
    ASSERT_TRUE(python.behind_fastest.has_value());
    EXPECT_DOUBLE_EQ(python.behind_fastest->value, 1.0);
    EXPECT_TRUE(python.tied_with_fastest);
    const FrameworkEntry& jax = group.entries[6];
    ASSERT_TRUE(jax.behind_fastest.has_value());
    EXPECT_NEAR(jax.behind_fastest->value, 1.2, 0.03);
    ASSERT_TRUE(jax.behind_fastest->ci.valid());
    EXPECT_GT(jax.behind_fastest->ci.low, 1.1);
    EXPECT_FALSE(jax.tied_with_fastest);
    EXPECT_NEAR(group.entries[5].behind_fastest->value, 15, 0.5);  // JAX eager, op by op
    // Each framework at its fastest: the compiled variants.
    EXPECT_EQ(group.fastest_of_framework, (std::vector<std::size_t>{1, 4, 6}));

    // Memory and compile time as each framework records them.
    EXPECT_DOUBLE_EQ(fastest.peak_rss_mib, 420);
    EXPECT_DOUBLE_EQ(fastest.compile_ms, 36700);
    EXPECT_TRUE(std::isnan(fastest.device_peak_mib));
    EXPECT_DOUBLE_EQ(python.compile_ms, 20900);
    EXPECT_NEAR(jax.compile_ms, 3500, 1e-9);  // lowering 0.8 s + XLA's compile 2.7 s
    EXPECT_DOUBLE_EQ(jax.device_peak_mib, 64);
    EXPECT_TRUE(std::isnan(group.entries[0].compile_ms));  // eager compiles nothing
}

TEST(FrameworkComparison, ACompileTheCacheHadIsSaidSo) {
    std::vector<benchhost::ScenarioOutcome> outcomes = benchtest::resnet50_in_three_frameworks();
    // LibTorch's package from an earlier worker: loaded, not compiled (no compile_time).
    outcomes[1].result.scalars.pop_back();
    outcomes[1].result.info["compile_cache"] = "hit: /cache/aot-inductor/resnet50-default-1234/model.pt2";
    const RunRecord record = analyzed_run(outcomes);
    const FrameworkComparison comparison = benchhost::compare_frameworks(record);
    ASSERT_EQ(comparison.groups.size(), 1u);
    const ModelGroup& group = comparison.groups.front();
    EXPECT_TRUE(std::isnan(group.entries[1].compile_ms));
    EXPECT_TRUE(group.entries[1].compile_cached);
    EXPECT_FALSE(group.entries[4].compile_cached);  // compiled in its worker
    EXPECT_FALSE(group.entries[0].compile_cached);  // eager: nothing to compile
}

TEST(FrameworkComparison, AModelOfOneFrameworkIsNotCompared) {
    std::vector<benchhost::ScenarioOutcome> outcomes = benchtest::resnet50_in_three_frameworks();
    // ViT-B/16 in LibTorch alone; ResNet-50 at batch 8 in LibTorch alone.
    outcomes.push_back(model_scenario("vit_b_16", "vit_b_16", "libtorch", Variant::eager, 180, 7));
    outcomes.push_back(model_scenario("vit_b_16", "vit_b_16", "libtorch", Variant::compiled, 120, 8));
    outcomes.push_back(model_scenario("resnet50", "resnet50", "libtorch", Variant::eager, 200, 9, 8));
    const RunRecord record = analyzed_run(outcomes);
    const FrameworkComparison comparison = benchhost::compare_frameworks(record);
    ASSERT_EQ(comparison.groups.size(), 1u);
    EXPECT_EQ(comparison.groups.front().entries.size(), 7u);
    ASSERT_EQ(comparison.one_framework.size(), 2u);
    const ModelGroup& vit = comparison.one_framework[0];
    EXPECT_EQ(vit.model, "vit_b_16");
    EXPECT_EQ(vit.frameworks, (std::vector<std::string>{"libtorch"}));
    EXPECT_EQ(vit.entries.size(), 2u);
    EXPECT_EQ(vit.fastest, 1u);  // still found, but nothing is compared with it
    EXPECT_FALSE(vit.entries[0].behind_fastest.has_value());
    const ModelGroup& batch8 = comparison.one_framework[1];
    EXPECT_EQ(batch8.model, "resnet50");
    EXPECT_EQ(batch8.batch_size, 8);
}

TEST(FrameworkComparison, OnlyWhatMatchesIsCompared) {
    std::vector<benchhost::ScenarioOutcome> outcomes = {
        model_scenario("resnet50", "resnet50", "libtorch", Variant::eager, 30, 1),
        model_scenario("resnet50_jax", "resnet50", jax_flax, Variant::eager, 300, 2),
    };
    // Left out: a scenario that failed, one that names no model, one whose headline is not
    // a time, and the training steps of the same model (another series: its own group).
    benchhost::ScenarioOutcome failed = model_scenario("resnet50_jax", "resnet50", jax_flax, Variant::compiled, 20, 3);
    failed.result.status = bench::Status::failed;
    outcomes.push_back(failed);
    benchhost::ScenarioOutcome unnamed = model_scenario("other", "", "libtorch", Variant::eager, 10, 4);
    unnamed.result.info.erase("model");
    outcomes.push_back(unnamed);
    outcomes.push_back(benchtest::Outcome("performance", "counter", "counter")
                           .series("items", "count", {1, 2, 3})
                           .edit([](benchhost::ScenarioOutcome& o) {
                               o.result.info["model"] = "resnet50";
                               o.result.info["framework"] = "numpy";
                           }));
    outcomes.push_back(benchtest::Outcome("performance", "resnet50", "train")
                           .variant(Variant::eager)
                           .series("step", "ms", benchtest::jittered_samples(120, 10, 5))
                           .edit([](benchhost::ScenarioOutcome& o) {
                               o.result.info["model"] = "resnet50";
                               o.result.info["framework"] = "libtorch";
                           }));
    // A framework the plugin did not name is a framework of its own, said so.
    outcomes.push_back(model_scenario("resnet50_other", "resnet50", "", Variant::eager, 40, 6));
    const RunRecord record = analyzed_run(outcomes);
    const FrameworkComparison comparison = benchhost::compare_frameworks(record);
    ASSERT_EQ(comparison.groups.size(), 1u);
    const ModelGroup& group = comparison.groups.front();
    EXPECT_EQ(group.frameworks, (std::vector<std::string>{"libtorch", jax_flax, benchhost::unreported_framework}));
    EXPECT_EQ(group.entries.size(), 3u);
    ASSERT_EQ(comparison.one_framework.size(), 1u);
    EXPECT_EQ(comparison.one_framework[0].series, "step");
}

TEST(FrameworkComparison, ARunOfOneFrameworkHasNoGroup) {
    const RunRecord record = analyzed_run({
        model_scenario("resnet50", "resnet50", "libtorch", Variant::eager, 30, 1),
        model_scenario("resnet50", "resnet50", "libtorch", Variant::compiled, 20, 2),
    });
    const FrameworkComparison comparison = benchhost::compare_frameworks(record);
    EXPECT_TRUE(comparison.groups.empty());
    ASSERT_EQ(comparison.one_framework.size(), 1u);
    EXPECT_EQ(comparison.one_framework[0].entries.size(), 2u);
}

}  // namespace
