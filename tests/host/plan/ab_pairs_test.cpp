// The pairs of an A/B run (plan/ab_pairs.hpp): the scenarios of the base and the new
// plan matched by id, and the error that names both folders and both plugin files when
// the two sides do not hold the same plugins, benchmarks or scenarios.
#include "plan/ab_pairs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace benchhost;
namespace fs = std::filesystem;

const fs::path base_dir = "/builds/base", new_dir = "/builds/new";

/// A scenario of plugin `plugin` (category performance) whose file is under `dir`,
/// named "<benchmark>[size=<size>]".
PlannedScenario scenario(const fs::path& dir, const std::string& plugin, const std::string& benchmark, int size) {
    PlannedScenario s;
    s.config.category = "performance";
    s.config.plugin = plugin;
    s.config.benchmark = benchmark;
    s.config.scenario_name = benchmark + "[size=" + std::to_string(size) + "]";
    s.plugin_path = dir / "performance" / ("lib" + plugin + ".so");
    return s;
}

Plan plan_of(std::vector<PlannedScenario> scenarios) {
    Plan plan;
    plan.scenarios = std::move(scenarios);
    return plan;
}

/// The message of the ConfigError pair_plans throws; fails the test when it throws none.
std::string error_of(const Plan& base, const Plan& next) {
    try {
        pair_plans(base, next, base_dir, new_dir);
    } catch (const ConfigError& e) {
        return e.what();
    }
    ADD_FAILURE() << "pair_plans paired two plans that differ";
    return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(AbPairs, ScenariosArePairedByIdInTheBasePlansOrder) {
    const Plan base = plan_of({scenario(base_dir, "model", "infer", 1), scenario(base_dir, "model", "infer", 8),
                               scenario(base_dir, "model", "train", 1)});
    // The new side plans the same scenarios in another order.
    const Plan next = plan_of({scenario(new_dir, "model", "train", 1), scenario(new_dir, "model", "infer", 8),
                               scenario(new_dir, "model", "infer", 1)});
    const std::vector<AbPair> pairs = pair_plans(base, next, base_dir, new_dir);
    ASSERT_EQ(pairs.size(), 3u);
    EXPECT_EQ(pairs[0].scenario_id, "performance/model/infer[size=1]");
    EXPECT_EQ(pairs[0].base_index, 0u);
    EXPECT_EQ(pairs[0].new_index, 2u);
    EXPECT_EQ(pairs[1].scenario_id, "performance/model/infer[size=8]");
    EXPECT_EQ(pairs[1].base_index, 1u);
    EXPECT_EQ(pairs[1].new_index, 1u);
    EXPECT_EQ(pairs[2].scenario_id, "performance/model/train[size=1]");
    EXPECT_EQ(pairs[2].base_index, 2u);
    EXPECT_EQ(pairs[2].new_index, 0u);
}

TEST(AbPairs, TwoEmptyPlansHaveNoPairs) { EXPECT_TRUE(pair_plans(Plan{}, Plan{}, base_dir, new_dir).empty()); }

TEST(AbPairs, PluginOnlyInTheBaseIsNamedWithBothFoldersAndItsFile) {
    const Plan base = plan_of({scenario(base_dir, "model", "infer", 1), scenario(base_dir, "gone", "infer", 1)});
    const Plan next = plan_of({scenario(new_dir, "model", "infer", 1)});
    const std::string message = error_of(base, next);
    EXPECT_TRUE(contains(message,
                         "the two sides are not the same plugins: plugin performance/gone is in --base "
                         "/builds/base (/builds/base/performance/libgone.so) but not in --new /builds/new"))
        << message;
    EXPECT_FALSE(contains(message, "performance/model")) << "a plugin on both sides is not a problem: " << message;
}

TEST(AbPairs, PluginOnlyInTheNewIsNamedWithBothFoldersAndItsFile) {
    const Plan base = plan_of({scenario(base_dir, "model", "infer", 1)});
    const Plan next = plan_of({scenario(new_dir, "model", "infer", 1), scenario(new_dir, "added", "infer", 1)});
    const std::string message = error_of(base, next);
    EXPECT_TRUE(contains(message,
                         "plugin performance/added is in --new /builds/new "
                         "(/builds/new/performance/libadded.so) but not in --base /builds/base"))
        << message;
}

TEST(AbPairs, BenchmarksOnOneSideOnlyAreListedPerSideWithTheSidesFiles) {
    const Plan base = plan_of({scenario(base_dir, "model", "infer", 1), scenario(base_dir, "model", "old_bench", 1)});
    const Plan next = plan_of({scenario(new_dir, "model", "infer", 1), scenario(new_dir, "model", "new_bench", 1),
                               scenario(new_dir, "model", "newer_bench", 1)});
    const std::string message = error_of(base, next);
    // The last ";" of the list is dropped.
    EXPECT_TRUE(contains(message,
                         "plugin performance/model has other benchmarks on each side: only in --base "
                         "(/builds/base/performance/libmodel.so): old_bench; only in --new "
                         "(/builds/new/performance/libmodel.so): new_bench,newer_bench"))
        << message;
    EXPECT_FALSE(contains(message, "newer_bench;")) << message;
}

TEST(AbPairs, BenchmarkMissingOnOneSideNamesOnlyThatSide) {
    const Plan base = plan_of({scenario(base_dir, "model", "infer", 1), scenario(base_dir, "model", "train", 1)});
    const Plan next = plan_of({scenario(new_dir, "model", "infer", 1)});
    const std::string message = error_of(base, next);
    EXPECT_TRUE(contains(message, "only in --base (/builds/base/performance/libmodel.so): train")) << message;
    EXPECT_FALSE(contains(message, "only in --new")) << message;
}

TEST(AbPairs, EveryPluginProblemIsReportedInOneError) {
    const Plan base = plan_of({scenario(base_dir, "gone", "infer", 1), scenario(base_dir, "model", "infer", 1)});
    const Plan next = plan_of({scenario(new_dir, "model", "train", 1), scenario(new_dir, "added", "infer", 1)});
    const std::string message = error_of(base, next);
    EXPECT_TRUE(contains(message, "plugin performance/gone is in --base")) << message;
    EXPECT_TRUE(contains(message, "plugin performance/model has other benchmarks on each side")) << message;
    EXPECT_TRUE(contains(message, "plugin performance/added is in --new")) << message;
    // The scenarios are not compared while the plugins differ.
    EXPECT_FALSE(contains(message, "scenarios on one side only")) << message;
}

TEST(AbPairs, ScenarioOnlyOnOneSideIsNamedWithItsSide) {
    // The same benchmarks over other axis values: size 1 and 8 in the base, 1 and 16 in the new.
    const Plan base = plan_of({scenario(base_dir, "model", "infer", 1), scenario(base_dir, "model", "infer", 8)});
    const Plan next = plan_of({scenario(new_dir, "model", "infer", 1), scenario(new_dir, "model", "infer", 16)});
    const std::string message = error_of(base, next);
    EXPECT_TRUE(contains(message,
                         "the plans of --base /builds/base and --new /builds/new differ (the plugins "
                         "declare other axes or variants): scenarios on one side only: "))
        << message;
    EXPECT_TRUE(contains(message, "performance/model/infer[size=8]")) << message;
    EXPECT_TRUE(contains(message, "performance/model/infer[size=8] (base)")) << message;  // each marked with its side
    EXPECT_TRUE(contains(message, "performance/model/infer[size=16] (new)")) << message;
    EXPECT_FALSE(contains(message, "infer[size=1]")) << "a scenario on both sides is paired: " << message;
}

}  // namespace
