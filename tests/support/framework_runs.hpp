// Runs of one model in several frameworks, as resnet50 (LibTorch from C++), resnet50_py
// (PyTorch from Python) and resnet50_jax report them (info "framework" and "model", the
// memory and compile figures each records), for the tests of the comparison across
// frameworks (analysis/framework_comparison.hpp) and of its sections in the reports.
#pragma once

#include <string>
#include <vector>

#include "builders.hpp"

namespace benchtest {

inline constexpr const char* torch_python = "PyTorch 2.14.1+cu130 (Python)";
inline constexpr const char* jax_flax = "JAX 0.6.2, Flax (Python)";

/// A scenario of `plugin` measuring `model` in `framework` (none when empty): 20 latency
/// samples around `ms` (seeded by `seed`: equal seeds and medians give equal samples),
/// throughput to match, and the process's peak resident memory.
inline benchhost::ScenarioOutcome model_scenario(const std::string& plugin, const std::string& model,
                                                 const std::string& framework, bench::Variant variant, double ms,
                                                 unsigned seed, int batch = 1) {
    std::vector<double> throughput;
    const std::vector<double> latency = jittered_samples(ms, 20, seed);
    for (const double v : latency) throughput.push_back(1000.0 * batch / v);
    return Outcome("performance", plugin, plugin)
        .variant(variant)
        .batch_size(batch)
        .axis("dtype", "float32")
        .series("latency", "ms", latency)
        .series("throughput", "images/s", throughput)
        .edit([&](benchhost::ScenarioOutcome& o) {
            if (!framework.empty()) o.result.info["framework"] = framework;
            o.result.info["model"] = model;
            o.result.scalars.push_back({"peak_rss", 400 + ms, "MiB"});
        });
}

/// ResNet-50 at batch 1 in three frameworks, in a run's order: LibTorch eager 30 ms,
/// compiled 20 ms (an AOTInductor compile of 36.7 s), kernelized 25 ms; PyTorch from Python
/// eager 31 ms, compiled with the very samples of LibTorch's compiled (tied with it; 20.9 s
/// of torch.compile); JAX eager 300 ms, compiled 24 ms (0.8 s of lowering, 2.7 s of XLA's
/// compile, 64 MiB at the device's peak).
inline std::vector<benchhost::ScenarioOutcome> resnet50_in_three_frameworks() {
    using bench::Variant;
    std::vector<benchhost::ScenarioOutcome> outcomes = {
        model_scenario("resnet50", "resnet50", "libtorch", Variant::eager, 30, 1),
        model_scenario("resnet50", "resnet50", "libtorch", Variant::compiled, 20, 2),
        model_scenario("resnet50", "resnet50", "libtorch", Variant::kernelized, 25, 3),
        model_scenario("resnet50_py", "resnet50", torch_python, Variant::eager, 31, 4),
        model_scenario("resnet50_py", "resnet50", torch_python, Variant::compiled, 20, 2),
        model_scenario("resnet50_jax", "resnet50", jax_flax, Variant::eager, 300, 5),
        model_scenario("resnet50_jax", "resnet50", jax_flax, Variant::compiled, 24, 6),
    };
    outcomes[1].result.scalars.push_back({"compile_time", 36700, "ms"});
    outcomes[4].result.scalars.push_back({"compile_time", 20900, "ms"});
    outcomes[6].result.scalars.push_back({"lowering_s", 0.8, "s"});
    outcomes[6].result.scalars.push_back({"compile_s", 2.7, "s"});
    outcomes[6].result.scalars.push_back({"device_peak_memory", 64, "MiB"});
    return outcomes;
}

}  // namespace benchtest
