// The compiled variant as PyTorch 2.x deploys a model without Python: exported with
// torch.export, compiled ahead of time by AOTInductor into a .pt2 package, then loaded
// and called from C++ (torch::inductor::AOTIModelPackageLoader). Export and compilation
// need Python: they run in a child process of the worker, with the Python of the PyTorch
// this SDK links, never in the host. Packages are cached, so that the second run of a
// scenario loads instead of compiling.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include <bench/export.hpp>

namespace torch::inductor {
class AOTIModelPackageLoader;
}

namespace bench::libtorch {

/// The model as Python defines it, for the exporter: the same architecture as the
/// plugin's C++ module, with the same parameter and buffer names, so that the C++
/// weights load into it with strict=True. Its eager output is checked against the C++
/// module's before anything is compiled.
struct PythonModel {
    std::string name;  // names the package in the cache, e.g. "resnet50"
    std::string source;  // Python source defining build(**arguments) -> torch.nn.Module
    std::map<std::string, std::string> arguments;  // keyword arguments of build
};

/// The AOTInductor compile modes: "default" and "max-autotune" (Inductor's autotuning
/// of matrix products and convolutions, as torch.compile's mode without CUDA graphs).
BENCH_EXPORT bool is_aot_inductor_mode(const std::string& mode);

struct AotCompileOptions {
    std::string mode = "default";  // is_aot_inductor_mode
    double timeout_s = 0;  // the child's wall-clock limit; 0: none
    std::filesystem::path cache_dir;  // empty: aot_cache_dir()
    double atol = 1e-4, rtol = 1e-3;  // the Python model's eager output against the C++ one's
};

/// A loaded package, and what it cost to get it.
struct AotModel {
    std::shared_ptr<torch::inductor::AOTIModelPackageLoader> loader;
    std::filesystem::path package;
    std::string key;  // the cache key, 16 hex digits ("" for aot_load)
    bool cache_hit = false;  // loaded from the cache: nothing was compiled
    double compile_time_ms = 0;  // the child's wall time (export, compile, package); 0 on a hit
    double export_time_ms = 0;  // of it, torch.export's
    double load_time_ms = 0;  // AOTIModelPackageLoader: unpack, dlopen, constants
    std::vector<std::string> notes;  // what happened on the way (a corrupt entry replaced, say)

    /// Calls the package's model. Throws std::logic_error when nothing is loaded.
    BENCH_EXPORT std::vector<torch::Tensor> operator()(const std::vector<torch::Tensor>& inputs) const;
};

/// The compile cannot happen here at all (no Python with torch, say): a scenario that
/// needs it is skipped with what() as the reason.
struct AotUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// $BENCHHOST_CACHE_DIR/aot-inductor, else $XDG_CACHE_HOME/benchhost/aot-inductor,
/// else ~/.cache/benchhost/aot-inductor; empty when none of them is an absolute path
/// (<bench/internal/environment/cache_dir.hpp>).
BENCH_EXPORT std::filesystem::path aot_cache_dir();

/// The Python that exports and compiles: $BENCHHOST_PYTHON, else the one the build was
/// configured with (BENCH_PYTHON). Throws AotUnavailable when it does not exist.
BENCH_EXPORT std::string aot_python();

/// The package of `module` (eval mode, no gradients, on the inputs' device and dtype)
/// for these example inputs: loaded from the cache when an entry with the same key is
/// there, else compiled in a child process and put in the cache. The key covers the
/// model's name and Python source and arguments, a digest of its weights, the inputs'
/// shapes, dtypes and device, the mode, the torch version and the compiler options,
/// the worker's intra-op thread count among them (Inductor writes it into the CPU code).
/// `reference` is module's eager output on `inputs`.
///
/// Errors: std::invalid_argument for a mode that is not is_aot_inductor_mode;
/// AotUnavailable when the compile cannot run here; std::runtime_error naming the
/// package or the Python definition when the compile fails, times out, or the Python
/// model does not reproduce the C++ one. A cache entry that cannot be loaded is deleted
/// and compiled again, once (a note says so): a corrupt entry is never loaded twice.
BENCH_EXPORT AotModel aot_compile(const torch::nn::Module& module, const PythonModel& python,
                                  const std::vector<torch::Tensor>& inputs, const torch::Tensor& reference,
                                  const AotCompileOptions& options);

/// Loads a package built elsewhere (torch._inductor.aoti_compile_and_package). Throws
/// std::runtime_error naming the package when it does not exist, was compiled for
/// another device type than `device`'s, or by another torch version (where the package
/// says which), or cannot be loaded.
BENCH_EXPORT AotModel aot_load(const std::filesystem::path& package, const torch::Device& device);

}  // namespace bench::libtorch
