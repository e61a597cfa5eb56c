#include "discover/discovery.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include <bench/internal/params/axes.hpp>

#include "discover/elf_inspector.hpp"
#include "discover/plugin_registry.hpp"
#include "discover/python_inspector.hpp"
#include "util/join.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

std::string abi_text(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }

bool is_name_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

const char* const untrusted_advice =
    ": anyone who can write it can make benchhost run their code; fix it with chmod go-w, or pass "
    "--allow-untrusted-plugins";

/// Whether the file links the LibTorch in `torch_root` (directly, or through the SDK's
/// LibTorch layer): it names a LibTorch library and has torch_root/lib on its run path. A
/// plugin built against another LibTorch (on a GPU machine, out of tree) is not concerned.
bool links_libtorch_in(const ElfInfo& elf, const fs::path& torch_root) {
    const bool libtorch = std::any_of(elf.needed.begin(), elf.needed.end(), [](const std::string& name) {
        return name.starts_with("libtorch") || name.starts_with("libc10") || name.starts_with("libbench_sdk_torch.");
    });
    const fs::path lib = (torch_root / "lib").lexically_normal();
    return libtorch && std::any_of(elf.run_paths.begin(), elf.run_paths.end(), [&](const std::string& folder) {
               return fs::path(folder).lexically_normal() == lib;
           });
}

/// Why a plugin linking the LibTorch this host's build was configured with cannot load
/// (libtorch_install_problem, read once); empty where it can, or for a build without LibTorch.
const std::string& built_libtorch_problem(const ElfInfo& elf) {
#if defined(BENCHHOST_TORCH_ROOT) && defined(BENCHHOST_TORCH_VERSION)
    static const std::string problem = libtorch_install_problem(BENCHHOST_TORCH_ROOT, BENCHHOST_TORCH_VERSION);
    static const std::string none;
    return !problem.empty() && links_libtorch_in(elf, BENCHHOST_TORCH_ROOT) ? problem : none;
#else
    (void)elf;
    static const std::string none;
    return none;
#endif
}

/// Inspects one candidate file; on success appends to `plugins`, else to `rejected`.
/// `folder_problem` is why the file's folder cannot be trusted, if it cannot.
void consider_file(const fs::path& path, const fs::path& folder, const std::string& category,
                   const std::string& folder_problem, const DiscoveryOptions& options, Discovery& discovery) {
    if (path.extension() != ".so") {
        discovery.rejected.push_back({path, "not a plugin: only lib<name>.so files are loaded", "", ""});
        return;
    }
    std::string name = path.stem().string();
    if (name.starts_with("lib")) name.erase(0, 3);
    auto reject = [&](std::string reason) {
        discovery.rejected.push_back({path, std::move(reason), category, safe_name(name)});
    };
    if (!is_safe_name(name)) return reject("plugin name '" + name + "' may only use letters, digits, '_', '-' and '.'");
    if (!options.allow_untrusted) {
        if (!folder_problem.empty()) return reject(folder_problem);
        if (std::string problem = trust_problem(path); !problem.empty())
            return reject("the file " + problem + untrusted_advice);
    }

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
    if (const std::string& problem = built_libtorch_problem(elf); !problem.empty()) return reject(problem);

    DiscoveredPlugin plugin;
    plugin.path = path;
    plugin.folder = folder;
    plugin.category = category;
    plugin.name = name;
    plugin.info = *elf.plugin_info;
    for (std::string axis : split(plugin.info.axes)) {
        axis.erase(0, axis.find_first_not_of(' '));
        axis.erase(axis.find_last_not_of(' ') + 1);
        if (!axis.empty()) plugin.axes.push_back(axis);
    }
    for (const std::string& symbol : elf.entry_points) {
        std::string benchmark = symbol == bench::run_benchmark_symbol
                                    ? name
                                    : symbol.substr(std::string_view(bench::benchmark_symbol_prefix).size());
        if (!is_safe_name(benchmark))
            return reject("benchmark name '" + benchmark + "' may only use letters, digits, '_', '-' and '.'");
        const auto declared = elf.benchmark_variants.find(symbol);
        plugin.benchmarks.push_back(
            {benchmark, symbol, declared == elf.benchmark_variants.end() ? std::uint8_t{0} : declared->second});
    }
    // run_benchmark first: it is the plugin's own benchmark.
    std::stable_partition(plugin.benchmarks.begin(), plugin.benchmarks.end(),
                          [](const DiscoveredBenchmark& b) { return b.symbol == bench::run_benchmark_symbol; });
    discovery.plugins.push_back(std::move(plugin));
}

