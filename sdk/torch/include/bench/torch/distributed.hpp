// The ranks of a distributed scenario, from C++: the rank and the world size that the host
// gave the process (torchrun's environment), a ready c10d process group of them (gloo on
// the CPU, NCCL on CUDA), and timing aligned across them (docs/distributed.md).
//
// A C++ plugin declares a distributed benchmark with the axis world_size among
// BENCH_PLUGIN's axes; the host then runs each of its scenarios as world_size worker
// processes, one a rank. This layer registers the rank hooks (bench::RankHooks) through
// which a plain ctx.measure of such a scenario meets the other ranks, as Python's does.
// What this header gives is what benchhost.distributed gives a Python plugin, and the
// host reads both alike: the slowest rank's samples make the
// scenario's series, each rank's its series `<name>.rank<N>`, and a rank slower than the
// others beyond the interval is named as a straggler.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <c10/util/intrusive_ptr.h>
#include <torch/types.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <bench/context.hpp>
#include <bench/ranks.hpp>
#include <bench/timer.hpp>
#include <bench/torch/device.hpp>

namespace bench::libtorch {

/// This process's rank, 0 to world_size() - 1 (RANK; 0 outside a distributed scenario).
BENCH_EXPORT int rank();
/// Its rank on this machine (LOCAL_RANK; 0 outside), which picks its GPU on CUDA.
BENCH_EXPORT int local_rank();
/// How many ranks the scenario has (WORLD_SIZE; 1 outside a distributed scenario).
BENCH_EXPORT int world_size();
/// How many of them run on this machine (LOCAL_WORLD_SIZE; 1 outside).
BENCH_EXPORT int local_world_size();

/// The backend of a process group on `device`: "nccl" on CUDA, else "gloo".
BENCH_EXPORT std::string distributed_backend(const torch::Device& device);

/// The process group of the scenario's ranks, made at the first call (later calls, and
/// those of another scenario in the same process, return the same group):
///  - the rendezvous: a c10d::TCPStore at MASTER_ADDR:MASTER_PORT, served by rank 0,
///    which waits for the world_size() ranks; outside a distributed scenario (no
///    MASTER_ADDR, one rank) an in-process store;
///  - the backend: on the device select_device(ctx) gives, distributed_backend's: gloo
///    (ProcessGroupGloo, its default device: the host's address); NCCL
///    (ProcessGroupNCCL, the rank's GPU, cuda:LOCAL_RANK, made current first) where this
///    LibTorch has CUDA, else the scenario is skipped saying so;
///  - info "backend" (gloo or nccl) and "world_size".
/// A rank whose port is taken fails with c10d's "address already in use", which the host
/// takes as a taken port (it starts the ranks again on another).
BENCH_EXPORT c10::intrusive_ptr<c10d::ProcessGroup> process_group(Context& ctx);

/// Every rank meets here: a barrier of process_group(ctx)'s group (on NCCL, on the rank's
/// GPU).
BENCH_EXPORT void barrier(Context& ctx);

/// What measure_ranks (and a plain ctx.measure of a distributed scenario) does before each
/// sample, outside the timed region: writes how far the rank got into the progress file
/// the host names (BENCHHOST_RANK_PROGRESS: at a timeout, the host names the rank behind
/// the others), and meets the other ranks at a barrier.
BENCH_EXPORT void before_rank_sample(Context& ctx);

/// Whether this layer's bench::RankHooks are the process's (ABI 2.16): it registers them
/// when it is loaded, so that Context::measure in a distributed scenario times every rank
/// alike (Context::measure_on_ranks) with its process group, barrier and synchronization,
/// and its progress file says when the rank's benchmark started and ended. Each file that
/// includes this header calls it as the plugin loads, which keeps the layer linked into a
/// plugin that times with plain ctx.measure alone.
BENCH_EXPORT bool rank_hooks_registered();
namespace detail {
inline const bool rank_hooks_linked = rank_hooks_registered();
}  // namespace detail

/// Times `fn` on every rank alike and records the samples, in ms, as series `name`: in a
/// distributed scenario it is ctx.measure, which there (Context::measure_on_ranks, with
/// this layer's hooks) makes the process group ready first (process_group), then makes
/// --warmup-iterations calls, then --measurement-iterations samples of one call each on
/// every rank (the time rule is not applied: bench::rank_timing_options), each after a
/// barrier outside the timed region (before_rank_sample), so that sample i of every rank
/// times the same step; on CUDA each call is followed by a synchronization (the host's
/// clock). With --cache cold the CPU's caches are flushed before each sample. The host
/// gathers every rank's series: the scenario's `name` is, sample by sample, the slowest
/// rank's, and each rank's own is `name.rank<N>`. Outside a distributed scenario
/// (config.world_size 0) it is measure_synchronized on select_device's device.
template <class Fn>
Series measure_ranks(Context& ctx, std::string_view name, Fn&& fn) {
    const torch::Device device = select_device(ctx);
    if (ctx.config().world_size <= 0) return measure_synchronized(ctx, name, device, std::forward<Fn>(fn));
    return ctx.measure(name, std::forward<Fn>(fn));
}

}  // namespace bench::libtorch
