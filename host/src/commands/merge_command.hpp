// Merge: the run folders of the shards of one plan (`run --shard K/N`) put back
// together as one run folder, as if it had run on one machine, with each shard's
// machine kept.
#pragma once

#include <filesystem>
#include <vector>

#include "cli/merge_options.hpp"
#include "model/run_record.hpp"

namespace benchhost {

/// One run from its shards, given with the folders they were read from (for messages);
/// its id follows from the shards' ids (history's run_id_of for a shard without one).
/// Throws std::runtime_error naming what is wrong: a folder that is not a shard, shards
/// of different plans, missing or duplicated shards, a scenario in two shards.
RunRecord merge_shards(const std::vector<std::pair<std::filesystem::path, RunRecord>>& shards);

/// `benchhost merge OUT DIR...`: reads the shards, merges them, writes OUT's reports.
/// Exit status: 0; 2 when a shard cannot be read or the shards do not make one plan;
/// 1 when OUT cannot be written.
int merge_command(const MergeCommand& command);

}  // namespace benchhost