/// A Python plugin to read: a .py file, or a package folder and its __init__.py.
struct PythonCandidate {
    fs::path path, source, folder;  // folder: the plugin folder
    std::string category, folder_problem;
};

/// The benchmark a module-level function declares: run_benchmark the plugin's own (named
/// after it), benchmark_<name> and run_<name> <name>; empty for other functions.
std::string python_benchmark_name(const std::string& function, const std::string& plugin) {
    if (function == bench::run_benchmark_symbol) return plugin;
    for (const std::string_view prefix : {std::string_view(bench::benchmark_symbol_prefix), std::string_view("run_")})
        if (function.size() > prefix.size() && function.starts_with(prefix)) return function.substr(prefix.size());
    return {};
}

std::uint8_t variant_mask(const std::vector<std::string>& variants) {
    std::uint8_t mask = 0;
    for (const std::string& v : variants)
        mask |= v == "eager" ? bench::eager_bit : v == "compiled" ? bench::compiled_bit : bench::kernelized_bit;
    return mask;
}

template <std::size_t N>
void copy_field(char (&field)[N], const std::string& text) {
    text.copy(field, N - 1);
}

void consider_python(const PythonCandidate& candidate, const PythonFileInfo& file, const PythonInspection& inspection,
                     const DiscoveryOptions& options, Discovery& discovery) {
    std::string name = candidate.path.filename().string();
    if (candidate.path.extension() == ".py") name = candidate.path.stem().string();
    auto reject = [&](std::string reason) {
        discovery.rejected.push_back({candidate.path, std::move(reason), candidate.category, safe_name(name)});
    };
    if (!is_safe_name(name)) return reject("plugin name '" + name + "' may only use letters, digits, '_', '-' and '.'");
    if (!options.allow_untrusted) {
        if (!candidate.folder_problem.empty()) return reject(candidate.folder_problem);
        for (const fs::path& path : {candidate.path, candidate.source})
            if (std::string problem = trust_problem(path); !problem.empty())
                return reject("the file " + path.string() + " " + problem + untrusted_advice);
    }
    if (!file.error.empty()) return reject(file.error);

    DiscoveredPlugin plugin;
    plugin.path = candidate.path;
    plugin.folder = candidate.folder;
    plugin.category = candidate.category;
    plugin.name = name;
    plugin.kind = PluginKind::python;
    plugin.runtime = "CPython " + inspection.python_version + " (" + inspection.python + "), " +
                     (inspection.torch_version.empty() ? std::string("no torch") : "torch " + inspection.torch_version);
    for (const std::string& function : file.functions) {
        const std::string benchmark = python_benchmark_name(function, name);
        if (benchmark.empty()) continue;
        if (!is_safe_name(benchmark))
            return reject("benchmark name '" + benchmark + "' may only use letters, digits, '_', '-' and '.'");
        if (std::none_of(plugin.benchmarks.begin(), plugin.benchmarks.end(),
                         [&](const DiscoveredBenchmark& b) { return b.symbol == function; }))
            plugin.benchmarks.push_back({benchmark, function});
    }
    for (const std::string& function : file.async_functions)
        if (!python_benchmark_name(function, name).empty())
            discovery.warnings.push_back(candidate.source.string() + ": async def " + function +
                                         " is not a benchmark: benchhost calls functions, not coroutines (call "
                                         "asyncio.run from a plain def)");
    if (plugin.benchmarks.empty()) {
        if (!file.declaration_error.empty()) return reject(file.declaration_error);
        if (!file.declarations.empty())
            return reject(candidate.source.string() + ":" + std::to_string(file.declarations.front().line) +
                          ": @benchhost.benchmark on " + file.declarations.front().function +
                          ": not a benchmark function (a benchmark is named run_benchmark, benchmark_<name> or "
                          "run_<name>)");
        if (!file.handshake && file.handshake_error.empty()) {  // a helper module, not a plugin
            discovery.rejected.push_back(
                {candidate.path,
                 "not a plugin: defines no run_benchmark, benchmark_* or run_* function at module level", "", ""});
            return;
        }
        return reject(
            "declares BENCHHOST_PLUGIN but defines no run_benchmark, benchmark_* or run_* function at "
            "module level");
    }
    if (!file.handshake_error.empty()) return reject(file.handshake_error);
    if (!file.declaration_error.empty()) return reject(file.declaration_error);
    // Where names repeat (run_x and benchmark_x), the first keeps the id.
    std::set<std::string> seen;
    for (const DiscoveredBenchmark& b : plugin.benchmarks)
        if (!seen.insert(b.name).second)
            return reject("declares benchmark '" + b.name + "' twice (benchmark_" + b.name + " and run_" + b.name +
                          "): keep one");
    std::stable_partition(plugin.benchmarks.begin(), plugin.benchmarks.end(),
                          [](const DiscoveredBenchmark& b) { return b.symbol == bench::run_benchmark_symbol; });

    bench::PluginInfo& info = plugin.info;
    const PythonHandshake handshake = file.handshake.value_or(PythonHandshake{});
    copy_field(info.name, handshake.name.empty() ? name : handshake.name);
    copy_field(info.version, handshake.version.empty() ? "unversioned" : handshake.version);
    if (handshake.axes) {
        const std::string axes = join(*handshake.axes, ",");
        if (axes.size() >= sizeof info.axes) return reject("BENCHHOST_PLUGIN['axes'] is too long");
        copy_field(info.axes, axes);
        plugin.axes = *handshake.axes;
    }
    if (handshake.variants) info.variants = variant_mask(*handshake.variants);
    for (const auto& declared : handshake.benchmark_variants) {
        const std::string& benchmark = declared.first;
        const std::vector<std::string>& variants = declared.second;
        const auto it = std::find_if(plugin.benchmarks.begin(), plugin.benchmarks.end(),
                                     [&](const DiscoveredBenchmark& b) { return b.name == benchmark; });
        if (it == plugin.benchmarks.end())
            return reject("BENCHHOST_PLUGIN['benchmark_variants'] names '" + benchmark +
                          "', which is not a benchmark of the plugin");
        it->variants = variant_mask(variants);
        if (it->variants == 0) return reject("BENCHHOST_PLUGIN['benchmark_variants']['" + benchmark + "'] is empty");
    }
    for (const PythonBenchmarkDeclaration& declared : file.declarations) {
        const std::string where = candidate.source.string() + ":" + std::to_string(declared.line) +
                                  ": @benchhost.benchmark on " + declared.function;
        const auto it = std::find_if(plugin.benchmarks.begin(), plugin.benchmarks.end(),
                                     [&](const DiscoveredBenchmark& b) { return b.symbol == declared.function; });
        if (it == plugin.benchmarks.end())
            return reject(where +
                          ": not a benchmark function (a benchmark is named run_benchmark, benchmark_<name> or "
                          "run_<name>)");
        if (declared.variants && handshake.benchmark_variants.contains(it->name))
            return reject(where +
                          ": its variants are declared twice, here and in BENCHHOST_PLUGIN['benchmark_variants']"
                          " ('" +
                          it->name + "'): keep one");
        it->axes = declared.axes;
        for (const auto& [axis, values] : declared.axis_values) {
            if (!bench::is_builtin_axis(axis)) continue;
            bench::ScenarioConfig scratch;
            try {
                for (const std::string& value : values) bench::apply_axis_value(scratch, axis, value);
            } catch (const std::invalid_argument& e) {
                return reject(where + ": " + e.what());
            }
        }
        it->axis_values = declared.axis_values;
        if (declared.variants) {
            it->variants = variant_mask(*declared.variants);
            it->own_variants = true;
        }
    }
    info.mock = handshake.mock ? 1 : 0;
    discovery.plugins.push_back(std::move(plugin));
}

