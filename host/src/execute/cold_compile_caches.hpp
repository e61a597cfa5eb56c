// --compile-cache cold: a scenario's workers get fresh, empty compile caches, so that
// what they compile is compiled from nothing, whatever earlier scenarios and runs left.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <bench/config.hpp>

namespace benchhost {

/// For a scenario whose config says compile_cache "cold": a fresh folder in the
/// temporary folder as benchhost's cache folder (with the machine's calibration copied
/// in: a measurement, not a compile), where benchhost.torch and benchhost.jax keep
/// Inductor's and JAX's persistent caches; removed with this object. Nothing for "warm".
class ColdCompileCaches {
public:
    explicit ColdCompileCaches(const bench::ScenarioConfig& config);
    ~ColdCompileCaches();
    ColdCompileCaches(const ColdCompileCaches&) = delete;
    ColdCompileCaches& operator=(const ColdCompileCaches&) = delete;

    bool cold() const { return !folder_.empty(); }
    /// For the workers, over the host's own variables (with_variables):
    /// BENCHHOST_CACHE_DIR=the folder, and TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR and
    /// JAX_COMPILATION_CACHE_DIR unset.
    const std::vector<std::string>& environment() const { return environment_; }
    /// What the scenario's info compile_caches says.
    std::string describe() const;

private:
    std::filesystem::path folder_;
    std::vector<std::string> environment_;
};

}  // namespace benchhost
