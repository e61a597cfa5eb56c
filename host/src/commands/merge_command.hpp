// Merge: the run folders of the shards of one plan (`run --shard K/N`) put back
// together as one run folder, as if it had run on one machine, with each shard's
// machine kept.
#pragma once

#include <filesystem>
#include <vector>

#include "cli/merge_options.hpp"
#include "model/run_record.hpp"

namespace benchhost {

/// `benchhost merge OUT DIR...`: reads the shards, merges them (plan/shard.hpp's
/// merge_shards), writes OUT's reports.
/// Exit status: 0; 2 when a shard cannot be read or the shards do not make one plan;
/// 1 when OUT cannot be written.
int merge_command(const MergeCommand& command);

}  // namespace benchhost
