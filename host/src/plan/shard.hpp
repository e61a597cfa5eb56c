// Sharding: one plan split over several machines (a SLURM job array, a CI matrix,
// Kubernetes indexed jobs). Every shard computes the same partition from the same
// plugins and config, so shards need not talk to each other; `benchhost merge` puts
// their run folders back together (merge_shards).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/run_record.hpp"
#include "plan/plan.hpp"

namespace benchhost {

struct ShardSpec {
    int index = 1;  // 1-based
    int count = 1;
};

/// "K/N" (1 <= K <= N), or "slurm": K and N from SLURM_ARRAY_TASK_ID,
/// SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT. Throws ConfigError saying what is
/// wrong. `environment` looks a variable up (std::getenv by default).
ShardSpec parse_shard(const std::string& text, const std::function<const char*(const char*)>& environment = {});

/// A fingerprint of the whole plan (its scenario ids, in any order): shards of the same
/// plan have the same one. 16 hex digits.
std::string plan_fingerprint(const Plan& plan);

/// The scenarios of shard `spec`, in plan order. The variants of one benchmark at one
/// point of the other axes stay together (their speedups are computed within a
/// shard), and such groups are dealt to shards to balance their expected cost: the
/// wall times in `known_costs` (scenario id -> seconds, from an earlier run), the
/// median of those for scenarios without one, or equal costs when none is known.
/// Deterministic: the same plan and costs give the same partition on every machine.
Plan shard_plan(const Plan& plan, const ShardSpec& spec, const std::map<std::string, double>& known_costs = {});

/// Scenario id -> wall time in seconds, of the scenarios of an earlier run that ran.
std::map<std::string, double> scenario_costs(const RunRecord& earlier);

/// One run from its shards, given with the folders they were read from (for messages),
/// as if it had run on one machine, with each shard's machine kept. Its id follows from
/// the shards' ids, each `run_id_of` its record (history's run_id_of, which gives a
/// folder written before runs had ids the id the history stored it under). Throws
/// std::runtime_error naming what is wrong: a folder that is not a shard, shards of
/// different plans, missing or duplicated shards, a scenario in two shards.
RunRecord merge_shards(const std::vector<std::pair<std::filesystem::path, RunRecord>>& shards,
                       const std::function<std::string(const RunRecord&)>& run_id_of);

}  // namespace benchhost
