// The run loop (run/run_loop.hpp): when the reporters' files are brought up to date,
// and how the runner treats the rounds of a scenario: a round that does not succeed
// ends the scenario, and the rounds a resumed run already has are not run again. The
// scenarios here are planned as skipped, so that their rounds run through the executor
// without a worker or a plugin.
#include "run/run_loop.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>

#include "../../support/builders.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;

TEST(CheckpointClock, DueOnlyAfterAScenarioEndedAndTheIntervalPassed) {
    using namespace std::chrono_literals;
    CheckpointClock clock(1s);
    const auto t0 = CheckpointClock::Clock::now();
    EXPECT_FALSE(clock.due(t0 + 5s));  // nothing new
    clock.scenario_ended();
    EXPECT_FALSE(clock.due(t0 + 500ms));
    EXPECT_TRUE(clock.due(t0 + 1100ms));
    // A checkpoint that took 300 ms: the next waits ten times as long.
    clock.checkpointed(t0 + 2s, t0 + 2300ms);
    clock.scenario_ended();
    EXPECT_FALSE(clock.due(t0 + 4s));
    EXPECT_TRUE(clock.due(t0 + 5400ms));
}

/// What the runner tells its reporters, a line each: "started|skipped|resumed|finished
/// <number>/<total> <scenario>", and "ended <scenario>" when a scenario has ended.
class Events final : public Reporter {
public:
    void execution_started(const ExecutionProgress& progress) override { note("started", progress); }
    void execution_skipped(const ExecutionProgress& progress, bool resumed) override {
        note(resumed ? "resumed" : "skipped", progress);
    }
    void execution_finished(const ExecutionProgress& progress, const ScenarioOutcome&) override {
        note("finished", progress);
    }
    void scenario_finished(const RunRecord&, const ScenarioOutcome& outcome) override {
        seen.push_back("ended " + outcome.config.scenario_id());
    }
    void run_finished(const RunRecord&) override {}

    std::vector<std::string> seen;

private:
    void note(const char* what, const ExecutionProgress& progress) {
        seen.push_back(std::string(what) + " " + std::to_string(progress.number) + "/" +
                       std::to_string(progress.total) + " " + progress.scenario_id);
    }
};

JournalHeader journal_header() {
    JournalHeader header;
    header.timestamp = "20261122_115000";
    header.started_at = "2026-11-22T11:50:00Z";
    header.commit_id = "abc123";
    header.host_version = "0.1.0";
    return header;
}

/// What the reporters were told during a run, and the journal's rounds, as "<scenario> round <n>".
struct Ran {
    std::vector<std::string> events, journaled;
};

/// run_plan over `plan` into `record`, in process, with `rounds` rounds.
Ran run_plan_of(const Plan& plan, RunRecord& record, int rounds) {
    benchtest::TempDir dir;
    std::ostringstream log_text;
    spdlog::logger log("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_text));
    PluginRegistry registry(dir / "plugin_registry.json");
    Events events;
    {
        RunJournal journal(dir.path(), journal_header());
        RunLoopOptions options;
        options.rounds = rounds;
        options.execution.isolation = Isolation::none;
        EXPECT_TRUE(run_plan(plan, options, record, RunLoopParts{log, registry, journal, events}));
    }
    Ran ran{events.seen, {}};
    for (const auto& [outcome, round] : read_journal(dir.path()).runs)
        ran.journaled.push_back(outcome.config.scenario_id() + " round " + std::to_string(round));
    return ran;
}

PlannedScenario skipped_scenario(const std::string& benchmark) {
    PlannedScenario s;
    s.config.category = "unit";
    s.config.plugin = "p";
    s.config.benchmark = benchmark;
    s.config.scenario_name = benchmark;
    s.plugin_path = "/nonexistent/unit/libp.so";
    s.skip_reason = "not on this machine";
    return s;
}

TEST(RunLoop, ARoundThatDoesNotSucceedEndsItsScenarioAndItsLaterRoundsAreNotRun) {
    Plan plan;
    plan.scenarios = {skipped_scenario("a")};
    RunRecord record = benchtest::record_of();
    const Ran ran = run_plan_of(plan, record, 3);
    EXPECT_EQ(ran.events, (std::vector<std::string>{"started 1/3 unit/p/a", "ended unit/p/a", "finished 1/3 unit/p/a",
                                                    "skipped 2/3 unit/p/a", "skipped 3/3 unit/p/a"}));
    EXPECT_EQ(ran.journaled, (std::vector<std::string>{"unit/p/a round 1"}));
    ASSERT_EQ(record.outcomes.size(), 1u);
    EXPECT_EQ(record.outcomes[0].result.status, bench::Status::skipped);
    EXPECT_EQ(record.outcomes[0].result.reason, "not on this machine");
    EXPECT_EQ(record.outcomes[0].rounds, 1);
    EXPECT_TRUE(record.outcomes[0].statistics.computed);
}

TEST(RunLoop, TheRoundsAResumedRunHasAreNotRunAgain) {
    Plan plan;
    plan.scenarios = {skipped_scenario("a"), skipped_scenario("b")};
    // The run that is resumed ran two rounds of a and all three of b, successfully.
    const auto ran_rounds = [](const std::string& benchmark, int rounds) {
        return benchtest::Outcome("unit", "p", benchmark)
            .series("latency", "ms", std::vector<double>(static_cast<std::size_t>(2 * rounds), 1.0))
            .edit([rounds](auto& o) {
                o.rounds = rounds;
                o.round_sizes["latency"] = std::vector<std::size_t>(static_cast<std::size_t>(rounds), 2);
            })
            .build();
    };
    RunRecord record = benchtest::record_of({ran_rounds("a", 2), ran_rounds("b", 3)});
    const Ran ran = run_plan_of(plan, record, 3);
    // Only the third round of a runs (and, planned as skipped, fails the scenario); the
    // last round of b is the one that says b was reported before.
    EXPECT_EQ(ran.events,
              (std::vector<std::string>{"skipped 1/6 unit/p/a", "skipped 2/6 unit/p/b", "skipped 3/6 unit/p/a",
                                        "skipped 4/6 unit/p/b", "started 5/6 unit/p/a", "ended unit/p/a",
                                        "finished 5/6 unit/p/a", "resumed 6/6 unit/p/b", "ended unit/p/b"}));
    EXPECT_EQ(ran.journaled, (std::vector<std::string>{"unit/p/a round 3"}));
    ASSERT_EQ(record.outcomes.size(), 2u);
    EXPECT_EQ(record.outcomes[0].rounds, 3);
    EXPECT_EQ(record.outcomes[0].result.reason, "round 3: not on this machine");
    EXPECT_EQ(record.outcomes[1].rounds, 3);
    EXPECT_EQ(record.outcomes[1].result.status, bench::Status::success);
    EXPECT_TRUE(record.outcomes[1].statistics.computed);  // by the runner's finish
}

}  // namespace
