// The checks of a number on the command line, with messages that say what is wrong with
// the value given. CLI11's own (CLI::Range, CLI::NonNegativeNumber, CLI::PositiveNumber)
// answer a word as if it were a number out of range ("Value x not in range 1 to
// 100000000"), and a negative number with the largest double, 309 digits of it, as the
// bound. --help shows the same as for CLI11's: `INT in [1 - 1000]`, NONNEGATIVE, POSITIVE.
#pragma once

#include <limits>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace benchhost {

/// A number from `low` to `high`, both included; a whole one when `integer`. `description`
/// is what --help shows; empty: `INT in [low - high]` (`FLOAT ...`), as CLI::Range.
inline CLI::Validator number_in_range(double low, double high, bool integer, std::string description = "") {
    const auto show = [integer](std::ostream& out, double bound) -> std::ostream& {
        if (integer) return out << static_cast<long long>(bound);
        return out << bound;
    };
    std::ostringstream bounds;
    bounds << (integer ? "an integer" : "a number");
    if (high == std::numeric_limits<double>::infinity()) show(bounds << " >= ", low);
    else show(show(bounds << " from ", low) << " to ", high);
    if (description.empty()) {
        std::ostringstream range;
        show(show(range << (integer ? "INT" : "FLOAT") << " in [", low) << " - ", high) << "]";
        description = range.str();
    }
    return CLI::Validator(
        [low, high, integer, expected = bounds.str()](const std::string& text) -> std::string {
            double value = 0;
            bool parsed = false;
            if (integer) {
                long long whole = 0;
                parsed = CLI::detail::lexical_cast(text, whole);
                value = static_cast<double>(whole);
            } else {
                parsed = CLI::detail::lexical_cast(text, value);
            }
            if (!parsed) return "'" + text + "' is not " + (integer ? "an integer" : "a number") + ": give " + expected;
            if (!(value >= low && value <= high)) return "'" + text + "' is out of range: give " + expected;
            return {};
        },
        description);
}

/// A number >= 0.
inline CLI::Validator non_negative_number(bool integer = false) {
    return number_in_range(0, std::numeric_limits<double>::infinity(), integer, "NONNEGATIVE");
}

/// A whole number >= 1.
inline CLI::Validator positive_integer() {
    return number_in_range(1, std::numeric_limits<double>::infinity(), true, "POSITIVE");
}

}  // namespace benchhost
