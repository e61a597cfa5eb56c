// The plugins of a run, one entry each: what benchmark_summary.json ("plugins"),
// report.md and report.html say about each plugin and how it was compiled.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/plugin_build.hpp"
#include "model/run_record.hpp"

namespace benchhost {

struct PluginEntry {
    std::string category, plugin, version;
    std::filesystem::path path;
    PluginBuild build;

    std::string id() const { return category + "/" + plugin; }
};

/// Each plugin whose scenarios came from its handshake (broken files left out), in the
/// order of its first scenario; its version, file and build are its first scenario's.
std::vector<PluginEntry> plugin_entries(const RunRecord& record);

}  // namespace benchhost
