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
/// A benchmark's own variants (ABI 2.12; BENCH_BENCHMARK_VARIANTS): one byte, a mask of
/// the variant bits, exported as this prefix + its entry point ("bench_variants_benchmark_train").
inline constexpr char benchmark_variants_prefix[] = "bench_variants_";

/// How the translation unit that holds BENCH_PLUGIN was compiled (ABI 2.2), from the
/// compiler's predefined macros when the plugin is compiled: the host warns about a
/// plugin built without optimization, with assertions or with a sanitizer, and the
/// reports show it. A plugin built against an older minor has none (its `info_size`
/// ends before it): its build is unknown.
struct BuildInfo {
    std::uint8_t flags{};  // build_* bits; 0: not recorded
    std::uint8_t reserved[7]{};
    char compiler[56]{};  // e.g. "GCC 12.2.0", "Clang 16.0.6"; cut to 55 characters
};

/// Bits of BuildInfo::flags. build_recorded is set by every plugin that records its
/// build; build_optimized: __OPTIMIZE__ (-O1 and up); build_assertions: NDEBUG was not
/// defined; the sanitizers: __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__, or clang's
/// __has_feature(address_sanitizer), (thread_sanitizer), (memory_sanitizer).
inline constexpr std::uint8_t build_recorded = 1, build_optimized = 2, build_assertions = 4,
                              build_address_sanitizer = 8, build_thread_sanitizer = 16, build_memory_sanitizer = 32;

/// Layout is fixed for an ABI major, except that a minor may append fields (`info_size`
/// tells the host which are there); `magic`, `abi_major` and `abi_minor` stay the
/// first eight bytes in every major so that any host can read them.
struct PluginInfo {
    // Default member initializers let BENCH_PLUGIN leave optional fields out without
    // -Wmissing-field-initializers; the struct stays an aggregate of plain bytes.
    std::uint32_t magic{};
    std::uint16_t abi_major{};
    std::uint16_t abi_minor{};
    std::uint32_t info_size{};  // sizeof(PluginInfo) as the plugin saw it
    char sdk_version[16]{};  // SDK release the plugin was built with, e.g. "0.1.0"
    char name[64]{};  // plugin name, e.g. "resnet50"
    char version[32]{};  // the plugin's own version
    char axes[128]{};  // comma-separated axes the plugin varies, e.g. "variant,batch_size"
    std::uint8_t mock{};  // 1: a framework self-test, run only with --enable-mock
    /// The variants the plugin implements, a mask of variant_bits (ABI 1.2; 0: not said,
    /// which means all three when the plugin varies the "variant" axis). The host plans
    /// only these variants, and `benchhost list` shows them.
    std::uint8_t variants{};
    std::uint8_t reserved[6]{};
    /// How the plugin was compiled (ABI 2.2; BENCH_PLUGIN fills it in).
    BuildInfo build{};
};

/// Bits of PluginInfo::variants.
inline constexpr std::uint8_t eager_bit = 1, compiled_bit = 2, kernelized_bit = 4;

/// The ABI minor that appended PluginInfo::build, and sizeof(PluginInfo) before it (ABI
/// 2.0 and 2.1): the host accepts that size from a plugin of an older minor, whose
/// build is then unknown.
inline constexpr std::uint16_t build_info_abi_minor = 2;
inline constexpr std::uint32_t plugin_info_size_without_build = 260;

static_assert(sizeof(BuildInfo) == 64, "BuildInfo layout is part of the ABI");
static_assert(sizeof(PluginInfo) == 324, "PluginInfo layout is part of the ABI");
static_assert(offsetof(PluginInfo, abi_major) == 4 && offsetof(PluginInfo, abi_minor) == 6);
static_assert(offsetof(PluginInfo, build) == plugin_info_size_without_build, "fields are only appended");

/// The entry-point signature: `run_benchmark` and every `benchmark_<name>`.
class Context;
using EntryPoint = void(Context&);

inline constexpr char run_benchmark_symbol[] = "run_benchmark";
inline constexpr char benchmark_symbol_prefix[] = "benchmark_";

}  // namespace bench
