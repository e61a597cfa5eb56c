#include "discovery.hpp"

#include <algorithm>
#include <system_error>

#include "elf_inspector.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

std::string abi_text(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }

/// Inspects one candidate file; on success appends to `plugins`, else to `rejected`.
void consider_file(const fs::path& path, const std::string& category, Discovery& discovery) {
    auto reject = [&](std::string reason) { discovery.rejected.push_back({path, std::move(reason)}); };

    const std::string file_name = path.filename().string();
    if (path.extension() != ".so") return reject("not a plugin: only lib<name>.so files are loaded");
    std::string name = path.stem().string();
    if (name.starts_with("lib")) name.erase(0, 3);
    if (!is_safe_name(name)) return reject("plugin name '" + name + "' may only use letters, digits, '_', '-' and '.'");

    const ElfInspection inspection = inspect_elf(path);
    if (!inspection.info) return reject(inspection.error);
    const ElfInfo& elf = *inspection.info;
    if (std::string problem = loadability_problem(elf); !problem.empty()) return reject(problem);
    if (elf.entry_points.empty())
        return reject("exports no entry point (run_benchmark or benchmark_<name>): not a benchhost plugin");
    if (!elf.plugin_info_error.empty()) return reject(elf.plugin_info_error);
    if (!elf.plugin_info)
        return reject("exports entry points but no bench_plugin_info: declare it with BENCH_PLUGIN(\"" + name +
                      "\", \"<version>\") from <bench/plugin.hpp>");
    if (std::string problem = abi_problem(*elf.plugin_info); !problem.empty()) return reject(problem);

    DiscoveredPlugin plugin;
    plugin.path = path;
    plugin.category = category;
    plugin.name = name;
    plugin.info = *elf.plugin_info;
    const std::string axes(plugin.info.axes);
    for (std::size_t start = 0; start < axes.size();) {
        std::size_t end = axes.find(',', start);
        if (end == std::string::npos) end = axes.size();
        std::string axis = axes.substr(start, end - start);
        axis.erase(0, axis.find_first_not_of(' '));
        axis.erase(axis.find_last_not_of(' ') + 1);
        if (!axis.empty()) plugin.axes.push_back(axis);
        start = end + 1;
    }
    for (const std::string& symbol : elf.entry_points) {
        std::string benchmark = symbol == bench::run_benchmark_symbol
                                    ? name
                                    : symbol.substr(std::string_view(bench::benchmark_symbol_prefix).size());
        if (!is_safe_name(benchmark))
            return reject("benchmark name '" + benchmark + "' may only use letters, digits, '_', '-' and '.'");
        plugin.benchmarks.push_back({benchmark, symbol});
    }
    // run_benchmark first: it is the plugin's own benchmark.
    std::stable_partition(plugin.benchmarks.begin(), plugin.benchmarks.end(),
                          [](const DiscoveredBenchmark& b) { return b.symbol == bench::run_benchmark_symbol; });
    discovery.plugins.push_back(std::move(plugin));
}

}  // namespace

bool is_safe_name(std::string_view name) {
    if (name.empty() || name == "." || name == ".." || name.size() > 128) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
    });
}

std::string abi_problem(const bench::PluginInfo& info) {
    if (info.magic != bench::plugin_magic) return "bench_plugin_info is not a benchhost handshake (wrong magic number)";
    const std::string plugin_abi = abi_text(info.abi_major, info.abi_minor);
    const std::string host_abi = abi_text(bench::abi_major, bench::abi_minor);
    if (info.abi_major != bench::abi_major)
        return "built for SDK ABI " + plugin_abi + ", this host supports ABI " + std::to_string(bench::abi_major) +
               ".x (up to " + host_abi + "): rebuild the plugin against this SDK";
    if (info.abi_minor > bench::abi_minor)
        return "built for SDK ABI " + plugin_abi + ", newer than this host's ABI " + host_abi + ": update benchhost";
    if (info.info_size != sizeof(bench::PluginInfo))
        return "bench_plugin_info has size " + std::to_string(info.info_size) + ", expected " +
               std::to_string(sizeof(bench::PluginInfo)) + " for ABI " + host_abi;
    return {};
}

Discovery discover_plugins(const fs::path& plugins_dir) {
    std::error_code ec;
    if (!fs::is_directory(plugins_dir, ec))
        throw DiscoveryError("plugin folder " + plugins_dir.string() + " does not exist or is not a folder");
    Discovery discovery;
    discovery.plugins_dir = plugins_dir;

    for (const fs::directory_entry& entry : fs::directory_iterator(plugins_dir, ec)) {
        const std::string name = entry.path().filename().string();
        const bool category = std::find(plugin_categories.begin(), plugin_categories.end(), name) != plugin_categories.end();
        if (!category || !entry.is_directory())
            discovery.rejected.push_back({entry.path(), "not in a category folder (unit, integration or performance)"});
    }
    if (ec) throw DiscoveryError("cannot read plugin folder " + plugins_dir.string() + ": " + ec.message());

    for (const std::string& category : plugin_categories) {
        const fs::path folder = plugins_dir / category;
        if (!fs::is_directory(folder, ec)) continue;
        std::vector<fs::path> files;
        for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
            if (entry.is_regular_file(ec))
                files.push_back(entry.path());
            else
                discovery.rejected.push_back({entry.path(), "not a regular file"});
        }
        if (ec) throw DiscoveryError("cannot read plugin folder " + folder.string() + ": " + ec.message());
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) consider_file(file, category, discovery);
    }
    std::sort(discovery.rejected.begin(), discovery.rejected.end(),
              [](const RejectedFile& a, const RejectedFile& b) { return a.path < b.path; });
    return discovery;
}

}  // namespace benchhost
