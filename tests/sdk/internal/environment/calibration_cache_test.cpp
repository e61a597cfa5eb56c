// The calibration cache's one reader and writer (the LibTorch layer writes it, the host
// shows it): entries round-trip, are merged, and a corrupt file is replaced.
#include <bench/internal/environment/calibration_cache.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "../../../support/test_support.hpp"

namespace {

TEST(CalibrationCache, WrittenAndReadBack) {
    benchtest::TempDir dir;
    const auto file = dir / "cache" / "calibration.json";
    ASSERT_TRUE(
        bench::write_calibration_entry(file, "cpu|float32|threads=1", {50.5, "aten_linear 512^3", 2, "1.13.1", 7}));
    // A second entry is merged with the first; a corrupt entry in between is dropped.
    ASSERT_TRUE(bench::write_calibration_entry(file, "cpu|bfloat16|threads=1", {75, "onednn_linear", 2, "1.13.1", 8}));
    const bench::CalibrationCache cache = bench::read_calibration_cache(file);
    ASSERT_EQ(cache.entries.size(), 2u);
    const auto& entry = cache.entries.at("cpu|float32|threads=1");
    EXPECT_EQ(entry.gflops, 50.5);
    EXPECT_EQ(entry.method, "aten_linear 512^3");
    EXPECT_EQ(entry.calibration, 2);
    EXPECT_EQ(entry.torch_version, "1.13.1");
    EXPECT_EQ(entry.measured_at_unix, 7);
    EXPECT_TRUE(cache.ignored.empty());
    // A corrupt file is replaced by one holding the new entry.
    benchtest::write_file(file, "{\"entries\": {\"half");
    EXPECT_THROW(bench::read_calibration_cache(file), std::runtime_error);
    ASSERT_TRUE(bench::write_calibration_entry(file, "k", {1, "m", 2, "t", 9}));
    EXPECT_EQ(bench::read_calibration_cache(file).entries.size(), 1u);
    // Where it lives: XDG_CACHE_HOME first.
    const char* old = std::getenv("XDG_CACHE_HOME");
    const std::string saved = old ? old : "";
    ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
    EXPECT_EQ(bench::calibration_file(), std::filesystem::path("/x/cache/benchhost/calibration.json"));
    if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
}

TEST(CalibrationCache, WhatIsNotAnEntryIsIgnoredAndSaid) {
    benchtest::TempDir dir;
    const auto file = dir / "calibration.json";
    EXPECT_TRUE(bench::read_calibration_cache(file).entries.empty());  // no file: an empty cache
    benchtest::write_file(file, R"({"version":1,"entries":{"a":{"gflops":2},"b":[1],"c":{"gflops":-1}}})");
    const auto cache = bench::read_calibration_cache(file);
    ASSERT_EQ(cache.entries.size(), 1u);
    EXPECT_EQ(cache.entries.at("a").gflops, 2);
    ASSERT_EQ(cache.ignored.size(), 2u);
    EXPECT_EQ(cache.ignored[0], "b: not an object");
    EXPECT_EQ(cache.ignored[1], "c: no positive \"gflops\"");
    benchtest::write_file(file, R"({"entries":[]})");
    EXPECT_THROW(bench::read_calibration_cache(file), std::runtime_error);
}

}  // namespace
