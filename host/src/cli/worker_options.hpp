// `benchhost worker --plugin P --symbol S --config C --result R`: one scenario run in a
// process of its own, for debugging; hidden from --help. `--rank-dir DIR` instead of
// --config and --result: a rank that srun started (--launcher slurm). A run starts its workers through
// the worker server (execute/worker_server.hpp).
#pragma once

#include <filesystem>
#include <string>

#include "cli/subcommand.hpp"

namespace benchhost {

struct WorkerCommand {
    std::filesystem::path plugin;
    std::string symbol;
    std::filesystem::path config;
    std::filesystem::path result;
    /// A rank of a distributed scenario that srun started (--launcher slurm): its config,
    /// result and progress in this folder (execute/slurm_ranks.hpp); then no --config or
    /// --result.
    std::filesystem::path rank_dir;
    std::string log_level = "info";
    double monitor_interval_ms = 50;  // 0: no monitoring
};

/// Declares `worker` and its options on `app`.
Subcommand<WorkerCommand> add_worker_command(CLI::App& app);

}  // namespace benchhost
