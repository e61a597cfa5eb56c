#include "cli/run_options.hpp"

#include <memory>

#include <CLI/CLI.hpp>

#include <bench/internal/statistics/round_bootstrap.hpp>

#include "cli/cli.hpp"
#include "cli/run_arguments.hpp"
#include "run/ab_loop.hpp"

namespace benchhost {

namespace {

/// The A/B run of `ab`, or of every step of `bisect`, from their options.
AbCommand ab_command_of(const CLI::App& app, const RunArguments& args, const std::vector<std::string>& invocation) {
    AbCommand ab;
    ab.options.invocation = invocation;
    ab.options.defaults = builtin_scenario_defaults();
    ab.options.rounds = default_ab_pairs;
    if (app.count("--config") > 0) load_config_file(args.text("--config"), ab.options);
    apply_run_arguments(args, ab.options);
    ab.base_dirs = {plugin_folder_list(args.base_dirs, default_plugin_folders().paths), "--base"};
    ab.new_dirs = {plugin_folder_list(args.new_dirs, default_plugin_folders().paths), "--new"};
    for (const std::string& param : args.base_params) ab.base_params.push_back(param_of("--base-param", param));
    for (const std::string& param : args.new_params) ab.new_params.push_back(param_of("--new-param", param));
    if (ab.options.rounds < 2)
        throw ConfigError("ab: rounds " + std::to_string(ab.options.rounds) +
                          ": an A/B run needs at least 2 pairs (--rounds 2) to see the spread between them");
    if (app.count("--max-rounds") > 0) ab.max_rounds = args.max_rounds;
    if (ab.max_rounds < ab.options.rounds)
        throw ConfigError("--max-rounds " + std::to_string(ab.max_rounds) + " is fewer than --rounds " +
                          std::to_string(ab.options.rounds) + " (the pairs every scenario runs)");
    if (const std::size_t fewest = bench::fewest_pairs(0.95); static_cast<std::size_t>(ab.max_rounds) < fewest)
        throw ConfigError("--max-rounds " + std::to_string(ab.max_rounds) + ": an A/B verdict needs at least " +
                          std::to_string(fewest) + " pairs (the fewest with a 95% interval); give --max-rounds " +
                          std::to_string(fewest) + " or more");
    ab.time_limit_s = args.time_limit;
    return ab;
}

}  // namespace

Subcommand<RunCommand> add_run_command(CLI::App& app, std::vector<std::string> invocation) {
    auto args = std::make_shared<RunArguments>();
    CLI::App* run = app.add_subcommand("run", "Discover, run and report benchmarks (the default)");
    add_run_options(*run, *args, RunMode::run);
    return {run, [run, args, invocation = std::move(invocation)] {
                RunOptions options;
                options.invocation = invocation;
                // BENCHHOST_PLUGINS_DIR or the default folders, unless the config or the option names others.
                options.plugins_dirs = plugin_folders_from_environment();
                options.defaults = builtin_scenario_defaults();
                if (run->count("--config") > 0) load_config_file(args->text("--config"), options);
                apply_run_arguments(*args, options);
                return RunCommand{std::move(options)};
            }};
}

Subcommand<AbCommand> add_ab_command(CLI::App& app, std::vector<std::string> invocation) {
    auto args = std::make_shared<RunArguments>();
    CLI::App* ab = app.add_subcommand(
        "ab",
        "A/B: the same plan over two plugin folders, each scenario in pairs of rounds (A B, B A, ...) until "
        "the comparison decides; writes comparison.md, comparison.json and report.html");
    add_run_options(*ab, *args, RunMode::ab);
    return {ab, [ab, args, invocation = std::move(invocation)] { return ab_command_of(*ab, *args, invocation); }};
}

Subcommand<BisectCommand> add_bisect_command(CLI::App& app, std::vector<std::string> invocation) {
    auto args = std::make_shared<RunArguments>();
    CLI::App* bisect_app = app.add_subcommand(
        "bisect",
        "Find the first commit between --good and --bad that made the plugins slower: each step builds a "
        "revision in a scratch checkout and runs it against --good's build as `ab` does");
    add_run_options(*bisect_app, *args, RunMode::bisect);
    return {bisect_app, [bisect_app, args, invocation = std::move(invocation)] {
                BisectCommand bisect;
                bisect.ab = ab_command_of(*bisect_app, *args, invocation);
                bisect.good = args->good;
                bisect.bad = args->bad;
                bisect.build = args->build;
                for (const std::string& entry : folder_list_entries(args->plugins_dirs)) {
                    if (entry.empty() || std::filesystem::path(entry).is_absolute())
                        throw ConfigError("--plugins-dir " + (entry.empty() ? std::string("''") : entry) +
                                          ": give the folder relative to the checkout (each revision is built in a "
                                          "scratch checkout of its own)");
                    bisect.plugins_dirs.emplace_back(entry);
                }
                if (bisect_app->count("--repo") > 0) bisect.repo = args->repo;
                bisect.build_timeout_s = args->build_timeout;
                bisect.keep_checkouts = args->keep_checkouts;
                return bisect;
            }};
}

}  // namespace benchhost
