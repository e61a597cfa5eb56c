// Parameter axes and their cartesian product: each combination of one value per axis
// (variant, batch size, dtype, ..., and a plugin's own axes) is a scenario.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bench/config.hpp>

namespace bench {

struct Axis {
    std::string name;  // "variant", "batch_size", ... or a parameter name
    std::vector<std::string> values;  // in the order they are run
};

/// One value per axis, in the axes' order.
using AxisPoint = std::vector<std::pair<std::string, std::string>>;

/// Every combination of values, the last axis varying fastest. An axis with no values
/// contributes nothing; no axes at all give one empty point.
std::vector<AxisPoint> cartesian_product(const std::vector<Axis>& axes);

/// The most ranks a distributed scenario may have (the world_size axis): each is a
/// process on this machine.
inline constexpr int max_world_size = 1024;

/// The axes that map onto ScenarioConfig fields; any other axis name sets a parameter.
/// world_size is one: only a benchmark that declares it (a distributed one) varies over
/// it, and no other gets its value.
bool is_builtin_axis(std::string_view name);
const std::vector<std::string>& builtin_axis_names();

/// Sets one axis value on a config. Throws std::invalid_argument with the axis name and
/// the offending value when it does not parse (unknown variant, batch size 0, ...).
void apply_axis_value(ScenarioConfig& config, std::string_view axis, std::string_view value);

/// Sets every value of `point` and returns `config` changed accordingly.
ScenarioConfig apply_axis_point(ScenarioConfig config, const AxisPoint& point);

/// "name[axis=value,...]": the scenario name of a benchmark at an axis point.
std::string scenario_name(std::string_view benchmark, const AxisPoint& point);

}  // namespace bench
