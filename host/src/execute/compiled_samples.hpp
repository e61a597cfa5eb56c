// Timed samples that a compile ran in: a recompile after a guard failed, a new input
// shape (Context::record_compile says when each compile ran). The worker marks them
// after the benchmark ends, before the GPU's state is matched with the samples.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <bench/clock.hpp>
#include <bench/measurement_window.hpp>
#include <bench/result.hpp>

namespace benchhost {

using SampleEnds = std::map<std::string, std::vector<bench::Clock::time_point>>;

/// For each series with the ends of its samples (`ends`: a sample started its own length,
/// all its calls, before it ended), the samples that overlap a compile of `compiles`:
/// a warning per series naming the samples and what was compiled, the scalar
/// recompiled_samples (count: the most of any one series), and info compiled_samples,
/// which samples, by series, as indices from 0 into the series' samples, consecutive ones
/// as a range ("latency: 4, 9-11"). With `discard` those samples are dropped from the
/// series and its sample times, counted in the scalar discarded_recompiled, and listed as
/// "latency: dropped 4 (as measured)", their indices among the samples as taken, unless
/// every sample had one (all are kept, with a warning). Returns `ends` without the
/// dropped samples.
SampleEnds mark_compiled_samples(bench::ScenarioResult& result, const SampleEnds& ends,
                                 const std::vector<bench::CompileWindow>& compiles, bool discard);

/// Adds what mark_compiled_samples marked in a later round (`round`, run --rounds) to the
/// rounds pooled before it (`pooled`), whose series held `kept_before` samples each before
/// this round's were added: info compiled_samples lists the round's samples as indices
/// into the pooled series (after `kept_before`), a dropped one among the samples as taken
/// in all the rounds (after the earlier rounds' kept and dropped ones); the scalars
/// recompiled_samples and discarded_recompiled count the rounds together (the most of
/// any one series). Nothing when the round marked nothing.
void pool_compiled_samples(bench::ScenarioResult& pooled, const bench::ScenarioResult& round,
                           const std::map<std::string, std::size_t>& kept_before);

}  // namespace benchhost
