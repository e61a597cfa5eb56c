#include "cli/run_arguments.hpp"

#include <filesystem>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/number_checks.hpp"
#include "config/load_options.hpp"
#include "config/plugin_folders.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

namespace {

/// Each folder of a list separated by ':' exists (an empty entry, the default folders, does).
const CLI::Validator existing_folders(
    [](const std::string& list) -> std::string {
        for (const std::string& entry : folder_list_entries({list})) {
            std::error_code ec;
            if (!entry.empty() && !std::filesystem::is_directory(entry, ec))
                return "plugin folder " + entry + " does not exist or is not a folder";
        }
        return {};
    },
    "DIR[:DIR...]");

/// The options of the command itself: bisect's revisions and build, ab's two folders, the
/// pairs of both. (run's own are all in the table.)
void add_command_options(CLI::App& run, RunArguments& args, RunMode mode) {
    if (mode == RunMode::bisect) {
        run.add_option("--good", args.good, "A revision whose plugins are fast (a commit, tag or branch)")->required();
        run.add_option("--bad", args.bad, "A later revision whose plugins are slower (--good must be its ancestor)")
            ->required();
        run.add_option("--build", args.build,
                       "The command that builds a revision's plugins, run by /bin/sh in its scratch checkout "
                       "(e.g. 'cmake -S . -B build && cmake --build build')")
            ->required();
        run.add_option("--plugins-dir", args.plugins_dirs,
                       "The plugin folder the build makes, relative to the checkout (e.g. build/plugins); several "
                       "separated by ':' or given again (e.g. build/plugins:plugins, the source tree's Python files)")
            ->required()
            ->take_all();
        run.add_option("--repo", args.repo, "A folder in the git checkout to bisect (default: the current folder)");
        run.add_option("--build-timeout", args.build_timeout,
                       "Seconds a build may take; past it the build is killed and the revision skipped (default 0: "
                       "no limit)")
            ->check(non_negative_number());
        run.add_flag("--keep-checkouts", args.keep_checkouts,
                     "Leave the scratch checkouts and their builds in the temporary folder (default: removed)");
    }
    if (mode == RunMode::ab) {
        run.add_option("--base", args.base_dirs,
                       "Plugin folder of the base side (A), e.g. a main-branch build's plugins/; several separated "
                       "by ':' or given again, as --plugins-dir of run")
            ->required()
            ->take_all()
            ->check(existing_folders);
        run.add_option("--new", args.new_dirs,
                       "Plugin folder of the new side (B), e.g. a pull request's build (may be --base); several as "
                       "--base")
            ->required()
            ->take_all()
            ->check(existing_folders);
        run.add_option("--base-param", args.base_params,
                       "A plugin parameter KEY=VALUE for the base side only; repeatable")
            ->take_all();
        run.add_option("--new-param", args.new_params,
                       "A plugin parameter KEY=VALUE for the new side only (e.g. --new-param threads=8); repeatable")
            ->take_all();
    }
    if (mode != RunMode::run) {
        run.add_option("--max-rounds", args.max_rounds,
                       "Pairs at most for a scenario still inconclusive after --rounds (default 40; past --rounds the "
                       "verdict reads a 99% interval, slower and faster that level divided among the series the "
                       "run compares)")
            ->check(number_in_range(2, 1000, true));
        run.add_option("--time-limit", args.time_limit,
                       "Seconds: no pair beyond --rounds starts once this much of the A/B run has passed; 0: no limit")
            ->check(non_negative_number());
    }
}

/// Declares `option` on `run` for `mode`, its value bound to `given`.
void declare(CLI::App& run, RunArguments::Given& given, RunMode mode) {
    const RunOption& option = *given.option;
    std::string help = option.help_of(mode);
    const std::string formats = "{formats}";  // in a format_name option's help: the registry's formats
    if (const auto at = help.find(formats); option.check.kind == OptionCheck::format_name && at != std::string::npos)
        help.replace(at, formats.size(), optional_formats_help());
    CLI::Option* declared = nullptr;
    switch (option.type) {
        case OptionType::flag:
            declared = run.add_flag(option.name, std::get<bool>(given.value = false), help);
            break;
        case OptionType::integer:
            declared = run.add_option(option.name, std::get<int>(given.value = 0), help);
            break;
        case OptionType::number:
            declared = run.add_option(option.name, std::get<double>(given.value = 0.0), help);
            break;
        case OptionType::text:
            declared = run.add_option(option.name, std::get<std::string>(given.value = std::string()), help);
            break;
        case OptionType::list:
            declared =
                run.add_option(option.name,
                               std::get<std::vector<std::string>>(given.value = std::vector<std::string>()), help)
                    ->take_all();
            if (option.commas) declared->delimiter(',');
            break;
    }
    const OptionCheck& check = option.check;
    const bool integer = option.type == OptionType::integer;
    switch (check.kind) {
        case OptionCheck::none:
            break;
        case OptionCheck::range:
            declared->check(number_in_range(check.low, check.high, integer));
            break;
        case OptionCheck::non_negative:
            declared->check(non_negative_number(integer));
            break;
        case OptionCheck::one_of:
            declared->check(CLI::IsMember(check.choices));
            break;
        case OptionCheck::format_name:
            declared->check(CLI::IsMember(optional_format_names()));
            break;
        case OptionCheck::existing_file:
            declared->check(CLI::ExistingFile);
            break;
        case OptionCheck::existing_path:
            declared->check(CLI::ExistingPath);
            break;
        case OptionCheck::existing_folder:
            declared->check(CLI::ExistingDirectory);
            break;
    }
    if (check.problem) declared->check(check.problem);
    if (!option.type_name.empty()) declared->type_name(option.type_name);
    given.declared = declared;
}

/// An option's long name: "--quiet" of "--quiet,-q".
std::string long_name(const std::string& name) { return name.substr(0, name.find(',')); }

/// What the command line gives of the serving load replaces the config's: an open loop
/// its closed one and the other way round, a rate or clients its search of the peak rate.
void settle_load(const RunArguments& args, bench::LoadConfig& load) {
    const bool rate = args.given("--target-qps") != nullptr, clients = args.given("--concurrency") != nullptr;
    if (rate && !clients) load.concurrency = 0;
    if (clients && !rate) load.target_qps = 0;
    if (args.given("--find-peak")) {
        if (!rate) load.target_qps = 0;
        if (!clients) load.concurrency = 0;
    } else if (rate || clients) {
        load.find_peak = false;
    }
    check_load(load);
}

/// --compile-cache cold gives each scenario's workers fresh caches: under --isolation none
/// there are no workers, and the host's own process keeps what it compiled (Inductor's and
/// JAX's caches in memory), so a cold compile could not be promised. Refused wherever the
/// setting comes from: the command line, the config's top level or a plugin's entry.
void check_compile_cache(const RunOptions& options) {
    if (options.isolation != Isolation::none) return;
    const auto effective = [&](const ScenarioSettings* plugin) {
        std::optional<std::string> value = options.defaults.compile_cache;
        if (options.config.compile_cache) value = options.config.compile_cache;
        if (plugin != nullptr && plugin->compile_cache) value = plugin->compile_cache;
        if (options.command_line.compile_cache) value = options.command_line.compile_cache;
        return value.value_or("warm");
    };
    const std::string why =
        " needs --isolation process: under --isolation none every scenario runs in benchhost's own process, whose "
        "compile caches (Inductor's and JAX's, in memory and on disk) cannot be made fresh for each scenario";
    if (effective(nullptr) == "cold")
        throw ConfigError(std::string(options.command_line.compile_cache ? "--compile-cache cold"
                                                                         : "compile_cache: cold (the config)") +
                          why);
    for (const auto& [plugin, settings] : options.plugin_settings) {
        if (effective(&settings) != "cold") continue;
        const auto where = options.plugin_settings_where.find(plugin);
        throw ConfigError("compile_cache: cold for plugin " + plugin +
                          (where == options.plugin_settings_where.end() ? std::string() : " (" + where->second + ")") +
                          why);
    }
}

}  // namespace

