// How a plugin was compiled, from its handshake's bytes to what list, the reports and a
// run's warnings say.
#include "model/plugin_build.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace {

using namespace benchhost;

bench::PluginInfo info_with(std::uint8_t flags, const std::string& compiler) {
    bench::PluginInfo info{};
    info.build.flags = flags;
    std::memcpy(info.build.compiler, compiler.data(), std::min(compiler.size(), sizeof info.build.compiler));
    return info;
}

TEST(PluginBuild, ReadFromTheHandshakeFlags) {
    const PluginBuild release =
        plugin_build_of(info_with(bench::build_recorded | bench::build_optimized, "GCC 12.2.0"));
    EXPECT_TRUE(release.known);
    EXPECT_TRUE(release.optimized);
    EXPECT_FALSE(release.assertions);
    EXPECT_TRUE(release.sanitizers.empty());
    EXPECT_EQ(release.compiler, "GCC 12.2.0");

    // clang's __clang_version__ ends in a space.
    const PluginBuild sanitized =
        plugin_build_of(info_with(bench::build_recorded | bench::build_assertions | bench::build_address_sanitizer |
                                      bench::build_thread_sanitizer | bench::build_memory_sanitizer,
                                  "Clang 14.0.6 "));
    EXPECT_FALSE(sanitized.optimized);
    EXPECT_TRUE(sanitized.assertions);
    EXPECT_EQ(sanitized.sanitizers, (std::vector<std::string>{"address", "thread", "memory"}));
    EXPECT_EQ(sanitized.compiler, "Clang 14.0.6");

    // A compiler name that fills the field without a terminating NUL is cut, not overrun.
    const PluginBuild full = plugin_build_of(info_with(bench::build_recorded, std::string(80, 'x')));
    EXPECT_EQ(full.compiler, std::string(sizeof(bench::BuildInfo::compiler), 'x'));
}

TEST(PluginBuild, NotRecordedIsUnknownWhateverTheOtherBits) {
    const PluginBuild build =
        plugin_build_of(info_with(bench::build_optimized | bench::build_assertions, "GCC 12.2.0"));
    EXPECT_EQ(build, PluginBuild{});
    EXPECT_EQ(build_text(build), "unknown");
    EXPECT_EQ(build_warning(build), "");
}

TEST(PluginBuild, TextAndWarning) {
    PluginBuild build;
    build.known = true;
    build.optimized = true;
    build.compiler = "GCC 12.2.0";
    EXPECT_EQ(build_text(build), "optimized, assertions off, GCC 12.2.0");
    EXPECT_EQ(build_warning(build), "");

    build.optimized = false;
    build.assertions = true;
    EXPECT_EQ(build_text(build), "not optimized, assertions on, GCC 12.2.0");
    EXPECT_EQ(build_warning(build),
              "built without optimization and with assertions on (NDEBUG not defined): timings may be slower than an "
              "optimized build's; rebuild it with the build type Release (-DCMAKE_BUILD_TYPE=Release)");

    build.optimized = true;
    build.assertions = false;
    EXPECT_EQ(build_warning(build), "");
    build.assertions = true;
    EXPECT_EQ(build_warning(build),
              "built with assertions on (NDEBUG not defined): timings may be slower than an optimized build's; "
              "rebuild it with the build type Release (-DCMAKE_BUILD_TYPE=Release)");

    build.assertions = false;
    build.sanitizers = {"address"};
    build.compiler.clear();
    EXPECT_EQ(build_text(build), "optimized, assertions off, sanitizers: address");
    EXPECT_EQ(build_warning(build),
              "built with the address sanitizer: timings may be slower than an optimized build's; rebuild it without "
              "-fsanitize");

    build.optimized = false;
    build.sanitizers = {"address", "thread"};
    EXPECT_EQ(build_warning(build),
              "built without optimization and with the address and thread sanitizers: timings may be slower than an "
              "optimized build's; rebuild it with the build type Release (-DCMAKE_BUILD_TYPE=Release) and without "
              "-fsanitize");
}

}  // namespace
