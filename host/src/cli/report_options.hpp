// `benchhost report DIR [--output-dir OUT]` (commands/report_command.hpp): report.md and
// report.html of an earlier run, written again.
#pragma once

#include <filesystem>

#include "cli/subcommand.hpp"

namespace benchhost {

struct ReportCommand {
    std::filesystem::path source;  // a run folder, or its benchmark_summary.json
    std::filesystem::path output_dir;  // empty: the run folder
};

/// Declares `report` and its options on `app`.
Subcommand<ReportCommand> add_report_command(CLI::App& app);

}  // namespace benchhost
