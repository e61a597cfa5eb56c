// The binary handshake between a plugin and the host.
//
// A plugin exports one `bench::PluginInfo` object named `bench_plugin_info` (see
// BENCH_PLUGIN in <bench/plugin.hpp>). It holds only plain bytes, no pointers, so it
// needs no relocation: the host reads it straight out of the ELF file, without loading
// the plugin, and checks the ABI before any plugin code runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include <bench/version.hpp>

namespace bench {

/// "BNCH" in little-endian byte order: marks a real benchhost plugin.
inline constexpr std::uint32_t plugin_magic = 0x48434e42;

/// Bumped when a change breaks plugins built against an older SDK (layout of
/// PluginInfo, Context or ScenarioConfig; a function libbench_sdk.so no longer
/// exports). The host refuses another major.
inline constexpr std::uint16_t abi_major = BENCH_SDK_ABI_MAJOR;
/// Bumped when the SDK gains something a plugin may use. The host refuses a plugin
/// built against a newer minor than its own, since it may call what the host lacks.
inline constexpr std::uint16_t abi_minor = BENCH_SDK_ABI_MINOR;

inline constexpr char plugin_info_symbol[] = "bench_plugin_info";

/// Layout is fixed for an ABI major; `magic`, `abi_major` and `abi_minor` stay the
/// first eight bytes in every major so that any host can read them.
struct PluginInfo {
    // Default member initializers let BENCH_PLUGIN leave optional fields out without
    // -Wmissing-field-initializers; the struct stays an aggregate of plain bytes.
    std::uint32_t magic{};
    std::uint16_t abi_major{};
    std::uint16_t abi_minor{};
    std::uint32_t info_size{};   // sizeof(PluginInfo) as the plugin saw it
    char sdk_version[16]{};      // SDK release the plugin was built with, e.g. "0.1.0"
    char name[64]{};             // plugin name, e.g. "resnet50"
    char version[32]{};          // the plugin's own version
    char axes[128]{};            // comma-separated axes the plugin varies, e.g. "variant,batch_size"
    std::uint8_t mock{};         // 1: a framework self-test, run only with --enable-mock
    /// The variants the plugin implements, a mask of variant_bits (ABI 1.2; 0: not said,
    /// which means all three when the plugin varies the "variant" axis). The host plans
    /// only these variants, and `benchhost list` shows them.
    std::uint8_t variants{};
    std::uint8_t reserved[6]{};
};

/// Bits of PluginInfo::variants.
inline constexpr std::uint8_t eager_bit = 1, compiled_bit = 2, kernelized_bit = 4;

static_assert(sizeof(PluginInfo) == 260, "PluginInfo layout is part of the ABI");
static_assert(offsetof(PluginInfo, abi_major) == 4 && offsetof(PluginInfo, abi_minor) == 6);

/// The entry-point signature: `run_benchmark` and every `benchmark_<name>`.
class Context;
using EntryPoint = void(Context&);

inline constexpr char run_benchmark_symbol[] = "run_benchmark";
inline constexpr char benchmark_symbol_prefix[] = "benchmark_";

}  // namespace bench
