// JSON form of the SDK's data types. Used for the worker protocol (the host sends a
// ScenarioConfig to a worker and reads back a ScenarioResult) and by the reporters.
#pragma once

#include <string>
#include <string_view>

#include <bench/config.hpp>
#include <bench/result.hpp>
#include <bench/statistics.hpp>

namespace benchhost {

std::string config_to_json(const bench::ScenarioConfig& config);
/// Throws std::runtime_error saying which field is missing or of the wrong type.
bench::ScenarioConfig config_from_json(std::string_view json);

std::string result_to_json(const bench::ScenarioResult& result);
/// Throws std::runtime_error saying which field is missing or of the wrong type.
bench::ScenarioResult result_from_json(std::string_view json);

/// A monitor report's name: lower-case letters, digits and '_', ending in "_metrics"
/// ("gpu_metrics"). The report writes each monitor under its name.
bool is_monitor_name(std::string_view name);

}  // namespace benchhost
