// Where a run looks for plugins: the folders of --plugins-dir, else the config's
// plugins_dir, else BENCHHOST_PLUGINS_DIR, else the default ones. Each is a list of
// folders separated by ':' (the option and the config's key may also be given several
// times, or as a YAML list); an empty entry stands for the default folders, so that
// "~/my_plugins:" is yours, then the default ones.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace benchhost {

/// The environment variable that names plugin folders for `run` and `list` when neither
/// --plugins-dir nor a config's plugins_dir does.
inline constexpr const char* plugins_dir_variable = "BENCHHOST_PLUGINS_DIR";

/// What --plugins-dir of `run` and `list` says in --help.
inline constexpr const char* plugins_dir_help =
    "Plugin folder; several separated by ':' or given again, an empty entry standing for the default ones "
    "(default: $BENCHHOST_PLUGINS_DIR, else ../plugins beside the executable and, run from its build folder, the "
    "Python files in the source tree's plugins/<category>/)";

/// The folders a run searches, in order, and who chose them.
struct PluginFolders {
    std::vector<std::filesystem::path> paths;
    /// For messages: "--plugins-dir", "BENCHHOST_PLUGINS_DIR", a config file, "--base",
    /// "--new", or "the default" (default_plugin_folders).
    std::string origin;

    /// The folders as one list, "build/plugins:plugins": what a run records
    /// (run_config.plugins_dir), and what --plugins-dir takes back.
    std::string text() const;
    /// For people: "build/plugins and plugins", "a, b and c".
    std::string names() const;
};

/// The folders searched when nobody names any, from this executable's path: its
/// ../plugins (build/plugins for build/bin/benchhost; <prefix>/plugins installed), and,
/// for a host run from its build folder, the source tree's plugins/ (the one that
/// <build>/CMakeCache.txt names as benchhost_SOURCE_DIR), where a Python file dropped into
/// plugins/<category>/ is found with no build. Only existing folders but the first.
std::vector<std::filesystem::path> default_plugin_folders(const std::filesystem::path& executable);

/// default_plugin_folders of this process's executable, origin "the default".
PluginFolders default_plugin_folders();

/// The entries of `lists`, each one folder or several separated by ':', in order; an
/// empty entry is kept ("a:" is "a" and "").
std::vector<std::string> folder_list_entries(const std::vector<std::string>& lists);

/// The folders of `lists`, each one folder or several separated by ':', in order, each
/// once (a folder named again, as written or through a link, is left out); an empty
/// entry stands for `defaults`.
std::vector<std::filesystem::path> plugin_folder_list(const std::vector<std::string>& lists,
                                                      const std::vector<std::filesystem::path>& defaults);

/// What `run` and `list` search unless told otherwise: BENCHHOST_PLUGINS_DIR's folders
/// when it is set and not empty, else the default folders.
PluginFolders plugin_folders_from_environment();

}  // namespace benchhost
