// libFuzzer target: the YAML config reader (benchhost run --config FILE).
//
// Expected outcomes: the text loads, or ConfigError says why not. Any other exception,
// a crash, a hang or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <typeinfo>

#include "config/run_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    benchhost::RunOptions options;
    options.defaults = benchhost::builtin_scenario_defaults();
    try {
        benchhost::load_config_text(text, "fuzz.yaml", options);
    } catch (const benchhost::ConfigError&) {
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_config: load_config_text threw %s, not ConfigError: %s\n", typeid(e).name(),
                     e.what());
        std::abort();
    }
    // What the planner does with a loaded config: layer it for every plugin it names.
    (void)options.effective_for("");
    for (const auto& [plugin, settings] : options.plugin_settings) (void)options.effective_for(plugin);
    return 0;
}
