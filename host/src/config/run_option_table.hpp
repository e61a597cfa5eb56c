// The options of `run`, `ab` and `bisect`, declared once: an entry per option names it on
// the command line and in a YAML config, gives its type, its help and what is checked of
// its value, sets its field (of RunOptions, or of the scenario settings) and says how the
// run's record describes it. From this one table cli/run_arguments.cpp declares the
// command line and applies it, config/run_config.cpp reads a config file (and knows the
// keys it may have) and layers the scenario settings, and commands/run_setup.cpp
// describes how a run ran. A field's default is its initializer in RunOptions (or, for a
// scenario setting, builtin_scenario_defaults). docs/architecture.md, "Adding an option".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/run_config.hpp"

namespace benchhost {

/// The commands that run a plan: `run`, `ab` (two plugin folders in pairs), or `bisect`
/// (A/B runs of revisions against a good one).
enum class RunMode { run, ab, bisect };

/// Which of them have an option: a set of these bits.
inline constexpr unsigned in_run = 1, in_ab = 2, in_bisect = 4;
inline constexpr unsigned in_pairs = in_ab | in_bisect, in_all = in_run | in_pairs;
constexpr unsigned mode_bit(RunMode mode) { return 1u << static_cast<unsigned>(mode); }

/// An option's value as given: a flag (true or false in YAML), an integer, a number, a
/// text, or a list (repeatable on the command line, a value or a list in YAML). The
/// command line parses it with CLI11, as its type (--help shows INT, FLOAT, TEXT).
enum class OptionType { flag, integer, number, text, list };
using OptionValue = std::variant<bool, int, double, std::string, std::vector<std::string>>;  // by OptionType

/// What is checked of a value before it is set. The command line shows it in --help
/// (`INT:INT in [1 - 1000]`, `TEXT:{process,none}`); a config file's value is checked
/// the same way, and the message says what was expected.
struct OptionCheck {
    enum Kind {
        none,
        range,  // from low to high, both included
        non_negative,
        one_of,  // one of `choices` (each value, for a list)
        // An optional format of the reporters, checked by the command line only, which puts
        // them with their descriptions where the help says {formats} (the registry's).
        format_name,
        existing_file,
        existing_path,
        existing_folder,
    };
    Kind kind = none;
    double low = 0, high = 0;
    std::vector<std::string> choices;
    /// What is wrong with a text value, or empty; no type in --help.
    std::string (*problem)(const std::string& value) = nullptr;
};

/// Where a value was given, for the message of a wrong one.
struct OptionSource {
    std::string option;  // "--rounds", or in a config file its key, "rounds"
    std::string at;  // in a config file, "file:line:column" of the value; empty on the command line
    std::string file;  // in a config file, the file
    bool command_line() const { return at.empty(); }
    /// How config/load_options.hpp's readers name it: "option --queries", "file:3:9: 'queries'".
    std::string where() const { return command_line() ? "option " + option : at + ": '" + option + "'"; }
};

/// One option of `run`, `ab` and `bisect`. An entry declares it on the command line when
/// it has a name, in YAML when it has a key, in the run's record when it has a
/// describe_key; it sets its value with `set` (a field of RunOptions) or `set_scenario` (a
/// scenario setting: the YAML's top level or a plugin's section, or the command line's
/// layer). An entry with neither is read by code of its own (--config, plugins:, axes:,
/// params:). Values reach the setters checked as OptionCheck says; a setter may refuse one
/// more with ConfigError.
struct RunOption {
    std::string name;  // "--timeout"; with a short name "--quiet,-q"; empty: YAML only
    std::string key;  // in a YAML config; empty: the command line only
    OptionType type = OptionType::text;
    bool yaml_list = false;  // a text on the command line, a list in YAML (the axes)
    bool commas = false;  // a list also takes comma-separated values (--format a,b)
    unsigned commands = in_all;
    std::string help;  // run's --help
    std::string ab_help;  // ab's and bisect's, when not `help`
    std::string bisect_help;  // bisect's, when not `ab_help`
    std::string type_name;  // what --help shows instead of the type: N, MODE, ...
    OptionCheck check;
    std::string expects;  // YAML, a number out of range: "'<key>' must be <expects>, got '...'"
    std::function<void(RunOptions&, const OptionValue&, const OptionSource&)> set;
    std::function<void(ScenarioSettings&, const OptionValue&, const OptionSource&)> set_scenario;
    /// A scenario setting: copies it from `over` when `over` sets it (ScenarioSettings::overlay).
    std::function<void(ScenarioSettings&, const ScenarioSettings& over)> overlay;
    std::string describe_key;  // in the record's run_config: "timeout_s"
    /// The text the record holds, or none (a setting not set; a comparison's without a baseline).
    std::function<std::optional<std::string>(const RunOptions&)> describe;
    std::function<std::optional<std::string>(const ScenarioSettings&)> describe_scenario;

    bool scenario() const { return static_cast<bool>(set_scenario) || key == "axes" || key == "params"; }
    /// The help `mode`'s --help shows.
    const std::string& help_of(RunMode mode) const;

    // What an entry adds to the declaration of its field (run_option_table.cpp):
    RunOption&& in(unsigned commands_having_it) &&;
    RunOption&& range(double low, double high, std::string expects = "") &&;
    RunOption&& non_negative(std::string expects) &&;
    RunOption&& one_of(std::vector<std::string> choices) &&;
    RunOption&& checked(OptionCheck::Kind kind) &&;
    RunOption&& for_pairs(std::string ab, std::string bisect = "") &&;  // ab_help, bisect_help
    RunOption&& described(std::string describe_key) &&;
    RunOption&& described_with_baseline(std::string describe_key) &&;  // only when the run has a baseline
};

/// Every option of `run`, `ab` and `bisect`, in the order --help lists them after a
/// command's own (ab's --base, ...: cli/run_arguments.cpp). Two entries may share a name
/// for different commands (--rounds: rounds for run, pairs for ab); the YAML key is on one.
const std::vector<RunOption>& run_option_table();

/// The entry for a YAML key, or null.
const RunOption* run_option_of_key(const std::string& key);

/// The keys a config file may have at its top level, and in a plugin's section.
const std::vector<std::string>& config_keys();
const std::vector<std::string>& scenario_config_keys();

}  // namespace benchhost
