// Values of options that CLI11 does not read itself: relative amounts ("5%" or 0.05) and
// plugin parameters (KEY=VALUE[,VALUE...]), read, or refused with the option named.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace benchhost {

/// What --plugins-dir of `run` and `list` says in --help (config/plugin_folders.hpp).
inline constexpr const char* plugins_dir_help =
    "Plugin folder; several separated by ':' or given again, an empty entry standing for the default ones "
    "(default: $BENCHHOST_PLUGINS_DIR, else ../plugins beside the executable and, run from its build folder, the "
    "Python files in the source tree's plugins/<category>/)";

/// A relative amount from the command line ("5%" or 0.05), below `below`, or ConfigError
/// naming the option.
double relative_option(const std::string& option, const std::string& text, double below);

/// `--param KEY=VALUE[,VALUE...]` as the key and its values, or ConfigError naming `option`.
std::pair<std::string, std::vector<std::string>> param_of(const std::string& option, const std::string& param);

}  // namespace benchhost
