#include "model/plugin_build.hpp"

#include <cstring>

namespace benchhost {

namespace {

/// "a", "a and b", "a, b and c".
std::string join_and(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
        out += items[i];
    }
    return out;
}

}  // namespace

PluginBuild plugin_build_of(const bench::PluginInfo& info) {
    PluginBuild build;
    const std::uint8_t flags = info.build.flags;
    if ((flags & bench::build_recorded) == 0) return build;
    build.known = true;
    build.optimized = (flags & bench::build_optimized) != 0;
    build.assertions = (flags & bench::build_assertions) != 0;
    if (flags & bench::build_address_sanitizer) build.sanitizers.emplace_back("address");
    if (flags & bench::build_thread_sanitizer) build.sanitizers.emplace_back("thread");
    if (flags & bench::build_memory_sanitizer) build.sanitizers.emplace_back("memory");
    build.compiler.assign(info.build.compiler, strnlen(info.build.compiler, sizeof info.build.compiler));
    // __clang_version__ ends in a space.
    build.compiler.erase(build.compiler.find_last_not_of(' ') + 1);
    return build;
}

PluginBuild python_plugin_build(const std::string& runtime) {
    PluginBuild build;
    build.known = true;
    build.language = "python";
    build.runtime = runtime;
    return build;
}

std::string build_text(const PluginBuild& build) {
    if (!build.known) return "unknown";
    if (build.language == "python") return "python: " + build.runtime;
    std::string text = build.optimized ? "optimized" : "not optimized";
    text += build.assertions ? ", assertions on" : ", assertions off";
    if (!build.sanitizers.empty()) {
        text += ", sanitizers:";
        for (std::size_t i = 0; i < build.sanitizers.size(); ++i) text += (i == 0 ? " " : ", ") + build.sanitizers[i];
    }
    if (!build.compiler.empty()) text += ", " + build.compiler;
    return text;
}

std::string build_warning(const PluginBuild& build) {
    if (!build.known || build.language == "python") return "";
    std::vector<std::string> problems, fixes;
    if (!build.optimized) problems.emplace_back("without optimization");
    if (build.assertions) problems.emplace_back("with assertions on (NDEBUG not defined)");
    if (!build.optimized || build.assertions)
        fixes.emplace_back("with the build type Release (-DCMAKE_BUILD_TYPE=Release)");
    if (!build.sanitizers.empty()) {
        problems.push_back("with the " + join_and(build.sanitizers) +
                           (build.sanitizers.size() == 1 ? " sanitizer" : " sanitizers"));
        fixes.emplace_back("without -fsanitize");
    }
    if (problems.empty()) return "";
    return "built " + join_and(problems) + ": timings may be slower than an optimized build's; rebuild it " +
           join_and(fixes);
}

}  // namespace benchhost