/// Reads every candidate in one child process; where that cannot be done, each is
/// rejected saying why.
void consider_python_candidates(const std::vector<PythonCandidate>& candidates, const DiscoveryOptions& options,
                                Discovery& discovery) {
    if (candidates.empty()) return;
    PythonInspection inspection;
    try {
        std::vector<fs::path> sources;
        for (const PythonCandidate& candidate : candidates) sources.push_back(candidate.source);
        inspection = inspect_python_files(plugin_python(), sources);
    } catch (const std::exception& e) {
        for (const PythonCandidate& candidate : candidates) {
            const std::string stem = candidate.path.extension() == ".py" ? candidate.path.stem().string()
                                                                         : candidate.path.filename().string();
            discovery.rejected.push_back(
                {candidate.path, std::string("cannot be read: ") + e.what(), candidate.category, safe_name(stem)});
        }
        return;
    }
    for (std::size_t i = 0; i < candidates.size(); ++i)
        consider_python(candidates[i], inspection.files[i], inspection, options, discovery);
}

}  // namespace

std::string safe_name(std::string_view name) {
    std::string safe(name);
    for (char& c : safe)
        if (!is_name_character(c)) c = '_';
    return is_safe_name(safe) ? safe : "plugin";
}

std::string trust_problem(const fs::path& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return {};  // a missing file fails later, with a clearer message
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
    if (info.st_uid != 0 && info.st_uid != geteuid())
        return "is owned by uid " + std::to_string(info.st_uid) + ", neither root nor this user";
    if (info.st_mode & S_IWOTH) return "is writable by everyone (mode " + std::string(mode) + ")";
    if (info.st_mode & S_IWGRP) {
        // A user-private group (only the owner in it) is as safe as the owner alone.
        const passwd* owner = getpwuid(info.st_uid);
        const group* grp = getgrgid(info.st_gid);
        const bool private_group =
            owner != nullptr && grp != nullptr && owner->pw_gid == info.st_gid &&
            (grp->gr_mem[0] == nullptr || (std::string(grp->gr_mem[0]) == owner->pw_name && grp->gr_mem[1] == nullptr));
        if (!private_group)
            return "is writable by group " + (grp ? std::string(grp->gr_name) : std::to_string(info.st_gid)) +
                   " (mode " + mode + ")";
    }
    return {};
}

