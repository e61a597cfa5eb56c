// Execute, distributed: a scenario of world size N (a distributed benchmark's
// config.world_size > 0; docs/distributed.md) runs as N rank processes, each a worker
// started by the worker server as any other (its own process group, its output and
// result on pipes), with torchrun's environment: RANK, LOCAL_RANK, GROUP_RANK, ROLE_RANK,
// WORLD_SIZE, LOCAL_WORLD_SIZE, ROLE_WORLD_SIZE, MASTER_ADDR=127.0.0.1 and MASTER_PORT (a
// free port), OMP_NUM_THREADS; each pinned to its own share of the cores
// (sched_setaffinity), on CUDA given its own GPU (cuda:LOCAL_RANK).
//
// The ranks are one scenario: the first rank to end without success (it raised, crashed,
// exited, or skipped) ends it; after a second in which a rank whose failure only says that
// a peer went away may be joined by the one that caused it, every rank still running is
// killed (its group), and the scenario takes the status of the rank that failed first,
// with its reason, naming it. Past the scenario's timeout every rank is killed, and the
// reason names the ranks that were behind the others, as their progress files say (what
// benchhost.distributed writes there: BENCHHOST_RANK_PROGRESS). A rendezvous port that
// turns out taken (EADDRINUSE in a rank's failure) is no failure of the benchmark: the
// ranks are started again on another port, twice at most. When every rank succeeded,
// their results are merged (rank_results.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "execute/executor.hpp"

namespace benchhost {

/// Runs the distributed scenario `scenario` (config.world_size ranks); fills the
/// outcome's result, log tail and wall time.
void run_ranks(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log,
               ScenarioOutcome& outcome);

/// The CPUs of each of `world_size` ranks, from `available` (the host's, ascending):
/// contiguous equal shares when there are at least as many CPUs as ranks (the remainder
/// unused), else one CPU each, in turn (ranks then share CPUs).
std::vector<std::vector<int>> rank_cpu_shares(const std::vector<int>& available, int world_size);

/// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> available_cpus();

/// Where a rank is among the others, as torchrun's variables say it.
struct RankPlace {
    int rank = 0, local_rank = 0;  // RANK, LOCAL_RANK (and ROLE_RANK = RANK)
    int world_size = 1, local_world_size = 1;  // WORLD_SIZE (and ROLE_WORLD_SIZE), LOCAL_WORLD_SIZE
    int group_rank = 0;  // GROUP_RANK: the node's number
    std::string master_addr = "127.0.0.1";
    int port = 0;  // MASTER_PORT
};

/// The environment of rank `rank` of `world_size` ranks on this machine: `base` (the
/// workers' environment) with torchrun's variables set, OMP_NUM_THREADS=`threads` unless
/// `base` has one, and BENCHHOST_RANK_PROGRESS=`progress_file`.
std::vector<std::string> rank_environment(std::vector<std::string> base, int rank, int world_size, int port,
                                          int threads, const std::string& progress_file);
/// The same for a rank at `place` (on any node: --launcher slurm).
std::vector<std::string> rank_environment(std::vector<std::string> base, const RankPlace& place, int threads,
                                          const std::string& progress_file);

/// A TCP port nothing listens on, to rendezvous on: with `first` > 0, the first of first,
/// first + 1, ... (100 tried) that can be bound; else one the kernel picks. 0 when none.
/// (Free when looked at: another process may take it before rank 0 listens, which
/// port_was_taken then says.)
int free_port(int first = 0);

/// Whether a rank's failure (its reason or the last lines it printed) says that its
/// rendezvous port was already taken: EADDRINUSE, "address already in use".
bool port_was_taken(std::string_view text);

/// Whether a rank's failure says only that a peer went away (the connection closed or
/// reset, a broken pipe): what a rank blocked in a collective reports when another one
/// ended, rather than a cause of its own.
bool peer_went_away(std::string_view text);

/// Why a distributed scenario that ran past its timeout did not end, from each rank's
/// progress ("<number> <what it was doing>", as benchhost.distributed writes it; empty:
/// the rank wrote none): the ranks behind the others, and what the others were doing,
/// or that all were at the same point.
std::string ranks_behind(const std::vector<std::string>& progress);

}  // namespace benchhost
