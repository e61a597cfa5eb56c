#include "plan/ab_pairs.hpp"

#include <map>
#include <set>

#include "util/join.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// A plugin as a plan has it: its file and its benchmarks.
struct PlannedPlugin {
    fs::path file;
    std::set<std::string> benchmarks;
};

/// By "category/plugin".
std::map<std::string, PlannedPlugin> plugins_of(const Plan& plan) {
    std::map<std::string, PlannedPlugin> plugins;
    for (const PlannedScenario& scenario : plan.scenarios) {
        PlannedPlugin& plugin = plugins[scenario.config.category + "/" + scenario.config.plugin];
        plugin.file = scenario.plugin_path;
        plugin.benchmarks.insert(scenario.config.benchmark);
    }
    return plugins;
}

std::vector<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b) {
    std::vector<std::string> out;
    for (const std::string& x : a)
        if (b.count(x) == 0) out.push_back(x);
    return out;
}

}  // namespace

std::vector<AbPair> pair_plans(const Plan& base, const Plan& next, const std::string& base_dir,
                               const std::string& new_dir) {
    const auto base_plugins = plugins_of(base), new_plugins = plugins_of(next);
    std::vector<std::string> problems;
    for (const auto& [name, plugin] : base_plugins) {
        const auto other = new_plugins.find(name);
        if (other == new_plugins.end()) {
            problems.push_back("plugin " + name + " is in --base " + base_dir + " (" + plugin.file.string() +
                               ") but not in --new " + new_dir);
            continue;
        }
        const std::vector<std::string> only_base = minus(plugin.benchmarks, other->second.benchmarks);
        const std::vector<std::string> only_new = minus(other->second.benchmarks, plugin.benchmarks);
        if (only_base.empty() && only_new.empty()) continue;
        std::string problem = "plugin " + name + " has other benchmarks on each side:";
        if (!only_base.empty()) problem += " only in --base (" + plugin.file.string() + "): " + join(only_base) + ";";
        if (!only_new.empty())
            problem += " only in --new (" + other->second.file.string() + "): " + join(only_new) + ";";
        problem.pop_back();
        problems.push_back(problem);
    }
    for (const auto& [name, plugin] : new_plugins)
        if (base_plugins.count(name) == 0)
            problems.push_back("plugin " + name + " is in --new " + new_dir + " (" + plugin.file.string() +
                               ") but not in --base " + base_dir);
    if (!problems.empty()) {
        throw ConfigError("the two sides are not the same plugins: " + join(problems, "; "));
    }

    std::map<std::string, std::size_t> new_index;
    for (std::size_t i = 0; i < next.scenarios.size(); ++i)
        new_index.emplace(next.scenarios[i].config.scenario_id(), i);
    std::vector<AbPair> pairs;
    std::vector<std::string> unpaired;
    for (std::size_t i = 0; i < base.scenarios.size(); ++i) {
        const std::string id = base.scenarios[i].config.scenario_id();
        const auto it = new_index.find(id);
        if (it == new_index.end()) {
            unpaired.push_back(id + " (base)");
            continue;
        }
        pairs.push_back({id, i, it->second});
        new_index.erase(it);
    }
    // Same benchmarks, other scenarios: the sides declare other axes or variants.
    for (const auto& [id, index] : new_index) unpaired.push_back(id + " (new)");
    if (!unpaired.empty())
        throw ConfigError(
            "the plans of --base " + base_dir + " and --new " + new_dir +
            " differ (the plugins declare other axes or variants): scenarios on one side only: " + join(unpaired));
    return pairs;
}

}  // namespace benchhost
