// Run: executes a plan scenario by scenario and hands each result on. For every
// execution (a scenario, or one round of it) it
//   1. runs it (execute/executor.hpp),
//   2. appends it to the journal (run/journal.hpp): one flushed line, so nothing that
//      ended is lost whatever kills the host,
//   3. pools it with its earlier rounds (run/rounds.hpp); after the last round computes
//      the scenario's statistics once (analysis/scenario_statistics.hpp) and tells the
//      reporters that the scenario has ended,
//   4. tells the reporters as each execution starts and ends (the progress), and lets
//      them bring their files up to date when a checkpoint is due
//      (CheckpointClock: every few seconds at most, so that the cost per scenario stays
//      flat however many scenarios the run has).
// Data flows one way: plan -> executor -> journal -> record -> reporters.
#pragma once

#include <algorithm>
#include <chrono>

#include <spdlog/logger.h>

#include "discover/plugin_registry.hpp"
#include "execute/executor.hpp"
#include "plan/plan.hpp"
#include "report/reporter.hpp"
#include "run/journal.hpp"
#include "run/run_record.hpp"

namespace benchhost {

/// When the reporters' files are brought up to date during a run: when a scenario has
/// ended since the last checkpoint, and at least `min_interval` has passed and ten times
/// what the last checkpoint took (so that writing files costs at most about a tenth of
/// the run, whatever their size).
class CheckpointClock {
public:
    using Clock = std::chrono::steady_clock;
    explicit CheckpointClock(std::chrono::duration<double> min_interval = std::chrono::seconds(1))
        : min_interval_(min_interval), last_(Clock::now()) {}

    void scenario_ended() { pending_ = true; }
    bool due(Clock::time_point now = Clock::now()) const {
        return pending_ && now - last_ >= std::max(min_interval_, 10 * last_cost_);
    }
    /// A checkpoint that started at `start` has just ended.
    void checkpointed(Clock::time_point start, Clock::time_point end = Clock::now()) {
        pending_ = false;
        last_ = end;
        last_cost_ = end - start;
    }

private:
    std::chrono::duration<double> min_interval_;
    std::chrono::duration<double> last_cost_{0};
    Clock::time_point last_;
    bool pending_ = false;
};

struct RunLoopOptions {
    int rounds = 1;
    bool retry_failed = false;  // a plugin that crashed while loading is tried again
    ExecutionOptions execution;
};

/// What the loop works with; it owns none of it.
struct RunLoopParts {
    spdlog::logger& log;
    PluginRegistry& registry;          // plugins that crashed while loading
    RunJournal& journal;
    Reporter& reporters;
};

/// Runs `plan` into record.outcomes: each scenario `options.rounds` times
/// (execution_order), skipping the rounds the record already holds (a resumed run).
/// Stops early when the run is interrupted (record.interrupted). At the end every
/// outcome has its statistics and speedups; the caller calls the reporters' run_finished.
/// Returns false when the journal could not be written (the results are still in the
/// record and the reports).
bool run_plan(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts);

}  // namespace benchhost
