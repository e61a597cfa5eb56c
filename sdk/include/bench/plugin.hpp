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
// only ones the host plans; left out: all three when it varies the "variant" axis).
#pragma once

#include <bench/abi.hpp>
#include <bench/context.hpp>
#include <bench/export.hpp>

#define BENCH_PLUGIN(plugin_name, plugin_version, ...)                                 \
    extern "C" BENCH_EXPORT const ::bench::PluginInfo bench_plugin_info = {            \
        .magic = ::bench::plugin_magic,                                                \
        .abi_major = ::bench::abi_major,                                               \
        .abi_minor = ::bench::abi_minor,                                               \
        .info_size = sizeof(::bench::PluginInfo),                                      \
        .sdk_version = BENCH_SDK_VERSION,                                              \
        .name = plugin_name,                                                           \
        .version = plugin_version,                                                     \
        __VA_ARGS__}

/// Defines `run_benchmark`: the benchmark that carries the plugin's own name.
#define BENCH_RUN_BENCHMARK(ctx) extern "C" BENCH_EXPORT void run_benchmark(::bench::Context& ctx)

/// Defines `benchmark_<name>`: a benchmark called `<name>`.
#define BENCH_BENCHMARK(name, ctx) \
    extern "C" BENCH_EXPORT void benchmark_##name(::bench::Context& ctx)
