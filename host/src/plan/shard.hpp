// Sharding: one plan split over several machines (a SLURM job array, a CI matrix,
// Kubernetes indexed jobs). Every shard computes the same partition from the same
// plugins and config, so shards need not talk to each other; `benchhost merge` puts
// their run folders back together (commands/merge_command.hpp).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

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

}  // namespace benchhost
