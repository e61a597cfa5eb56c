// Discovery: which files under the plugin folder are plugins, and what they offer.
// Everything here is read from the files (see elf_inspector.hpp); no plugin code runs.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <bench/abi.hpp>

#include "config/plugin_folders.hpp"
#include "model/plugin_build.hpp"

namespace benchhost {

inline const std::vector<std::string> plugin_categories = {"unit", "integration", "performance"};

struct DiscoveredBenchmark {
    std::string name;  // the benchmark's name in its id
    std::string symbol;  // the entry point exporting it
    /// The variants it declares of its own (BENCH_BENCHMARK_VARIANTS, or a Python
    /// plugin's "benchmark_variants"), a mask of bench::eager_bit ...; 0: its plugin's.
    std::uint8_t variants = 0;
    /// A Python benchmark's own declaration (@benchhost.benchmark): its axes, which
    /// replace its plugin's (empty: it runs once); nullopt: its plugin's.
    std::optional<std::vector<std::string>> axes{};
    /// The values it declares for its axes (axes={"batch_size": [1, 8]}): what it runs
    /// with where the run leaves that axis at the built-in defaults.
    std::map<std::string, std::vector<std::string>> axis_values{};
    /// `variants` are its own (@benchhost.benchmark(variants=...)): they replace its
    /// plugin's instead of narrowing them.
    bool own_variants = false;
};

/// What a plugin is made of: a shared library built against the SDK, or Python (a
/// `.py` file, or a package folder with `__init__.py`).
enum class PluginKind { shared_library, python };

struct DiscoveredPlugin {
    std::filesystem::path path;  // the .so or .py file, or a Python package's folder
    std::filesystem::path folder;  // the plugin folder it is in (path is folder/category/...)
    std::string category;  // the folder it was found in
    std::string name;  // the file name without "lib" and ".so" (".py"): what ids and reports use
    PluginKind kind = PluginKind::shared_library;
    /// Python: the handshake's fields (name, version, axes, variants, mock) in PluginInfo's
    /// terms; no ABI, no build.
    bench::PluginInfo info{};
    /// Python: what runs it, "CPython 3.11.2 (/path/to/python), torch 2.14.1+cu130".
    std::string runtime;
    std::vector<std::string> axes;  // from info.axes
    std::vector<DiscoveredBenchmark> benchmarks;

    bool mock() const { return info.mock != 0; }
    /// The name BENCH_PLUGIN gave; `name` (the file's) is the one used.
    std::string handshake_name() const { return info.name; }
    /// How the plugin was compiled; unknown for a plugin built against ABI 2.0 or 2.1;
    /// for Python, what runs it.
    PluginBuild build() const { return python() ? python_plugin_build(runtime) : plugin_build_of(info); }
    /// The variants it implements (PluginInfo::variants: all three when it varies the
    /// "variant" axis and does not say); empty when it has no variants.
    std::vector<std::string> variants() const;
    /// The variants it declares (PluginInfo::variants; all three when it does not say),
    /// whether or not it varies the "variant" axis.
    std::vector<std::string> declared_variants() const;
    /// The variants `benchmark` implements: its own (own_variants), else those it declares
    /// of its plugin's, else the plugin's; empty when it has no variant axis.
    std::vector<std::string> variants(const DiscoveredBenchmark& benchmark) const;
    /// The axes `benchmark` is expanded over: its own, else the plugin's.
    const std::vector<std::string>& axes_of(const DiscoveredBenchmark& benchmark) const {
        return benchmark.axes ? *benchmark.axes : axes;
    }
    /// Whether `benchmark` is distributed: it varies over the world_size axis (a Python
    /// function's @benchhost.benchmark(distributed=True), or "world_size" among the axes of
    /// a BENCH_PLUGIN or BENCHHOST_PLUGIN), and each of its scenarios runs as that many ranks.
    bool distributed(const DiscoveredBenchmark& benchmark) const {
        const std::vector<std::string>& all = axes_of(benchmark);
        return std::find(all.begin(), all.end(), "world_size") != all.end();
    }
    /// Whether a benchmark declares axes or variants of its own (a Python plugin's
    /// @benchhost.benchmark).
    bool has_own_declarations() const;
    std::string id(const DiscoveredBenchmark& benchmark) const { return category + "/" + name + "/" + benchmark.name; }
    bool python() const { return kind == PluginKind::python; }
};

struct RejectedFile {
    std::filesystem::path path;
    std::string reason;
    /// For a `.so` file in a category folder: a plugin that is broken, not just a
    /// stray file. A run reports it as a rejected scenario and fails.
    std::string category;
    std::string plugin_name;  // the file name without "lib" and ".so", made safe for paths

