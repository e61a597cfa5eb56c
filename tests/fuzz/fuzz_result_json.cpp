// libFuzzer target: the worker protocol's JSON readers, result_from_json and
// config_from_json (the host reads what a worker, possibly a broken one, wrote).
//
// Expected outcomes: a value, or std::runtime_error saying why not. Any other
// exception, a crash, a hang or a sanitizer report is a bug. What reads must also
// write and read back equal.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "json/result_json.hpp"

namespace {

[[noreturn]] void bug(const char* what, const std::string& input, const std::string& json) {
    std::fprintf(stderr, "fuzz_result_json: %s\n  input:      %s\n  written as: %s\n", what, input.c_str(),
                 json.c_str());
    std::abort();
}

template <class T, class Read>
std::optional<T> read_or_nothing(Read read, std::string_view text, const char* name) {
    try {
        return read(text);
    } catch (const std::runtime_error&) {
        return std::nullopt;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_result_json: %s threw %s, not std::runtime_error: %s\n", name, typeid(e).name(),
                     e.what());
        std::abort();
    }
}

bool same_number(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

bool has_nan(const bench::ScenarioResult& result) {
    for (const auto& series : result.series)
        for (const double sample : series.samples)
            if (std::isnan(sample)) return true;
    for (const auto& scalar : result.scalars)
        if (std::isnan(scalar.value)) return true;
    return false;
}

/// operator== but with NaN equal to NaN (the payload need not survive).
bool same_result(const bench::ScenarioResult& a, const bench::ScenarioResult& b) {
    if (!has_nan(a) && !has_nan(b)) return a == b;
    // Monitor reports compare NaN equal to NaN themselves (bench::MonitorReport).
    if (a.status != b.status || a.reason != b.reason || a.info != b.info || a.warnings != b.warnings ||
        a.monitors != b.monitors)
        return false;
    if (a.series.size() != b.series.size() || a.scalars.size() != b.scalars.size()) return false;
    for (std::size_t i = 0; i < a.series.size(); ++i) {
        const auto& x = a.series[i];
        const auto& y = b.series[i];
        if (x.name != y.name || x.unit != y.unit || x.inner_iterations != y.inner_iterations ||
            x.samples.size() != y.samples.size())
            return false;
        for (std::size_t j = 0; j < x.samples.size(); ++j)
            if (!same_number(x.samples[j], y.samples[j])) return false;
    }
    for (std::size_t i = 0; i < a.scalars.size(); ++i) {
        const auto& x = a.scalars[i];
        const auto& y = b.scalars[i];
        if (x.name != y.name || x.unit != y.unit || !same_number(x.value, y.value)) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    // Round trips: what was read is written and must read back, equal, without an
    // exception of any type.
    if (const auto result =
            read_or_nothing<bench::ScenarioResult>(benchhost::result_from_json, text, "result_from_json")) {
        const std::string json = benchhost::result_to_json(*result);
        if (!same_result(benchhost::result_from_json(json), *result))
            bug("result_to_json(result_from_json(input)) reads back different", std::string(text), json);
    }
    if (const auto config =
            read_or_nothing<bench::ScenarioConfig>(benchhost::config_from_json, text, "config_from_json")) {
        const std::string json = benchhost::config_to_json(*config);
        if (!(benchhost::config_from_json(json) == *config))
            bug("config_to_json(config_from_json(input)) reads back different", std::string(text), json);
    }
    return 0;
}
