#include "execute/cold_compile_caches.hpp"

#include <stdlib.h>

#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include <bench/internal/environment/cache_dir.hpp>

namespace benchhost {

namespace fs = std::filesystem;

ColdCompileCaches::ColdCompileCaches(const bench::ScenarioConfig& config) {
    if (config.compile_cache != "cold") return;
    std::error_code error;
    fs::path temp = fs::temp_directory_path(error);
    if (error) temp = "/tmp";
    std::string pattern = (temp / "benchhost-compile-cache-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error("--compile-cache cold: cannot make a folder in " + temp.string());
    folder_ = pattern;
    // The machine's calibrated peak is a measurement, not a compile: measuring it again in
    // every cold scenario would only cost time.
    if (const auto warm = bench::benchhost_cache_dir())
        fs::copy_file(*warm / "calibration.json", folder_ / "calibration.json", error);
    // Inductor's, Triton's and JAX's caches are then folders in it (benchhost.torch and
    // benchhost.jax put them there when the user chose none): the user's choice is unset.
    environment_ = {"BENCHHOST_CACHE_DIR=" + folder_.string(), "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR",
                    "JAX_COMPILATION_CACHE_DIR"};
}

ColdCompileCaches::~ColdCompileCaches() {
    if (folder_.empty()) return;
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
}

std::string ColdCompileCaches::describe() const {
    if (!cold())
        return "warm: the compile caches as earlier scenarios and runs left them (benchhost's cache folder, "
               "Inductor's, JAX's)";
    return "cold: fresh, empty compile caches for this scenario (benchhost's cache folder, with Inductor's and "
           "JAX's in it), removed after it (--compile-cache cold)";
}

}  // namespace benchhost
