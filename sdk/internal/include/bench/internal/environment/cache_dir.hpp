// benchhost's cache folder, kept between runs: $BENCHHOST_CACHE_DIR, else
// $XDG_CACHE_HOME/benchhost, else ~/.cache/benchhost. The calibration cache, the plugin
// registry, the AOTInductor packages and (for Python plugins) torch.compile's cache live
// under it.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed.
#pragma once

#include <filesystem>
#include <optional>

namespace bench {

/// The folder (not created); nullopt when none of BENCHHOST_CACHE_DIR, XDG_CACHE_HOME
/// and HOME is an absolute path.
std::optional<std::filesystem::path> benchhost_cache_dir();

}  // namespace bench
