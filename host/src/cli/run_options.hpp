// `benchhost [run] [options]`, `benchhost ab` and `benchhost bisect`: the commands that run
// a plan (commands/run_command.hpp, ab_command.hpp, bisect_command.hpp). They share most
// of their options (cli/run_arguments.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli/subcommand.hpp"
#include "config/run_config.hpp"
#include "run/ab_loop.hpp"

namespace benchhost {

struct RunCommand {
    RunOptions options;
};

/// `benchhost ab --base DIR_A --new DIR_B [options]` (commands/ab_command.hpp): the
/// same plan over two plugin folders, in A/B pairs of rounds.
struct AbCommand {
    /// The plan, the sampling, the output folder, the threshold, --confirm, ...; its
    /// plugins_dirs is not used, its rounds are the pairs every scenario runs.
    RunOptions options;
    PluginFolders base_dirs, new_dirs;  // the plugin folders of each side (--base, --new)
    /// Parameters only one side gets (--base-param, --new-param), over the others.
    std::vector<std::pair<std::string, std::vector<std::string>>> base_params, new_params;
    int max_rounds = default_ab_max_pairs;  // pairs at most for a scenario still inconclusive
    double time_limit_s = 0;  // no pair beyond --rounds starts past it; 0: no limit
};

/// `benchhost bisect --good REV --bad REV --build CMD --plugins-dir DIR[:DIR...] [ab options]`
/// (commands/bisect_command.hpp): the first commit between two revisions whose plugins
/// run slower than the good revision's, each step an A/B run.
struct BisectCommand {
    /// The A/B options of every step (the plan, the sampling, --rounds, --max-rounds,
    /// the threshold, ...); its folders are set per step, its output folder is the
    /// bisect's.
    AbCommand ab;
    std::string good, bad;  // revisions, as git names them
    std::string build;  // run by /bin/sh -c in the revision's scratch checkout
    /// The plugin folders the build makes (and the checkout holds), relative to the checkout.
    std::vector<std::filesystem::path> plugins_dirs;
    std::filesystem::path repo = ".";  // a folder in the git checkout
    double build_timeout_s = 0;  // 0: no limit
    bool keep_checkouts = false;  // leave the scratch checkouts (and builds) for inspection
};

/// Declares `run` and its options on `app`. `invocation` is the command line as given
/// (argv), for the run's record; --config files are read when the command is made, so
/// that the options given override them.
Subcommand<RunCommand> add_run_command(CLI::App& app, std::vector<std::string> invocation);

/// Declares `ab` and its options on `app`, as add_run_command does `run`.
Subcommand<AbCommand> add_ab_command(CLI::App& app, std::vector<std::string> invocation);

/// Declares `bisect` and its options on `app`, as add_run_command does `run`.
Subcommand<BisectCommand> add_bisect_command(CLI::App& app, std::vector<std::string> invocation);

}  // namespace benchhost
