// The calibration cache: the machine's measured peak GFLOP/s, kept between runs in
// $XDG_CACHE_HOME/benchhost/calibration.json (else ~/.cache/benchhost/calibration.json).
// The LibTorch layer writes it (calibrated_peak_gflops) and reads it back; the host
// reads it to show the peaks in a run's hardware record. This file is the format's one
// reader and one writer:
//
//   {"version": 1, "entries": {"<cpu model>|<dtype>|threads=<n>": {"gflops": 112.3,
//     "method": "onednn_linear 1024^3", "calibration": 2, "torch_version": "1.13.1",
//     "measured_at_unix": 1795000000}, ...}}
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct CalibrationEntry {
    double gflops = 0;
    std::string method;  // how the peak was measured, e.g. "onednn_linear 1024^3"
    int calibration = 0;  // version of the measuring method
    std::string torch_version;  // the LibTorch that measured it
    std::int64_t measured_at_unix = 0;  // seconds since the epoch; 0: not said
};

struct CalibrationCache {
    std::map<std::string, CalibrationEntry> entries;  // by "<cpu model>|<dtype>|threads=<n>"
    /// Entries that were not calibration entries ("<key>: <why>"): left out of `entries`
    /// and dropped when the file is written again.
    std::vector<std::string> ignored;
};

/// Where the cache lives; nullopt when neither XDG_CACHE_HOME nor HOME is an absolute path.
std::optional<std::filesystem::path> calibration_file();

/// Reads the cache. A missing file is an empty cache; a file that cannot be read, is
/// larger than 1 MiB, is not JSON or not a JSON object throws std::runtime_error
/// "<file>: <what is wrong>".
CalibrationCache read_calibration_cache(const std::filesystem::path& file);

/// Sets `key` to `entry` in the cache on disk, merged with what is there now (another
/// process may have added entries; an unreadable file is replaced): written to a
/// temporary file in the same folder, then renamed over it. False when it could not
/// be written (the cache is an optimization: the caller goes on).
bool write_calibration_entry(const std::filesystem::path& file, const std::string& key, const CalibrationEntry& entry);

}  // namespace bench
