#include "run/run_loop.hpp"

#include <map>
#include <string>

#include "analysis/scenario_statistics.hpp"
#include "run/hardware_info.hpp"
#include "run/rounds.hpp"

namespace benchhost {

namespace {

/// How long a worker runs before the host writes files beside it.
constexpr std::chrono::seconds quiet_while_measuring{3};

class Loop {
public:
    Loop(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts)
        : plan_(plan), options_(options), record_(record), parts_(parts) {}

    bool run() {
        index_resumed_outcomes();
        ExecutionOptions execution = options_.execution;
        // While a worker runs the host stays idle, so as not to disturb what it measures;
        // only a long scenario (or a hang) lets the files catch up meanwhile.
        execution.while_waiting = [this] {
            if (CheckpointClock::Clock::now() - execution_started_ >= quiet_while_measuring) checkpoint_if_due();
        };
        const std::vector<std::size_t> order = execution_order(plan_, options_.rounds);
        std::map<std::size_t, int> occurrences;  // plan index -> executions met so far
        const std::size_t total = order.size();
        for (std::size_t i = 0; i < total; ++i) {
            const std::size_t index = order[i];
            PlannedScenario scenario = plan_.scenarios[index];
            const std::string id = scenario.config.scenario_id();
            const int round = ++occurrences[index];
            const ExecutionProgress progress{i + 1, total, id};
            const auto existing = outcome_of_.find(id);
            ScenarioOutcome* pooled = existing == outcome_of_.end() ? nullptr : &record_.outcomes[existing->second];
            if (pooled != nullptr && round <= resumed_rounds_[id]) {  // ran before --resume
                parts_.reporters.execution_skipped(progress, round == resumed_rounds_[id] && round >= options_.rounds);
                continue;
            }
            if (pooled != nullptr && pooled->result.status != bench::Status::success) {
                parts_.reporters.execution_skipped(progress, false);  // a round failed: its later rounds are not run
                continue;
            }
            if (auto crash = crashed_while_loading_.find(scenario.plugin_path); crash != crashed_while_loading_.end())
                scenario.reject_reason =
                    scenario.plugin_path.string() + ": " + crash->second + "; its other scenarios are not run";

            parts_.reporters.execution_started(progress);
            execution_started_ = CheckpointClock::Clock::now();
            ScenarioOutcome outcome = execute_scenario(scenario, execution, parts_.log);
            if (interrupt_requested()) {
                parts_.log.warn("interrupted: {} was stopped; writing the {} finished scenarios", id,
                                record_.outcomes.size());
                record_.interrupted = true;
                break;
            }
            if (outcome.crashed_while_loading) {
                crashed_while_loading_[scenario.plugin_path] = outcome.result.reason;
                parts_.registry.record_crash(scenario.plugin_path, outcome.result.reason);
            } else if (outcome.result.status != bench::Status::rejected && options_.retry_failed) {
                parts_.registry.forget(scenario.plugin_path);  // it loads now
            }
            journal(outcome, round);
            add_reported_facts(record_.hardware, outcome);
            for (const std::string& warning : outcome.result.warnings) parts_.log.warn("{}: {}", id, warning);

            const bool last_round = round >= options_.rounds || outcome.result.status != bench::Status::success;
            if (pooled == nullptr) {
                outcome_of_[id] = record_.outcomes.size();
                record_.outcomes.push_back(std::move(outcome));
                pooled = &record_.outcomes.back();
            } else {
                pool_round(*pooled, std::move(outcome));
            }
            if (last_round) finish_scenario(*pooled);

            parts_.reporters.execution_finished(progress, *pooled);
            const bool ok =
                pooled->result.status == bench::Status::success || pooled->result.status == bench::Status::skipped;
            if (!ok && !pooled->log_tail.empty()) parts_.log.debug("last output of the worker:\n{}", pooled->log_tail);
            checkpoint_if_due();
        }
        // What an interrupted run or a changed plan left unfinished is reported as it is.
        for (ScenarioOutcome& outcome : record_.outcomes)
            if (!outcome.statistics.computed) finish_scenario(outcome);
        complete_speedups(record_);
        return journal_ok_;
    }

private:
    /// The outcomes a resumed run starts with, by id, and how many rounds each has.
    void index_resumed_outcomes() {
        for (std::size_t k = 0; k < record_.outcomes.size(); ++k) {
            const ScenarioOutcome& outcome = record_.outcomes[k];
            outcome_of_[outcome.config.scenario_id()] = k;
            resumed_rounds_[outcome.config.scenario_id()] = outcome.rounds;
        }
    }

    void journal(const ScenarioOutcome& outcome, int round) {
        try {
            parts_.journal.append(outcome, round);
        } catch (const std::exception& e) {
            if (journal_ok_) parts_.log.error("{}", e.what());  // once: the reports are still written
            journal_ok_ = false;
        }
    }

    void finish_scenario(ScenarioOutcome& outcome) {
        if (outcome.rounds > 1) finish_rounds(outcome);
        compute_statistics(outcome, true);
        if (outcome.result.status == bench::Status::success) {
            for (std::string& warning : statistical_warnings(outcome)) {
                parts_.log.warn("{}: {}", outcome.config.scenario_id(), warning);
                outcome.result.warnings.push_back(std::move(warning));
            }
        }
        parts_.reporters.scenario_finished(record_, outcome);
        checkpoints_.scenario_ended();
    }

    void checkpoint_if_due() {
        const auto start = CheckpointClock::Clock::now();
        if (!checkpoints_.due(start)) return;
        complete_speedups(record_);
        parts_.reporters.checkpoint(record_);
        checkpoints_.checkpointed(start);
    }

    const Plan& plan_;
    const RunLoopOptions& options_;
    RunRecord& record_;
    RunLoopParts parts_;
    std::map<std::string, std::size_t> outcome_of_;  // scenario id -> index in record_.outcomes
    std::map<std::string, int> resumed_rounds_;      // scenario id -> rounds the resumed run had
    std::map<std::filesystem::path, std::string> crashed_while_loading_;  // in this run
    CheckpointClock checkpoints_;
    CheckpointClock::Clock::time_point execution_started_;
    bool journal_ok_ = true;
};

}  // namespace

bool run_plan(const Plan& plan, const RunLoopOptions& options, RunRecord& record, RunLoopParts parts) {
    return Loop(plan, options, record, parts).run();
}

}  // namespace benchhost
