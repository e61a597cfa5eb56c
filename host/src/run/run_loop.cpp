#include "run/run_loop.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "analysis/scenario_statistics.hpp"
#include "run/hardware_info.hpp"
#include "run/rounds.hpp"

namespace benchhost {

namespace {

/// How long a worker runs before the host writes files beside it.
constexpr std::chrono::seconds quiet_while_measuring{3};

}  // namespace

ScenarioRunner::ScenarioRunner(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts)
    : plan_(plan), options_(options), record_(record), parts_(parts), execution_(options.execution) {
    // The outcomes a resumed run starts with, by id, and how many rounds each has.
    for (std::size_t k = 0; k < record_.outcomes.size(); ++k) {
        const ScenarioOutcome& outcome = record_.outcomes[k];
        outcome_of_[outcome.config.scenario_id()] = k;
        resumed_rounds_[outcome.config.scenario_id()] = outcome.rounds;
    }
    // While a worker runs the host stays idle, so as not to disturb what it measures;
    // only a long scenario (or a hang) lets the files catch up meanwhile.
    execution_.while_waiting = [this] {
        if (CheckpointClock::Clock::now() - execution_started_ >= quiet_while_measuring) checkpoint_if_due();
    };
}

const ScenarioOutcome* ScenarioRunner::run(std::size_t index, int round, bool last_round,
                                           const ExecutionProgress& progress) {
    PlannedScenario scenario = plan_.scenarios[index];
    const std::string id = scenario.config.scenario_id();
    const auto existing = outcome_of_.find(id);
    ScenarioOutcome* pooled = existing == outcome_of_.end() ? nullptr : &record_.outcomes[existing->second];
    if (pooled != nullptr && round <= resumed_rounds_[id]) {  // ran before --resume
        parts_.reporters.execution_skipped(progress, round == resumed_rounds_[id] && last_round);
        return nullptr;
    }
    if (pooled != nullptr && pooled->result.status != bench::Status::success) {
        parts_.reporters.execution_skipped(progress, false);  // a round failed: its later rounds are not run
        return nullptr;
    }
    if (auto crash = crashed_while_loading_.find(scenario.plugin_path); crash != crashed_while_loading_.end())
        scenario.reject_reason =
            scenario.plugin_path.string() + ": " + crash->second + "; its other scenarios are not run";

    parts_.reporters.execution_started(progress);
    execution_started_ = CheckpointClock::Clock::now();
    ScenarioOutcome outcome = execute_scenario(scenario, execution_, parts_.log);
    if (interrupt_requested()) {
        parts_.log.warn("interrupted: {} was stopped; writing the {} finished scenarios", id, record_.outcomes.size());
        record_.interrupted = true;
        return nullptr;
    }
    if (outcome.crashed_while_loading) {
        crashed_while_loading_[scenario.plugin_path] = outcome.result.reason;
        parts_.registry.record_crash(scenario.plugin_path, outcome.result.reason);
    } else if (outcome.result.status != bench::Status::rejected && options_.retry_failed) {
        parts_.registry.forget(scenario.plugin_path);  // it loads now
    }
    if (pooled != nullptr) outcome.first_rounds = pooled->first_rounds;  // a confirmation round says so
    journal(outcome, round);
    add_reported_facts(record_.hardware, outcome);
    for (const std::string& warning : outcome.result.warnings)
        if (logged_warnings_.insert(id + "\n" + warning).second)
            parts_.log.warn("{}: {}", id, warning);  // once a scenario

    const bool ends = last_round || outcome.result.status != bench::Status::success;
    if (pooled == nullptr) {
        outcome_of_[id] = record_.outcomes.size();
        record_.outcomes.push_back(std::move(outcome));
        pooled = &record_.outcomes.back();
    } else {
        pool_round(*pooled, std::move(outcome));
    }
    if (ends) finish_scenario(*pooled);

    // The worker's output is in the log already, line by line (its last lines too when it
    // said more than the log takes: execute_scenario).
    parts_.reporters.execution_finished(progress, *pooled);
    checkpoint_if_due();
    return pooled;
}

bool ScenarioRunner::reopen_for_confirmation(const std::string& id) {
    const auto it = outcome_of_.find(id);
    if (it == outcome_of_.end()) return false;
    ScenarioOutcome& outcome = record_.outcomes[it->second];
    if (outcome.result.status != bench::Status::success) return false;
    if (outcome.first_rounds == 0) outcome.first_rounds = outcome.rounds;  // confirmed again: the first flag's
    outcome.statistics.computed = false;  // computed again when its last round ends
    return true;
}

const ScenarioOutcome* ScenarioRunner::outcome(const std::string& id) const {
    const auto it = outcome_of_.find(id);
    return it == outcome_of_.end() ? nullptr : &record_.outcomes[it->second];
}

bool ScenarioRunner::finish() {
    // What an interrupted run or a changed plan left unfinished is reported as it is.
    for (ScenarioOutcome& outcome : record_.outcomes)
        if (!outcome.statistics.computed) finish_scenario(outcome);
    complete_speedups(record_);
    return journal_ok_;
}

void ScenarioRunner::journal(const ScenarioOutcome& outcome, int round) {
    try {
        parts_.journal.append(outcome, round);
    } catch (const std::exception& e) {
        if (journal_ok_) parts_.log.error("{}", e.what());  // once: the reports are still written
        journal_ok_ = false;
    }
}

void ScenarioRunner::finish_scenario(ScenarioOutcome& outcome) {
    if (outcome.rounds > 1) finish_rounds(outcome);
    compute_statistics(outcome, true);
    if (outcome.result.status == bench::Status::success) {
        for (std::string& warning : statistical_warnings(outcome)) {
            if (std::find(outcome.result.warnings.begin(), outcome.result.warnings.end(), warning) !=
                outcome.result.warnings.end())
                continue;  // a confirmed scenario ends twice
            parts_.log.warn("{}: {}", outcome.config.scenario_id(), warning);
            outcome.result.warnings.push_back(std::move(warning));
        }
    }
    parts_.reporters.scenario_finished(record_, outcome);
    checkpoints_.scenario_ended();
}

void ScenarioRunner::checkpoint_if_due() {
    const auto start = CheckpointClock::Clock::now();
    if (!checkpoints_.due(start)) return;
    complete_speedups(record_);
    parts_.reporters.checkpoint(record_);
    checkpoints_.checkpointed(start);
}

void run_rounds(ScenarioRunner& runner, const Plan& plan, int rounds, const RunRecord& record) {
    const std::vector<std::size_t> order = execution_order(plan, rounds);
    std::map<std::size_t, int> occurrences;  // plan index -> executions met so far
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::size_t index = order[i];
        const int round = ++occurrences[index];
        runner.run(index, round, round >= rounds,
                   ExecutionProgress{i + 1, order.size(), plan.scenarios[index].config.scenario_id()});
        if (record.interrupted) break;
    }
}

bool run_plan(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts) {
    ScenarioRunner runner(plan, options, record, parts);
    run_rounds(runner, plan, options.rounds, record);
    return runner.finish();
}

}  // namespace benchhost
