// How a plugin was compiled, as its handshake recorded it (bench::BuildInfo, SDK ABI
// 2.2): what `benchhost list` and the reports show, and what a run warns about. The
// host's own build is another matter (run/hardware_info.hpp, "build").
#pragma once

#include <string>
#include <vector>

#include <bench/abi.hpp>

namespace benchhost {

struct PluginBuild {
    /// false: the plugin did not record its build (built against an SDK ABI before
    /// 2.2), or the report it was read from predates it; the rest is then unset.
    bool known = false;
    bool optimized = false;  // __OPTIMIZE__: -O1 and up
    bool assertions = false;  // NDEBUG was not defined
    std::vector<std::string> sanitizers;  // "address", "thread", "memory"
    std::string compiler;  // e.g. "GCC 12.2.0"; empty when not said
    /// "c++" (a shared library) or "python" (report schema 10; earlier reports: "c++").
    std::string language = "c++";
    /// Python: what ran it, "CPython 3.11.2 (/path/to/python), torch 2.14.1+cu130"; the
    /// compiler's fields above are then unset.
    std::string runtime;

    bool operator==(const PluginBuild&) const = default;
};

PluginBuild plugin_build_of(const bench::PluginInfo& info);

/// A Python plugin's: known, language "python", what runs it.
PluginBuild python_plugin_build(const std::string& runtime);

/// "optimized, assertions off, GCC 12.2.0"; "not optimized, assertions on, sanitizers:
/// address, GCC 12.2.0"; "unknown"; "python: CPython 3.11.2 (...), torch 2.14.1".
std::string build_text(const PluginBuild& build);

/// Empty when the build is known and makes sound timings; otherwise what is wrong and
/// how to fix it: "built without optimization and with assertions on (NDEBUG not
/// defined): timings may be slower than an optimized build's; rebuild it with the build
/// type Release (-DCMAKE_BUILD_TYPE=Release)".
std::string build_warning(const PluginBuild& build);

}  // namespace benchhost