void apply_crash_registry(Discovery& discovery, const PluginRegistry& registry) {
    auto crashed = [&](const DiscoveredPlugin& plugin) { return registry.crash_reason(plugin.path).has_value(); };
    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        if (!crashed(plugin)) continue;
        discovery.rejected.push_back({plugin.path,
                                      "crashed while loading in an earlier run (" +
                                          *registry.crash_reason(plugin.path) +
                                          "); skipped until the file changes, or run with --retry-failed",
                                      plugin.category, plugin.name});
    }
    std::erase_if(discovery.plugins, crashed);
}

bool is_safe_name(std::string_view name) {
    if (name.empty() || name == "." || name == ".." || name.size() > 128) return false;
    return std::all_of(name.begin(), name.end(), is_name_character);
}

std::string libtorch_install_problem(const fs::path& torch_root, const std::string& expected) {
    std::string found;
    if (std::ifstream version_py(torch_root / "version.py"); version_py) {
        const std::string prefix = "__version__ = '";
        for (std::string line; std::getline(version_py, line);) {
            if (!line.starts_with(prefix)) continue;
            found = line.substr(prefix.size(), line.find('\'', prefix.size()) - prefix.size());
            break;
        }
    } else if (std::ifstream build_version(torch_root / "build-version"); build_version) {
        std::getline(build_version, found);
    } else {
        return "links LibTorch, and this build was configured with LibTorch " + expected + " in " +
               torch_root.string() +
               ", which is no longer there: rebuild benchhost against the LibTorch you have "
               "(docs/install.md)";
    }
    if (found == expected) return {};
    return "links LibTorch, and this build was configured with LibTorch " + expected + ", but " + torch_root.string() +
           " now holds " + (found.empty() ? std::string("a torch of unknown version") : "LibTorch " + found) +
           ": rebuild (cmake --build names both), or reinstall " + expected +
           " (scripts/bench installs the pinned one)";
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
    // A minor may append fields: a plugin of an older minor has the older, shorter layout.
    static_assert(bench::abi_major == 2, "a new major has PluginInfo::build from its first minor: drop this case");
    const std::uint32_t expected = info.abi_minor < bench::build_info_abi_minor ? bench::plugin_info_size_without_build
                                                                                : sizeof(bench::PluginInfo);
    if (info.info_size != expected)
        return "bench_plugin_info has size " + std::to_string(info.info_size) + ", expected " +
               std::to_string(expected) + " for ABI " + plugin_abi;
    return {};
}

