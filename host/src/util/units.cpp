#include "util/units.hpp"

#include <cctype>
#include <cmath>
#include <iterator>

namespace benchhost {
namespace {

struct UnitStep {
    const char* name;
    double size;  // in the family's base unit
};

// The largest of `steps` (ascending) that keeps `base_value` at 1 or more after rounding;
// the first for smaller values.
const UnitStep& step_for(double base_value, const UnitStep* steps, std::size_t count) {
    const UnitStep* chosen = steps;
    for (std::size_t i = 1; i < count && std::fabs(round3(base_value / steps[i].size)) >= 1; ++i) chosen = &steps[i];
    return *chosen;
}

constexpr UnitStep time_steps[] = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3}};
constexpr UnitStep binary_steps[] = {{"B", 1},
                                     {"KiB", 1024.0},
                                     {"MiB", 1024.0 * 1024},
                                     {"GiB", 1024.0 * 1024 * 1024},
                                     {"TiB", 1024.0 * 1024 * 1024 * 1024}};
constexpr UnitStep decimal_steps[] = {{"B", 1}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
constexpr UnitStep si_steps[] = {{"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};

// " unit", or nothing without a unit.
std::string spaced(std::string_view unit) {
    std::string text;
    if (!unit.empty()) text.append(" ").append(unit);
    return text;
}

double si_prefix(char c) {
    switch (c) {
        case 'k':
            return 1e3;
        case 'M':
            return 1e6;
        case 'G':
            return 1e9;
        case 'T':
            return 1e12;
        case 'P':
            return 1e15;
        default:
            return 0;
    }
}

template <std::size_t N>
DisplayScale scaled(double value, double to_base, const UnitStep (&steps)[N], std::string_view before_name,
                    std::string_view after_name) {
    const UnitStep& step = step_for(value * to_base, steps, N);
    DisplayScale scale;
    scale.factor = to_base / step.size;
    scale.suffix = std::string(before_name) + step.name + std::string(after_name);
    return scale;
}

}  // namespace

double round3(double value) {
    if (value == 0 || !std::isfinite(value)) return value;
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(std::fabs(value))));
    return std::round(value * scale) / scale;
}

double to_ms_factor(std::string_view unit) {
    if (unit == "ms") return 1.0;
    if (unit == "s") return 1e3;
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e-3;
    if (unit == "ns") return 1e-6;
    return std::nan("");
}

double to_mib_factor(std::string_view unit) {
    if (unit == "MiB" || unit == "MB") return 1.0;
    if (unit == "GiB" || unit == "GB") return 1024.0;
    if (unit == "KiB" || unit == "kB" || unit == "KB") return 1.0 / 1024.0;
    if (unit == "B" || unit == "bytes") return 1.0 / (1024.0 * 1024.0);
    return std::nan("");
}

DisplayScale display_scale(double value, std::string_view unit) {
    if (!std::isfinite(value) || value == 0) return {1, spaced(unit)};
    if (const double ms = to_ms_factor(unit); !std::isnan(ms)) return scaled(value, ms, time_steps, " ", "");
    for (const UnitStep& step : binary_steps)
        if (unit == step.name || (unit == "bytes" && step.size == 1))
            return scaled(value, step.size, binary_steps, " ", "");
    for (const UnitStep& step : decimal_steps)
        if (unit == step.name || (unit == "KB" && step.size == 1e3))
            return scaled(value, step.size, decimal_steps, " ", "");
    if (unit == "%" || unit == "x") return {1, spaced(unit)};
    // "GFLOP/s": an SI prefix before a unit that starts with a capital.
    if (unit.size() >= 2 && si_prefix(unit[0]) > 0 && std::isupper(static_cast<unsigned char>(unit[1])))
        return scaled(value, si_prefix(unit[0]), si_steps, " ", unit.substr(1));
    // Rates and counts: the prefix on the number, from k up.
    const UnitStep& step = step_for(value, si_steps, std::size(si_steps));
    DisplayScale scale;
    scale.factor = 1 / step.size;
    scale.suffix = step.name;
    scale.suffix += spaced(unit);
    return scale;
}

}  // namespace benchhost
