// Inductor's cache folder shared by the tests that compile AOTInductor packages and
// assert nothing of Inductor's own cache (only of benchhost's package cache).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

namespace benchtest {

/// <build>/tests/inductor-cache, for TORCHINDUCTOR_CACHE_DIR. Every AOTInductor compile
/// from an empty Inductor cache first compiles Inductor's probes of the CPU's vector
/// instruction sets (a small program per set); kept here across tests and runs, they
/// are compiled once: a ResNet-50 package at 64x64 took 74 s from an empty folder and
/// 50 s with this one (2-core VM under load, 2026-11-30). Benchhost's package cache
/// stays each test's own, so its misses and hits are what the tests assert; a test of a
/// cold compile runs with --compile-cache cold, whose workers get no
/// TORCHINDUCTOR_CACHE_DIR. Inductor also leaves each compile's model library here
/// (100 MB for ResNet-50), never read again: the entries of over 16 MiB untouched for an
/// hour are removed when a test process first asks for the folder.
inline std::filesystem::path shared_inductor_cache() {
    namespace fs = std::filesystem;
    static const fs::path folder = [] {
        const fs::path dir = fs::path(BENCH_TEST_BUILD_DIR) / "tests" / "inductor-cache";
        std::error_code ec;
        fs::create_directories(dir, ec);
        const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            if (!entry.is_directory(ec)) continue;
            std::uintmax_t bytes = 0;
            bool recent = false;
            for (const auto& file : fs::recursive_directory_iterator(entry.path(), ec)) {
                recent = recent || file.last_write_time(ec) > old;
                if (file.is_regular_file(ec)) bytes += file.file_size(ec);
            }
            if (!recent && bytes > (std::uintmax_t{16} << 20)) fs::remove_all(entry.path(), ec);
        }
        return dir;
    }();
    return folder;
}

}  // namespace benchtest
