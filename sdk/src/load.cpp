#include <bench/load.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include <bench/params.hpp>

namespace bench {

std::string_view to_string(LoadMode mode) {
    switch (mode) {
        case LoadMode::none:
            return "none";
        case LoadMode::single_stream:
            return "single-stream";
        case LoadMode::multi_stream:
            return "multi-stream";
        case LoadMode::server:
            return "server";
        case LoadMode::offline:
            return "offline";
    }
    return "unknown";
}

std::optional<LoadMode> parse_load_mode(std::string_view text) {
    for (LoadMode mode : {LoadMode::single_stream, LoadMode::multi_stream, LoadMode::server, LoadMode::offline})
        if (text == to_string(mode)) return mode;
    return std::nullopt;
}

std::optional<double> parse_duration_ms(std::string_view text) {
    static constexpr std::pair<std::string_view, double> units[] = {{"us", 1e-3}, {"ms", 1.0}, {"s", 1e3}};
    for (const auto& [unit, ms] : units) {
        if (!text.ends_with(unit)) continue;
        const std::string_view number = text.substr(0, text.size() - unit.size());
        if (number.empty() || !(std::isdigit(static_cast<unsigned char>(number.back())) || number.back() == '.'))
            continue;  // "5ms" ends with "s" too: only the longest unit that leaves a number counts
        const std::optional<double> value = parse_double(number);
        if (!value || !std::isfinite(*value) || *value < 0) return std::nullopt;
        return *value * ms;
    }
    return std::nullopt;
}

std::vector<Slo> parse_slos(std::string_view text) {
    std::vector<Slo> slos;
    if (text.empty()) throw std::invalid_argument("an empty SLO: expected METRIC=BOUND, e.g. latency=200ms");
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
        const std::size_t equals = item.find('=');
        if (equals == std::string_view::npos)
            throw std::invalid_argument("'" + std::string(item) + "' is not METRIC=BOUND (e.g. latency=200ms)");
        const std::string metric(item.substr(0, equals));
        const std::string_view bound = item.substr(equals + 1);
        if (std::find(std::begin(slo_metrics), std::end(slo_metrics), metric) == std::end(slo_metrics))
            throw std::invalid_argument("unknown metric '" + metric + "' (expected latency, ttft, tpot or itl)");
        const std::optional<double> ms = parse_duration_ms(bound);
        if (!ms) {
            const bool number = parse_double(bound).has_value();
            throw std::invalid_argument(
                metric + "=" + std::string(bound) + ": " +
                (number ? "the bound needs a unit: us, ms or s (e.g. " + metric + "=" + std::string(bound) + "ms)"
                        : "the bound must be a duration with a unit, e.g. 200ms"));
        }
        if (!(*ms > 0)) throw std::invalid_argument(metric + "=" + std::string(bound) + ": the bound must be above 0");
        for (const Slo& slo : slos)
            if (slo.metric == metric) throw std::invalid_argument("metric '" + metric + "' is bounded twice");
        slos.push_back(Slo{metric, *ms});
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return slos;
}

std::string to_string(const std::vector<Slo>& slos) {
    std::string text;
    for (const Slo& slo : slos) {
        if (!text.empty()) text += ",";
        std::string number = std::to_string(slo.limit_ms);
        number.erase(number.find_last_not_of('0') + 1);
        if (number.back() == '.') number.pop_back();
        text += slo.metric + "=" + number + "ms";
    }
    return text;
}

std::optional<double> parse_percentile(std::string_view text) {
    if (text.size() < 2 || text.front() != 'p') return std::nullopt;
    const std::string_view number = text.substr(1);
    if (!std::isdigit(static_cast<unsigned char>(number.front()))) return std::nullopt;
    const std::optional<double> value = parse_double(number);
    if (!value || !(*value > 0) || !(*value < 100)) return std::nullopt;
    return value;
}

}  // namespace bench
