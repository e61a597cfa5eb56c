#include "report/plugin_entries.hpp"

#include <set>
#include <utility>

namespace benchhost {

std::vector<PluginEntry> plugin_entries(const RunRecord& record) {
    std::vector<PluginEntry> plugins;
    std::set<std::pair<std::string, std::string>> seen;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        if (outcome.plugin_version.empty()) continue;  // a broken file: no handshake was read
        const bench::ScenarioConfig& config = outcome.config;
        if (!seen.emplace(config.category, config.plugin).second) continue;
        plugins.push_back(
            {config.category, config.plugin, outcome.plugin_version, outcome.plugin_path, outcome.plugin_build});
    }
    return plugins;
}

}  // namespace benchhost
