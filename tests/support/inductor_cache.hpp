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
/// TORCHINDUCTOR_CACHE_DIR. Inductor also leaves each compile's model library here (a
/// .so of 100 MB for ResNet-50, 1.5 MB for a small MLP), never read again once packaged:
/// those written over an hour ago are removed when a test process first asks for the
/// folder.
inline std::filesystem::path shared_inductor_cache() {
    namespace fs = std::filesystem;
    static const fs::path folder = [] {
        const fs::path dir = fs::path(BENCH_TEST_BUILD_DIR) / "tests" / "inductor-cache";
        std::error_code ec;
        fs::create_directories(dir, ec);
        const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
        for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            std::error_code ignored;
            if (it->is_regular_file(ignored) && it->path().extension() == ".so" &&
                it->file_size(ignored) > (std::uintmax_t{1} << 20) && it->last_write_time(ignored) < old)
                fs::remove(it->path(), ignored);
        }
        return dir;
    }();
    return folder;
}

}  // namespace benchtest
