#include "config/plugin_folders.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include "util/join.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// `path` as the file system resolves it (links followed, as far as it exists), to tell
/// the same folder named twice.
fs::path resolved(const fs::path& path) {
    std::error_code ec;
    fs::path out = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? path.lexically_normal() : out.lexically_normal();
}

/// The source tree that the CMake build folder `build` was configured from: its
/// CMakeCache.txt's benchhost_SOURCE_DIR; empty when it has none.
fs::path source_tree_of(const fs::path& build) {
    std::ifstream cache(build / "CMakeCache.txt");
    const std::string key = "benchhost_SOURCE_DIR:";
    for (std::string line; std::getline(cache, line);) {
        if (!line.starts_with(key)) continue;
        const std::size_t equals = line.find('=');
        return equals == std::string::npos ? fs::path() : fs::path(line.substr(equals + 1));
    }
    return {};
}

}  // namespace

std::string PluginFolders::text() const {
    std::vector<std::string> texts;
    for (const fs::path& path : paths) texts.push_back(path.string());
    return join(texts, ":");
}

std::string PluginFolders::names() const {
    std::string out;
    for (std::size_t i = 0; i < paths.size(); ++i)
        out += (i == 0 ? "" : i + 1 == paths.size() ? " and " : ", ") + paths[i].string();
    return out;
}

std::vector<fs::path> default_plugin_folders(const fs::path& executable) {
    const fs::path build = executable.parent_path().parent_path();
    std::vector<fs::path> folders = {(build / "plugins").lexically_normal()};
    const fs::path source = source_tree_of(build);
    std::error_code ec;
    if (!source.empty() && fs::is_directory(source / "plugins", ec))
        folders = plugin_folder_list({folders.front().string(), (source / "plugins").lexically_normal().string()}, {});
    return folders;
}

PluginFolders default_plugin_folders() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {{fs::path("plugins")}, "the default"};
    return {default_plugin_folders(exe), "the default"};
}

std::vector<fs::path> plugin_folder_list(const std::vector<std::string>& lists, const std::vector<fs::path>& defaults) {
    std::vector<fs::path> folders, seen;
    const auto add = [&](const fs::path& folder) {
        const fs::path key = resolved(folder);
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
        seen.push_back(key);
        folders.push_back(folder);
    };
    for (const std::string& entry : folder_list_entries(lists)) {
        if (entry.empty())
            for (const fs::path& folder : defaults) add(folder);
        else add(entry);
    }
    return folders;
}

std::vector<std::string> folder_list_entries(const std::vector<std::string>& lists) {
    std::vector<std::string> entries;
    for (const std::string& list : lists) {
        for (std::size_t start = 0;;) {
            const std::size_t colon = list.find(':', start);
            entries.push_back(list.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
    }
    return entries;
}

PluginFolders plugin_folders_from_environment() {
    const char* value = std::getenv(plugins_dir_variable);
    if (value == nullptr || *value == '\0') return default_plugin_folders();
    return {plugin_folder_list({value}, default_plugin_folders().paths), plugins_dir_variable};
}

}  // namespace benchhost
