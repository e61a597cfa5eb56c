// The ranks of a distributed scenario (docs/distributed.md): what the SDKs that time them
// share (ABI 2.15), and the seam through which the layer that holds the ranks' process
// group times a plain Context::measure on every rank alike (ABI 2.16). The LibTorch
// layer's <bench/torch/distributed.hpp> gives C++ plugins the ranks and their process
// group, and registers its RankHooks when it is loaded; benchhost.distributed gives Python
// plugins the same. <bench/context.hpp> includes this header.
#pragma once

#include <string_view>

#include <bench/export.hpp>
#include <bench/timer.hpp>

namespace bench {

class Context;

/// The timing options of a distributed scenario: the scenario's, less the time rule
/// (--min-time, --max-time, --target-ci-width would end each rank's sampling on its own,
/// and the others would wait for it at the next barrier), with a warning naming series
/// `name` when the run gave one. Every rank takes --measurement-iterations samples.
BENCH_EXPORT TimingOptions rank_timing_options(Context& ctx, std::string_view name);

/// What Context::measure needs, in a distributed scenario (config.world_size > 0), from
/// the layer that holds the ranks' process group (ABI 2.16). The LibTorch layer
/// (bench::sdk_torch) registers its own when it is loaded; a plugin that makes its ranks'
/// group another way may register one of its own (every function set). The functions
/// get the scenario's Context.
struct RankHooks {
    /// Before the first sample of each measure: makes the ranks' group ready (the
    /// rendezvous at the first call).
    void (*ready)(Context& ctx) = nullptr;
    /// Before each sample, outside the timed region: the rank's progress file, then a
    /// barrier of every rank, so that sample i of every rank times the same step.
    void (*before_sample)(Context& ctx) = nullptr;
    /// After each call, inside the timed region: waits for the work the call queued on
    /// the rank's device (nothing on the CPU).
    void (*after_call)(Context& ctx) = nullptr;
    /// The Context of a distributed scenario was made (the benchmark starts), and its
    /// result was taken (the benchmark ended; `succeeded`: it returned, neither threw nor
    /// skipped): the rank's progress file says so.
    void (*started)(Context& ctx) = nullptr;
    void (*ended)(Context& ctx, bool succeeded) = nullptr;
};

/// Registers the process's rank hooks (nullptr: none), in place of those registered
/// before; `hooks` must outlive its registration.
BENCH_EXPORT void set_rank_hooks(const RankHooks* hooks);
/// The rank hooks registered, or nullptr.
BENCH_EXPORT const RankHooks* rank_hooks();

}  // namespace bench
