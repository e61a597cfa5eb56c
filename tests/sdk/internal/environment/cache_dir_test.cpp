// benchhost's cache folder: $BENCHHOST_CACHE_DIR, else $XDG_CACHE_HOME/benchhost, else
// ~/.cache/benchhost; a relative path is passed over.
#include <bench/internal/environment/cache_dir.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "../../../support/scoped_env.hpp"

namespace {

using benchtest::ScopedEnv;

TEST(CacheDir, BenchhostsOwnVariableComesFirstThenXdgThenHome) {
    const ScopedEnv home("HOME", "/home/someone");
    {
        const ScopedEnv own("BENCHHOST_CACHE_DIR", "/srv/cache");
        const ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
        EXPECT_EQ(bench::benchhost_cache_dir(), std::filesystem::path("/srv/cache"));
    }
    {
        const ScopedEnv own("BENCHHOST_CACHE_DIR", "relative/cache");  // passed over
        const ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
        EXPECT_EQ(bench::benchhost_cache_dir(), std::filesystem::path("/xdg/benchhost"));
    }
    {
        const ScopedEnv own("BENCHHOST_CACHE_DIR", std::nullopt);
        const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
        EXPECT_EQ(bench::benchhost_cache_dir(), std::filesystem::path("/home/someone/.cache/benchhost"));
        const ScopedEnv no_home("HOME", "");
        EXPECT_EQ(bench::benchhost_cache_dir(), std::nullopt);
    }
}

}  // namespace
