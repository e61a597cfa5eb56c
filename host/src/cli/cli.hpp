// The command line: `benchhost [run] [options]`, `benchhost ab`, `list`, `compare`,
// `merge`, `report`, `export`, `history`, `bisect`, and `benchhost worker`, which runs one scenario in its own process
// (for debugging; a run starts its workers through the worker server,
// execute/worker_server.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/run_config.hpp"

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

/// `benchhost export DIR --format gbench-json [--output FILE]` (export_command.hpp).
struct ExportCommand {
    std::filesystem::path source;  // a run folder, or its benchmark_summary.json
    std::string format;            // "gbench-json"
    std::filesystem::path output;  // empty: standard output
};

/// `benchhost ab --base DIR_A --new DIR_B [options]` (commands/ab_command.hpp): the
/// same plan over two plugin folders, in A/B pairs of rounds.
struct AbCommand {
    /// The plan, the sampling, the output folder, the threshold, --confirm, ...; its
    /// plugins_dir is not used, its rounds are the pairs every scenario runs.
    RunOptions options;
    std::filesystem::path base_dir, new_dir;
    /// Parameters only one side gets (--base-param, --new-param), over the others.
    std::vector<std::pair<std::string, std::vector<std::string>>> base_params, new_params;
    int max_rounds = 40;      // pairs at most for a scenario still inconclusive
    double time_limit_s = 0;  // no pair beyond --rounds starts past it; 0: no limit
};

/// `benchhost bisect --good REV --bad REV --build CMD --plugins-dir DIR [ab options]`
/// (commands/bisect_command.hpp): the first commit between two revisions whose plugins
/// run slower than the good revision's, each step an A/B run.
struct BisectCommand {
    /// The A/B options of every step (the plan, the sampling, --rounds, --max-rounds,
    /// the threshold, ...); its folders are set per step, its output folder is the
    /// bisect's.
    AbCommand ab;
    std::string good, bad;  // revisions, as git names them
    std::string build;      // run by /bin/sh -c in the revision's scratch checkout
    std::filesystem::path plugins_dir;  // the plugin folder the build makes, relative to the checkout
    std::filesystem::path repo = ".";   // a folder in the git checkout
    double build_timeout_s = 0;         // 0: no limit
    bool keep_checkouts = false;        // leave the scratch checkouts (and builds) for inspection
};

/// `benchhost history add|list|show` (commands/history_command.hpp).
struct HistoryCommand {
    std::string action;                         // "add", "list", "show", "check" or "report"
    std::string location;                       // --history: an SQLite file
    std::vector<std::filesystem::path> runs;    // add: run folders (or their summaries)
    bool samples = false;                       // add: the raw samples too
    std::string pattern;                        // show, check, report: scenario ids (substring or glob)
    std::string series;                         // show, check, report: only this series; empty: all
    std::string machine, branch, since, until;  // list, show, check, report: which runs
    std::size_t limit = 0;                      // list: the newest N; show, report: the last N runs
    std::filesystem::path output_dir;           // report: where the pages go
    // check: the run checked (0: the newest run the filters select), the branch of the
    // earlier runs (empty: any), and the gate's settings.
    long long run_id = 0;
    std::string baseline_branch;
    double threshold = 0.05;
    std::size_t lookback = 30, min_runs = 5;
    std::filesystem::path junit;  // history check: also write JUnit XML here; empty: not
};

/// `benchhost compare BASE NEW` (compare_command.hpp).
struct CompareCommand {
    std::filesystem::path base, next;  // run folders, or their benchmark_summary.json
    double threshold = 0.05;
    double alpha = 0.05;
    double noise_floor = 0.10;
    bool fail_on_regression = false;
    std::filesystem::path markdown, json, junit;  // also write these; empty: not
    std::string history;  // learn the spread between runs from this run history; empty: not
};

/// `benchhost report DIR [--output-dir OUT]` (report_command.hpp): report.md and
/// report.html of an earlier run, written again.
struct ReportCommand {
    std::filesystem::path source;      // a run folder, or its benchmark_summary.json
    std::filesystem::path output_dir;  // empty: the run folder
};

/// `benchhost merge OUT DIR...` (commands/merge_command.hpp).
struct MergeCommand {
    std::filesystem::path out;
    std::vector<std::filesystem::path> shards;
};

using Command = std::variant<RunCommand, ListCommand, WorkerCommand, ExportCommand, CompareCommand, MergeCommand,
                             ReportCommand, AbCommand, HistoryCommand, BisectCommand>;

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
