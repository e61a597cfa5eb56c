// `benchhost compare BASE NEW` (commands/compare_command.hpp): two runs compared, scenario
// by scenario.
#pragma once

#include <filesystem>
#include <string>

#include "cli/subcommand.hpp"

namespace benchhost {

struct CompareCommand {
    std::filesystem::path base, next;  // run folders, or their benchmark_summary.json
    double threshold = 0.05;
    double alpha = 0.05;
    double noise_floor = 0.10;
    bool fail_on_regression = false;
    std::filesystem::path markdown, json, junit;  // also write these; empty: not
    std::string history;  // learn the spread between runs from this run history; empty: not
};

/// Declares `compare` and its options on `app`.
Subcommand<CompareCommand> add_compare_command(CLI::App& app);

}  // namespace benchhost
