// Confirmation against a baseline (run/confirm.hpp): which scenarios are run again, in
// which order and under which round numbers, and when it stops. The scenarios' first
// rounds are a record the runner starts with (as a resumed run's); the confirmation's
// rounds really run, through the executor, as scenarios planned as skipped: no worker
// and no plugin, and each ends its scenario as a failed round does.
#include "run/confirm.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>

#include "../../support/builders.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
namespace fs = std::filesystem;

constexpr const char* no_round_reason = "the test runs no confirmation round";

PlannedScenario planned(const std::string& benchmark) {
    PlannedScenario s;
    s.config.category = "performance";
    s.config.plugin = "p";
    s.config.benchmark = benchmark;
    s.config.scenario_name = benchmark;
    s.plugin_path = "/nonexistent/performance/libp.so";
    s.skip_reason = no_round_reason;
    return s;
}

std::string confirm_id(const std::string& benchmark) { return "performance/p/" + benchmark; }

/// One round of 30 samples about `median_ms`.
ScenarioOutcome measured(const std::string& benchmark, double median_ms, unsigned seed) {
    return benchtest::Outcome("performance", "p", benchmark)
        .series("latency", "ms", benchtest::jittered_samples(median_ms, 30, seed));
}

/// Each execution the runner starts or skips, as "<number>/<total> <scenario>"; calls
/// `on_execution` (when set) after noting one.
class ConfirmExecutions final : public Reporter {
public:
    void execution_started(const ExecutionProgress& progress) override { note(progress); }
    void execution_skipped(const ExecutionProgress& progress, bool) override { note(progress); }
    void run_finished(const RunRecord&) override {}

    std::vector<std::string> seen;
    std::function<void()> on_execution;

private:
    void note(const ExecutionProgress& progress) {
        seen.push_back(std::to_string(progress.number) + "/" + std::to_string(progress.total) + " " +
                       progress.scenario_id);
        if (on_execution) on_execution();
    }
};

Plan plan_of(const std::vector<std::string>& benchmarks) {
    Plan plan;
    for (const std::string& benchmark : benchmarks) plan.scenarios.push_back(planned(benchmark));
    return plan;
}

RunLoopOptions in_process() {
    RunLoopOptions options;
    options.execution.isolation = Isolation::none;
    return options;
}

JournalHeader confirm_journal_header() {
    JournalHeader header;
    header.timestamp = "20261122_115000";
    header.started_at = "2026-11-22T11:50:00Z";
    header.commit_id = "abc123";
    header.host_version = "0.1.0";
    return header;
}

