// Execute: runs one planned scenario and classifies how it ended. In process isolation
// the scenario runs in a worker process (this executable re-executed as
// `benchhost worker ...`) in its own process group, which is killed when the
// scenario times out, when the run is interrupted, and after the worker ends (so that
// no child of a plugin outlives it).
#pragma once

#include <filesystem>
#include <string>

#include <spdlog/logger.h>

#include "plan.hpp"
#include "run_config.hpp"
#include "run_record.hpp"

namespace benchhost {

struct ExecutionOptions {
    Isolation isolation = Isolation::process;
    double timeout_s = 600;           // 0: no limit
    std::filesystem::path scratch_dir;  // where request and result files go
    std::string worker_log_level = "info";
};

/// Runs `scenario`. A scenario planned as skipped is returned as skipped unrun.
ScenarioOutcome execute_scenario(const PlannedScenario& scenario, const ExecutionOptions& options,
                                 spdlog::logger& log);

/// SIGINT and SIGTERM: the first stops the running worker and makes
/// interrupt_requested() true, so that the run ends and writes what it has; the
/// second exits at once.
void install_interrupt_handlers();
bool interrupt_requested();

/// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int signal_number);

}  // namespace benchhost
