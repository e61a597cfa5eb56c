#include "config/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include <bench/internal/params/axes.hpp>

#include "config/run_option_table.hpp"
#include "util/join.hpp"
#include "util/text_file.hpp"

namespace benchhost {

namespace {

const std::map<std::string, std::string> axis_keys = {
    {"variants", "variant"}, {"batch_sizes", "batch_size"},     {"dtypes", "dtype"},          {"devices", "device"},
    {"threads", "threads"},  {"compile_modes", "compile_mode"}, {"world_sizes", "world_size"}};

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

/// The number of a YAML key whose option takes one, checked as the option says.
double number_value(const RunOption& option, const std::string& origin, const YAML::Node& node) {
    const std::string text = scalar_text(origin, option.key, node);
    const auto number = bench::parse_double(text);
    const OptionCheck& check = option.check;
    const bool wrong = !number ||
                       (check.kind == OptionCheck::range && (!(*number >= check.low) || *number > check.high)) ||
                       (check.kind == OptionCheck::non_negative && *number < 0);
    if (wrong)
        fail(origin, node,
             "'" + option.key + "' must be " + (option.expects.empty() ? "a number" : option.expects) + ", got '" +
                 text + "'");
    return *number;
}

/// The value of a YAML key, of its option's type, checked as the option says.
OptionValue option_value(const RunOption& option, const std::string& origin, const YAML::Node& node) {
    const std::string& key = option.key;
    switch (option.yaml_list ? OptionType::list : option.type) {
        case OptionType::flag:
            return bool_value(origin, key, node);
        case OptionType::integer:
            return int_value(origin, key, node,
                             option.check.kind == OptionCheck::range ? static_cast<int>(option.check.low) : 0);
        case OptionType::number:
            return number_value(option, origin, node);
        case OptionType::list:
            return list_value(origin, key, node);
        case OptionType::text:
            break;
    }
    if (key == "slo" && node.IsMap()) {  // slo: {ttft: 500ms, tpot: 50ms[, percentile: p95]}
        std::string text, percentile;
        for (const auto& entry : node) {
            if (entry.first.Scalar() == "percentile") {
                percentile = scalar_text(origin, key, entry.second) + ":";
                continue;
            }
            text += (text.empty() ? "" : ",") + entry.first.Scalar() + "=" + scalar_text(origin, key, entry.second);
        }
        return percentile + text;
    }
    const std::string text = scalar_text(origin, key, node);
    const std::vector<std::string>& choices = option.check.choices;
    if (option.check.kind == OptionCheck::one_of && std::find(choices.begin(), choices.end(), text) == choices.end()) {
        std::string expected;
        for (std::size_t i = 0; i < choices.size(); ++i)
            expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        fail(origin, node, "'" + key + "' must be " + expected + ", got '" + text + "'");
    }
    if (option.check.problem)
        if (const std::string problem = option.check.problem(text); !problem.empty())
            fail(origin, node, "'" + key + "': " + problem);
    return text;
}

/// Reads one scenario key into `settings`; false when `key` is not a scenario key.
bool read_scenario_key(const std::string& origin, const std::string& key, const YAML::Node& value,
                       ScenarioSettings& settings, std::size_t& params_entries_left) {
    if (key == "params") {
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
    } else if (const RunOption* option = run_option_of_key(key); option && option->set_scenario) {
        option->set_scenario(settings, option_value(*option, origin, value), {key, where(origin, value), origin});
    } else {
        return false;
    }
    return true;
}

}  // namespace

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

double relative_option(const std::string& option, const std::string& text, double below) {
    const auto value = parse_relative(text);
    if (!value || *value >= below)
        throw ConfigError("option " + option + ": expected a relative amount such as 5% or 0.05, got '" + text + "'");
    return *value;
}

std::pair<std::string, std::vector<std::string>> param_of(const std::string& option, const std::string& param) {
    const auto equals = param.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("option " + option + ": '" + param + "' is not KEY=VALUE");
    return {param.substr(0, equals), split(param.substr(equals + 1))};
}

void ScenarioSettings::overlay(const ScenarioSettings& over) {
    for (const RunOption& option : run_option_table())
        if (option.overlay) option.overlay(*this, over);
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
    s.axes["world_size"] = {"1"};  // a distributed benchmark's ranks, unless it declares its own
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

    std::size_t params_entries_left = max_params_entries;
    try {
        for (const auto& entry : root) {
            const std::string key = entry.first.Scalar();
            const YAML::Node& value = entry.second;
            check_key(origin, entry.first, key, config_keys(), "");
            if (read_scenario_key(origin, key, value, options.config, params_entries_left)) continue;
            if (key == "plugins") {
                if (!value.IsMap()) fail(origin, value, "'plugins' must map plugin names to their settings");
                for (const auto& plugin : value) {
                    const std::string name = plugin.first.Scalar();
                    if (!plugin.second.IsMap())
                        fail(origin, plugin.second, "settings of plugin '" + name + "' must be a map");
                    ScenarioSettings& settings = options.plugin_settings[name];
                    options.plugin_settings_where[name] = where(origin, plugin.first);
                    for (const auto& setting : plugin.second) {
                        const std::string setting_key = setting.first.Scalar();
                        check_key(origin, setting.first, setting_key, scenario_config_keys(), "plugins." + name);
                        read_scenario_key(origin, setting_key, setting.second, settings, params_entries_left);
                    }
                }
            } else if (const RunOption* option = run_option_of_key(key); option && option->set) {
                option->set(options, option_value(*option, origin, value), {key, where(origin, value), origin});
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

}  // namespace benchhost
