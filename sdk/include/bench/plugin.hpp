// What a plugin includes: the handshake macro and the entry-point macros.
//
//   #include <bench/plugin.hpp>
//
//   BENCH_PLUGIN("my_model", "1.0.0", .axes = "variant,batch_size");
//
//   BENCH_RUN_BENCHMARK(ctx) {            // benchmark named after the plugin
//       ctx.measure("latency", [&] { model.forward(input); });
//   }
//   BENCH_BENCHMARK(decode, ctx) { ... }  // benchmark named "decode"
//
// Optional fields after the version, in this order: `.axes` (comma-separated names of
// the axes the plugin varies over: variant, batch_size, dtype, device, threads,
// compile_mode, or any parameter name), `.mock = true` (run only with --enable-mock) and
// `.variants = bench::eager_bit | bench::compiled_bit` (the variants it implements, the
// only ones the host plans; left out: all three when it varies the "variant" axis). A
// benchmark with fewer variants than its plugin says so with BENCH_BENCHMARK_VARIANTS.
//
// BENCH_PLUGIN also records how its own translation unit is compiled (PluginInfo::build):
// optimization, assertions (NDEBUG), sanitizers and the compiler, from the predefined
// macros where <bench/plugin.hpp> is included.
#pragma once

#include <cstddef>
#include <cstdint>

#include <bench/abi.hpp>
#include <bench/context.hpp>
#include <bench/export.hpp>

// ---- How this translation unit is compiled (for BENCH_PLUGIN).
#if defined(__OPTIMIZE__)
#define BENCH_DETAIL_BUILD_OPTIMIZED ::bench::build_optimized
#else
#define BENCH_DETAIL_BUILD_OPTIMIZED 0
#endif
#if defined(NDEBUG)
#define BENCH_DETAIL_BUILD_ASSERTIONS 0
#else
#define BENCH_DETAIL_BUILD_ASSERTIONS ::bench::build_assertions
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_HWADDRESS__)
#define BENCH_DETAIL_BUILD_ASAN ::bench::build_address_sanitizer
#endif
#if defined(__SANITIZE_THREAD__)
#define BENCH_DETAIL_BUILD_TSAN ::bench::build_thread_sanitizer
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(hwaddress_sanitizer)
#undef BENCH_DETAIL_BUILD_ASAN
#define BENCH_DETAIL_BUILD_ASAN ::bench::build_address_sanitizer
#endif
#if __has_feature(thread_sanitizer)
#undef BENCH_DETAIL_BUILD_TSAN
#define BENCH_DETAIL_BUILD_TSAN ::bench::build_thread_sanitizer
#endif
#if __has_feature(memory_sanitizer)
#define BENCH_DETAIL_BUILD_MSAN ::bench::build_memory_sanitizer
#endif
#endif
#if !defined(BENCH_DETAIL_BUILD_ASAN)
#define BENCH_DETAIL_BUILD_ASAN 0
#endif
#if !defined(BENCH_DETAIL_BUILD_TSAN)
#define BENCH_DETAIL_BUILD_TSAN 0
#endif
#if !defined(BENCH_DETAIL_BUILD_MSAN)
#define BENCH_DETAIL_BUILD_MSAN 0
#endif
#if defined(__clang__)
#define BENCH_DETAIL_BUILD_COMPILER "Clang " __clang_version__
#elif defined(__GNUC__)
#define BENCH_DETAIL_BUILD_COMPILER "GCC " __VERSION__
#else
#define BENCH_DETAIL_BUILD_COMPILER ""
#endif

namespace bench::detail {

/// PluginInfo::build from the flags and the compiler's name, cut to fit.
constexpr BuildInfo build_info(std::uint8_t flags, const char* compiler) {
    BuildInfo info{};
    info.flags = static_cast<std::uint8_t>(flags | build_recorded);
    for (std::size_t i = 0; i + 1 < sizeof info.compiler && compiler[i] != '\0'; ++i) info.compiler[i] = compiler[i];
    return info;
}

}  // namespace bench::detail

#define BENCH_PLUGIN(plugin_name, plugin_version, ...)                                                              \
    extern "C" BENCH_EXPORT constinit const ::bench::PluginInfo bench_plugin_info = {                               \
        .magic = ::bench::plugin_magic,                                                                             \
        .abi_major = ::bench::abi_major,                                                                            \
        .abi_minor = ::bench::abi_minor,                                                                            \
        .info_size = sizeof(::bench::PluginInfo),                                                                   \
        .sdk_version = BENCH_SDK_VERSION,                                                                           \
        .name = plugin_name,                                                                                        \
        .version = plugin_version,                                                                                  \
        __VA_ARGS__ __VA_OPT__(, ).build = ::bench::detail::build_info(                                             \
            static_cast<std::uint8_t>(BENCH_DETAIL_BUILD_OPTIMIZED | BENCH_DETAIL_BUILD_ASSERTIONS |                \
                                      BENCH_DETAIL_BUILD_ASAN | BENCH_DETAIL_BUILD_TSAN | BENCH_DETAIL_BUILD_MSAN), \
            BENCH_DETAIL_BUILD_COMPILER)}

/// Defines `run_benchmark`: the benchmark that carries the plugin's own name.
#define BENCH_RUN_BENCHMARK(ctx) extern "C" BENCH_EXPORT void run_benchmark(::bench::Context& ctx)

/// Defines `benchmark_<name>`: a benchmark called `<name>`.
#define BENCH_BENCHMARK(name, ctx) extern "C" BENCH_EXPORT void benchmark_##name(::bench::Context& ctx)

/// Declares the variants benchmark `name` implements, when it has fewer than its plugin
/// (a training step that runs in eager only): the host plans it with those alone, and
/// reads them from the file without running it (ABI 2.12). `bits`: bench::eager_bit,
/// compiled_bit, kernelized_bit, or'ed.
///
///   BENCH_BENCHMARK(train, ctx) { ... }
///   BENCH_BENCHMARK_VARIANTS(train, bench::eager_bit);
#define BENCH_BENCHMARK_VARIANTS(name, bits) \
    extern "C" BENCH_EXPORT constinit const std::uint8_t bench_variants_benchmark_##name = (bits)
/// The same for the benchmark named after the plugin (BENCH_RUN_BENCHMARK).
#define BENCH_RUN_BENCHMARK_VARIANTS(bits) \
    extern "C" BENCH_EXPORT constinit const std::uint8_t bench_variants_run_benchmark = (bits)
