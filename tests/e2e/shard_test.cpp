// End to end: a plan run in shards and merged equals the plan run at once.
#include <gtest/gtest.h>

#include <set>

#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;

class ShardTest : public MockHostTest {
protected:
    /// A run of the mock's two benchmarks, eager and compiled, at batch sizes 1 and 2 (8
    /// scenarios), then `extra`.
    ProcessResult run(const fs::path& output, const std::vector<std::string>& extra,
                      const std::vector<std::string>& env = {}) {
        std::vector<std::string> options = {"--enable-mock",
                                            "--variants",
                                            "eager,compiled",
                                            "--batch-sizes",
                                            "1,2",
                                            "--measurement-iterations",
                                            "2",
                                            "--warmup-iterations",
                                            "0",
                                            "--monitor-interval",
                                            "0",
                                            "--param",
                                            "base_units=20000",
                                            "--num-tokens-to-generate",
                                            "2"};
        options.insert(options.end(), extra.begin(), extra.end());
        return run_into(output, options, env);
    }
    static std::set<std::string> scenario_ids(const fs::path& run_dir) {
        std::set<std::string> ids;
        const auto summary = read_json(run_dir / "benchmark_summary.json");
        for (const auto& entry : summary["results"].GetArray()) ids.insert(entry["scenario_id"].GetString());
        return ids;
    }
};

TEST_F(ShardTest, ShardsMergeIntoThePlanOfAnUnshardedRun) {
    ASSERT_EQ(run(work / "whole", {}).exit_code, 0);
    const std::set<std::string> whole = scenario_ids(work / "whole");
    ASSERT_EQ(whole.size(), 8u);  // 2 benchmarks x 2 variants x 2 batch sizes

    std::set<std::string> seen;
    for (int k = 1; k <= 3; ++k) {
        const fs::path dir = work / ("shard" + std::to_string(k));
        const ProcessResult result = run(dir, {"--shard", std::to_string(k) + "/3"});
        ASSERT_EQ(result.exit_code, 0) << result.err;
        const auto summary = read_json(dir / "benchmark_summary.json");
        const auto& shard = summary["run_metadata"]["shard"];
        EXPECT_EQ(shard["index"].GetInt(), k);
        EXPECT_EQ(shard["count"].GetInt(), 3);
        EXPECT_EQ(shard["plan_scenarios"].GetInt(), 8);
        for (const auto& id : scenario_ids(dir)) EXPECT_TRUE(seen.insert(id).second) << id << " in two shards";
    }
    EXPECT_EQ(seen, whole);

    const ProcessResult merged =
        host({"merge", (work / "merged").string(), (work / "shard3").string(), (work / "shard1").string(),
              (work / "shard2" / "benchmark_summary.json").string()});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_NE(merged.out.find("merged 3 shards"), std::string::npos) << merged.out;
    EXPECT_NE(merged.out.find("succeeded, 0 failed (100.0% of those that ran)"), std::string::npos) << merged.out;
    EXPECT_EQ(scenario_ids(work / "merged"), whole);
    const auto summary = read_json(work / "merged" / "benchmark_summary.json");
    EXPECT_EQ(summary["run_metadata"]["total_benchmarks"].GetInt(), 8);
    EXPECT_STREQ(summary["run_metadata"]["state"].GetString(), "complete");
    ASSERT_EQ(summary["shards"].Size(), 3u);
    EXPECT_EQ(summary["shards"][0]["index"].GetInt(), 1);
    EXPECT_TRUE(summary["shards"][0]["hardware_info"].HasMember("cpu"));
    // The merged folder is a run like any other: it can be compared.
    EXPECT_EQ(host({"compare", (work / "whole").string(), (work / "merged").string()}).exit_code, 0);

    // A shard left out is named.
    const ProcessResult incomplete =
        host({"merge", (work / "partial").string(), (work / "shard1").string(), (work / "shard3").string()});
    EXPECT_EQ(incomplete.exit_code, 2);
    EXPECT_NE(incomplete.err.find("missing shards: 2/3"), std::string::npos) << incomplete.err;
}

TEST_F(ShardTest, SlurmArrayVariablesChooseTheShard) {
    const ProcessResult result = run(work / "task", {"--shard", "slurm"},
                                     {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=2"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto summary = read_json(work / "task" / "benchmark_summary.json");
    EXPECT_EQ(summary["run_metadata"]["shard"]["index"].GetInt(), 2);
    EXPECT_EQ(summary["run_metadata"]["shard"]["count"].GetInt(), 2);

    const ProcessResult outside = run(work / "none", {"--shard", "slurm"}, {"SLURM_ARRAY_TASK_ID="});
    EXPECT_EQ(outside.exit_code, 2);
    EXPECT_NE(outside.err.find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << outside.err;
}

}  // namespace