const RunArguments::Given* RunArguments::given(const std::string& name) const {
    for (const Given& entry : options)
        if (long_name(entry.option->name) == name) return entry.declared->count() > 0 ? &entry : nullptr;
    return nullptr;
}

std::string RunArguments::text(const std::string& name) const {
    const Given* entry = given(name);
    return entry ? std::get<std::string>(entry->value) : std::string();
}

void add_run_options(CLI::App& run, RunArguments& args, RunMode mode) {
    args.mode = mode;
    // An option given twice takes the last value, as most tools do (a script can append
    // an override); the lists (--include, --param, ...) collect every value.
    run.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    add_command_options(run, args, mode);
    for (const RunOption& option : run_option_table()) {
        if (option.name.empty() || (option.commands & mode_bit(mode)) == 0) continue;
        declare(run, args.options.emplace_back(RunArguments::Given{&option, nullptr, false}), mode);
    }
}

void apply_run_arguments(const RunArguments& args, RunOptions& options) {
    for (const RunArguments::Given& given : args.options) {
        if (given.declared->count() == 0) continue;
        const RunOption& option = *given.option;
        const OptionSource source{long_name(option.name), "", ""};
        if (option.set) option.set(options, given.value, source);
        else if (option.set_scenario) option.set_scenario(options.command_line, given.value, source);
    }
    // What options need of one another, once all are set.
    if (args.given("--shard-costs") && !args.given("--shard")) throw ConfigError("--shard-costs needs --shard");
    if (options.history_samples && !options.history)
        throw ConfigError("--history-samples needs --history LOCATION (or the config's history:)");
    const bool compares = args.given("--threshold") || args.given("--fail-on-regression") || args.given("--confirm") ||
                          args.given("--noise-floor");
    if (args.mode == RunMode::run && compares && !options.baseline)
        throw ConfigError(
            "--threshold, --fail-on-regression, --confirm and --noise-floor need --baseline DIR (the "
            "run to compare with)");
    if (args.given("--resume") && args.given("--output-dir") &&
        std::filesystem::path(args.text("--output-dir")) != std::filesystem::path(args.text("--resume")))
        throw ConfigError("--resume writes into the folder it resumes; leave out --output-dir");
    settle_load(args, options.load);
    check_compile_cache(options);
}

}  // namespace benchhost
