// `benchhost list [--plugins-dir DIR]` (commands/list_command.hpp): the plugins and their
// benchmarks, and the files that are not plugins.
#pragma once

#include <filesystem>

#include "cli/subcommand.hpp"

namespace benchhost {

struct ListCommand {
    std::filesystem::path plugins_dir;
};

/// Declares `list` and its options on `app`.
Subcommand<ListCommand> add_list_command(CLI::App& app);

}  // namespace benchhost
