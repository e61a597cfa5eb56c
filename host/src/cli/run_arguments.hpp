// The options of `run`, `ab` and `bisect` (cli/run_options.hpp) on the command line: those
// of config/run_option_table.hpp that the command has, declared on its subcommand, then
// applied over the options the config file gave; and ab's and bisect's own.
#pragma once

#include <list>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "config/run_option_table.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace benchhost {

/// The options of `run`, `ab` or `bisect` as given; unset ones leave the config's values alone.
struct RunArguments {
    RunMode mode = RunMode::run;
    /// An option of the table, with what the command line gave it.
    struct Given {
        const RunOption* option = nullptr;
        CLI::Option* declared = nullptr;  // counts how often it was given
        OptionValue value;  // as parsed: the entry's type
    };
    std::list<Given> options;  // in the table's order; a list: CLI11 holds each value's address

    /// The option `name` of the table when the command line gave it, else null.
    const Given* given(const std::string& name) const;
    /// The text it gave `name` ("" when it gave none).
    std::string text(const std::string& name) const;

    // benchhost ab: each one folder or several separated by ':'
    std::vector<std::string> base_dirs, new_dirs;
    std::vector<std::string> base_params, new_params;
    int max_rounds = 0;
    double time_limit = 0;
    // benchhost bisect
    std::vector<std::string> plugins_dirs;  // each one folder or several separated by ':'
    std::string good, bad, build, repo;
    double build_timeout = 0;
    bool keep_checkouts = false;
};

/// Declares the options of `mode` on its subcommand `run`, bound to `args`.
void add_run_options(CLI::App& run, RunArguments& args, RunMode mode);

/// Applies what was given on the command line (parsed into `args`) over the config file's
/// values. Throws ConfigError for values that are wrong.
void apply_run_arguments(const RunArguments& args, RunOptions& options);

}  // namespace benchhost
