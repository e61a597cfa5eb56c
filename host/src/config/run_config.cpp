#include "config/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include <bench/internal/monitors/gpu_clocks.hpp>
#include <bench/internal/params/axes.hpp>

#include "config/load_options.hpp"
#include "util/text_file.hpp"

namespace benchhost {

namespace {

const std::map<std::string, std::string> axis_keys = {{"variants", "variant"}, {"batch_sizes", "batch_size"},
                                                      {"dtypes", "dtype"},     {"devices", "device"},
                                                      {"threads", "threads"},  {"compile_modes", "compile_mode"}};

const std::vector<std::string> scenario_keys = {"warmup_iterations",
                                                "measurement_iterations",
                                                "num_tokens_to_generate",
                                                "model_id",
                                                "axes",
                                                "params",
                                                "variants",
                                                "batch_sizes",
                                                "dtypes",
                                                "devices",
                                                "threads",
                                                "compile_modes",
                                                "min_time",
                                                "max_time",
                                                "target_ci_width",
                                                "compile_timeout",
                                                "timer",
                                                "cache",
                                                "discard_throttled",
                                                "throttle_cooldown"};
const std::vector<std::string> run_keys = {
    "plugins_dir",    "output_dir",        "include",    "exclude",      "categories",
    "enable_mock",    "profile",           "timeout",    "memory_limit", "monitor_interval",
    "lock_clocks",    "isolation",         "log_level",  "rounds",       "allow_empty",
    "history",        "history_samples",   "plugins",    "load",         "queries",
    "min_duration",   "samples_per_query", "target_qps", "burstiness",   "concurrency",
    "late_tolerance", "load_seed",         "slo",        "find_peak",    "peak_precision",
    "max_batch",      "max_batch_wait"};

/// Where a YAML node is, for messages: "file:line:column".
std::string where(const std::string& origin, const YAML::Node& node) {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return origin;
    return origin + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

[[noreturn]] void fail(const std::string& origin, const YAML::Node& node, const std::string& message) {
    throw ConfigError(where(origin, node) + ": " + message);
}

std::string scalar_text(const std::string& origin, const std::string& key, const YAML::Node& node) {
    if (!node.IsScalar()) fail(origin, node, "'" + key + "' must be a single value");
    return node.Scalar();
}

int int_value(const std::string& origin, const std::string& key, const YAML::Node& node, int minimum) {
    const std::string text = scalar_text(origin, key, node);
    auto parsed = bench::parse_int(text);
    if (!parsed) fail(origin, node, "'" + key + "' must be an integer, got '" + text + "'");
    if (*parsed < minimum || *parsed > 100'000'000)
        fail(origin, node, "'" + key + "' must be at least " + std::to_string(minimum) + ", got " + text);
    return static_cast<int>(*parsed);
}

bool bool_value(const std::string& origin, const std::string& key, const YAML::Node& node) {
    const std::string text = scalar_text(origin, key, node);
    auto parsed = bench::parse_bool(text);
    if (!parsed) fail(origin, node, "'" + key + "' must be true or false, got '" + text + "'");
    return *parsed;
}

/// A scalar or a list of scalars, as a list.
std::vector<std::string> list_value(const std::string& origin, const std::string& key, const YAML::Node& node) {
    std::vector<std::string> values;
    if (node.IsScalar()) {
        values.push_back(node.Scalar());
    } else if (node.IsSequence()) {
        for (const YAML::Node& item : node) {
            if (!item.IsScalar()) fail(origin, item, "'" + key + "' must be a list of plain values");
            values.push_back(item.Scalar());
        }
    } else if (!node.IsNull()) {
        fail(origin, node, "'" + key + "' must be a value or a list of values");
    }
    return values;
}

void check_key(const std::string& origin, const YAML::Node& key_node, const std::string& key,
               const std::vector<std::string>& allowed, const std::string& section) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) return;
    std::string message = "unknown key '" + key + "'" + (section.empty() ? "" : " in " + section);
    const std::string suggestion = nearest_word(key, allowed);
    message += suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)";
    fail(origin, key_node, message);
}