bool is_source_folder(const fs::path& folder) {
    std::error_code ec;
    return fs::is_regular_file(folder / "CMakeLists.txt", ec);
}

std::string folders_text(const Discovery& discovery) {
    PluginFolders marked = discovery.folders;
    for (fs::path& folder : marked.paths)
        if (std::find(discovery.source_folders.begin(), discovery.source_folders.end(), folder) !=
            discovery.source_folders.end())
            folder = folder.string() + " (Python files only)";
    return marked.names();
}

namespace {

/// Reads one plugin folder: its shared libraries into `discovery`, its Python files into
/// `python`, to be read with those of the other folders.
void scan_folder(const fs::path& plugins_dir, const std::string& origin, const DiscoveryOptions& options,
                 Discovery& discovery, std::vector<PythonCandidate>& python) {
    const std::string chosen = origin.empty() ? ""
                               : origin == "the default"
                                   ? " (the default: ../plugins beside the executable, and the source tree's plugins/ "
                                     "when it runs from its build folder; --plugins-dir or " +
                                         std::string(plugins_dir_variable) + " name others)"
                                   : " (from " + origin + ")";
    std::error_code ec;
    if (!fs::is_directory(plugins_dir, ec))
        throw DiscoveryError("plugin folder " + plugins_dir.string() + chosen + " does not exist or is not a folder");
    const bool source = is_source_folder(plugins_dir);
    if (source) discovery.source_folders.push_back(plugins_dir);
    // A source folder is the project's: a problem of trust rejects its Python files, not the run.
    std::string source_problem;
    if (!options.allow_untrusted) {
        if (std::string problem = trust_problem(plugins_dir); !problem.empty()) {
            if (!source)
                throw DiscoveryError("plugin folder " + plugins_dir.string() + chosen + " " + problem +
                                     untrusted_advice);
            source_problem = "its plugin folder " + plugins_dir.string() + " " + problem + untrusted_advice;
        }
    }

    if (!source) {
        for (const fs::directory_entry& entry : fs::directory_iterator(plugins_dir, ec)) {
            const std::string name = entry.path().filename().string();
            const bool category =
                std::find(plugin_categories.begin(), plugin_categories.end(), name) != plugin_categories.end();
            if (!category || !entry.is_directory())
                discovery.rejected.push_back(
                    {entry.path(), "not in a category folder (unit, integration or performance)", "", ""});
        }
        if (ec) throw DiscoveryError("cannot read plugin folder " + plugins_dir.string() + ": " + ec.message());
    }

    for (const std::string& category : plugin_categories) {
        const fs::path folder = plugins_dir / category;
        if (!fs::is_directory(folder, ec)) continue;
        std::string folder_problem = trust_problem(folder);
        if (!folder_problem.empty())
            folder_problem = "its folder " + folder.string() + " " + folder_problem + untrusted_advice;
        if (folder_problem.empty()) folder_problem = source_problem;
        std::vector<fs::path> files;
        fs::directory_iterator entries(folder, ec);
        if (ec) throw DiscoveryError("cannot read plugin folder " + folder.string() + ": " + ec.message());
        for (const fs::directory_entry& entry : entries) {
            // ec below: an entry's own (a folder without __init__.py), not one of reading the folder
            const fs::path& path = entry.path();
            if (entry.is_regular_file(ec) && path.extension() == ".py")
                python.push_back({path, path, plugins_dir, category, folder_problem});
            else if (entry.is_directory(ec) && path.filename() == "__pycache__")
                continue;  // Python's own bytecode cache
            else if (entry.is_directory(ec) && fs::is_regular_file(path / "__init__.py", ec))
                python.push_back({path, path / "__init__.py", plugins_dir, category, folder_problem});
            else if (source) continue;  // a built plugin's sources, a CMakeLists.txt: not this folder's plugins
            else if (entry.is_regular_file(ec)) files.push_back(path);
            else discovery.rejected.push_back({path, "not a regular file", "", ""});
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files)
            consider_file(file, plugins_dir, category, folder_problem, options, discovery);
    }
}

/// Throws DiscoveryError when two folders hold plugins of the same category and name
/// (or broken plugins by those names), naming both files in the order of their folders.
void check_names_across_folders(const Discovery& discovery) {
    const std::vector<fs::path>& folders = discovery.folders.paths;
    /// The index in `folders` of the one `path` (<folder>/<category>/<file>) is in; a
    /// folder may end with '/'.
    const auto folder_of = [&](const fs::path& path, const std::string& category) -> std::size_t {
        for (std::size_t i = 0; i < folders.size(); ++i)
            if ((folders[i] / category).parent_path() == path.parent_path().parent_path()) return i;
        return folders.size();
    };
    std::map<std::string, std::pair<fs::path, std::size_t>> seen;  // category/name -> its file, its folder
    const auto check = [&](const std::string& category, const std::string& name, const fs::path& path) {
        const std::string id = category + "/" + name;
        const std::size_t folder = folder_of(path, category);
        const auto [it, inserted] = seen.try_emplace(id, path, folder);
        if (inserted || it->second.second == folder) return;
        const bool earlier = it->second.second < folder;
        const fs::path& first = earlier ? it->second.first : path;
        const fs::path& second = earlier ? path : it->second.first;
        throw DiscoveryError("two plugins named " + id + " in two plugin folders: " + first.string() + " and " +
                             second.string() +
                             "; benchhost does not choose between them: rename or remove one, or leave its folder "
                             "out of those searched (" +
                             discovery.folders.text() + ")");
    };
    for (const DiscoveredPlugin& plugin : discovery.plugins) check(plugin.category, plugin.name, plugin.path);
    for (const RejectedFile& file : discovery.rejected)
        if (file.is_broken_plugin()) check(file.category, file.plugin_name, file.path);
}

}  // namespace

