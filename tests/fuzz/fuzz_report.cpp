// libFuzzer target: the reader of plugin reports (parse_plugin_report), which reads run
// folders back for --resume: files on disk that anyone may have edited or cut short.
//
// Expected outcomes: outcomes, or std::runtime_error saying which field is wrong. Any
// other exception, a crash, a hang or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string_view>
#include <typeinfo>

#include "report/report_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto outcomes = benchhost::parse_plugin_report(text, "fuzz.json");
        for (const auto& outcome : outcomes) {
            // What was read must be usable: ids and statuses are well-formed.
            if (outcome.config.scenario_id().empty()) std::abort();
            (void)bench::to_string(outcome.result.status);
        }
    } catch (const std::runtime_error&) {
        // a clear error: expected for bad input
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_report: unexpected %s: %s\n", typeid(e).name(), e.what());
        std::abort();
    }
    return 0;
}
