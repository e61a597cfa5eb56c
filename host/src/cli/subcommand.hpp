// A subcommand as a command's file (cli/<command>_options.hpp) declares it: the CLI11
// subcommand its options are declared on, and how the values parsed into them become the
// command. parse_command_line (cli/cli.hpp) asks each whether the command line chose it.
#pragma once

#include <functional>

namespace CLI {
class App;
}  // namespace CLI

namespace benchhost {

/// A subcommand of `benchhost`, with the command it stands for.
template <typename Command>
struct Subcommand {
    /// The subcommand, owned by the app it was added to: the command line chose it when
    /// it was parsed.
    CLI::App* app = nullptr;
    /// The values parsed, as the command; called once, after parsing, and only when the
    /// command line chose the subcommand. Throws ConfigError for values that are wrong.
    std::function<Command()> command;
};

}  // namespace benchhost
