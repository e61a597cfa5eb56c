#include "plan/plan.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <bench/internal/params/axes.hpp>

#include "util/id_pattern.hpp"
#include "util/join.hpp"

namespace benchhost {

namespace {

bool matches_any(std::string_view id, const std::vector<std::string>& patterns) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return matches_pattern(id, p); });
}

bool contains(const std::vector<std::string>& items, std::string_view item) {
    return std::find(items.begin(), items.end(), item) != items.end();
}

/// Whether --include and --exclude select `id`; marks the include patterns it matched,
/// and counts the id in the plan's selection figures.
bool benchmark_selected(const std::string& id, const RunOptions& options, std::vector<bool>& include_used, Plan& plan) {
    ++plan.benchmarks_in_categories;
    bool included = options.include.empty();
    for (std::size_t i = 0; i < options.include.size(); ++i)
        if (matches_pattern(id, options.include[i])) include_used[i] = included = true;
    if (!included) return false;
    ++plan.benchmarks_included;
    if (!matches_any(id, options.exclude)) return true;
    ++plan.benchmarks_excluded;
    return false;
}

/// Leaves in `settings` only the configured variants in `declared` (what `who` declares:
/// a plugin, or one of its benchmarks), and says in `plan` what it left out: a note, or
/// when nothing is left a warning (a note for a benchmark, whose plugin has others).
/// False when nothing is left.
bool keep_declared_variants(const std::string& who, const std::string& what, const std::vector<std::string>& declared,
                            ScenarioSettings& settings, Plan& plan) {
    const auto configured = settings.axes.find("variant");
    if (configured == settings.axes.end()) return true;
    std::vector<std::string> kept, dropped;
    for (const std::string& variant : configured->second)
        (contains(declared, variant) ? kept : dropped).push_back(variant);
    const std::string declares =
        "the " + what + " declares " + (declared.empty() ? std::string("none") : join(declared));
    if (kept.empty()) {
        const std::string origin = settings.axis_origin("variant");
        (what == "plugin" ? plan.warnings : plan.notes)
            .push_back(who + ": not planned: " + declares + ", none of the variants asked for (" +
                       join(configured->second) + (origin.empty() ? "" : ", from " + origin) + ")");
    } else if (!dropped.empty()) {
        plan.notes.push_back(who + ": " + join(dropped) + " not planned (" + declares + ")");
    }
    configured->second = std::move(kept);
    return !configured->second.empty();
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
    config.compile_timeout_s = settings.compile_timeout_s.value_or(config.compile_timeout_s);
    config.timer = settings.timer.value_or(config.timer);
    config.cache = settings.cache.value_or(config.cache);
    config.discard_throttled = settings.discard_throttled.value_or(config.discard_throttled);
    config.throttle_cooldown_s = settings.throttle_cooldown_s.value_or(config.throttle_cooldown_s);
    config.discard_recompiled = settings.discard_recompiled.value_or(config.discard_recompiled);
    config.compile_cache = settings.compile_cache.value_or(config.compile_cache);
    config.params = settings.params;
    return config;
}

/// The axes a benchmark's scenarios are expanded over: its declared axes (its own, else
/// its plugin's) that have values, and custom axes set in its plugin's own section of the
/// config (with the values that win over the section's: --axis).
std::vector<bench::Axis> expansion_axes(const DiscoveredPlugin& plugin, const std::vector<std::string>& declared,
                                        const ScenarioSettings& settings, const RunOptions& options) {
    std::vector<bench::Axis> axes;
    for (const std::string& axis : declared) {
        auto it = settings.axes.find(axis);
        if (it != settings.axes.end()) axes.push_back({axis, it->second});
    }
    if (auto own = options.plugin_settings.find(plugin.name); own != options.plugin_settings.end()) {
        for (const auto& [axis, values] : own->second.axes)
            if (!bench::is_builtin_axis(axis) && !contains(declared, axis))
                axes.push_back({axis, settings.axes.at(axis)});
    }
    return axes;
}

/// "--include 'x' matches none of the 12 benchmarks (ids look like a/b/c, ...)".
std::string unmatched_include(const std::string& pattern, const std::vector<std::string>& ids) {
    std::string message = "--include '" + pattern + "' matches ";
    if (ids.empty()) return message + "no benchmark (no benchmarks were found)";
    message += "none of the " + std::to_string(ids.size()) + " benchmark" + (ids.size() == 1 ? "" : "s");
    constexpr std::size_t examples = 3;
    if (ids.size() <= examples) return message + " (" + join(ids, ", ") + ")";
    return message + " (ids look like " + join({ids.begin(), ids.begin() + examples}, ", ") +
           "; `benchhost list` shows them all)";
}

