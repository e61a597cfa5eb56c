#include "cli/option_values.hpp"

#include "config/run_config.hpp"

namespace benchhost {

double relative_option(const std::string& option, const std::string& text, double below) {
    const auto value = parse_relative(text);
    if (!value || *value >= below)
        throw ConfigError("option " + option + ": expected a relative amount such as 5% or 0.05, got '" + text + "'");
    return *value;
}

std::pair<std::string, std::vector<std::string>> param_of(const std::string& option, const std::string& param) {
    const auto equals = param.find('=');
    if (equals == std::string::npos || equals == 0)
        throw ConfigError("option " + option + ": '" + param + "' is not KEY=VALUE");
    std::vector<std::string> values;
    const std::string value = param.substr(equals + 1);
    for (std::size_t start = 0;;) {
        const auto comma = value.find(',', start);
        values.push_back(value.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return {param.substr(0, equals), values};
}

}  // namespace benchhost
