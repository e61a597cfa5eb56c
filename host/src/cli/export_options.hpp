// `benchhost export DIR --format gbench-json [--output FILE]` (commands/export_command.hpp):
// a run's results in a format other tools read.
#pragma once

#include <filesystem>
#include <string>

#include "cli/subcommand.hpp"

namespace benchhost {

struct ExportCommand {
    std::filesystem::path source;  // a run folder, or its benchmark_summary.json
    std::string format;  // "gbench-json"
    std::filesystem::path output;  // empty: standard output
};

/// Declares `export` and its options on `app`.
Subcommand<ExportCommand> add_export_command(CLI::App& app);

}  // namespace benchhost
