// Discovery: which files under the plugin folder are plugins, and what they offer.
// Everything here is read from the files (see elf_inspector.hpp); no plugin code runs.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <bench/abi.hpp>

namespace benchhost {

inline const std::vector<std::string> plugin_categories = {"unit", "integration", "performance"};

struct DiscoveredBenchmark {
    std::string name;    // the benchmark's name in its id
    std::string symbol;  // the entry point exporting it
};

struct DiscoveredPlugin {
    std::filesystem::path path;
    std::string category;  // the folder it was found in
    std::string name;      // the file name without "lib" and ".so"
    bench::PluginInfo info{};
    std::vector<std::string> axes;  // from info.axes
    std::vector<DiscoveredBenchmark> benchmarks;

    bool mock() const { return info.mock != 0; }
    std::string id(const DiscoveredBenchmark& benchmark) const { return category + "/" + name + "/" + benchmark.name; }
};

struct RejectedFile {
    std::filesystem::path path;
    std::string reason;
};

struct Discovery {
    std::filesystem::path plugins_dir;
    std::vector<DiscoveredPlugin> plugins;  // by category, then name
    std::vector<RejectedFile> rejected;     // by path
};

class DiscoveryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Scans <plugins_dir>/{unit,integration,performance}/. Throws DiscoveryError when
/// the folder does not exist or cannot be read; every file that is not a usable plugin
/// is in `rejected` with the reason.
Discovery discover_plugins(const std::filesystem::path& plugins_dir);

/// Empty when `info` can be run by this host; otherwise why not, naming both ABIs.
std::string abi_problem(const bench::PluginInfo& info);

/// Plugin and benchmark names end up in file names: only [A-Za-z0-9_.-], not "." or "..".
bool is_safe_name(std::string_view name);

}  // namespace benchhost