/// Limits on params, found by tests/fuzz. YAML aliases let a small file name the same map
/// exponentially often ("a: &a {x: 1, y: 1}, b: &b {p: *a, q: *a}, c: {p: *b, q: *b}, ...",
/// each level doubling the work: 24 levels in 700 bytes kept the loader busy past the
/// fuzzer's 10 s limit), and an alias may name the map it is in ("a: &a {p: *a}"), which
/// recursed until the stack overflowed.
constexpr std::size_t max_params_entries = 10'000;  // in the whole file, nested maps included
constexpr int max_params_depth = 32;

/// Flattens a params map: nested maps become "outer.inner". `entries_left` counts down
/// across the whole file.
void read_params(const std::string& origin, const YAML::Node& node, const std::string& prefix, bench::Params& params,
                 std::size_t& entries_left, int depth = 0) {
    if (!node.IsMap()) fail(origin, node, "'" + (prefix.empty() ? std::string("params") : prefix) + "' must be a map");
    if (depth > max_params_depth)
        fail(origin, node,
             "'" + prefix + "' nests maps more than " + std::to_string(max_params_depth) +
                 " deep (a YAML alias inside the map it names?)");
    for (const auto& entry : node) {
        if (entries_left == 0)
            fail(origin, entry.first,
                 "more than " + std::to_string(max_params_entries) +
                     " params entries (YAML aliases that nest each other?)");
        --entries_left;
        const std::string key = prefix.empty() ? entry.first.Scalar() : prefix + "." + entry.first.Scalar();
        if (entry.second.IsMap()) read_params(origin, entry.second, key, params, entries_left, depth + 1);
        else params.set(key, list_value(origin, key, entry.second));
    }
}

/// Reads one key of the serving load into `load`; false when `key` is not one.
bool read_load_key(const std::string& origin, const std::string& key, const YAML::Node& value,
                   bench::LoadConfig& load) {
    const std::string at = where(origin, value) + ": '" + key + "'";
    if (key == "slo" && value.IsMap()) {  // slo: {ttft: 500ms, tpot: 50ms[, percentile: p95]}
        std::string text, percentile;
        for (const auto& entry : value) {
            if (entry.first.Scalar() == "percentile") {
                percentile = scalar_text(origin, key, entry.second) + ":";
                continue;
            }
            text += (text.empty() ? "" : ",") + entry.first.Scalar() + "=" + scalar_text(origin, key, entry.second);
        }
        slo_value(at, percentile + text, load);
        return true;
    }
    if (key == "find_peak") {
        load.find_peak = bool_value(origin, key, value);
        return true;
    }
    if (key != "load" && key != "queries" && key != "min_duration" && key != "samples_per_query" &&
        key != "target_qps" && key != "burstiness" && key != "concurrency" && key != "late_tolerance" &&
        key != "load_seed" && key != "slo" && key != "peak_precision" && key != "max_batch" && key != "max_batch_wait")
        return false;
    const std::string text = scalar_text(origin, key, value);
    if (key == "load") load.mode = load_mode_value(at, text);
    else if (key == "queries") load.queries = count_value(at, text, 1);
    else if (key == "min_duration") load.min_duration_s = seconds_value(at, text);
    else if (key == "samples_per_query") load.samples_per_query = static_cast<int>(count_value(at, text, 1));
    else if (key == "target_qps") load.target_qps = rate_value(at, text);
    else if (key == "burstiness") load.burstiness = burstiness_value(at, text);
    else if (key == "concurrency") load.concurrency = static_cast<int>(count_value(at, text, 1));
    else if (key == "late_tolerance") load.late_tolerance_ms = duration_ms_value(at, text);
    else if (key == "load_seed") load.seed = static_cast<std::uint64_t>(count_value(at, text, 0));
    else if (key == "peak_precision") load.peak_precision = peak_precision_value(at, text);
    else if (key == "max_batch") load.max_batch = static_cast<int>(count_value(at, text, 1));
    else if (key == "max_batch_wait") load.max_batch_wait_ms = duration_ms_value(at, text);
    else slo_value(at, text, load);
    return true;
}

