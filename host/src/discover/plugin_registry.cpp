#include "discover/plugin_registry.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <stdexcept>

#include <rapidjson/document.h>

#include <bench/internal/environment/cache_dir.hpp>

#include "json/json_parse.hpp"
#include "json/json_writer.hpp"
#include "util/atomic_file.hpp"
#include "util/text_file.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

struct FileStamp {
    std::uintmax_t size = 0;
    std::int64_t mtime_ns = 0;
};

std::optional<FileStamp> stamp_of(const fs::path& file) {
    struct stat info {};
    if (stat(file.c_str(), &info) != 0) return std::nullopt;
    return FileStamp{static_cast<std::uintmax_t>(info.st_size),
                     static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
}

std::string key_of(const fs::path& plugin) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(plugin, ec);
    return (ec ? plugin : absolute).lexically_normal().string();
}

}  // namespace

PluginRegistry::PluginRegistry(fs::path file) : file_(std::move(file)) {
    std::string text;
    try {
        text = read_text_file(file_);
    } catch (const std::runtime_error&) {
        return;  // none yet, or unreadable: start empty
    }
    rapidjson::Document document;
    if (!parse_json(text, document).empty() || !document.IsObject() || !document.HasMember("crashed_plugins") ||
        !document["crashed_plugins"].IsArray())
        return;
    for (const auto& item : document["crashed_plugins"].GetArray()) {
        if (!item.IsObject() || !item.HasMember("path") || !item["path"].IsString() || !item.HasMember("size") ||
            !item["size"].IsUint64() || !item.HasMember("mtime_ns") || !item["mtime_ns"].IsInt64() ||
            !item.HasMember("reason") || !item["reason"].IsString())
            continue;
        entries_[item["path"].GetString()] =
            Entry{item["size"].GetUint64(), item["mtime_ns"].GetInt64(), item["reason"].GetString()};
    }
}

fs::path PluginRegistry::default_path() {
    return bench::benchhost_cache_dir().value_or(fs::path("/tmp/.cache/benchhost")) / "plugin_registry.json";
}

std::optional<std::string> PluginRegistry::crash_reason(const fs::path& plugin) const {
    auto it = entries_.find(key_of(plugin));
    if (it == entries_.end()) return std::nullopt;
    const std::optional<FileStamp> stamp = stamp_of(plugin);
    if (!stamp || stamp->size != it->second.size || stamp->mtime_ns != it->second.mtime_ns) return std::nullopt;
    return it->second.reason;
}

void PluginRegistry::record_crash(const fs::path& plugin, const std::string& reason) {
    const std::optional<FileStamp> stamp = stamp_of(plugin);
    if (!stamp) return;
    entries_[key_of(plugin)] = Entry{stamp->size, stamp->mtime_ns, reason};
}

void PluginRegistry::forget(const fs::path& plugin) { entries_.erase(key_of(plugin)); }

std::optional<std::string> PluginRegistry::save() const {
    // Pretty, for people who look, but with paths as their bytes: only benchhost reads it.
    JsonOut out(JsonFormat{JsonFormat::Layout::pretty, JsonFormat::Values::exact});
    out.start_object();
    out.key("crashed_plugins");
    out.start_array();
    for (const auto& [path, entry] : entries_) {
        out.start_object();
        out.field("path", path);
        out.key("size");
        out.unsigned_integer(entry.size);
        out.key("mtime_ns");
        out.integer(entry.mtime_ns);
        out.field("reason", entry.reason);
        out.end_object();
    }
    out.end_array();
    out.end_object();
    try {
        write_file_atomically(file_, out.text());
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

}  // namespace benchhost
