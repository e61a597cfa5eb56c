// `benchhost list [--plugins-dir DIR[:DIR...]]` (commands/list_command.hpp): the plugins
// and their benchmarks, and the files that are not plugins.
#pragma once

#include <filesystem>

#include "cli/subcommand.hpp"
#include "config/plugin_folders.hpp"

namespace benchhost {

struct ListCommand {
    PluginFolders plugins_dirs;  // --plugins-dir, else BENCHHOST_PLUGINS_DIR, else the default folders
};

/// Declares `list` and its options on `app`.
Subcommand<ListCommand> add_list_command(CLI::App& app);

}  // namespace benchhost
