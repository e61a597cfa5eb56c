// Rounds (`run --rounds N`): a scenario run N times, interleaved with the other variants
// of its benchmark, its samples pooled into one outcome.
#pragma once

#include "model/run_record.hpp"

namespace benchhost {

/// Pools the samples of one more round into the outcome of the earlier ones. A round
/// that did not succeed makes the scenario fail with its reason; the cold start, the
/// scalars and the monitors stay those of the first round. Each series' round_sizes
/// records where its rounds begin.
void pool_round(ScenarioOutcome& pooled, ScenarioOutcome&& round);

/// Recomputes the pooled series' sampling figures that depend on all their samples.
void finish_rounds(ScenarioOutcome& outcome);

}  // namespace benchhost
