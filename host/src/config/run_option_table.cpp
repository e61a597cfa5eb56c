#include "config/run_option_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <type_traits>

#include <bench/internal/monitors/gpu_clocks.hpp>
#include <bench/internal/params/axes.hpp>

#include "config/load_options.hpp"
#include "config/plugin_folders.hpp"
#include "util/append_unique.hpp"
#include "util/join.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace {

template <typename Field>
constexpr OptionType type_of() {
    if constexpr (std::is_same_v<Field, bool>) return OptionType::flag;
    else if constexpr (std::is_same_v<Field, int> || std::is_same_v<Field, std::size_t>) return OptionType::integer;
    else if constexpr (std::is_same_v<Field, double>) return OptionType::number;
    else if constexpr (std::is_same_v<Field, std::vector<std::string>>) return OptionType::list;
    else return OptionType::text;  // std::string, std::optional<std::string>, std::optional<std::filesystem::path>
}

/// A value as the field `Field` holds it.
template <typename Field>
Field field_value(const OptionValue& value) {
    if constexpr (type_of<Field>() == OptionType::integer) return static_cast<Field>(std::get<int>(value));
    else if constexpr (type_of<Field>() == OptionType::text) return Field(std::get<std::string>(value));
    else return std::get<Field>(value);
}

/// A field's value as the run's record holds it.
template <typename Field>
std::string recorded_text(const Field& value) {
    if constexpr (std::is_same_v<Field, bool>) return value ? "true" : "false";
    else if constexpr (type_of<Field>() == OptionType::integer) return std::to_string(value);
    else if constexpr (std::is_same_v<Field, double>) return number_text(value);
    else if constexpr (std::is_same_v<Field, std::vector<std::string>>) return join(value);
    else if constexpr (std::is_same_v<Field, std::string>) return value;
    else return value ? std::string(*value) : std::string();  // an optional text or path
}

/// An option that sets `member` of RunOptions to its value.
template <typename Field>
RunOption field(std::string name, std::string key, Field RunOptions::*member, std::string help) {
    RunOption option;
    option.name = std::move(name);
    option.key = std::move(key);
    option.type = type_of<Field>();
    option.help = std::move(help);
    option.set = [member](RunOptions& options, const OptionValue& value, const OptionSource&) {
        options.*member = field_value<Field>(value);
    };
    option.describe = [member](const RunOptions& options) -> std::optional<std::string> {
        return recorded_text(options.*member);
    };
    return option;
}

/// An option whose field is an enum: `words` name its values, in the order `--help` lists
/// them; the command line and YAML take a word (refusing others), the record gives one.
template <typename Enum>
RunOption enum_field(std::string name, std::string key, Enum RunOptions::*member,
                     std::vector<std::pair<std::string, Enum>> words, std::string help) {
    std::vector<std::string> choices;
    for (const auto& word : words) choices.push_back(word.first);
    RunOption option;
    option.name = std::move(name);
    option.key = std::move(key);
    option.type = OptionType::text;
    option.help = std::move(help);
    option.set = [member, words, choices](RunOptions& options, const OptionValue& value, const OptionSource& source) {
        const std::string& text = std::get<std::string>(value);
        const auto it = std::find_if(words.begin(), words.end(), [&](const auto& word) { return word.first == text; });
        if (it == words.end())
            throw ConfigError(source.where() + ": '" + text + "' is not one of " + join(choices, ", "));
        options.*member = it->second;
    };
    option.describe = [member, words](const RunOptions& options) -> std::optional<std::string> {
        const auto it =
            std::find_if(words.begin(), words.end(), [&](const auto& word) { return word.second == options.*member; });
        return it == words.end() ? std::nullopt : std::optional<std::string>(it->first);
    };
    return std::move(option).one_of(std::move(choices));
}

/// An option that sets the scenario setting `member` (the YAML's top level or a plugin's
/// section, or the command line's layer) to its value.
template <typename T>
RunOption setting(std::string name, std::string key, std::optional<T> ScenarioSettings::*member, std::string help) {
    RunOption option;
    option.name = std::move(name);
    option.key = std::move(key);
    option.type = type_of<T>();
    option.help = std::move(help);
    option.set_scenario = [member](ScenarioSettings& settings, const OptionValue& value, const OptionSource&) {
        settings.*member = field_value<T>(value);
    };
    option.overlay = [member](ScenarioSettings& settings, const ScenarioSettings& over) {
        if (over.*member) settings.*member = over.*member;
    };
    option.describe_scenario = [member](const ScenarioSettings& settings) -> std::optional<std::string> {
        if (!(settings.*member)) return std::nullopt;
        return recorded_text(*(settings.*member));
    };
    return option;
}

