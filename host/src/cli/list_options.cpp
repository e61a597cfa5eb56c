#include "cli/list_options.hpp"

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/cli.hpp"

namespace benchhost {

Subcommand<ListCommand> add_list_command(CLI::App& app) {
    auto plugins_dir = std::make_shared<std::string>();
    CLI::App* list = app.add_subcommand("list", "List plugins and their benchmarks, and files that are not plugins");
    list->add_option("--plugins-dir", *plugins_dir, "Plugin folder (default: ../plugins beside the executable)");
    return {list, [plugins_dir] {
                return ListCommand{plugins_dir->empty() ? default_plugins_dir() : std::filesystem::path(*plugins_dir)};
            }};
}

}  // namespace benchhost