Discovery discover_plugins(const fs::path& plugins_dir, const DiscoveryOptions& options) {
    return discover_plugins(PluginFolders{{plugins_dir}, ""}, options);
}

Discovery discover_plugins(const PluginFolders& folders, const DiscoveryOptions& options) {
    if (folders.paths.empty()) throw DiscoveryError("no plugin folder to search");
    Discovery discovery;
    discovery.folders = folders;
    std::vector<PythonCandidate> python;
    for (const fs::path& folder : folders.paths) scan_folder(folder, folders.origin, options, discovery, python);
    std::sort(python.begin(), python.end(),
              [](const PythonCandidate& a, const PythonCandidate& b) { return a.path < b.path; });
    consider_python_candidates(python, options, discovery);
    check_names_across_folders(discovery);
    // By category, then folder (in the order searched), then path, whatever the plugin's kind.
    const auto category_index = [](const std::string& category) {
        return std::find(plugin_categories.begin(), plugin_categories.end(), category) - plugin_categories.begin();
    };
    const auto folder_index = [&](const fs::path& folder) {
        return std::find(folders.paths.begin(), folders.paths.end(), folder) - folders.paths.begin();
    };
    std::stable_sort(discovery.plugins.begin(), discovery.plugins.end(),
                     [&](const DiscoveredPlugin& a, const DiscoveredPlugin& b) {
                         return std::tuple(category_index(a.category), folder_index(a.folder), a.path) <
                                std::tuple(category_index(b.category), folder_index(b.folder), b.path);
                     });

    // Each benchmark id once: the first file (by path) keeps it.
    std::map<std::string, fs::path> declared;
    std::vector<DiscoveredPlugin> unique;
    for (DiscoveredPlugin& plugin : discovery.plugins) {
        std::string clash;
        for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) {
            auto it = declared.find(plugin.id(benchmark));
            if (it != declared.end()) {
                clash =
                    "declares benchmark id " + plugin.id(benchmark) + ", already declared by " + it->second.string();
                break;
            }
        }
        if (!clash.empty()) {
            discovery.rejected.push_back({plugin.path, clash, plugin.category, plugin.name});
            continue;
        }
        for (const DiscoveredBenchmark& benchmark : plugin.benchmarks) declared[plugin.id(benchmark)] = plugin.path;
        unique.push_back(std::move(plugin));
    }
    discovery.plugins = std::move(unique);
    for (const DiscoveredPlugin& plugin : discovery.plugins) {
        const std::string handshake = plugin.handshake_name();
        if (handshake == plugin.name) continue;
        const std::string declaration = plugin.python() ? "BENCHHOST_PLUGIN" : "BENCH_PLUGIN";
        const std::string file =
            plugin.python() ? handshake + (plugin.path.extension() == ".py" ? ".py" : "") : "lib" + handshake + ".so";
        discovery.warnings.push_back(plugin.path.string() + ": " + declaration + " names the plugin '" + handshake +
                                     "', the file '" + plugin.name + "'; the file name is used (benchmark ids " +
                                     plugin.category + "/" + plugin.name + "/...): rename the file" +
                                     (is_safe_name(handshake) ? " to " + file : std::string()) + " or the plugin in " +
                                     declaration + " to \"" + plugin.name + "\"");
    }
    std::sort(discovery.rejected.begin(), discovery.rejected.end(),
              [](const RejectedFile& a, const RejectedFile& b) { return a.path < b.path; });
    return discovery;
}

