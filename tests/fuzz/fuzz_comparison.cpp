// libFuzzer target: the reader of comparison.json (parse_comparison), which `benchhost
// report` reads back from a run folder: a file on disk that anyone may have edited or cut
// short.
//
// Expected outcomes: a comparison, or std::runtime_error saying which field is wrong. Any
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
        const benchhost::Comparison comparison = benchhost::parse_comparison(text, "fuzz.json");
        // What was read must be usable: every verdict is one of the four.
        for (const benchhost::SeriesComparison& row : comparison.rows)
            if (benchhost::to_string(row.verdict).empty()) std::abort();
        (void)comparison.regressions();
    } catch (const std::runtime_error&) {
        // a clear error: expected for bad input
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_comparison: unexpected %s: %s\n", typeid(e).name(), e.what());
        std::abort();
    }
    return 0;
}
