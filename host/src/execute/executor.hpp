// Execute: runs one planned scenario and classifies how it ended. In process isolation
// the scenario runs in a worker process of its own, forked for it by the worker server
// (worker_server.hpp: one per run, started from main()), in its own process group,
// which is killed when the scenario times out, when the run is interrupted, and after
// the worker ends; what the plugin started in another session or group the worker
// server stops when the worker ends, and the scenario gets a warning naming it: no
// child of a plugin outlives its scenario. The host waits for the worker on its pipes
// alone (its output, its result, the server's status records), in one poll: there is
// no polling interval, and a worker is seen to end when it ends. The config and the
// result travel through those pipes, not through files.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <spdlog/logger.h>

#include "config/run_config.hpp"
#include "model/run_record.hpp"
#include "plan/plan.hpp"

namespace benchhost {

struct ExecutionOptions {
    Isolation isolation = Isolation::process;
    Launcher launcher = Launcher::local;  // how a distributed scenario's ranks start
    /// Where --launcher slurm keeps the ranks' files (the run folder, which the nodes see);
    /// empty: the temporary folder.
    std::filesystem::path rank_files_dir;
    double timeout_s = 600;  // 0: no limit
    std::size_t memory_limit_mib = 0;  // a worker's memory (cgroup, else RLIMIT_DATA: memory_cgroup.hpp); 0: no limit
    std::string worker_log_level = "info";
    double monitor_interval_ms = 50;  // the monitors' sampling interval; 0: no monitoring
    /// Called about every 100 ms while a worker runs (process isolation), so
    /// that the run can bring its files up to date during a long scenario.
    std::function<void()> while_waiting;
    /// NAME=VALUE set in every worker over the host's own variables (worker_environment):
    /// a scenario's fresh compile caches under --compile-cache cold.
    std::vector<std::string> environment;
    /// --worker-preload: a worker of a plugin that links LibTorch, or a Python plugin
    /// that imports torch, is forked from a parent that loaded them (worker_server.hpp).
    bool worker_preload = true;
};

/// Runs `scenario`. A scenario planned as skipped or rejected is returned so, unrun. A
/// distributed one (config.world_size > 0) runs as its ranks, one worker process each,
/// even with --isolation none (rank_executor.hpp).
ScenarioOutcome execute_scenario(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log);

/// SIGINT and SIGTERM: the first stops the running worker and makes
/// interrupt_requested() true, so that the run ends and writes what it has; the
/// second exits at once.
void install_interrupt_handlers();
bool interrupt_requested();

/// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int signal_number);

/// The environment a worker gets: the host's variables that configure the system,
/// the libraries, the allocator and the hardware (PATH, HOME, LANG and LC_*, TZ, TMPDIR,
/// LD_LIBRARY_PATH, LD_PRELOAD, GLIBC_TUNABLES, XDG_CACHE_HOME, and those starting OMP_,
/// KMP_, MKL_, OPENBLAS_, GOTO_, DNNL_, ONEDNN_, CUDA_, NVIDIA_, CUBLAS_, CUDNN_, NCCL_,
/// TORCH_, PYTORCH_, BENCH_, ASAN_, UBSAN_, LSAN_, MALLOC_, TCMALLOC_), nothing else, plus
/// BENCHHOST_WORKER=1.
std::vector<std::string> worker_environment();

/// `environment` with each NAME=VALUE of `over` in place of the variable of that name,
/// and without NAME where `over` has a NAME alone.
std::vector<std::string> with_variables(std::vector<std::string> environment, const std::vector<std::string>& over);

}  // namespace benchhost
