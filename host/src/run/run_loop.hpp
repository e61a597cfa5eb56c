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
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <spdlog/logger.h>

#include "discover/plugin_registry.hpp"
#include "execute/executor.hpp"
#include "model/reporter.hpp"
#include "model/run_record.hpp"
#include "plan/plan.hpp"
#include "run/journal.hpp"

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
    PluginRegistry& registry;  // plugins that crashed while loading
    RunJournal& journal;
    Reporter& reporters;
};

/// Runs the executions of one plan into one record, one at a time, in whatever order
/// its caller asks: run_plan asks in execution_order; an A/B run (run/ab_loop.hpp)
/// alternates two runners, one per side. For each execution it runs the scenario,
/// journals it, pools it with the scenario's earlier rounds, tells the reporters, and
/// brings their files up to date when a checkpoint is due.
class ScenarioRunner {
public:
    /// The record may hold the outcomes of a resumed run: their rounds are not run again.
    ScenarioRunner(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts);

    /// Runs round `round` (1-based) of plan.scenarios[index]. `last_round`: the
    /// scenario ends with it (its statistics are computed and the reporters told); a
    /// round that fails ends it too. Returns the scenario as pooled so far, or nullptr
    /// when the round was not run: it ran before --resume, an earlier round failed, or
    /// the run was interrupted (record.interrupted is then true).
    const ScenarioOutcome* run(std::size_t index, int round, bool last_round, const ExecutionProgress& progress);

    /// The scenario `id` was flagged slower and will be run again to confirm it: its
    /// outcome records first_rounds (the rounds so far; at a second confirmation, still
    /// those of the first), and the rounds run after this call end it again. False when
    /// no round of it succeeded.
    bool reopen_for_confirmation(const std::string& id);

    /// The outcome of scenario `id` so far; nullptr before its first round.
    const ScenarioOutcome* outcome(const std::string& id) const;

    /// Ends the run: scenarios an interruption left unfinished get their statistics,
    /// every outcome its speedups. Returns false when the journal could not be written
    /// (the results are still in the record and the reports).
    bool finish();

private:
    void journal(const ScenarioOutcome& outcome, int round);
    void finish_scenario(ScenarioOutcome& outcome);
    void checkpoint_if_due();

    const Plan& plan_;
    const RunLoopOptions& options_;
    RunRecord& record_;
    RunLoopParts parts_;
    ExecutionOptions execution_;
    std::map<std::string, std::size_t> outcome_of_;  // scenario id -> index in record_.outcomes
    std::map<std::string, int> resumed_rounds_;  // scenario id -> rounds the resumed run had
    std::map<std::filesystem::path, std::string> crashed_while_loading_;  // in this run
    std::set<std::string> logged_warnings_;  // "<id>\n<warning>": a warning every round repeats is logged once
    CheckpointClock checkpoints_;
    CheckpointClock::Clock::time_point execution_started_;
    bool journal_ok_ = true;
};

/// Runs every scenario of `plan` `rounds` times through `runner`, in execution_order,
/// until the run is interrupted; the caller calls runner.finish().
void run_rounds(ScenarioRunner& runner, const Plan& plan, int rounds, const RunRecord& record);

/// Runs `plan` into record.outcomes: each scenario `options.rounds` times
/// (execution_order), skipping the rounds the record already holds (a resumed run).
/// Stops early when the run is interrupted (record.interrupted). At the end every
/// outcome has its statistics and speedups; the caller calls the reporters' run_finished.
/// Returns false when the journal could not be written (the results are still in the
/// record and the reports).
bool run_plan(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts);

}  // namespace benchhost
