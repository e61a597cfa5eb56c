// The ranks of a distributed scenario (docs/distributed.md): what the SDKs that time them
// share (ABI 2.15). The LibTorch layer's <bench/torch/distributed.hpp> gives C++ plugins
// the ranks and their process group; benchhost.distributed gives Python plugins the same.
#pragma once

#include <string_view>

#include <bench/context.hpp>
#include <bench/export.hpp>
#include <bench/timer.hpp>

namespace bench {

/// The timing options of a distributed scenario: the scenario's, less the time rule
/// (--min-time, --max-time, --target-ci-width would end each rank's sampling on its own,
/// and the others would wait for it at the next barrier), with a warning naming series
/// `name` when the run gave one. Every rank takes --measurement-iterations samples.
BENCH_EXPORT TimingOptions rank_timing_options(Context& ctx, std::string_view name);

}  // namespace bench
