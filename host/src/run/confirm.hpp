// Confirmation (`run --baseline B --confirm N`): a scenario the comparison with the
// baseline finds slower is run N more rounds, pooled with its first ones, before the
// verdict stands. A moment of load that slowed one run is then outweighed; a real
// regression stays. The outcome records its first rounds (ScenarioOutcome::first_rounds),
// so that the comparison shows the figures it was flagged with beside the confirmed ones.
#pragma once

#include <spdlog/logger.h>

#include "analysis/compare.hpp"
#include "model/run_record.hpp"
#include "plan/plan.hpp"
#include "run/run_loop.hpp"

namespace benchhost {

/// Runs `rounds` more rounds of each scenario of `plan` that `runner` ran and that
/// compares slower with its scenario in `base`; the rounds of the scenarios flagged
/// are interleaved. Stops when the run is interrupted. Returns the ids flagged.
std::vector<std::string> confirm_regressions(ScenarioRunner& runner, const Plan& plan, const RunRecord& base,
                                             const CompareOptions& options, int rounds, const RunRecord& record,
                                             spdlog::logger& log);

}  // namespace benchhost