/// Reads one scenario key into `settings`; false when `key` is not a scenario key.
bool read_scenario_key(const std::string& origin, const std::string& key, const YAML::Node& value,
                       ScenarioSettings& settings, std::size_t& params_entries_left) {
    if (key == "warmup_iterations") {
        settings.warmup_iterations = int_value(origin, key, value, 0);
    } else if (key == "measurement_iterations") {
        settings.measurement_iterations = int_value(origin, key, value, 1);
    } else if (key == "num_tokens_to_generate") {
        settings.num_tokens_to_generate = int_value(origin, key, value, 1);
    } else if (key == "model_id") {
        settings.model_id = scalar_text(origin, key, value);
    } else if (key == "min_time" || key == "max_time" || key == "compile_timeout" || key == "throttle_cooldown") {
        const std::string text = scalar_text(origin, key, value);
        const auto seconds = bench::parse_double(text);
        if (!seconds || !(*seconds >= 0) || *seconds > 86'400)
            fail(origin, value, "'" + key + "' must be seconds between 0 and 86400, got '" + text + "'");
        (key == "min_time"          ? settings.min_time_s
         : key == "max_time"        ? settings.max_time_s
         : key == "compile_timeout" ? settings.compile_timeout_s
                                    : settings.throttle_cooldown_s) = *seconds;
    } else if (key == "discard_throttled") {
        settings.discard_throttled = bool_value(origin, key, value);
    } else if (key == "timer" || key == "cache") {
        const std::string text = scalar_text(origin, key, value);
        if (const std::string problem = timer_or_cache_problem(key, text); !problem.empty())
            fail(origin, value, problem);
        (key == "timer" ? settings.timer : settings.cache) = text;
    } else if (key == "target_ci_width") {
        const std::string text = scalar_text(origin, key, value);
        const auto width = parse_relative(text);
        if (!width || *width >= 1)
            fail(origin, value,
                 "'target_ci_width' must be a relative width such as 1% or 0.01 (below 100%), got '" + text + "'");
        settings.target_ci_width = *width;
    } else if (key == "params") {
        read_params(origin, value, "", settings.params, params_entries_left);
    } else if (key == "axes") {
        if (!value.IsMap()) fail(origin, value, "'axes' must map axis names to lists of values");
        for (const auto& axis : value) {
            const std::string name = axis.first.Scalar();
            if (bench::is_builtin_axis(name))
                fail(origin, axis.first,
                     "'" + name + "' is a built-in axis: set it with '" + axis_config_key(name) + "'");
            settings.axes[name] = list_value(origin, name, axis.second);
            if (settings.axes[name].empty()) fail(origin, axis.second, "axis '" + name + "' has no values");
            settings.axis_origins[name] = where(origin, axis.second);
        }
    } else if (auto it = axis_keys.find(key); it != axis_keys.end()) {
        std::vector<std::string> values = list_value(origin, key, value);
        if (values.empty()) fail(origin, value, "'" + key + "' needs at least one value");
        try {
            validate_axis_values(it->second, values, "");
        } catch (const ConfigError& e) {
            fail(origin, value, "'" + key + "': " + e.what());
        }
        settings.axes[it->second] = std::move(values);
        settings.axis_origins[it->second] = where(origin, value);
    } else {
        return false;
    }
    return true;
}

}  // namespace

std::string timer_or_cache_problem(const std::string& key, const std::string& value) {
    if (key == "timer" && value != "auto" && value != "host" && value != "cuda-events")
        return "'timer' must be auto, host or cuda-events, got '" + value + "'";
    if (key == "cache" && value != "warm" && value != "cold")
        return "'cache' must be warm or cold, got '" + value + "'";
    return "";
}

std::optional<double> parse_relative(std::string_view text) {
    bool percent = false;
    if (!text.empty() && text.back() == '%') {
        percent = true;
        text.remove_suffix(1);
    }
    const auto value = bench::parse_double(text);
    if (!value || !(*value >= 0) || !std::isfinite(*value)) return std::nullopt;
    return percent ? *value / 100 : *value;
}