/// An option of the serving load (config/load_options.hpp): a text on the command line
/// and in YAML, read by `read`, which names the option or key and its place (`where`) in
/// what it throws. The record describes the load as a whole (describe_load).
using LoadReader = void (*)(bench::LoadConfig& load, const std::string& where, const std::string& text);
RunOption load_option(std::string name, std::string key, std::string type_name, std::string help, LoadReader read) {
    RunOption option;
    option.name = std::move(name);
    option.key = std::move(key);
    option.type_name = std::move(type_name);
    option.help = std::move(help);
    option.set = [read](RunOptions& options, const OptionValue& value, const OptionSource& source) {
        read(options.load, source.where(), std::get<std::string>(value));
    };
    return option;
}

/// An option read by code of its own (--config), or a YAML key that is not an option
/// (plugins:, axes:, params:).
RunOption declared(std::string name, std::string key, OptionType type, std::string help) {
    RunOption option;
    option.name = std::move(name);
    option.key = std::move(key);
    option.type = type;
    option.help = std::move(help);
    return option;
}

/// A relative amount on the command line ("5%" or 0.05) below `below`, into `member`.
RunOption relative(std::string name, double RunOptions::*member, double below, std::string help) {
    RunOption option = field(std::move(name), "", member, std::move(help));
    option.type = OptionType::text;
    option.set = [member, below](RunOptions& options, const OptionValue& value, const OptionSource& source) {
        options.*member = relative_option(source.option, std::get<std::string>(value), below);
    };
    return option;
}

/// The comparison's options: of run, with --baseline; of ab and bisect, of their sides.
RunOption&& comparing(RunOption&& option) {
    option.ab_help = option.help;
    option.ab_help[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(option.ab_help[0])));
    option.help = "With --baseline: " + option.help;
    return std::move(option);
}

/// The comma-separated values of an axis option, each once, in order; ConfigError naming
/// the option for an empty one. `text` is the values, `given` what was typed.
std::vector<std::string> axis_values(const std::string& option, const std::string& text, const std::string& given) {
    std::vector<std::string> values;
    for (std::string& value : split(text)) {
        if (value.empty()) throw ConfigError("option " + option + ": an empty value in '" + given + "'");
        append_unique(values, std::move(value));
    }
    return values;
}

/// A built-in axis's values: comma-separated on the command line, a value or a list in
/// YAML. Where they were set is remembered with them (ScenarioSettings::axis_origins).
RunOption axis_option(std::string name, const std::string& axis, std::string help) {
    RunOption option = declared(std::move(name), axis_config_key(axis), OptionType::text, std::move(help));
    option.yaml_list = true;
    option.set_scenario = [axis](ScenarioSettings& settings, const OptionValue& value, const OptionSource& source) {
        std::vector<std::string> values;
        if (source.command_line()) {
            const std::string& text = std::get<std::string>(value);
            values = axis_values(source.option, text, text);
            validate_axis_values(axis, values, "option " + source.option + ": ");
        } else {
            values = std::get<std::vector<std::string>>(value);
            if (values.empty()) throw ConfigError(source.at + ": '" + source.option + "' needs at least one value");
            try {
                validate_axis_values(axis, values, "");
            } catch (const ConfigError& e) {
                throw ConfigError(source.at + ": '" + source.option + "': " + e.what());
            }
        }
        settings.axes[axis] = std::move(values);
        settings.axis_origins[axis] = source.command_line() ? source.option : source.at;
    };
    return option;
}

/// `--axis NAME=V1,V2`: a custom axis and its values, or ConfigError saying what is wrong.
std::pair<std::string, std::vector<std::string>> custom_axis(const std::string& given) {
    const auto equals = given.find('=');
    if (equals == std::string::npos)
        throw ConfigError("option --axis: '" + given + "' is not NAME=V1,V2 (e.g. --axis seq_len=128,512)");
    const std::string name = given.substr(0, equals);
    if (name.empty()) throw ConfigError("option --axis: '" + given + "' has no axis name before '='");
    if (bench::is_builtin_axis(name)) {
        std::string option = "--" + axis_config_key(name);
        std::replace(option.begin(), option.end(), '_', '-');
        throw ConfigError("option --axis: '" + name + "' is a built-in axis: set it with " + option);
    }
    return {name, axis_values("--axis", given.substr(equals + 1), given)};
}