namespace {

std::vector<std::string> variants_of_mask(std::uint8_t mask) {
    std::vector<std::string> out;
    if (mask & bench::eager_bit) out.emplace_back("eager");
    if (mask & bench::compiled_bit) out.emplace_back("compiled");
    if (mask & bench::kernelized_bit) out.emplace_back("kernelized");
    return out;
}

constexpr std::uint8_t all_variants = bench::eager_bit | bench::compiled_bit | bench::kernelized_bit;

}  // namespace

std::vector<std::string> DiscoveredPlugin::variants(const DiscoveredBenchmark& benchmark) const {
    const std::vector<std::string>& own_axes = axes_of(benchmark);
    if (std::find(own_axes.begin(), own_axes.end(), "variant") == own_axes.end()) return {};
    if (benchmark.own_variants) return variants_of_mask(benchmark.variants);
    const std::uint8_t declared = info.variants != 0 ? info.variants : all_variants;
    return variants_of_mask(benchmark.variants == 0 ? declared
                                                    : static_cast<std::uint8_t>(declared & benchmark.variants));
}

std::vector<std::string> DiscoveredPlugin::declared_variants() const {
    return variants_of_mask(info.variants != 0 ? info.variants : all_variants);
}

std::vector<std::string> DiscoveredPlugin::variants() const {
    if (std::find(axes.begin(), axes.end(), "variant") == axes.end()) return {};
    return declared_variants();
}

bool DiscoveredPlugin::has_own_declarations() const {
    return std::any_of(benchmarks.begin(), benchmarks.end(),
                       [](const DiscoveredBenchmark& b) { return b.axes.has_value() || b.own_variants; });
}

}  // namespace benchhost
