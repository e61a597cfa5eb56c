// Sharding a plan and merging the shards' runs back.
#include "plan/shard.hpp"
#include "history/history_store.hpp"  // run_id_of

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

namespace {

using namespace benchhost;

PlannedScenario planned(const std::string& benchmark, const std::string& variant, int batch) {
    PlannedScenario s;
    s.config.category = "performance";
    s.config.plugin = "model";
    s.config.benchmark = benchmark;
    s.config.variant = *bench::parse_variant(variant);
    s.config.batch_size = batch;
    s.config.scenario_name = benchmark + "[variant=" + variant + ",batch_size=" + std::to_string(batch) + "]";
    return s;
}

Plan sample_plan() {
    Plan plan;
    for (const char* benchmark : {"a", "b", "c", "d", "e"})
        for (int batch : {1, 8})
            for (const char* variant : {"eager", "compiled"})
                plan.scenarios.push_back(planned(benchmark, variant, batch));
    return plan;  // 20 scenarios in 10 groups of two variants
}

std::set<std::string> shard_ids(const Plan& plan) {
    std::set<std::string> out;
    for (const auto& s : plan.scenarios) out.insert(s.config.scenario_id());
    return out;
}

TEST(Shard, ParsesKOverNAndSlurm) {
    const ShardSpec spec = parse_shard("2/3");
    EXPECT_EQ(spec.index, 2);
    EXPECT_EQ(spec.count, 3);
    EXPECT_THROW(parse_shard("0/3"), ConfigError);
    EXPECT_THROW(parse_shard("4/3"), ConfigError);
    EXPECT_THROW(parse_shard("two"), ConfigError);

    std::map<std::string, std::string> env = {
        {"SLURM_ARRAY_TASK_ID", "12"}, {"SLURM_ARRAY_TASK_MIN", "10"}, {"SLURM_ARRAY_TASK_COUNT", "4"}};
    const auto lookup = [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    const ShardSpec slurm = parse_shard("slurm", lookup);
    EXPECT_EQ(slurm.index, 3);
    EXPECT_EQ(slurm.count, 4);
    env.erase("SLURM_ARRAY_TASK_ID");
    try {
        parse_shard("slurm", lookup);
        FAIL() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << e.what();
    }
}

TEST(Shard, EveryScenarioInExactlyOneShardAndVariantsTogether) {
    const Plan plan = sample_plan();
    std::set<std::string> all;
    std::size_t total = 0;
    for (int k = 1; k <= 3; ++k) {
        const Plan part = shard_plan(plan, {k, 3});
        EXPECT_GE(part.scenarios.size(), 6u);  // 10 groups of 2 over 3 shards: 4, 3, 3 groups
        EXPECT_LE(part.scenarios.size(), 8u);
        total += part.scenarios.size();
        for (const auto& id : shard_ids(part)) EXPECT_TRUE(all.insert(id).second) << id << " in two shards";
        // Both variants of a benchmark and batch size are in the same shard.
        for (const auto& s : part.scenarios) {
            const int partners =
                static_cast<int>(std::count_if(part.scenarios.begin(), part.scenarios.end(), [&](const auto& o) {
                    return differ_only_in_variant(o.config, s.config);
                }));
            EXPECT_EQ(partners, 2) << s.config.scenario_id();
        }
    }
    EXPECT_EQ(total, plan.scenarios.size());
    EXPECT_EQ(all, shard_ids(plan));
}

TEST(Shard, DeterministicAndIndependentOfPlanOrder) {
    const Plan plan = sample_plan();
    Plan reversed = plan;
    std::reverse(reversed.scenarios.begin(), reversed.scenarios.end());
    EXPECT_EQ(plan_fingerprint(plan), plan_fingerprint(reversed));
    for (int k = 1; k <= 3; ++k)
        EXPECT_EQ(shard_ids(shard_plan(plan, {k, 3})), shard_ids(shard_plan(reversed, {k, 3}))) << k;
    Plan other = plan;
    other.scenarios.pop_back();
    EXPECT_NE(plan_fingerprint(plan), plan_fingerprint(other));
}

TEST(Shard, BalancesByKnownCost) {
    const Plan plan = sample_plan();
    // Benchmark a is slow: 100 s a scenario; the rest take 1 s.
    std::map<std::string, double> costs;
    for (const auto& s : plan.scenarios) costs[s.config.scenario_id()] = s.config.benchmark == "a" ? 100 : 1;
    const Plan first = shard_plan(plan, {1, 2}, costs), second = shard_plan(plan, {2, 2}, costs);
    const auto has_a = [](const Plan& p) {
        return std::any_of(p.scenarios.begin(), p.scenarios.end(),
                           [](const auto& s) { return s.config.benchmark == "a"; });
    };
    // The two groups of a (batch 1 and 8: 200 s each) go to different shards.
    EXPECT_TRUE(has_a(first));
    EXPECT_TRUE(has_a(second));
    EXPECT_EQ(first.scenarios.size() + second.scenarios.size(), plan.scenarios.size());
}

RunRecord shard_run(int index, int count, const Plan& plan, const std::string& fingerprint) {
    RunRecord record;
    record.timestamp = "20261122_120000";
    record.started_at = "2026-11-22T12:00:0" + std::to_string(index) + "Z";
    record.finished_at = "2026-11-22T12:10:0" + std::to_string(index) + "Z";
    record.host_name = "node" + std::to_string(index);
    record.hardware["cpu"]["model"] = "cpu of node " + std::to_string(index);
    record.finished = true;
    record.shard = ShardInfo{index, count, plan.scenarios.size(), fingerprint};
    for (const auto& s : shard_plan(plan, {index, count}).scenarios) {
        ScenarioOutcome outcome;
        outcome.config = s.config;
        outcome.result.series.push_back({"latency", "ms", {1, 2, 3}, 1});
        record.outcomes.push_back(outcome);
    }
    return record;
}

TEST(Merge, JoinsTheShardsOfOnePlan) {
    const Plan plan = sample_plan();
    const std::string fp = plan_fingerprint(plan);
    const RunRecord merged = merge_shards(
        {{"s2", shard_run(2, 3, plan, fp)}, {"s1", shard_run(1, 3, plan, fp)}, {"s3", shard_run(3, 3, plan, fp)}},
        run_id_of);
    EXPECT_EQ(merged.outcomes.size(), plan.scenarios.size());
    std::set<std::string> merged_ids;
    for (const auto& o : merged.outcomes) merged_ids.insert(o.config.scenario_id());
    EXPECT_EQ(merged_ids, shard_ids(plan));
    ASSERT_EQ(merged.shards.size(), 3u);
    EXPECT_EQ(merged.shards[0].index, 1);
    EXPECT_EQ(merged.shards[0].host_name, "node1");
    EXPECT_EQ(merged.shards[2].hardware.at("cpu").at("model"), "cpu of node 3");
    EXPECT_EQ(merged.started_at, "2026-11-22T12:00:01Z");
    EXPECT_EQ(merged.finished_at, "2026-11-22T12:10:03Z");
    EXPECT_TRUE(merged.finished);
    EXPECT_FALSE(merged.shard.has_value());
}

TEST(Merge, TheMergedRunsIdFollowsFromItsShardsIds) {
    const Plan plan = sample_plan();
    const std::string fp = plan_fingerprint(plan);
    std::vector<RunRecord> shards = {shard_run(1, 2, plan, fp), shard_run(2, 2, plan, fp)};
    shards[0].run_id = "11111111111111111111111111111111";
    shards[1].run_id = "22222222222222222222222222222222";
    const std::string id = merge_shards({{"s1", shards[0]}, {"s2", shards[1]}}, run_id_of).run_id;
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_NE(id, shards[0].run_id);
    // The same shards, in any order: the same run.
    EXPECT_EQ(merge_shards({{"b", shards[1]}, {"a", shards[0]}}, run_id_of).run_id, id);
    // Another run of one shard: another merged run.
    RunRecord again = shards[1];
    again.run_id = "33333333333333333333333333333333";
    EXPECT_NE(merge_shards({{"s1", shards[0]}, {"s2", again}}, run_id_of).run_id, id);
    // Shards written before runs had ids: the ids derived for them, the same every time.
    const std::string old =
        merge_shards({{"s1", shard_run(1, 2, plan, fp)}, {"s2", shard_run(2, 2, plan, fp)}}, run_id_of).run_id;
    EXPECT_EQ(old.size(), 32u);
    EXPECT_EQ(merge_shards({{"s1", shard_run(1, 2, plan, fp)}, {"s2", shard_run(2, 2, plan, fp)}}, run_id_of).run_id,
              old);
}

std::string merge_error(const std::vector<std::pair<std::filesystem::path, RunRecord>>& shards) {
    try {
        merge_shards(shards, run_id_of);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

TEST(Merge, NamesMissingDuplicatedAndForeignShards) {
    const Plan plan = sample_plan();
    const std::string fp = plan_fingerprint(plan);
    EXPECT_EQ(merge_error({{"s1", shard_run(1, 3, plan, fp)}, {"s3", shard_run(3, 3, plan, fp)}}),
              "missing shards: 2/3");
    EXPECT_EQ(
        merge_error(
            {{"x", shard_run(1, 2, plan, fp)}, {"y", shard_run(1, 2, plan, fp)}, {"z", shard_run(2, 2, plan, fp)}}),
        "duplicated shards: shard 1 in both x and y");
    Plan other = plan;
    other.scenarios.pop_back();
    const std::string different =
        merge_error({{"s1", shard_run(1, 2, plan, fp)}, {"t2", shard_run(2, 2, other, plan_fingerprint(other))}});
    EXPECT_NE(different.find("shards of different plans"), std::string::npos) << different;
    EXPECT_NE(different.find("t2 is shard 2/2"), std::string::npos) << different;
    RunRecord plain;
    EXPECT_NE(merge_error({{"run", plain}}).find("run: not a shard"), std::string::npos);
}

}  // namespace
