#include "cli/list_options.hpp"

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli.hpp"
#include "config/plugin_folders.hpp"

namespace benchhost {

Subcommand<ListCommand> add_list_command(CLI::App& app) {
    auto plugins_dirs = std::make_shared<std::vector<std::string>>();
    CLI::App* list = app.add_subcommand("list", "List plugins and their benchmarks, and files that are not plugins");
    CLI::Option* option = list->add_option("--plugins-dir", *plugins_dirs, plugins_dir_help)->take_all();
    return {list, [plugins_dirs, option] {
                if (option->count() == 0) return ListCommand{plugin_folders_from_environment()};
                return ListCommand{
                    PluginFolders{plugin_folder_list(*plugins_dirs, default_plugin_folders().paths), "--plugins-dir"}};
            }};
}

}  // namespace benchhost
