#include "commands/list_command.hpp"

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "discover/discovery.hpp"
#include "discover/plugin_registry.hpp"
#include "plan/plan.hpp"
#include "util/join.hpp"

namespace benchhost {

namespace {

/// How the plugin was compiled, and what that means for its timings.
std::string build_line(const DiscoveredPlugin& plugin) {
    const PluginBuild build = plugin.build();
    if (!build.known)
        return "unknown (built against SDK ABI " + std::to_string(plugin.info.abi_major) + "." +
               std::to_string(plugin.info.abi_minor) + "; plugins record it from ABI " +
               std::to_string(bench::abi_major) + "." + std::to_string(bench::build_info_abi_minor) + ")";
    const std::string warning = build_warning(build);
    return build_text(build) + (warning.empty() ? "" : "\n    warning:    " + warning);
}

/// "tokenize: axes - -> tokenize": for a plugin whose benchmarks declare axes or
/// variants of their own (a Python function's @benchhost.benchmark), each benchmark's
/// axes and the scenarios the built-in axis values give it.
std::string benchmark_lines(const DiscoveredPlugin& plugin) {
    std::map<std::string, std::vector<std::string>> scenarios;
    try {
        Discovery one;
        one.plugins.push_back(plugin);
        RunOptions options;
        options.defaults = builtin_scenario_defaults();
        options.enable_mock = true;
        for (const PlannedScenario& scenario : make_plan(one, options).scenarios)
            scenarios[scenario.config.benchmark].push_back(scenario.config.scenario_name);
    } catch (const std::exception&) {  // a value the planner refuses: the run says which
    }
    std::string out;
    for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) {
        const std::vector<std::string>& axes = plugin.axes_of(benchmark);
        std::vector<std::string> described;
        for (const std::string& axis : axes) {
            const auto values = benchmark.axis_values.find(axis);
            if (axis == "variant" && !plugin.variants(benchmark).empty())
                described.push_back(axis + " (" + join(plugin.variants(benchmark), ", ") + ")");
            else if (values != benchmark.axis_values.end())
                described.push_back(axis + " (" + join(values->second, ", ") + ")");
            else described.push_back(axis);
        }
        const std::vector<std::string>& names = scenarios[benchmark.name];
        out += "      " + benchmark.name + ": axes " + (described.empty() ? "-" : join(described, ", ")) +
               (benchmark.axes ? " (its own)" : " (the plugin's)") + " -> " +
               (names.empty() ? std::string("none") : join(names, " ")) + "\n";
    }
    return out;
}

}  // namespace

int list_command(const ListCommand& command) {
    Discovery discovery;
    try {
        discovery = discover_plugins(command.plugins_dirs);
        apply_crash_registry(discovery, PluginRegistry(PluginRegistry::default_path()));
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    std::cout << "Plugins in " << folders_text(discovery) << ":\n";
    if (discovery.plugins.empty()) std::cout << "  (none)\n";
    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        const std::vector<std::string> variants = plugin.variants();
        const std::string handshake = plugin.handshake_name();
        std::cout << "\n  " << plugin.category << "/" << plugin.name
                  << (handshake != plugin.name ? " (handshake name: " + handshake + ")" : "") << "  version "
                  << plugin.info.version << (plugin.mock() ? "  (mock: runs with --enable-mock)" : "") << "\n";
        if (plugin.python()) std::cout << "    kind:       python: " << plugin.runtime << "\n";
        else
            std::cout << "    SDK:        " << plugin.info.sdk_version << " (ABI " << plugin.info.abi_major << "."
                      << plugin.info.abi_minor << ")\n"
                      << "    build:      " << build_line(plugin) << "\n";
        std::cout << "    variants:   " << (variants.empty() ? "- (no variant axis)" : join(variants, ", ")) << "\n"
                  << "    axes:       " << (plugin.axes.empty() ? "-" : join(plugin.axes, ", ")) << "\n"
                  << "    benchmarks:";
        for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) std::cout << " " << plugin.id(benchmark);
        std::cout << "\n";
        if (plugin.has_own_declarations())
            std::cout << "    scenarios:  with the built-in axis values (--variants, --batch-sizes, ... set others)\n"
                      << benchmark_lines(plugin);
        std::cout << "    file:       " << plugin.path.string() << "\n";
    }
    if (!discovery.warnings.empty()) {
        std::cout << "\nWarnings:\n";
        for (const std::string& warning : discovery.warnings) std::cout << "  " << warning << "\n";
    }
    if (!discovery.rejected.empty()) {
        std::cout << "\nNot plugins:\n";
        for (const RejectedFile& file : discovery.rejected) std::cout << "  " << file.text() << "\n";
    }
    return 0;
}

}  // namespace benchhost
