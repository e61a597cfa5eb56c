#include "plan/plan.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include <bench/internal/axes.hpp>

namespace benchhost {

namespace {

bool matches_any(std::string_view id, const std::vector<std::string>& patterns) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return matches_pattern(id, p); });
}

bool contains(const std::vector<std::string>& items, std::string_view item) {
    return std::find(items.begin(), items.end(), item) != items.end();
}

/// Whether --include and --exclude select `id`; marks the include patterns it matched.
bool selected(const std::string& id, const RunOptions& options, std::vector<bool>& include_used) {
    bool included = options.include.empty();
    for (std::size_t i = 0; i < options.include.size(); ++i)
        if (matches_pattern(id, options.include[i])) include_used[i] = included = true;
    return included && !matches_any(id, options.exclude);
}

/// The scenario config before axes: identity and the plugin's settings.
bench::ScenarioConfig base_config(const DiscoveredPlugin& plugin, const DiscoveredBenchmark& benchmark,
                                  const ScenarioSettings& settings) {
    bench::ScenarioConfig config;
    config.category = plugin.category;
    config.plugin = plugin.name;
    config.benchmark = benchmark.name;
    config.scenario_name = benchmark.name;
    config.warmup_iterations = settings.warmup_iterations.value_or(config.warmup_iterations);
    config.measurement_iterations = settings.measurement_iterations.value_or(config.measurement_iterations);
    config.num_tokens_to_generate = settings.num_tokens_to_generate.value_or(config.num_tokens_to_generate);
    config.model_id = settings.model_id.value_or("");
    config.min_time_s = settings.min_time_s.value_or(0);
    config.max_time_s = settings.max_time_s.value_or(0);
    config.target_ci_width = settings.target_ci_width.value_or(0);
    config.params = settings.params;
    return config;
}

/// The axes a plugin's scenarios are expanded over: its declared axes that have
/// values, and custom axes set in its own section of the config.
std::vector<bench::Axis> expansion_axes(const DiscoveredPlugin& plugin, const ScenarioSettings& settings,
                                        const RunOptions& options) {
    std::vector<bench::Axis> axes;
    for (const std::string& axis : plugin.axes) {
        auto it = settings.axes.find(axis);
        if (it != settings.axes.end()) axes.push_back({axis, it->second});
    }
    if (auto own = options.plugin_settings.find(plugin.name); own != options.plugin_settings.end()) {
        for (const auto& [axis, values] : own->second.axes)
            if (!bench::is_builtin_axis(axis) && !contains(plugin.axes, axis)) axes.push_back({axis, values});
    }
    return axes;
}

}  // namespace

bool matches_pattern(std::string_view id, std::string_view pattern) {
    if (pattern.find_first_of("*?[") != std::string_view::npos)
        return fnmatch(std::string(pattern).c_str(), std::string(id).c_str(), 0) == 0;
    return id.find(pattern) != std::string_view::npos;
}

