// A/B pairs (`benchhost ab`): the plans of the two plugin folders, scenario by
// scenario. The two sides must hold the same plugins with the same benchmarks, so
// that every scenario of one has its counterpart, of the same id, in the other.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plan/plan.hpp"

namespace benchhost {

struct AbPair {
    std::string scenario_id;
    std::size_t base_index = 0, new_index = 0;  // in the base and the new plan
};

/// The scenarios of `base` and `next` paired by id, in the base plan's order. Throws
/// ConfigError naming both sides' folders (`base_dirs`, `new_dirs`: PluginFolders::text())
/// and both plugin files when a plugin is on one side only, or its benchmarks differ
/// between the sides.
std::vector<AbPair> pair_plans(const Plan& base, const Plan& next, const std::string& base_dirs,
                               const std::string& new_dirs);

}  // namespace benchhost