std::string clock_setting_problem(const std::string& value) {
    try {
        bench::check_clock_setting(value);
        return {};
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
}

/// The options in the order --help lists them: which benchmarks run, how each series is
/// measured, what the results are compared with, what each scenario runs with, the
/// serving load, how the host goes about the run.
std::vector<RunOption> make_table() {
    using T = OptionType;
    const std::string seconds = "seconds between 0 and 86400";
    std::vector<RunOption> table;
    const auto add = [&table](RunOption&& option) { table.push_back(std::move(option)); };

    // Which plugins and benchmarks, and where the results go.
    {
        RunOption plugins_dir = declared("--plugins-dir", "plugins_dir", T::list, plugins_dir_help);
        plugins_dir.commands = in_run;  // ab's sides are --base and --new, bisect's folders in its checkouts
        plugins_dir.set = [](RunOptions& options, const OptionValue& value, const OptionSource& source) {
            // A folder, several separated by ':', or a list; an empty entry: the default folders.
            const auto& lists = std::get<std::vector<std::string>>(value);
            options.plugins_dirs = {plugin_folder_list(lists, default_plugin_folders().paths),
                                    source.command_line() ? source.option : source.file};
            if (!source.command_line() && options.plugins_dirs.paths.empty())
                throw ConfigError(source.at + ": '" + source.option + "' names no folder");
        };
        plugins_dir.describe = [](const RunOptions& options) -> std::optional<std::string> {
            return options.plugins_dirs.text();  // every folder searched, as --plugins-dir takes them
        };
        add(std::move(plugins_dir).described("plugins_dir"));
    }
    {
        // Read before the other options, which override it (cli/run_options.cpp).
        RunOption config = declared("--config", "", T::text, "YAML config file; options given here override it");
        config.describe = [](const RunOptions& options) -> std::optional<std::string> {
            return options.config_file ? options.config_file->string() : "";
        };
        add(std::move(config).checked(OptionCheck::existing_file).described("config_file"));
    }
    add(field("--output-dir", "output_dir", &RunOptions::output_dir,
              "Write reports into this folder (default: benchmark_results/<timestamp>/)")
            .for_pairs("Write the comparison and the sides' run folders (base/, new/) into this folder (default: "
                       "benchmark_results/ab_<timestamp>/)",
                       "Write the steps' A/B folders, the build logs and bisect.md into this folder (default: "
                       "benchmark_results/bisect_<timestamp>/)"));
    add(field("--include", "include", &RunOptions::include,
              "Run only ids (category/plugin/benchmark) matching: substring or glob; repeatable")
            .described("include"));
    add(field("--exclude", "exclude", &RunOptions::exclude, "Skip ids matching: substring or glob; repeatable")
            .described("exclude"));
    {
        RunOption category =
            field("--category", "categories", &RunOptions::categories, "Run only this category; repeatable");
        category.set = [](RunOptions& options, const OptionValue& value, const OptionSource& source) {
            options.categories = std::get<std::vector<std::string>>(value);
            for (const std::string& name : options.categories)
                if (name != "unit" && name != "integration" && name != "performance")
                    throw ConfigError(source.at + ": unknown category '" + name +
                                      "' (expected unit, integration or performance)");
        };
        add(std::move(category).one_of({"unit", "integration", "performance"}).described("categories"));
    }
    add(field("--enable-mock", "enable_mock", &RunOptions::enable_mock, "Run mock plugins (framework self-tests)")
            .described("enable_mock"));
    add(field("--profile", "profile", &RunOptions::profile,
              "After each scenario's measurement, profile one call apart: operators, modules, flame graphs, a "
              "trace (docs/profiling.md)")
            .in(in_run)
            .described("profile"));

    // How each series is measured: its iterations and time, its timer, its cache, throttling.
    add(setting("--warmup-iterations", "warmup_iterations", &ScenarioSettings::warmup_iterations,
                "Unmeasured calls before measuring")
            .range(0, 100000000)
            .described("warmup_iterations"));
    add(setting("--measurement-iterations", "measurement_iterations", &ScenarioSettings::measurement_iterations,
                "Measured samples per series")
            .range(1, 100000000)
            .described("measurement_iterations"));
    add(setting("--min-time", "min_time", &ScenarioSettings::min_time_s,
                "Seconds: measure each series at least this long (with at least --measurement-iterations samples)")
            .range(0.0, 86400.0, seconds)
            .described("min_time_s"));
    add(setting("--max-time", "max_time", &ScenarioSettings::max_time_s,
                "Seconds: stop measuring a series when this is spent, even if --target-ci-width is not reached")
            .range(0.0, 86400.0, seconds)
            .described("max_time_s"));
    add(setting("--compile-timeout", "compile_timeout", &ScenarioSettings::compile_timeout_s,
                "Seconds the compiled variant's compile may take (the AOTInductor compile); past it the scenario "
                "fails, naming the package (default 0: no limit but the scenario's --timeout)")
            .range(0.0, 86400.0, seconds)
            .described("compile_timeout_s"));
    add(setting("--timer", "timer", &ScenarioSettings::timer,
                "How work on a CUDA device is timed (ctx.measure_device): auto (CUDA events where a device is, "
                "else the host's clock; the default), host, or cuda-events (a scenario without a device fails)")
            .one_of({"auto", "host", "cuda-events"})
            .described("timer"));
    add(setting("--cache", "cache", &ScenarioSettings::cache,
                "warm (the default), or cold: the caches are flushed before each sample, outside the timed "
                "region (a device's L2 with ctx.measure_device, else the CPU's), one call a sample")
            .one_of({"warm", "cold"})
            .described("cache"));
    add(setting("--discard-throttled", "discard_throttled", &ScenarioSettings::discard_throttled,
                "On a CUDA device: drop the samples during which the GPU throttled (from the GPU monitor's "
                "readings at --monitor-interval), counted and reported; every sample keeps its SM clock and "
                "throttle reasons in the report either way")
            .described("discard_throttled"));
    add(setting("--throttle-cooldown", "throttle_cooldown", &ScenarioSettings::throttle_cooldown_s,
                "Seconds: on a CUDA device, before each sample, when the GPU throttled since the last one, wait "
                "until the GPU monitor sees it stop, at most this long (not counted by --max-time); default 0: "
                "never")
            .range(0.0, 86400.0, seconds)
            .described("throttle_cooldown_s"));
    add(setting("--discard-recompiled", "discard_recompiled", &ScenarioSettings::discard_recompiled,
                "Drop the samples during which a compile ran (a torch.compile recompile after a guard failed, a "
                "jax.jit function met with a new shape, as the frameworks report them), counted and reported; "
                "without it they are kept, counted and warned about with the guard that failed or what changed")
            .described("discard_recompiled"));
    add(setting("--compile-cache", "compile_cache", &ScenarioSettings::compile_cache,
                "warm (the default: the compile caches as earlier scenarios and runs left them), or cold: each "
                "scenario's worker gets fresh, empty compile caches (benchhost's cache folder, Inductor's and "
                "JAX's), removed after it, so that its compile time is a cold compile's")
            .one_of({"warm", "cold"})
            .described("compile_cache"));
    {
        RunOption width = setting("--target-ci-width", "target_ci_width", &ScenarioSettings::target_ci_width,
                                  "Measure until the 95% confidence interval of the median is this wide relative to "
                                  "the median (e.g. 1%), or --max-time (default 10 s) is spent");
        width.type = T::text;
        width.set_scenario = [](ScenarioSettings& settings, const OptionValue& value, const OptionSource& source) {
            const std::string& text = std::get<std::string>(value);
            if (source.command_line()) {
                settings.target_ci_width = relative_option(source.option, text, 1);
                return;
            }
            const auto parsed = parse_relative(text);
            if (!parsed || *parsed >= 1)
                throw ConfigError(source.at +
                                  ": 'target_ci_width' must be a relative width such as 1% or 0.01 (below 100%), "
                                  "got '" +
                                  text + "'");
            settings.target_ci_width = *parsed;
        };
        add(std::move(width).described("target_ci_width"));
    }

    // The rounds; what the results are compared with (--baseline, or ab's base side) and
    // recorded in (--history); the formats they are also written in.
    add(field("--rounds", "rounds", &RunOptions::rounds,
              "Run each scenario this many times, each in a fresh worker, the variants of a benchmark "
              "interleaved in rotating order; samples are pooled, and a comparison judges by rounds")
            .in(in_run)
            .range(1, 1000)
            .described("rounds"));
    add(field("--rounds", "", &RunOptions::rounds,
              "Pairs of rounds every scenario runs, a round of each side back to back in fresh workers, "
              "alternating which goes first (default 6, the fewest with a 95% interval)")
            .in(in_pairs)
            .range(2, 1000));
    add(field("--baseline", "", &RunOptions::baseline,
              "After the run, compare it with this earlier run folder (as `benchhost compare`)")
            .in(in_run)
            .checked(OptionCheck::existing_path)
            .described("baseline"));
    {
        RunOption history = field("--history", "history", &RunOptions::history,
                                  "Record the run, when it ends, in this history (an SQLite file, made when missing, "
                                  "or postgresql://HOST[:PORT]/DATABASE); `benchhost history` reads it");
        history.set = [](RunOptions& options, const OptionValue& value, const OptionSource& source) {
            const std::string& location = std::get<std::string>(value);
            if (location.empty())
                throw ConfigError(source.command_line() ? "--history: an empty location (an SQLite file)"
                                                        : source.at + ": history: an empty location (an SQLite file)");
            options.history = location;
        };
        add(std::move(history).in(in_run).described("history"));
    }
    add(field("--history-samples", "history_samples", &RunOptions::history_samples,
              "With --history: record the raw samples too")
            .in(in_run)
            .described("history_samples"));
    add(comparing(relative("--threshold", &RunOptions::regression_threshold, 100,
                           "a change smaller than this is not a regression (default 5%)"))
            .described_with_baseline("regression_threshold"));
    add(comparing(field("--fail-on-regression", "", &RunOptions::fail_on_regression,
                        "exit 1 when a scenario is slower by more than --threshold (not when inconclusive)"))
            .described_with_baseline("fail_on_regression"));
    add(field("--confirm", "", &RunOptions::confirm,
              "With --baseline: run a scenario found slower this many more rounds before the verdict stands; the "
              "comparison shows the first figures beside the confirmed ones")
            .for_pairs("Run a scenario found slower this many more pairs before the verdict stands; the comparison "
                       "shows the first figures beside the confirmed ones; one left inconclusive runs more pairs, "
                       "within --max-rounds")
            .range(1, 1000)
            .described_with_baseline("confirm"));
    add(comparing(relative("--noise-floor", &RunOptions::noise_floor, 100,
                           "how far apart single runs of the same build can be (default 10%): with one run a side, "
                           "a change within it is inconclusive"))
            .described_with_baseline("noise_floor"));
    {
        RunOption format = field("--format", "", &RunOptions::extra_formats,
                                 "Also write the results in this format: {formats}; repeatable");
        format.commas = true;
        add(std::move(format).checked(OptionCheck::format_name).described("formats"));
    }

    // What each scenario runs with: the model, the axes and parameters, the worker's
    // limits, the GPU's clocks and the monitors.
    add(setting("--num-tokens-to-generate", "num_tokens_to_generate", &ScenarioSettings::num_tokens_to_generate,
                "Tokens generative models produce")
            .range(1, 1000000)
            .described("num_tokens_to_generate"));
    add(setting("--model-id", "model_id", &ScenarioSettings::model_id,
                "Model configuration for plugins that offer several (e.g. gpt2, gpt2-tiny)")
            .described("model_id"));
    {
        RunOption model_path =
            declared("--model-path", "", T::text, "A model file for plugins that load one (torchscript_model)");
        model_path.set_scenario = [](ScenarioSettings& settings, const OptionValue& value, const OptionSource&) {
            settings.params.set("model_path", std::get<std::string>(value));
        };
        add(std::move(model_path).checked(OptionCheck::existing_file));
    }
    add(axis_option("--variants", "variant", "Variants: eager, compiled, kernelized (comma-separated)"));
    add(axis_option("--batch-sizes", "batch_size", "Batch sizes (comma-separated)"));
    add(axis_option("--dtypes", "dtype", "Data types: float32, bfloat16, float16, ... (comma-separated)"));
    add(axis_option("--devices", "device", "Devices: auto, cpu, cuda, cuda:N (comma-separated)"));
    add(axis_option("--threads", "threads", "Intra-op thread counts, 0 for the library default (comma-separated)"));
    add(axis_option("--compile-modes", "compile_mode", "Compile modes of the compiled variant (comma-separated)"));
    add(axis_option("--world-sizes", "world_size",
                    "Ranks of each distributed benchmark, one scenario per value (comma-separated); other benchmarks "
                    "ignore it"));
    add(field("--timeout", "timeout", &RunOptions::timeout_s,
              "Seconds a scenario may run before its worker is killed; 0: no limit")
            .non_negative("seconds >= 0")
            .described("timeout_s"));
    add(field("--memory-limit", "memory_limit", &RunOptions::memory_limit_mib,
              "MiB of memory a worker may use: a memory cgroup of its own where the host can make one (what the "
              "kernel charges it, swap excluded), else RLIMIT_DATA (heap and private writable mappings); never "
              "reserved address space. Past it the scenario fails as out of memory, naming the limit")
            .range(0, 1 << 30)
            .described("memory_limit_mib"));  // and memory_limit_by: commands/run_setup.cpp
    {
        RunOption lock = field("--lock-clocks", "lock_clocks", &RunOptions::lock_clocks,
                               "Lock the SM clock of the GPUs the scenarios run on for the whole run, and unlock "
                               "them at its end: base (the GPU's base clock, which it sustains) or MHz; needs root");
        lock.check.problem = clock_setting_problem;
        lock.describe = [](const RunOptions& options) -> std::optional<std::string> {
            return options.lock_clocks.empty() ? "no" : options.lock_clocks;
        };
        add(std::move(lock).described("lock_clocks"));
    }
    add(field("--monitor-interval", "monitor_interval", &RunOptions::monitor_interval_ms,
              "Milliseconds between samples of the GPU and CPU monitors (default 50); 0: no monitoring")
            .range(0.0, 3600000.0, "milliseconds >= 0 (0: no monitoring)")
            .described("monitor_interval_ms"));
    {
        RunOption param = declared("--param", "", T::list,
                                   "A plugin parameter KEY=VALUE (VALUE may be a comma-separated list, passed whole "
                                   "to every scenario; to run one scenario per value, use --axis); repeatable");
        param.set_scenario = [](ScenarioSettings& settings, const OptionValue& value, const OptionSource& source) {
            for (const std::string& given : std::get<std::vector<std::string>>(value)) {
                auto [key, values] = param_of(source.option, given);
                settings.params.set(key, values);
            }
        };
        add(std::move(param));
    }
    {
        RunOption axis = declared("--axis", "", T::list,
                                  "A custom axis NAME=V1,V2: one scenario per value for plugins that declare NAME in "
                                  "their axes, each value passed as the parameter NAME (as the YAML's axes:); "
                                  "repeatable");
        axis.set_scenario = [](ScenarioSettings& settings, const OptionValue& value, const OptionSource&) {
            for (const std::string& given : std::get<std::vector<std::string>>(value)) {
                auto [name, values] = custom_axis(given);  // a name given twice: the last one counts
                settings.axes[name] = std::move(values);
                settings.axis_origins[name] = "--axis " + name;
            }
        };
        add(std::move(axis));
    }
    // The YAML's own: a custom axis per key, free-form parameters, settings per plugin
    // (config/run_config.cpp reads them).
    add(declared("", "axes", T::list, ""));
    add(declared("", "params", T::list, ""));
    add(declared("", "plugins", T::list, ""));

    // The serving load (docs/serving.md); the record describes it whole (describe_load).
    add(load_option("--load", "load", "MODE",
                    "Run the benchmarks that serve (ctx.serve) under this load: single-stream (one query after "
                    "another, p90), multi-stream (queries of --samples-per-query samples, p99), server (arrivals at "
                    "--target-qps or --concurrency clients, queued, p99) or offline (every query at once, "
                    "throughput)",
                    [](auto& load, auto& where, auto& text) { load.mode = load_mode_value(where, text); }));
    add(load_option("--queries", "queries", "N",
                    "With --load: queries to issue (default " + std::to_string(bench::default_queries) + ")",
                    [](auto& load, auto& where, auto& text) { load.queries = count_value(where, text, 1); }));
    add(load_option("--min-duration", "min_duration", "SECONDS",
                    "With --load: seconds the load lasts at least, issuing more than --queries if need be",
                    [](auto& load, auto& where, auto& text) { load.min_duration_s = seconds_value(where, text); }));
    add(load_option("--samples-per-query", "samples_per_query", "N",
                    "With --load multi-stream: samples in each query (default " +
                        std::to_string(bench::default_samples_per_query) + ")",
                    [](auto& load, auto& where, auto& text) {
                        load.samples_per_query = static_cast<int>(count_value(where, text, 1));
                    }));
    add(load_option("--target-qps", "target_qps", "QPS",
                    "With --load server: the arrival rate, queries/s (above 0), of a seeded Poisson process, or a "
                    "gamma one with --burstiness",
                    [](auto& load, auto& where, auto& text) { load.target_qps = rate_value(where, text); }));
    add(load_option("--burstiness", "burstiness", "SHAPE",
                    "With --target-qps: the gamma shape of the gaps between arrivals (default 1: Poisson; below 1: "
                    "burstier)",
                    [](auto& load, auto& where, auto& text) { load.burstiness = burstiness_value(where, text); }));
    add(load_option(
        "--concurrency", "concurrency", "N",
        "With --load server, instead of --target-qps: this many closed-loop clients, each issuing its "
        "next query as its last one completes",
        [](auto& load, auto& where, auto& text) { load.concurrency = static_cast<int>(count_value(where, text, 1)); }));
    add(load_option(
        "--late-tolerance", "late_tolerance", "DURATION",
        "With --load: a query issued more than this after its scheduled time counts as late (default 1ms)",
        [](auto& load, auto& where, auto& text) { load.late_tolerance_ms = duration_ms_value(where, text); }));
    add(load_option("--load-seed", "load_seed", "N", "With --target-qps: the seed of the arrival times (default 1)",
                    [](auto& load, auto& where, auto& text) {
                        load.seed = static_cast<std::uint64_t>(count_value(where, text, 0));
                    }));
    add(load_option("--slo", "slo", "[pNN:]METRIC=DURATION,...",
                    "With --load: the bounds a query must meet to count in the goodput, METRIC=DURATION with a "
                    "unit, comma-separated; metrics latency, ttft, tpot, itl (e.g. latency=200ms or "
                    "ttft=500ms,tpot=50ms); with --find-peak, pNN: before them names the percentile each rate is "
                    "judged by (default p99)",
                    [](auto& load, auto& where, auto& text) { slo_value(where, text, load); }));
    {
        RunOption find_peak = declared(
            "--find-peak", "find_peak", T::flag,
            "With --load server and --slo: search the highest rate of arrivals whose p99 (or the --slo's pNN) of "
            "each bounded metric meets its bound, doubling the rate until one fails, then a binary search "
            "(docs/serving.md)");
        find_peak.set = [](RunOptions& options, const OptionValue& value, const OptionSource&) {
            options.load.find_peak = std::get<bool>(value);
        };
        add(std::move(find_peak));
    }
    add(load_option(
        "--max-batch", "max_batch", "N",
        "With --load: the most queries a benchmark that batches (ctx.serve_batches, ctx.serve_steps) "
        "serves together (default 1: no batching)",
        [](auto& load, auto& where, auto& text) { load.max_batch = static_cast<int>(count_value(where, text, 1)); }));
    add(load_option(
        "--max-batch-wait", "max_batch_wait", "DURATION",
        "With --max-batch: how long a batch that is not full waits for more queries after its first, "
        "while arrivals may come (default 0: it does not wait)",
        [](auto& load, auto& where, auto& text) { load.max_batch_wait_ms = duration_ms_value(where, text); }));
    add(load_option(
        "--peak-precision", "peak_precision", "FRACTION",
        "With --find-peak: end when the lowest rate that failed is within this of the highest that "
        "passed (default 5%)",
        [](auto& load, auto& where, auto& text) { load.peak_precision = peak_precision_value(where, text); }));

    // How the host goes about the run: which plugins it loads, resuming, sharding, what it
    // prints, isolation.
    add(field("--retry-failed", "", &RunOptions::retry_failed, "Load plugins remembered as crashing while loading")
            .described("retry_failed"));
    add(field("--allow-untrusted-plugins", "", &RunOptions::allow_untrusted,
              "Load plugins from folders or files that others than their owner can write")
            .described("allow_untrusted_plugins"));
    {
        RunOption resume = field("--resume", "", &RunOptions::resume_dir,
                                 "Continue the interrupted run in this folder: scenarios it already reported are not "
                                 "run again");
        resume.set = [](RunOptions& options, const OptionValue& value, const OptionSource&) {
            options.resume_dir = std::get<std::string>(value);
            options.output_dir = options.resume_dir;  // it writes into the folder it resumes
        };
        add(std::move(resume).in(in_run).checked(OptionCheck::existing_folder).described("resumed_from"));
    }
    add(field("--shard", "", &RunOptions::shard,
              "Run only part K of N of the plan (K/N, 1-based), or `slurm` to take K and N from the SLURM job array "
              "(SLURM_ARRAY_TASK_ID, _MIN, _COUNT); `benchhost merge` joins the shards' folders")
            .in(in_run)
            .described("shard"));
    add(field("--shard-costs", "", &RunOptions::shard_costs,
              "With --shard: an earlier run folder whose scenario times balance the shards (the same on every shard)")
            .in(in_run)
            .checked(OptionCheck::existing_path)
            .described("shard_costs"));
    add(field("--dry-run", "", &RunOptions::dry_run, "Print the scenarios the run would execute, and run nothing"));
    add(field("--allow-empty", "allow_empty", &RunOptions::allow_empty,
              "A plan with no scenarios (filters that match nothing, no plugins) is a success, not exit 1"));
    add(field("--quiet,-q", "", &RunOptions::quiet,
              "Print only warnings, errors and the summary: no progress, no informational lines"));
    add(enum_field("--isolation", "isolation", &RunOptions::isolation,
                   {{"process", Isolation::process}, {"none", Isolation::none}},
                   "process: each scenario in a worker process; none: in the host (for gdb)")
            .in(in_run)
            .described("isolation"));
    add(enum_field("--worker-preload", "worker_preload", &RunOptions::worker_preload, {{"on", true}, {"off", false}},
                   "on: a worker of a plugin that links LibTorch, or imports torch or torchvision, is forked from a "
                   "process that loaded them (once a run), instead of loading them itself; off: every worker "
                   "loads its own")
            .described("worker_preload"));
    add(enum_field("--launcher", "launcher", &RunOptions::launcher,
                   {{"local", Launcher::local}, {"slurm", Launcher::slurm}},
                   "How a distributed scenario's ranks start: local (on this machine) or slurm "
                   "(srun, one task per rank, inside the current SLURM allocation)")
            .in(in_run)
            .described("launcher"));
    add(field("--log-level", "log_level", &RunOptions::log_level, "trace, debug, info, warn, error, critical or off")
            .one_of({"trace", "debug", "info", "warn", "error", "critical", "off"}));
    return table;
}

}  // namespace