Plan make_plan(const Discovery& discovery, const RunOptions& options) {
    Plan plan;
    std::vector<std::string> all_ids;
    std::vector<bool> include_used(options.include.size(), false);
    std::set<std::string> ignored_values;  // plugin "\n" axis, warned about once

    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        if (!options.categories.empty() && !contains(options.categories, plugin.category)) continue;
        const ScenarioSettings settings = options.effective_for(plugin.name);

        for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) {
            const std::string id = plugin.id(benchmark);
            all_ids.push_back(id);
            if (!selected(id, options, include_used)) continue;

            bench::ScenarioConfig config = base_config(plugin, benchmark, settings);
            // Axes the plugin does not vary over still set its config: their first value.
            for (const auto& [axis, values] : settings.axes) {
                if (bench::is_builtin_axis(axis) && !values.empty() && !contains(plugin.axes, axis)) {
                    if (values.size() > 1 && ignored_values.insert(plugin.name + "\n" + axis).second) {
                        std::string listed;
                        for (const std::string& value : values) listed += (listed.empty() ? "" : ",") + value;
                        plan.warnings.push_back(plugin.name + " does not vary over " + axis + ": of " + listed +
                                                " only the first (" + values.front() + ") is used");
                    }
                    try {
                        bench::apply_axis_value(config, axis, values.front());
                    } catch (const std::invalid_argument& e) {
                        throw ConfigError(id + ": " + e.what());
                    }
                }
            }

            PlannedScenario planned{config, plugin.path, plugin.info.version, benchmark.symbol, {}, {}};
            planned.plugin_build = plugin.build();
            if (plugin.mock() && !options.enable_mock) {
                planned.skip_reason = "mock plugin: run with --enable-mock to include it";
                plan.scenarios.push_back(std::move(planned));
                continue;
            }
            for (const bench::AxisPoint& point : bench::cartesian_product(expansion_axes(plugin, settings, options))) {
                PlannedScenario scenario = planned;
                try {
                    scenario.config = bench::apply_axis_point(config, point);
                } catch (const std::invalid_argument& e) {
                    throw ConfigError(id + ": " + e.what());
                }
                scenario.config.scenario_name = bench::scenario_name(benchmark.name, point);
                plan.scenarios.push_back(std::move(scenario));
            }
        }
    }

    // Broken plugin files, selected like the benchmarks they would have had.
    for (const RejectedFile& file : discovery.rejected) {
        if (!file.is_broken_plugin()) continue;
        if (!options.categories.empty() && !contains(options.categories, file.category)) continue;
        bench::ScenarioConfig config;
        config.category = file.category;
        config.plugin = config.benchmark = config.scenario_name = file.plugin_name;
        const std::string id = config.benchmark_id();
        all_ids.push_back(id);
        if (!selected(id, options, include_used)) continue;
        PlannedScenario planned{config, file.path, "", "", "", {}};
        planned.reject_reason = file.path.string() + ": " + file.reason;
        plan.scenarios.push_back(std::move(planned));
    }

    for (std::size_t i = 0; i < options.include.size(); ++i) {
        if (include_used[i]) continue;
        std::string known;
        for (const std::string& id : all_ids) known += (known.empty() ? "" : ", ") + id;
        plan.warnings.push_back("--include '" + options.include[i] + "' matches no benchmark" +
                                (known.empty() ? std::string(" (no benchmarks were found)") : "; benchmarks are: " + known));
    }
    return plan;
}

bool differ_only_in_variant(const bench::ScenarioConfig& a, const bench::ScenarioConfig& b) {
    return a.category == b.category && a.plugin == b.plugin && a.benchmark == b.benchmark &&
           a.batch_size == b.batch_size && a.dtype == b.dtype && a.device == b.device && a.threads == b.threads &&
           a.num_tokens_to_generate == b.num_tokens_to_generate && a.model_id == b.model_id && a.params == b.params;
}

std::string variant_group_key(const bench::ScenarioConfig& c) {
    // Fields joined with a separator that no field contains ('\x1f', the unit separator),
    // and each param's values after its name; Params keeps its names in order.
    std::string key;
    const auto add = [&key](std::string_view field) {
        key += field;
        key += '\x1f';
    };
    add(c.category);
    add(c.plugin);
    add(c.benchmark);
    add(std::to_string(c.batch_size));
    add(c.dtype);
    add(c.device);
    add(std::to_string(c.threads));
    add(std::to_string(c.num_tokens_to_generate));
    add(c.model_id);
    for (const auto& [name, values] : c.params.all()) {
        add(name);
        for (const std::string& value : values) add(value);
        key += '\x1e';
    }
    return key;
}

std::vector<std::vector<std::size_t>> variant_groups(const Plan& plan) {
    std::vector<std::vector<std::size_t>> groups;
    std::unordered_map<std::string, std::size_t> group_of_key;
    for (std::size_t i = 0; i < plan.scenarios.size(); ++i) {
        const auto [it, inserted] = group_of_key.try_emplace(variant_group_key(plan.scenarios[i].config), groups.size());
        if (inserted) groups.emplace_back();
        groups[it->second].push_back(i);
    }
    return groups;
}

std::vector<std::size_t> execution_order(const Plan& plan, int rounds) {
    std::vector<std::size_t> order;
    if (rounds <= 1) {  // the plan's own order
        for (std::size_t i = 0; i < plan.scenarios.size(); ++i) order.push_back(i);
        return order;
    }
    const std::vector<std::vector<std::size_t>> groups = variant_groups(plan);
    order.reserve(plan.scenarios.size() * static_cast<std::size_t>(rounds));
    for (int round = 0; round < rounds; ++round) {
        for (const auto& group : groups) {
            for (std::size_t k = 0; k < group.size(); ++k)
                order.push_back(group[(k + static_cast<std::size_t>(round)) % group.size()]);
        }
    }
    return order;
}

}  // namespace benchhost