/// A runner over `plan` whose record starts with `first_rounds` (the rounds the
/// comparison flags), with its journal in a temporary folder and its log in a string.
struct Confirmation {
    Confirmation(const std::vector<std::string>& benchmarks, std::vector<ScenarioOutcome> first_rounds)
        : plan(plan_of(benchmarks)),
          record(benchtest::record_of(std::move(first_rounds))),
          log("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_text)),
          registry(dir / "plugin_registry.json"),
          journal(dir.path(), confirm_journal_header()),
          runner(plan, options, record, RunLoopParts{log, registry, journal, executions}) {
        log.set_level(spdlog::level::debug);
    }

    std::vector<std::string> confirm(const RunRecord& base, int rounds) {
        return confirm_regressions(runner, plan, base, CompareOptions{}, rounds, record, log);
    }

    /// The rounds the journal holds, as "<scenario> round <n>".
    std::vector<std::string> journaled() const {
        std::vector<std::string> out;
        for (const auto& [outcome, round] : read_journal(dir.path()).runs)
            out.push_back(outcome.config.scenario_id() + " round " + std::to_string(round));
        return out;
    }

    benchtest::TempDir dir;
    Plan plan;
    RunLoopOptions options = in_process();
    RunRecord record;
    std::ostringstream log_text;
    spdlog::logger log;
    PluginRegistry registry;
    RunJournal journal;
    ConfirmExecutions executions;
    ScenarioRunner runner;
};

/// The baseline: every scenario about 10 ms.
RunRecord baseline(const std::vector<std::string>& benchmarks) {
    std::vector<ScenarioOutcome> outcomes;
    unsigned seed = 100;
    for (const std::string& benchmark : benchmarks) outcomes.push_back(measured(benchmark, 10, ++seed));
    return benchtest::record_of(std::move(outcomes));
}

/// `slow_c` as flagged after three rounds of 10 samples, 40% slower than the baseline.
ScenarioOutcome slow_in_three_rounds() {
    std::vector<double> samples;
    for (unsigned seed = 31; seed <= 33; ++seed) {
        const std::vector<double> round = benchtest::jittered_samples(14, 10, seed);
        samples.insert(samples.end(), round.begin(), round.end());
    }
    ScenarioOutcome o = benchtest::Outcome("performance", "p", "slow_c").series("latency", "ms", samples);
    o.rounds = 3;
    o.round_sizes["latency"] = {10, 10, 10};
    return o;
}

TEST(Confirm, OnlyScenariosSlowerThanTheirBaselineRunAgainInterleavedAfterTheirRounds) {
    // not_in_base is slower but has no baseline; not_run is in the baseline but did not run.
    Confirmation c(
        {"slow_a", "same_b", "not_in_base", "not_run", "slow_c"},
        {measured("slow_a", 14, 1), measured("same_b", 10, 2), measured("not_in_base", 14, 3), slow_in_three_rounds()});
    const RunRecord base = baseline({"slow_a", "same_b", "not_run", "slow_c"});
    // What the comparison says before the confirmation.
    ASSERT_EQ(scenario_verdict(compare_outcomes(base.outcomes[0], c.record.outcomes[0], {})), Verdict::slower);
    ASSERT_EQ(scenario_verdict(compare_outcomes(base.outcomes[1], c.record.outcomes[1], {})), Verdict::same);
    ASSERT_EQ(scenario_verdict(compare_outcomes(base.outcomes[3], c.record.outcomes[3], {})), Verdict::slower);

    const std::vector<std::string> flagged = c.confirm(base, 2);
    EXPECT_EQ(flagged, (std::vector<std::string>{confirm_id("slow_a"), confirm_id("slow_c")}));
    // Round k of every flagged scenario before round k + 1 of any; a scenario whose
    // confirmation round failed has its later ones skipped, and they still count.
    EXPECT_EQ(
        c.executions.seen,
        (std::vector<std::string>{"1/4 performance/p/slow_a (confirming)", "2/4 performance/p/slow_c (confirming)",
                                  "3/4 performance/p/slow_a (confirming)", "4/4 performance/p/slow_c (confirming)"}));
    // The confirmation's rounds are numbered after the rounds each scenario had.
    EXPECT_EQ(c.journaled(),
              (std::vector<std::string>{confirm_id("slow_a") + " round 2", confirm_id("slow_c") + " round 4"}));

    const ScenarioOutcome* slow_a = c.runner.outcome(confirm_id("slow_a"));
    ASSERT_NE(slow_a, nullptr);
    EXPECT_EQ(slow_a->first_rounds, 1);
    EXPECT_EQ(slow_a->rounds, 2);
    EXPECT_EQ(slow_a->result.reason, std::string("round 2: ") + no_round_reason);
    EXPECT_EQ(c.runner.outcome(confirm_id("slow_c"))->first_rounds, 3);
    for (const char* untouched : {"same_b", "not_in_base"}) {
        EXPECT_EQ(c.runner.outcome(confirm_id(untouched))->rounds, 1) << untouched;
        EXPECT_EQ(c.runner.outcome(confirm_id(untouched))->first_rounds, 0) << untouched;
    }
    EXPECT_EQ(c.runner.outcome(confirm_id("not_run")), nullptr);

    const std::string log = c.log_text.str();
    EXPECT_NE(log.find("2 scenarios slower than the baseline: 2 more rounds each to confirm"), std::string::npos)
        << log;
    EXPECT_NE(log.find("performance/p/slow_c: "), std::string::npos) << log;
    EXPECT_NE(log.find(" after 4 rounds (3 before the confirmation)"), std::string::npos) << log;
    // Both confirmations failed (their rounds were skipped): said so, not that the scenarios are now the same.
    EXPECT_NE(log.find("performance/p/slow_a: its confirmation failed after 2 rounds (1 before the confirmation), "
                       "not confirmed: round 2: the test runs no confirmation round (skipped)"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("performance/p/slow_c: its confirmation failed after 4 rounds (3 before the confirmation)"),
              std::string::npos)
        << log;
    EXPECT_EQ(log.find("now same"), std::string::npos) << log;
}

TEST(Confirm, NothingSlowerThanTheBaselineRunsNothing) {
    Confirmation c({"same_a", "faster_b"}, {measured("same_a", 10, 1), measured("faster_b", 6, 2)});
    const std::vector<std::string> flagged = c.confirm(baseline({"same_a", "faster_b"}), 3);
    EXPECT_TRUE(flagged.empty());
    EXPECT_TRUE(c.executions.seen.empty());
    EXPECT_EQ(c.log_text.str().find("to confirm"), std::string::npos) << c.log_text.str();
    EXPECT_EQ(c.runner.outcome(confirm_id("same_a"))->first_rounds, 0);
}

TEST(Confirm, AScenarioSlowerByACompilerCountAloneIsNotRunAgain) {
    // The latency of the baseline, a recompile more: more rounds cannot change a count.
    ScenarioOutcome recompiling = measured("same_a", 10, 1);
    recompiling.result.scalars.push_back({"recompiles", 1, "count"});
    RunRecord base = baseline({"same_a", "slow_b"});
    base.outcomes[0].result.scalars.push_back({"recompiles", 0, "count"});
    Confirmation c({"same_a", "slow_b"}, {recompiling, measured("slow_b", 14, 2)});
    EXPECT_EQ(c.confirm(base, 1), (std::vector<std::string>{confirm_id("slow_b")}));
    EXPECT_EQ(c.executions.seen, (std::vector<std::string>{"1/1 performance/p/slow_b (confirming)"}));
    EXPECT_EQ(c.runner.outcome(confirm_id("same_a"))->first_rounds, 0);
    EXPECT_NE(c.log_text.str().find("performance/p/same_a: slower by its compiler counts alone, which are the same on "
                                    "every run of a build: no rounds to confirm"),
              std::string::npos)
        << c.log_text.str();
}

TEST(Confirm, OneScenarioOneRoundIsSaidInTheSingular) {
    Confirmation c({"slow_a"}, {measured("slow_a", 14, 1)});
    EXPECT_EQ(c.confirm(baseline({"slow_a"}), 1), (std::vector<std::string>{confirm_id("slow_a")}));
    EXPECT_EQ(c.executions.seen, (std::vector<std::string>{"1/1 performance/p/slow_a (confirming)"}));
    EXPECT_NE(c.log_text.str().find("1 scenario slower than the baseline: 1 more round each to confirm"),
              std::string::npos)
        << c.log_text.str();
}

TEST(Confirm, AnInterruptionStopsTheConfirmationAfterTheRoundRunning) {
    Confirmation c({"slow_a", "slow_c"}, {measured("slow_a", 14, 1), slow_in_three_rounds()});
    c.executions.on_execution = [&c] { c.record.interrupted = true; };
    const std::vector<std::string> flagged = c.confirm(baseline({"slow_a", "slow_c"}), 3);
    EXPECT_EQ(flagged, (std::vector<std::string>{confirm_id("slow_a"), confirm_id("slow_c")}));
    EXPECT_EQ(c.executions.seen, (std::vector<std::string>{"1/6 performance/p/slow_a (confirming)"}));
    EXPECT_EQ(c.runner.outcome(confirm_id("slow_c"))->rounds, 3);
}

}  // namespace
