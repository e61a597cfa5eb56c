// Plugin files with another handshake: a copy of a built plugin whose bench_plugin_info
// says another SDK ABI and size, as a plugin built against another SDK would.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include <bench/abi.hpp>

#include "test_support.hpp"

namespace benchtest {

/// Writes `plugin` to `target` with its handshake's abi_major, abi_minor and (when
/// given) info_size replaced; the bytes after them stay as they are. Throws when the
/// file holds no handshake (its magic number).
inline void write_plugin_with_abi(const fs::path& plugin, const fs::path& target, std::uint16_t major,
                                  std::uint16_t minor, std::optional<std::uint32_t> info_size = std::nullopt) {
    std::string bytes = read_file(plugin);
    const std::uint32_t magic = bench::plugin_magic;
    const std::size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&magic), sizeof magic));
    if (at == std::string::npos) throw std::runtime_error(plugin.string() + " holds no bench_plugin_info");
    std::memcpy(&bytes[at + offsetof(bench::PluginInfo, abi_major)], &major, sizeof major);
    std::memcpy(&bytes[at + offsetof(bench::PluginInfo, abi_minor)], &minor, sizeof minor);
    if (info_size) std::memcpy(&bytes[at + offsetof(bench::PluginInfo, info_size)], &*info_size, sizeof *info_size);
    write_file(target, bytes);
}

}  // namespace benchtest
