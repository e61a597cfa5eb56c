// benchhost's cache folder, kept between runs: $XDG_CACHE_HOME/benchhost, else
// ~/.cache/benchhost. The calibration cache, the plugin registry and the AOTInductor
// packages live under it.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed.
#pragma once

#include <filesystem>
#include <optional>

namespace bench {

/// The folder (not created); nullopt when neither XDG_CACHE_HOME nor HOME is an
/// absolute path.
std::optional<std::filesystem::path> benchhost_cache_dir();

}  // namespace bench