/// Warnings about what the config's plugins: section and custom axes name that the
/// plan has no use for: a plugin that was not found, an axis no selected plugin varies over.
void warn_about_unused_settings(const Discovery& discovery, const RunOptions& options,
                                const std::set<std::string>& swept_axes, Plan& plan) {
    std::vector<std::string> found;
    for (const DiscoveredPlugin& plugin : discovery.plugins) found.push_back(plugin.name);
    for (const RejectedFile& file : discovery.rejected)
        if (file.is_broken_plugin()) found.push_back(file.plugin_name);
    for (const auto& [name, settings] : options.plugin_settings) {
        if (contains(found, name)) continue;
        const auto where = options.plugin_settings_where.find(name);
        const std::string suggestion = nearest_word(name, found);
        plan.warnings.push_back(
            (where == options.plugin_settings_where.end() ? "" : where->second + ": ") + "unknown plugin '" + name +
            "' in plugins" + (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
            ": no plugin of that name was found in " + discovery.folders.names() + ", so its settings are not used");
    }
    if (plan.benchmarks_included == plan.benchmarks_excluded) return;  // nothing selected: empty_plan_reasons says why
    std::set<std::string> warned;
    for (const ScenarioSettings* layer : {&options.command_line, &options.config}) {
        for (const auto& [axis, values] : layer->axes) {
            if (bench::is_builtin_axis(axis) || swept_axes.contains(axis) || !warned.insert(axis).second) continue;
            const std::string origin = layer->axis_origin(axis);
            plan.warnings.push_back((origin.empty() ? "axis " + axis : origin) + ": no selected plugin varies over '" +
                                    axis +
                                    "' (a plugin declares its axes in BENCH_PLUGIN's .axes; `benchhost list` "
                                    "shows them), so its values are not used");
        }
    }
}

}  // namespace

Plan make_plan(const Discovery& discovery, const RunOptions& options) {
    Plan plan;
    std::vector<std::string> all_ids;
    std::vector<bool> include_used(options.include.size(), false);
    std::set<std::string> ignored_values;  // plugin "\n" axis, warned about once
    std::set<std::string> swept_axes;  // the custom axes of the planned scenarios

    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        if (!options.categories.empty() && !contains(options.categories, plugin.category)) continue;
        const ScenarioSettings settings = options.effective_for(plugin.name);

        for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) {
            const std::string id = plugin.id(benchmark);
            all_ids.push_back(id);
            if (!benchmark_selected(id, options, include_used, plan)) continue;

            // A benchmark with axes of its own (a Python function's @benchhost.benchmark) is
            // expanded over those, with the values it declares where the run leaves an
            // axis at the built-in defaults.
            const std::vector<std::string>& benchmark_axes = plugin.axes_of(benchmark);
            const std::string who = benchmark.axes ? plugin.name + "/" + benchmark.name : plugin.name;
            ScenarioSettings benchmark_settings = settings;
            for (const auto& [axis, values] : benchmark.axis_values)
                if (benchmark_settings.axis_origin(axis).empty()) benchmark_settings.axes[axis] = values;

            bench::ScenarioConfig config = base_config(plugin, benchmark, benchmark_settings);
            config.load = options.load;
            config.profile = options.profile;
            // Axes the benchmark does not vary over still set its config: their first value.
            // Several values are a warning only when the user gave them, not the defaults,
            // and only for what runs: a mock without --enable-mock is skipped whatever its axes.
            const bool skipped_mock = plugin.mock() && !options.enable_mock;
            // The world size is not one: a benchmark that does not declare it is not
            // distributed, and ignores --world-sizes (its config's world_size stays 0).
            for (const auto& [axis, values] : benchmark_settings.axes) {
                if (axis == "world_size") continue;
                if (bench::is_builtin_axis(axis) && !values.empty() && !contains(benchmark_axes, axis)) {
                    const std::string origin = benchmark_settings.axis_origin(axis);
                    if (values.size() > 1 && !origin.empty() && !skipped_mock &&
                        ignored_values.insert(who + "\n" + axis).second)
                        plan.warnings.push_back(who + " does not vary over " + axis + ": of " + join(values) + " (" +
                                                origin + ") only the first (" + values.front() + ") is used");
                    try {
                        bench::apply_axis_value(config, axis, values.front());
                    } catch (const std::invalid_argument& e) {
                        throw ConfigError(id + ": " + e.what());
                    }
                }
            }

            PlannedScenario planned{config, plugin.path, plugin.info.version, benchmark.symbol, {}, {}};
            planned.plugin_build = plugin.build();
            if (skipped_mock) {
                planned.skip_reason = "mock plugin: run with --enable-mock to include it";
                plan.scenarios.push_back(std::move(planned));
                continue;
            }
            if (contains(benchmark_axes, "variant")) {
                // The plugin's declared variants (said once for the plugin), unless the
                // benchmark declares its own; then a benchmark's own (a training step in
                // eager only).
                if (!benchmark.own_variants) {
                    Plan said;
                    const bool left = keep_declared_variants(plugin.name, "plugin", plugin.declared_variants(),
                                                             benchmark_settings, said);
                    for (std::string& note : said.notes)
                        if (!contains(plan.notes, note)) plan.notes.push_back(std::move(note));
                    for (std::string& warning : said.warnings)
                        if (!contains(plan.warnings, warning)) plan.warnings.push_back(std::move(warning));
                    if (!left) continue;
                }
                if ((benchmark.variants != 0 || benchmark.own_variants) &&
                    !keep_declared_variants(plugin.name + "/" + benchmark.name, "benchmark", plugin.variants(benchmark),
                                            benchmark_settings, plan))
                    continue;
            }
            const std::vector<bench::Axis> axes = expansion_axes(plugin, benchmark_axes, benchmark_settings, options);
            for (const bench::Axis& axis : axes)
                if (!bench::is_builtin_axis(axis.name)) swept_axes.insert(axis.name);
            std::set<std::string> names;  // of this benchmark's scenarios, to drop repeats
            for (bench::AxisPoint point : bench::cartesian_product(axes)) {
                // compile_mode says how the compiled variant compiles: the other variants
                // run once, whatever the modes, and their names do not carry it.
                const auto variant =
                    std::find_if(point.begin(), point.end(), [](const auto& v) { return v.first == "variant"; });
                if (variant != point.end() && variant->second != "compiled")
                    std::erase_if(point, [](const auto& v) { return v.first == "compile_mode"; });
                if (!names.insert(bench::scenario_name(benchmark.name, point)).second) continue;
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
        if (!benchmark_selected(id, options, include_used, plan)) continue;
        PlannedScenario planned{config, file.path, "", "", "", {}};
        planned.reject_reason = file.text();
        plan.scenarios.push_back(std::move(planned));
    }

    for (std::size_t i = 0; i < options.include.size(); ++i)
        if (!include_used[i]) plan.warnings.push_back(unmatched_include(options.include[i], all_ids));
    warn_about_unused_settings(discovery, options, swept_axes, plan);
    return plan;
}

