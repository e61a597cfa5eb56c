// `benchhost history add|list|show|check|report` (commands/history_command.hpp): the run
// history, a database of every run added to it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/subcommand.hpp"

namespace benchhost {

struct HistoryCommand {
    std::string action;  // "add", "list", "show", "check" or "report"
    std::string location;  // --history: an SQLite file
    std::vector<std::filesystem::path> runs;  // add: run folders (or their summaries)
    bool samples = false;  // add: the raw samples too
    std::string pattern;  // show, check, report: scenario ids (substring or glob)
    std::string series;  // show, check, report: only this series; empty: all
    std::string machine, branch, since, until;  // list, show, check, report: which runs
    std::size_t limit = 0;  // list: the newest N; show, report: the last N runs
    std::filesystem::path output_dir;  // report: where the pages go
    // check: the run checked (0: the newest run the filters select), the branch of the
    // earlier runs (empty: any), and the gate's settings.
    long long run_id = 0;
    std::string baseline_branch;
    double threshold = 0.05;
    std::size_t lookback = 30, min_runs = 5;
    std::filesystem::path junit;  // history check: also write JUnit XML here; empty: not
};

/// Declares `history`, its actions and their options on `app`.
Subcommand<HistoryCommand> add_history_command(CLI::App& app);

}  // namespace benchhost