void ScenarioSettings::overlay(const ScenarioSettings& over) {
    if (over.warmup_iterations) warmup_iterations = over.warmup_iterations;
    if (over.measurement_iterations) measurement_iterations = over.measurement_iterations;
    if (over.num_tokens_to_generate) num_tokens_to_generate = over.num_tokens_to_generate;
    if (over.model_id) model_id = over.model_id;
    if (over.min_time_s) min_time_s = over.min_time_s;
    if (over.max_time_s) max_time_s = over.max_time_s;
    if (over.target_ci_width) target_ci_width = over.target_ci_width;
    if (over.compile_timeout_s) compile_timeout_s = over.compile_timeout_s;
    if (over.timer) timer = over.timer;
    if (over.cache) cache = over.cache;
    if (over.discard_throttled) discard_throttled = over.discard_throttled;
    if (over.throttle_cooldown_s) throttle_cooldown_s = over.throttle_cooldown_s;
    for (const auto& [axis, values] : over.axes) {
        axes[axis] = values;
        if (auto origin = over.axis_origins.find(axis); origin != over.axis_origins.end())
            axis_origins[axis] = origin->second;
        else axis_origins.erase(axis);
    }
    for (const auto& [key, values] : over.params.all()) params.set(key, values);
}

std::string ScenarioSettings::axis_origin(const std::string& axis) const {
    const auto it = axis_origins.find(axis);
    return it == axis_origins.end() ? std::string() : it->second;
}

ScenarioSettings RunOptions::effective_for(const std::string& plugin) const {
    ScenarioSettings settings = defaults;
    settings.overlay(config);
    if (auto it = plugin_settings.find(plugin); it != plugin_settings.end()) settings.overlay(it->second);
    settings.overlay(command_line);
    return settings;
}

ScenarioSettings builtin_scenario_defaults() {
    const bench::ScenarioConfig reference;
    ScenarioSettings s;
    s.warmup_iterations = reference.warmup_iterations;
    s.measurement_iterations = reference.measurement_iterations;
    s.num_tokens_to_generate = reference.num_tokens_to_generate;
    s.axes["variant"] = {"eager", "compiled", "kernelized"};
    s.axes["batch_size"] = {std::to_string(reference.batch_size)};
    s.axes["dtype"] = {reference.dtype};
    s.axes["device"] = {reference.device};
    s.axes["threads"] = {std::to_string(reference.threads)};
    s.axes["compile_mode"] = {reference.compile_mode};
    return s;
}

void validate_axis_values(const std::string& axis, const std::vector<std::string>& values, const std::string& prefix) {
    bench::ScenarioConfig scratch;
    for (const std::string& value : values) {
        try {
            bench::apply_axis_value(scratch, axis, value);
        } catch (const std::invalid_argument& e) {
            throw ConfigError(prefix + e.what());
        }
    }
}

std::string axis_config_key(const std::string& axis) {
    for (const auto& [key, name] : axis_keys)
        if (name == axis) return key;
    return axis;
}

