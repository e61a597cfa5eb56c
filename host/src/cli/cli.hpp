// The command line: `benchhost [run] [options]`, `benchhost ab`, `list`, `compare`,
// `merge`, `report`, `export`, `history`, `bisect`, and `benchhost worker`, which runs one
// scenario in its own process (for debugging; a run starts its workers through the worker
// server, execute/worker_server.hpp). Each command's struct and options are in a file of
// its own (cli/<command>_options.hpp, included here); this file parses argv into one of
// them.
#pragma once

#include <filesystem>
#include <optional>
#include <variant>

#include "cli/compare_options.hpp"
#include "cli/export_options.hpp"
#include "cli/history_options.hpp"
#include "cli/list_options.hpp"
#include "cli/merge_options.hpp"
#include "cli/report_options.hpp"
#include "cli/run_options.hpp"
#include "cli/worker_options.hpp"

namespace benchhost {

using Command = std::variant<RunCommand, ListCommand, WorkerCommand, ExportCommand, CompareCommand, MergeCommand,
                             ReportCommand, AbCommand, HistoryCommand, BisectCommand>;

struct ParsedCommandLine {
    std::optional<Command> command;  // empty when parsing already ended the program
    int exit_code = 0;  // then: 0 after --help or --version, 2 after an error
};

/// Parses argv; --config files are read here, so that command-line options override
/// them. Prints help and errors itself. Never throws.
ParsedCommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace benchhost