const std::string& RunOption::help_of(RunMode mode) const {
    if (mode == RunMode::bisect && !bisect_help.empty()) return bisect_help;
    if (mode != RunMode::run && !ab_help.empty()) return ab_help;
    return help;
}

RunOption&& RunOption::in(unsigned commands_having_it) && {
    commands = commands_having_it;
    return std::move(*this);
}

RunOption&& RunOption::range(double from, double to, std::string expected) && {
    check.kind = OptionCheck::range;
    check.low = from;
    check.high = to;
    expects = std::move(expected);
    return std::move(*this);
}

RunOption&& RunOption::non_negative(std::string expected) && {
    check.kind = OptionCheck::non_negative;
    expects = std::move(expected);
    return std::move(*this);
}

RunOption&& RunOption::one_of(std::vector<std::string> values) && {
    check.kind = OptionCheck::one_of;
    check.choices = std::move(values);
    return std::move(*this);
}

RunOption&& RunOption::checked(OptionCheck::Kind kind) && {
    check.kind = kind;
    return std::move(*this);
}

RunOption&& RunOption::for_pairs(std::string ab, std::string bisect) && {
    ab_help = std::move(ab);
    bisect_help = std::move(bisect);
    return std::move(*this);
}

RunOption&& RunOption::described(std::string record_key) && {
    describe_key = std::move(record_key);
    return std::move(*this);
}

RunOption&& RunOption::described_with_baseline(std::string record_key) && {
    describe_key = std::move(record_key);
    describe = [text = std::move(describe)](const RunOptions& options) -> std::optional<std::string> {
        if (!options.baseline) return std::nullopt;
        return text(options);
    };
    return std::move(*this);
}

const std::vector<RunOption>& run_option_table() {
    static const std::vector<RunOption> table = make_table();
    return table;
}

const RunOption* run_option_of_key(const std::string& key) {
    if (key.empty()) return nullptr;
    for (const RunOption& option : run_option_table())
        if (option.key == key) return &option;
    return nullptr;
}

const std::vector<std::string>& scenario_config_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> out;
        for (const RunOption& option : run_option_table())
            if (!option.key.empty() && option.scenario()) out.push_back(option.key);
        return out;
    }();
    return keys;
}

const std::vector<std::string>& config_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> out = scenario_config_keys();
        for (const RunOption& option : run_option_table())
            if (!option.key.empty() && !option.scenario()) out.push_back(option.key);
        return out;
    }();
    return keys;
}

}  // namespace benchhost
