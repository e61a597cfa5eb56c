#include <bench/internal/params/axes.hpp>

#include <algorithm>
#include <stdexcept>

namespace bench {

namespace {

const std::vector<std::string> known_dtypes = {"float32", "float64", "bfloat16", "float16", "int8"};

[[noreturn]] void bad_value(std::string_view axis, std::string_view value, std::string_view expected) {
    throw std::invalid_argument("axis '" + std::string(axis) + "': '" + std::string(value) + "' is not " +
                                std::string(expected));
}

int parse_bounded_int(std::string_view axis, std::string_view value, long long minimum) {
    auto parsed = parse_int(value);
    if (!parsed || *parsed < minimum || *parsed > 1'000'000'000)
        bad_value(axis, value, "an integer >= " + std::to_string(minimum));
    return static_cast<int>(*parsed);
}

/// auto, cpu, cuda or cuda:N. (Not std::regex: it recurses once per character, and a
/// long enough value overflows the stack; found by tests/fuzz.)
bool is_device_name(std::string_view value) {
    if (value == "auto" || value == "cpu" || value == "cuda") return true;
    if (!value.starts_with("cuda:")) return false;
    const std::string_view index = value.substr(5);
    return !index.empty() && index.size() <= 4 &&
           std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

}  // namespace

std::vector<AxisPoint> cartesian_product(const std::vector<Axis>& axes) {
    std::vector<AxisPoint> points{AxisPoint{}};
    for (const Axis& axis : axes) {
        if (axis.values.empty()) continue;
        std::vector<AxisPoint> next;
        next.reserve(points.size() * axis.values.size());
        for (const AxisPoint& point : points) {
            for (const std::string& value : axis.values) {
                AxisPoint extended = point;
                extended.emplace_back(axis.name, value);
                next.push_back(std::move(extended));
            }
        }
        points = std::move(next);
    }
    return points;
}

const std::vector<std::string>& builtin_axis_names() {
    static const std::vector<std::string> names = {"variant", "batch_size",   "dtype",     "device",
                                                   "threads", "compile_mode", "world_size"};
    return names;
}

bool is_builtin_axis(std::string_view name) {
    const auto& names = builtin_axis_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

void apply_axis_value(ScenarioConfig& config, std::string_view axis, std::string_view value) {
    if (axis == "variant") {
        auto variant = parse_variant(value);
        if (!variant) bad_value(axis, value, "a variant (eager, compiled or kernelized)");
        config.variant = *variant;
    } else if (axis == "batch_size") {
        config.batch_size = parse_bounded_int(axis, value, 1);
    } else if (axis == "dtype") {
        if (std::find(known_dtypes.begin(), known_dtypes.end(), value) == known_dtypes.end())
            bad_value(axis, value, "a dtype (" + join(known_dtypes) + ")");
        config.dtype = std::string(value);
    } else if (axis == "device") {
        if (!is_device_name(value)) bad_value(axis, value, "a device (auto, cpu, cuda or cuda:N)");
        config.device = std::string(value);
    } else if (axis == "threads") {
        config.threads = parse_bounded_int(axis, value, 0);
    } else if (axis == "world_size") {
        const int ranks = parse_bounded_int(axis, value, 1);
        if (ranks > max_world_size) bad_value(axis, value, "a world size from 1 to " + std::to_string(max_world_size));
        config.world_size = ranks;
    } else if (axis == "compile_mode") {
        if (value.empty()) bad_value(axis, value, "a compile mode name");
        config.compile_mode = std::string(value);
    } else {
        config.params.set(std::string(axis), std::string(value));
    }
}

ScenarioConfig apply_axis_point(ScenarioConfig config, const AxisPoint& point) {
    for (const auto& [axis, value] : point) apply_axis_value(config, axis, value);
    return config;
}

std::string scenario_name(std::string_view benchmark, const AxisPoint& point) {
    std::string name(benchmark);
    if (point.empty()) return name;
    name += '[';
    for (std::size_t i = 0; i < point.size(); ++i) {
        if (i > 0) name += ',';
        name += point[i].first + "=" + point[i].second;
    }
    name += ']';
    return name;
}

}  // namespace bench