void load_config_text(std::string_view yaml, const std::string& origin, RunOptions& options) {
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml));
    } catch (const YAML::Exception& e) {
        throw ConfigError(origin + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                          ": invalid YAML: " + e.msg);
    }
    if (root.IsNull()) return;  // an empty file configures nothing
    if (!root.IsMap()) fail(origin, root, "the config must be a map of keys to values");

    std::vector<std::string> allowed = scenario_keys;
    allowed.insert(allowed.end(), run_keys.begin(), run_keys.end());
    std::size_t params_entries_left = max_params_entries;
    try {
        for (const auto& entry : root) {
            const std::string key = entry.first.Scalar();
            const YAML::Node& value = entry.second;
            check_key(origin, entry.first, key, allowed, "");
            if (read_scenario_key(origin, key, value, options.config, params_entries_left)) continue;
            if (read_load_key(origin, key, value, options.load)) continue;
            if (key == "plugins_dir") {
                // A folder, several separated by ':', or a list; an empty entry: the default folders.
                options.plugins_dirs = {
                    plugin_folder_list(list_value(origin, key, value), default_plugin_folders().paths), origin};
                if (options.plugins_dirs.paths.empty()) fail(origin, value, "'plugins_dir' names no folder");
            } else if (key == "output_dir") {
                options.output_dir = scalar_text(origin, key, value);
            } else if (key == "include") {
                options.include = list_value(origin, key, value);
            } else if (key == "exclude") {
                options.exclude = list_value(origin, key, value);
            } else if (key == "categories") {
                options.categories = list_value(origin, key, value);
                for (const std::string& category : options.categories)
                    if (category != "unit" && category != "integration" && category != "performance")
                        fail(origin, value,
                             "unknown category '" + category + "' (expected unit, integration or performance)");
            } else if (key == "enable_mock") {
                options.enable_mock = bool_value(origin, key, value);
            } else if (key == "profile") {
                options.profile = bool_value(origin, key, value);
            } else if (key == "allow_empty") {
                options.allow_empty = bool_value(origin, key, value);
            } else if (key == "history") {
                options.history = scalar_text(origin, key, value);
                if (options.history->empty()) fail(origin, value, "history: an empty location (an SQLite file)");
            } else if (key == "history_samples") {
                options.history_samples = bool_value(origin, key, value);
            } else if (key == "timeout") {
                const std::string text = scalar_text(origin, key, value);
                auto seconds = bench::parse_double(text);
                if (!seconds || *seconds < 0) fail(origin, value, "'timeout' must be seconds >= 0, got '" + text + "'");
                options.timeout_s = *seconds;
            } else if (key == "monitor_interval") {
                const std::string text = scalar_text(origin, key, value);
                auto ms = bench::parse_double(text);
                if (!ms || !(*ms >= 0) || *ms > 3'600'000)
                    fail(origin, value,
                         "'monitor_interval' must be milliseconds >= 0 (0: no monitoring), got '" + text + "'");
                options.monitor_interval_ms = *ms;
            } else if (key == "rounds") {
                options.rounds = int_value(origin, key, value, 1);
            } else if (key == "memory_limit") {
                options.memory_limit_mib = static_cast<std::size_t>(int_value(origin, key, value, 0));
            } else if (key == "lock_clocks") {
                const std::string text = scalar_text(origin, key, value);
                try {
                    bench::check_clock_setting(text);
                } catch (const std::invalid_argument& e) {
                    fail(origin, value, std::string("'lock_clocks': ") + e.what());
                }
                options.lock_clocks = text;
            } else if (key == "isolation") {
                const std::string text = scalar_text(origin, key, value);
                if (text == "process") options.isolation = Isolation::process;
                else if (text == "none") options.isolation = Isolation::none;
                else fail(origin, value, "'isolation' must be process or none, got '" + text + "'");
            } else if (key == "log_level") {
                const std::string text = scalar_text(origin, key, value);
                static const std::vector<std::string> levels = {"trace", "debug",    "info", "warn",
                                                                "error", "critical", "off"};
                if (std::find(levels.begin(), levels.end(), text) == levels.end())
                    fail(origin, value,
                         "'log_level' must be one of trace, debug, info, warn, error, critical, off; got '" + text +
                             "'");
                options.log_level = text;
            } else if (key == "plugins") {
                if (!value.IsMap()) fail(origin, value, "'plugins' must map plugin names to their settings");
                for (const auto& plugin : value) {
                    const std::string name = plugin.first.Scalar();
                    if (!plugin.second.IsMap())
                        fail(origin, plugin.second, "settings of plugin '" + name + "' must be a map");
                    ScenarioSettings& settings = options.plugin_settings[name];
                    options.plugin_settings_where[name] = where(origin, plugin.first);
                    for (const auto& setting : plugin.second) {
                        const std::string setting_key = setting.first.Scalar();
                        check_key(origin, setting.first, setting_key, scenario_keys, "plugins." + name);
                        read_scenario_key(origin, setting_key, setting.second, settings, params_entries_left);
                    }
                }
            }
        }
    } catch (const YAML::Exception& e) {
        throw ConfigError(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
}

void load_config_file(const std::filesystem::path& file, RunOptions& options) {
    std::string text;
    try {
        text = read_text_file(file);
    } catch (const std::runtime_error& e) {
        throw ConfigError(e.what());  // "<file>: cannot be read: <why>"
    }
    load_config_text(text, file.string(), options);
    options.config_file = file;
}

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::size_t> row(b.size() + 1);
        for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (std::size_t i = 1; i <= a.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= b.size(); ++j) {
                const std::size_t above = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
                diagonal = above;
            }
        }
        return row[b.size()];
    };
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const std::string& candidate : candidates) {
        const std::size_t d = distance(word, candidate);
        if (d < best_distance) {
            best_distance = d;
            best = candidate;
        }
    }
    return best;
}

std::string_view to_string(Isolation isolation) { return isolation == Isolation::process ? "process" : "none"; }

}  // namespace benchhost
