// Remembers plugins that crashed the worker while being loaded (a static initializer
// that segfaults, say), as GStreamer's registry does: such a file is skipped, with
// the reason, until it changes (size or modification time) or the user asks for
// --retry-failed. Kept as JSON in plugin_registry.json in benchhost's cache folder
// (default_path()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace benchhost {

class PluginRegistry {
public:
    /// Reads `file` if it exists. An unreadable or corrupt registry starts empty and
    /// is rewritten: it only caches what runs found out.
    explicit PluginRegistry(std::filesystem::path file);

    /// plugin_registry.json in benchhost's cache folder: $BENCHHOST_CACHE_DIR, else
    /// $XDG_CACHE_HOME/benchhost, else ~/.cache/benchhost (the first of them that is an
    /// absolute path: <bench/internal/environment/cache_dir.hpp>), else /tmp/.cache/benchhost.
    static std::filesystem::path default_path();

    /// Why `plugin` was recorded, when it is recorded and has not changed since.
    std::optional<std::string> crash_reason(const std::filesystem::path& plugin) const;
    void record_crash(const std::filesystem::path& plugin, const std::string& reason);
    void forget(const std::filesystem::path& plugin);

    /// Writes the registry atomically; a failure is returned as a message, not thrown:
    /// the run's results matter more than the cache.
    std::optional<std::string> save() const;

    const std::filesystem::path& file() const { return file_; }

private:
    struct Entry {
        std::uintmax_t size = 0;
        std::int64_t mtime_ns = 0;
        std::string reason;
    };
    std::filesystem::path file_;
    std::map<std::string, Entry> entries_;  // by absolute path
};

}  // namespace benchhost
