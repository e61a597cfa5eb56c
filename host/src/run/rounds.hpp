// Rounds (`run --rounds N`): a scenario run N times, interleaved with the other variants
// of its benchmark, its samples pooled into one outcome.
#pragma once

#include "model/run_record.hpp"

namespace benchhost {

/// Pools the samples of one more round into the outcome of the earlier ones. A round
/// that did not succeed makes the scenario fail with its reason; the cold start, the
/// scalars and the monitors stay those of the first round, but for the samples a
/// compile ran in (info compiled_samples, recompiled_samples, discarded_recompiled),
/// which cover every round (execute/compiled_samples.hpp, pool_compiled_samples). The series pooled are those
/// of the first round (a later round's series of another name or unit is left out).
/// Each stop reason is listed once, in the order the rounds first gave it; a warning is
/// kept once, as of the first round that gave it ("round N: " before it after round 1).
///
/// Each series' round_sizes records where its rounds begin: entry i is the samples
/// round i + 1 took, so that a comparison pairs round i of one side with round i of the
/// other (analysis/compare.cpp). A round that took no samples of a series (it did not
/// measure it, or in another unit) is said in a warning, and is 0 in the series'
/// round_sizes when a later round took some: the rounds after it keep their numbers, and
/// the readers leave out an empty round (its median is NaN, and a pair with one is not a
/// pair; the hierarchical bootstrap skips it). Rounds after the last that took samples
/// of the series are not listed; a series only the first round measured has none.
void pool_round(ScenarioOutcome& pooled, ScenarioOutcome&& round);

/// Recomputes the pooled series' sampling figures that depend on all their samples.
void finish_rounds(ScenarioOutcome& outcome);

}  // namespace benchhost
