// Execute, distributed, on SLURM (--launcher slurm; docs/distributed.md): the ranks of a
// distributed scenario started by `srun --ntasks=N` inside the current allocation, one
// task per rank, each task `benchhost worker --rank-dir DIR ...`.
//
// The host (rank_executor.cpp, run_ranks) picks MASTER_ADDR (the first node of the
// allocation) and MASTER_PORT, writes the scenario's config into DIR (a folder of the run
// folder, which every node of a cluster sees), starts srun with --label and reads each
// task's output apart. Each task (slurm_rank_main) sets torchrun's variables from
// SLURM's (RANK from SLURM_PROCID, LOCAL_RANK from SLURM_LOCALID, ...) and runs the
// scenario in a child process, writing into DIR what the local launcher's worker server
// says on pipes: the step it belongs to, that the plugin loaded, the result, how the
// child ended. The host gathers those as it gathers local ranks', and ends the step
// (scancel) when a rank failed, at the timeout or on interrupt.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchhost {

/// The files of rank `rank` in a rank folder: "rank<R>.<what>" (what: "where" = the job
/// step, node and threads; "loaded"; "json" = the result; "status" = the wait status;
/// "progress" = benchhost.distributed's).
std::filesystem::path rank_file(const std::filesystem::path& dir, int rank, std::string_view what);

/// The SLURM job this process runs in (SLURM_JOB_ID), or why --launcher slurm cannot
/// start ranks here: "--launcher slurm: not inside a SLURM allocation (SLURM_JOB_ID is
/// not set): ...". Empty when it can.
std::string slurm_allocation_problem();

/// The number of tasks on node `node` (0-based) of SLURM's tasks-per-node list
/// ("2(x3),1": two on each of the first three nodes, one on the fourth); nullopt when
/// the text does not say.
std::optional<int> tasks_on_node(std::string_view tasks_per_node, int node);

/// Where rank 0 of the allocation listens: the first host of SLURM_JOB_NODELIST (as
/// `scontrol show hostnames` expands it), given as its NodeAddr when SLURM knows the node
/// by another address (`scontrol show node`). Throws std::runtime_error naming the
/// command that failed.
std::string slurm_master_address();

/// srun's command line for the ranks of a scenario (without srun's own path).
std::vector<std::string> srun_arguments(int world_size, const std::string& job_name,
                                        const std::vector<std::string>& worker_command);

/// A process started with `argv` (argv[0] looked up in PATH), `environment` as its whole
/// environment, stdout and stderr into one pipe (*output, the read end), in a process
/// group of its own, and sent SIGTERM when this thread ends. Throws std::runtime_error.
pid_t spawn_with_output(const std::vector<std::string>& argv, const std::vector<std::string>& environment, int* output);

/// Runs `argv` to its end (at most `timeout_s`), and returns its exit status (-1: it
/// could not start or did not end) with its output.
int run_to_end(const std::vector<std::string>& argv, std::string* output, double timeout_s = 30);

/// main() of `benchhost worker --rank-dir DIR`: one rank of a distributed scenario that
/// srun started (rank from SLURM's environment); see above. Returns the exit status.
int slurm_rank_main(const std::filesystem::path& plugin, const std::string& symbol, const std::filesystem::path& dir,
                    const std::string& log_level, double monitor_interval_ms);

}  // namespace benchhost