std::vector<std::string> empty_plan_reasons(const Plan& plan, const Discovery& discovery, const RunOptions& options) {
    std::vector<std::string> reasons;
    // What was found, per category.
    std::map<std::string, std::pair<std::size_t, std::size_t>> found;  // category -> plugins, benchmarks
    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        ++found[plugin.category].first;
        found[plugin.category].second += plugin.benchmarks.size();
    }
    for (const RejectedFile& file : discovery.rejected) {
        if (!file.is_broken_plugin()) continue;
        ++found[file.category].first;
        ++found[file.category].second;
    }
    std::vector<std::string> per_category;
    for (const std::string& category : plugin_categories) {
        const auto [plugins, benchmarks] = found[category];
        per_category.push_back(category + ": " +
                               (plugins == 0 ? std::string("none")
                                             : std::to_string(plugins) + " plugin" + (plugins == 1 ? "" : "s") + " (" +
                                                   std::to_string(benchmarks) + " benchmark" +
                                                   (benchmarks == 1 ? "" : "s") + ")"));
    }
    reasons.push_back("found in " + folders_text(discovery) + ": " + join(per_category, "; "));
    // Files that are not plugins and would not be run as broken ones either.
    constexpr std::size_t shown = 5;
    std::size_t strays = 0;
    for (const RejectedFile& file : discovery.rejected) {
        if (file.is_broken_plugin()) continue;
        if (++strays <= shown) reasons.push_back(file.text());
    }
    if (strays > shown)
        reasons.push_back("and " + std::to_string(strays - shown) +
                          " more files that are not plugins (`benchhost list` shows them)");
    if (strays > 0 && discovery.folders.paths.size() == 1) {
        const std::filesystem::path& folder = discovery.folders.paths.front();
        reasons.push_back("plugins are lib<name>.so files in " + (folder / "unit").string() + ", " +
                          (folder / "integration").string() + " or " + (folder / "performance").string());
    } else if (strays > 0) {
        reasons.push_back("plugins are lib<name>.so files in the unit, integration or performance folder of " +
                          discovery.folders.names());
    }
    // What the selection kept.
    if (!options.categories.empty() && plan.benchmarks_in_categories == 0)
        reasons.push_back("--category " + join(options.categories) + ": no benchmarks were found in " +
                          (options.categories.size() == 1 ? "that category" : "those categories"));
    if (plan.benchmarks_excluded > 0 && plan.benchmarks_excluded == plan.benchmarks_included)
        reasons.push_back("--exclude " + join(options.exclude, ", ") + ": excludes all " +
                          std::to_string(plan.benchmarks_excluded) + " benchmark" +
                          (plan.benchmarks_excluded == 1 ? "" : "s") + " selected before it");
    reasons.insert(reasons.end(), plan.warnings.begin(), plan.warnings.end());
    // A handshake name that is not the file's explains an --include of the former.
    reasons.insert(reasons.end(), discovery.warnings.begin(), discovery.warnings.end());
    return reasons;
}

std::vector<std::vector<std::size_t>> variant_groups(const Plan& plan) {
    std::vector<std::vector<std::size_t>> groups;
    std::unordered_map<std::string, std::size_t> group_of_key;
    for (std::size_t i = 0; i < plan.scenarios.size(); ++i) {
        const auto [it, inserted] =
            group_of_key.try_emplace(variant_group_key(plan.scenarios[i].config), groups.size());
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
