// Plan: from discovered plugins and the run options to the list of scenarios to run.
// Each benchmark is expanded over the axes its plugin declares, or those it declares of
// its own (a Python function's @benchhost.benchmark, with the values it gives them where
// the run does not): the cartesian product of the configured values; --category,
// --include and --exclude select.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <bench/config.hpp>

#include "config/run_config.hpp"
#include "discover/discovery.hpp"
#include "model/variant_group.hpp"

namespace benchhost {

struct PlannedScenario {
    bench::ScenarioConfig config;
    std::filesystem::path plugin_path;
    std::string plugin_version;
    std::string symbol;  // the entry point to call
    std::string skip_reason;  // non-empty: recorded as skipped without running
    std::string reject_reason;  // non-empty: a broken plugin file, recorded as rejected
    PluginBuild plugin_build{};  // from the plugin's handshake
};

struct Plan {
    std::vector<PlannedScenario> scenarios;
    std::vector<std::string> warnings;  // e.g. an --include pattern that matched nothing
    /// What was left out and why, for the dry run and the log: "resnet_x: kernelized not
    /// planned (the plugin declares eager,compiled)".
    std::vector<std::string> notes;
    /// How the selection went (broken plugin files included), to say why a plan is
    /// empty: benchmark ids in the selected categories, those --include kept, and those
    /// --exclude then removed.
    std::size_t benchmarks_in_categories = 0, benchmarks_included = 0, benchmarks_excluded = 0;
};

/// Broken plugin files (RejectedFile::is_broken_plugin) are planned too, as one
/// rejected scenario each, so that the run reports them and fails. A plugin that
/// declares its variants (PluginInfo::variants) is planned only with those; a benchmark
/// that declares its own (DiscoveredBenchmark::own_variants) only with its own.
/// Throws ConfigError when a configured axis value is invalid for the plugin.
Plan make_plan(const Discovery& discovery, const RunOptions& options);

/// Why `plan` (made by make_plan from `discovery` and `options`) has no scenarios, a
/// line each: what discovery found, per category; files that are not plugins (outside
/// the category folders, or not lib<name>.so); what --category and --exclude left; and
/// the plan's warnings (an --include that matched nothing, variants no plugin declares).
std::vector<std::string> empty_plan_reasons(const Plan& plan, const Discovery& discovery, const RunOptions& options);

/// The plan's scenarios grouped by differ_only_in_variant, as indices into
/// plan.scenarios: groups in the order of their first scenario, each in plan order.
std::vector<std::vector<std::size_t>> variant_groups(const Plan& plan);

/// The order to execute `plan` in, as indices into plan.scenarios: `rounds` times each
/// scenario (one round: the plan's order). With more, within a round the variants of one benchmark run one after the
/// other, starting with a different variant each round (eager, compiled, kernelized; then compiled, kernelized, eager;
/// ...), so that a drift of the machine during the run does not favour one of them.
std::vector<std::size_t> execution_order(const Plan& plan, int rounds);

}  // namespace benchhost