    bool is_broken_plugin() const { return !plugin_name.empty(); }
    /// "<path>: <reason>", or the reason alone where it begins with the path already (a
    /// Python file's "<path>:<line>: ..." from its parser).
    std::string text() const {
        const std::string where = path.string();
        return reason.starts_with(where + ":") ? reason : where + ": " + reason;
    }
};

struct Discovery {
    PluginFolders folders;  // those searched
    /// Those of `folders` read as source folders (is_source_folder): their Python files only.
    std::vector<std::filesystem::path> source_folders;
    std::vector<DiscoveredPlugin> plugins;  // by category, then folder, then path
    std::vector<RejectedFile> rejected;  // by path
    /// About plugins that are used all the same: a handshake name that is not the file's.
    std::vector<std::string> warnings;
};

class DiscoveryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct DiscoveryOptions {
    /// Load plugins from folders and files that others than their owner may write.
    bool allow_untrusted = false;
};

/// Discovery rejects the plugins that link the LibTorch this build was configured with
/// (its lib folder on their run path) when this says it is no longer installed there.
/// Empty when `torch_root` (a torch package's folder, with version.py, or a libtorch
/// archive's, with build-version) still holds LibTorch `expected`; else why a plugin built
/// against it cannot be loaded, naming both versions. Reads files only.
std::string libtorch_install_problem(const std::filesystem::path& torch_root, const std::string& expected);

/// Scans <folder>/{unit,integration,performance}/ of each folder. Throws DiscoveryError
/// when a folder does not exist, cannot be read, or is writable by others (unless
/// allowed), naming who chose it (folders.origin), and when two folders hold a plugin of
/// the same category and name (a plugin or a broken one): which would run is not for
/// discovery to guess. Every file that is not a usable plugin is in `rejected` with the
/// reason. A later plugin declaring a benchmark id an earlier one declared is rejected.
///
/// A source folder (is_source_folder: the source tree's plugins/, whose compiled plugins
/// are in the build's folder) is read for Python files only: the .py files and packages
/// directly in its category folders; the rest of it (the sources of the plugins built
/// from it, in folders of their own, CMakeLists.txt) is not looked at, and a problem of
/// trust of its own folder rejects those files instead of the run.
///
/// Python plugins: a `.py` file, or a folder with `__init__.py`, that defines at module
/// level `run_benchmark` (the benchmark named after the plugin), or functions named
/// `benchmark_<name>` or `run_<name>`; python_inspector.hpp reads them without running
/// them, all in one child process of plugin_python(). A file that does not parse is a
/// broken plugin (rejected with file:line:column and Python's message); one without such
/// functions is not a plugin. Its optional BENCHHOST_PLUGIN literal gives the name,
/// version, axes, variants and mock flag that BENCH_PLUGIN gives a shared library; a
/// function's @benchhost.benchmark(axes=..., variants=...) its own axes (with values) and
/// variants. A declaration that is not a literal, is wrong, or is on a function that is
/// not a benchmark rejects the file, saying where.
Discovery discover_plugins(const PluginFolders& folders, const DiscoveryOptions& options = {});

/// discover_plugins of the one folder `plugins_dir`.
Discovery discover_plugins(const std::filesystem::path& plugins_dir, const DiscoveryOptions& options = {});

/// Whether `folder` is a source folder, read for its Python files only: it holds a
/// CMakeLists.txt (the source tree's plugins/ does; a build's or an installed plugins
/// folder does not).
bool is_source_folder(const std::filesystem::path& folder);

/// The folders of `discovery` for people: "build/plugins and plugins (Python files only)".
std::string folders_text(const Discovery& discovery);

class PluginRegistry;

/// Moves every plugin that the registry remembers as crashing while loading (and
/// that has not changed since) from `plugins` to `rejected`.
void apply_crash_registry(Discovery& discovery, const PluginRegistry& registry);

/// Empty when `path` may hold code this process runs: owned by root or by us, and
/// writable by no one else (a group that is the owner's private group is fine).
/// Otherwise what is wrong, e.g. "is writable by everyone (mode 0777)".
std::string trust_problem(const std::filesystem::path& path);

/// Empty when `info` can be run by this host; otherwise why not, naming both ABIs.
std::string abi_problem(const bench::PluginInfo& info);

/// Plugin and benchmark names end up in file names: only [A-Za-z0-9_.-], not "." or "..".
bool is_safe_name(std::string_view name);

/// `name` with every character outside [A-Za-z0-9_.-] replaced by '_'; "plugin" when
/// nothing usable is left.
std::string safe_name(std::string_view name);

}  // namespace benchhost
