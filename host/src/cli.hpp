// The command line: `benchhost [run] [options]`, `benchhost list`, and the internal
// `benchhost worker` that the host starts for each scenario.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <variant>

#include "run_config.hpp"

namespace benchhost {

struct RunCommand {
    RunOptions options;
};

struct ListCommand {
    std::filesystem::path plugins_dir;
};

struct WorkerCommand {
    std::filesystem::path plugin;
    std::string symbol;
    std::filesystem::path config;
    std::filesystem::path result;
    std::string log_level = "info";
    double monitor_interval_ms = 50;  // 0: no monitoring
};

using Command = std::variant<RunCommand, ListCommand, WorkerCommand>;

struct ParsedCommandLine {
    std::optional<Command> command;  // empty when parsing already ended the program
    int exit_code = 0;               // then: 0 after --help or --version, 2 after an error
};

/// Parses argv; --config files are read here, so that command-line options override
/// them. Prints help and errors itself. Never throws.
ParsedCommandLine parse_command_line(int argc, const char* const* argv);

/// <folder of this executable>/../plugins.
std::filesystem::path default_plugins_dir();

}  // namespace benchhost
