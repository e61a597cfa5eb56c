#include <bench/internal/environment/cache_dir.hpp>

#include <cstdlib>

namespace bench {

std::optional<std::filesystem::path> benchhost_cache_dir() {
    const char* own = std::getenv("BENCHHOST_CACHE_DIR");
    if (own && *own == '/') return std::filesystem::path(own);
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/') return std::filesystem::path(xdg) / "benchhost";
    const char* home = std::getenv("HOME");
    if (home && *home == '/') return std::filesystem::path(home) / ".cache" / "benchhost";
    return std::nullopt;
}

}  // namespace bench
