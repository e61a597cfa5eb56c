#include "cli/cli.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include <bench/version.hpp>

#include "config/run_config.hpp"

namespace benchhost {

namespace {

/// `subcommand`, its command as a Command.
template <typename T>
Subcommand<Command> as_command(Subcommand<T> subcommand) {
    return {subcommand.app, [command = std::move(subcommand.command)] { return Command(command()); }};
}

/// The arguments to parse, without the program's name: `benchhost [options]` means
/// `benchhost run [options]`, but `benchhost --help` and `--version` are the program's.
std::vector<std::string> arguments(int argc, const char* const* argv) {
    // CLI11 parses a vector from its end.
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);
    const bool needs_run = args.empty() || (args.back().starts_with("-") && args.back() != "--help" &&
                                            args.back() != "-h" && args.back() != "--version");
    if (needs_run) args.emplace_back("run");
    return args;
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
    CLI::App app{"benchhost: discovers benchmark plugins and runs them, each scenario in its own worker process.",
                 "benchhost"};
    app.set_version_flag("--version", std::string("benchhost ") + BENCHHOST_VERSION + " (SDK ABI " +
                                          std::to_string(BENCH_SDK_ABI_MAJOR) + "." +
                                          std::to_string(BENCH_SDK_ABI_MINOR) + ")");
    app.require_subcommand(0, 1);
    app.footer(
        "Without a subcommand, benchhost runs: `benchhost --enable-mock` is `benchhost run --enable-mock`.\n"
        "Exit status: 0 all selected scenarios succeeded or were skipped, 1 at least one failed\n"
        "(or, with --fail-on-regression, one got slower; or nothing was selected, unless --allow-empty),\n"
        "2 wrong arguments or configuration (nothing ran), or a --load that no selected benchmark served,\n"
        "130 interrupted.");

    // Each command declares its subcommand and options, in the order --help lists them
    // (a braced list is evaluated in order); `run` first, the command when none is chosen.
    const std::vector<std::string> invocation(argv, argv + argc);
    const std::vector<Subcommand<Command>> subcommands = {
        as_command(add_run_command(app, invocation)),
        as_command(add_ab_command(app, invocation)),
        as_command(add_bisect_command(app, invocation)),
        as_command(add_list_command(app)),
        as_command(add_export_command(app)),
        as_command(add_merge_command(app)),
        as_command(add_compare_command(app)),
        as_command(add_report_command(app)),
        as_command(add_history_command(app)),
        as_command(add_worker_command(app)),
    };
    // The footer above is run's (and ab's and bisect's, which run): the other commands,
    // which CLI11 gave it too, say their own exit status.
    const std::vector<std::pair<std::string, std::string>> footers = {
        {"list", "Exit status: 0; 2 when a plugin folder does not exist, or two of them hold plugins of one name."},
        {"export",
         "Exit status: 0; 1 when the output could not be written; 2 wrong arguments, or a run that cannot be read."},
        {"merge",
         "Exit status: 0; 1 when a report could not be written; 2 wrong arguments, or shards that cannot be read\n"
         "or are not the shards of one plan."},
        {"compare",
         "Exit status: 0; 1 with --fail-on-regression when a scenario is slower, or when a file could not be\n"
         "written; 2 wrong arguments, or a run or history that cannot be read."},
        {"report",
         "Exit status: 0; 1 when a report could not be written; 2 wrong arguments, or a run that cannot be read."},
        {"history",
         "Exit status: 0; 1 when history add could not add a folder, or history check finds a series slower;\n"
         "2 wrong arguments, a history that cannot be opened, or a pattern or --run that matches nothing."},
        {"worker", ""},
    };
    for (const auto& [name, footer] : footers) {
        CLI::App* command = app.get_subcommand(name);
        command->footer(footer);
        for (CLI::App* action : command->get_subcommands({})) action->footer(footer);
    }

    ParsedCommandLine parsed;
    try {
        app.parse(arguments(argc, argv));
        const auto chosen = std::find_if(subcommands.begin(), subcommands.end(),
                                         [](const auto& subcommand) { return subcommand.app->parsed(); });
        parsed.command = (chosen != subcommands.end() ? *chosen : subcommands.front()).command();
    } catch (const CLI::ParseError& e) {
        parsed.exit_code = app.exit(e) == 0 ? 0 : 2;
    } catch (const ConfigError& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        parsed.exit_code = 2;
    }
    return parsed;
}

}  // namespace benchhost
