// benchhost's cache folder: $BENCHHOST_CACHE_DIR, else $XDG_CACHE_HOME/benchhost, else
// ~/.cache/benchhost; a relative path is passed over.
#include <bench/internal/environment/cache_dir.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

/// Sets (or unsets, with nullopt) a variable for the life of the object.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            ::setenv(name, value->c_str(), 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

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
