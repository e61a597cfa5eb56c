// Report: every output of a run (the progress on the console, the table at the end, the
// plugin reports, the summary, the CSV, Google Benchmark JSON, report.md, report.html,
// the comparison with a baseline) is a Reporter. The run loop tells its reporters when
// the run begins, when each execution starts and ends, when a scenario has ended, when
// the files should be brought up to date, and when the run ends; it knows none of them
// by name. `merge`, `report` and `export` drive the same
// reporters over a record read back from files. Reporters are made by name
// (reporter_registry.hpp).
//
// Every reporter only reads the RunRecord: the statistics of each scenario are already
// computed (ScenarioOutcome::statistics) when a reporter sees it.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/run_record.hpp"

namespace benchhost {

/// Where a run is: execution `number` (1-based) of `total` (scenarios times rounds).
struct ExecutionProgress {
    std::size_t number = 0, total = 0;
    std::string scenario_id;
};

class Reporter {
public:
    virtual ~Reporter() = default;

    /// Once, before the first scenario runs. With --resume the record already holds the
    /// scenarios of the earlier run.
    virtual void run_started(const RunRecord& record) { (void)record; }

    /// An execution (a scenario, or one round of it) is about to run.
    virtual void execution_started(const ExecutionProgress& progress) { (void)progress; }

    /// An execution was not run: it ran before the run was resumed, or an earlier round of
    /// its scenario failed. `resumed` is true once a scenario: for its last round, when
    /// every round of it ran before the resume (it is already reported, and the progress
    /// reporter says so once). It is false for the earlier rounds of such a scenario, and
    /// for every round of one that the resumed run left unfinished (its later rounds run
    /// now) or that a failed round ended before its last (its later rounds are skipped).
    virtual void execution_skipped(const ExecutionProgress& progress, bool resumed) {
        (void)progress;
        (void)resumed;
    }

    /// An execution has ended; `outcome` is its scenario as pooled so far (the statistics
    /// are there once the scenario has ended).
    virtual void execution_finished(const ExecutionProgress& progress, const ScenarioOutcome& outcome) {
        (void)progress;
        (void)outcome;
    }

    /// Each time a scenario has ended (all its rounds), with its statistics; `outcome`
    /// is in record.outcomes. Must be cheap: a run may have thousands of scenarios.
    virtual void scenario_finished(const RunRecord& record, const ScenarioOutcome& outcome) {
        (void)record;
        (void)outcome;
    }

    /// During a run, every few seconds at most: bring the files up to date with the
    /// scenarios that have ended, so that a run killed at any point leaves complete
    /// reports of what it finished. Reporters that write only at the end ignore it.
    virtual void checkpoint(const RunRecord& record) { (void)record; }

    /// Once, at the end: the run is complete, interrupted, or a record read back from
    /// files (merge, report, export). Throws std::runtime_error naming a file that
    /// cannot be written.
    virtual void run_finished(const RunRecord& record) = 0;

    /// The exit status this reporter asks for once the run has finished: 0, or 1 (a
    /// regression beyond the threshold with --fail-on-regression, say).
    virtual int exit_status() const { return 0; }

    /// The files it wrote, for messages.
    virtual std::vector<std::filesystem::path> files() const { return {}; }
};

/// Several reporters as one, called in the order they were added. An exception from one
/// reporter does not stop the others: it is kept in errors(), and the multiplex's own
/// exit status becomes 1.
class ReporterMultiplex final : public Reporter {
public:
    void add(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }
    bool empty() const { return reporters_.empty(); }

    void run_started(const RunRecord& record) override;
    void execution_started(const ExecutionProgress& progress) override;
    void execution_skipped(const ExecutionProgress& progress, bool resumed) override;
    void execution_finished(const ExecutionProgress& progress, const ScenarioOutcome& outcome) override;
    void scenario_finished(const RunRecord& record, const ScenarioOutcome& outcome) override;
    void checkpoint(const RunRecord& record) override;
    void run_finished(const RunRecord& record) override;
    int exit_status() const override;
    std::vector<std::filesystem::path> files() const override;

    /// What failed, one message each ("cannot write out/report.html: ..."), in order;
    /// take_errors() empties the list, so that each error is logged once.
    const std::vector<std::string>& errors() const { return errors_; }
    std::vector<std::string> take_errors();

    /// Calls `call` on each reporter in order, as each method above does (an exception is
    /// kept in errors()): for a call that is not one of Reporter's.
    void each_reporter(const std::function<void(Reporter&)>& call);

private:
    template <typename Call>
    void each(Call&& call);

    std::vector<std::unique_ptr<Reporter>> reporters_;
    std::vector<std::string> errors_;
    bool failed_ = false;
};

}  // namespace benchhost
