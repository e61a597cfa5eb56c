// `benchhost merge OUT DIR...` (commands/merge_command.hpp): the run folders of the
// shards of one plan joined into one.
#pragma once

#include <filesystem>
#include <vector>

#include "cli/subcommand.hpp"

namespace benchhost {

struct MergeCommand {
    std::filesystem::path out;
    std::vector<std::filesystem::path> shards;
};

/// Declares `merge` and its arguments on `app`.
Subcommand<MergeCommand> add_merge_command(CLI::App& app);

}  // namespace benchhost
