// The A/B loop (run/ab_loop.hpp): how many pairs each scenario runs and in which order,
// when it stops (decided, --max-rounds, the time limit, a side that fails, an
// interruption), and the confirmation of a scenario found slower. Each side's runner
// starts with a record holding twelve rounds of every scenario (as a resumed run's), so
// that the loop's pairs are the rounds it already has: they are not run again, and the
// verdicts are those of the twelve pairs, known in advance. A pair past them really runs,
// through the executor, as a scenario planned as skipped: no worker and no plugin.
#include "run/ab_loop.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>

#include "../../support/builders.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
namespace fs = std::filesystem;

constexpr const char* skip_reason = "the test runs no round past those it has";

/// The load of the moment each of the twelve pairs ran at, shared by its two rounds.
const std::vector<double> moments = {1.00, 1.30, 0.95, 1.20, 1.05, 1.25, 1.10, 0.98, 1.15, 1.02, 1.22, 1.08};

/// How the new side compares with the base side in the twelve pairs.
enum class Shape { slower, same, unsure };

/// A scenario measured in one round per moment, 5 samples each, round i at `median_ms`
/// times moments[i] times factors[i].
ScenarioOutcome in_rounds(const std::string& benchmark, std::size_t rounds, double median_ms,
                          const std::function<double(std::size_t)>& factor, unsigned seed) {
    std::vector<double> samples;
    for (std::size_t i = 0; i < rounds; ++i) {
        const std::vector<double> round =
            benchtest::jittered_samples(median_ms * moments[i] * factor(i), 5, seed + static_cast<unsigned>(i), 0.005);
        samples.insert(samples.end(), round.begin(), round.end());
    }
    ScenarioOutcome o = benchtest::Outcome("performance", "ab", benchmark).series("latency", "ms", samples);
    o.rounds = static_cast<int>(rounds);
    o.round_sizes["latency"] = std::vector<std::size_t>(rounds, 5);
    return o;
}

/// The new side of `benchmark`: 30% slower in every pair, the same, or 15% slower and
/// 18% faster in turn (the pairs cannot tell).
ScenarioOutcome new_side(const std::string& benchmark, Shape shape, std::size_t rounds = moments.size()) {
    const auto factor = [shape](std::size_t i) {
        if (shape == Shape::slower) return 1.3;
        if (shape == Shape::unsure) return i % 2 == 0 ? 0.85 : 1.18;
        return 1.0;
    };
    return in_rounds(benchmark, rounds, 10, factor, 500);
}

ScenarioOutcome base_side(const std::string& benchmark, std::size_t rounds = moments.size()) {
    return in_rounds(
        benchmark, rounds, 10, [](std::size_t) { return 1.0; }, 100);
}

std::string id_of(const std::string& benchmark) { return "performance/ab/" + benchmark; }

/// Each execution either runner starts or skips, as "<number>/<total> <scenario> (<side>)";
/// calls `on_execution` (when set) after noting one.
class Executions final : public Reporter {
public:
    void execution_started(const ExecutionProgress& progress) override { note(progress); }
    void execution_skipped(const ExecutionProgress& progress, bool) override { note(progress); }
    void run_finished(const RunRecord&) override {}

    /// How many pairs of `benchmark` ran (its executions over two).
    std::size_t pairs_of(const std::string& benchmark) const {
        std::size_t executions = 0;
        for (const std::string& execution : seen)
            if (execution.find(" " + id_of(benchmark) + " (") != std::string::npos) ++executions;
        return executions / 2;
    }

    std::vector<std::string> seen;
    std::function<void(const ExecutionProgress&)> on_execution;

private:
    void note(const ExecutionProgress& progress) {
        seen.push_back(std::to_string(progress.number) + "/" + std::to_string(progress.total) + " " +
                       progress.scenario_id);
        if (on_execution) on_execution(progress);
    }
};

/// One side: its plan (every scenario planned as skipped), the record its runner starts
/// with, and the runner.
struct Side {
    Plan plan;
    RunRecord record;
    std::unique_ptr<ScenarioRunner> runner;

    AbSide ab() { return AbSide{plan, *runner, record}; }
};

/// Both sides of an A/B run over `scenarios` (benchmark, its base and new outcomes),
/// with one journal in a temporary folder and the log in a string.
class AbRun {
public:
    struct Scenario {
        std::string benchmark;
        ScenarioOutcome base, next;
    };

    explicit AbRun(const std::vector<Scenario>& scenarios)
        : log_("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_text)),
          registry_(dir_ / "plugin_registry.json"),
          journal_(dir_.path(), journal_header()) {
        log_.set_level(spdlog::level::debug);
        options_.execution.isolation = Isolation::none;
        for (std::size_t i = 0; i < scenarios.size(); ++i) {
            for (Side* side : {&base, &next}) {
                PlannedScenario planned;
                planned.config = scenarios[i].base.config;
                planned.plugin_path = "/nonexistent/performance/libab.so";
                planned.skip_reason = skip_reason;
                side->plan.scenarios.push_back(planned);
            }
            base.record.outcomes.push_back(scenarios[i].base);
            next.record.outcomes.push_back(scenarios[i].next);
            pairs_.push_back(AbPair{id_of(scenarios[i].benchmark), i, i});
        }
        for (Side* side : {&base, &next})
            side->runner = std::make_unique<ScenarioRunner>(side->plan, options_, side->record,
                                                            RunLoopParts{log_, registry_, journal_, executions});
    }

    std::vector<std::string> run(const AbLoopOptions& options) {
        return run_ab(pairs_, options, base.ab(), next.ab(), log_);
    }

    Side base, next;
    Executions executions;
    std::ostringstream log_text;

private:
    static JournalHeader journal_header() {
        JournalHeader header;
        header.timestamp = "20261122_115000";
        header.started_at = "2026-11-22T11:50:00Z";
        header.commit_id = "abc123";
        header.host_version = "0.1.0";
        return header;
    }

    benchtest::TempDir dir_;
    spdlog::logger log_;
    PluginRegistry registry_;
    RunJournal journal_;
    RunLoopOptions options_;
    std::vector<AbPair> pairs_;
};

AbRun::Scenario scenario(const std::string& benchmark, Shape shape) {
    return {benchmark, base_side(benchmark), new_side(benchmark, shape)};
}

AbLoopOptions loop_options(int min_rounds, int max_rounds) {
    AbLoopOptions options;
    options.min_rounds = min_rounds;
    options.max_rounds = max_rounds;
    return options;
}

TEST(AbLoop, TheTestsScenariosAreJudgedAsTheirShapesSay) {
    CompareOptions paired;
    paired.paired = true;
    const ScenarioOutcome base = base_side("x");
    EXPECT_EQ(scenario_verdict(compare_outcomes(base, new_side("x", Shape::slower), paired)), Verdict::slower);
    EXPECT_EQ(scenario_verdict(compare_outcomes(base, new_side("x", Shape::same), paired)), Verdict::same);
    EXPECT_EQ(scenario_verdict(compare_outcomes(base, new_side("x", Shape::unsure), paired)), Verdict::inconclusive);
}

TEST(AbLoop, DecidedScenariosStopAfterTheirFirstPairsWhichAlternateTheSideThatRunsFirst) {
    AbRun ab({scenario("slower", Shape::slower), scenario("same", Shape::same)});
    const std::vector<std::string> notes = ab.run(loop_options(3, 10));
    EXPECT_TRUE(notes.empty()) << notes.front();
    // One pair of each scenario at a time; A B, then B A, then A B.
    EXPECT_EQ(ab.executions.seen,
              (std::vector<std::string>{"1/12 performance/ab/slower (base)", "2/12 performance/ab/slower (new)",
                                        "3/12 performance/ab/same (base)", "4/12 performance/ab/same (new)",
                                        "5/12 performance/ab/slower (new)", "6/12 performance/ab/slower (base)",
                                        "7/12 performance/ab/same (new)", "8/12 performance/ab/same (base)",
                                        "9/12 performance/ab/slower (base)", "10/12 performance/ab/slower (new)",
                                        "11/12 performance/ab/same (base)", "12/12 performance/ab/same (new)"}));
}

TEST(AbLoop, AnInconclusiveScenarioRunsMorePairsUpToMaxRounds) {
    AbRun ab({scenario("unsure", Shape::unsure), scenario("slower", Shape::slower)});
    const std::vector<std::string> notes = ab.run(loop_options(3, 5));
    EXPECT_EQ(ab.executions.pairs_of("unsure"), 5u);
    EXPECT_EQ(ab.executions.pairs_of("slower"), 3u);
    // The executions planned grow with the pairs added past the first.
    ASSERT_EQ(ab.executions.seen.size(), 16u);
    EXPECT_EQ(ab.executions.seen[12], "13/13 performance/ab/unsure (new)");
    EXPECT_EQ(ab.executions.seen.back(), "16/16 performance/ab/unsure (new)");
    EXPECT_EQ(notes,
              (std::vector<std::string>{"still inconclusive after --max-rounds 5 pairs: performance/ab/unsure"}));
}

TEST(AbLoop, EveryScenarioRunsItsFirstPairsButNoMoreStartPastTheTimeLimit) {
    AbRun ab({scenario("unsure", Shape::unsure), scenario("slower", Shape::slower)});
    // Every execution takes 2 ms: the 5 ms are spent during the first pairs, which run all the same.
    ab.executions.on_execution = [](const ExecutionProgress&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    };
    AbLoopOptions options = loop_options(2, 10);
    options.time_limit_s = 0.005;
    const std::vector<std::string> notes = ab.run(options);
    EXPECT_EQ(ab.executions.pairs_of("unsure"), 2u);
    EXPECT_EQ(ab.executions.pairs_of("slower"), 2u);
    EXPECT_EQ(notes, (std::vector<std::string>{
                         "still inconclusive when the --time-limit of 0.005 s was spent: performance/ab/unsure"}));
}

TEST(AbLoop, ASideThatStopsSucceedingEndsTheScenariosPairs) {
    // "breaks" has two rounds on each side: its third pair runs, and is skipped on both.
    AbRun ab(
        {{"breaks", base_side("breaks", 2), new_side("breaks", Shape::unsure, 2)}, scenario("unsure", Shape::unsure)});
    const std::vector<std::string> notes = ab.run(loop_options(3, 6));
    EXPECT_EQ(ab.executions.pairs_of("breaks"), 3u);
    EXPECT_EQ(ab.executions.pairs_of("unsure"), 6u);
    const ScenarioOutcome* broken = ab.base.runner->outcome(id_of("breaks"));
    ASSERT_NE(broken, nullptr);
    EXPECT_EQ(broken->result.status, bench::Status::skipped);
    EXPECT_EQ(broken->result.reason, std::string("round 3: ") + skip_reason);
    EXPECT_EQ(ab.next.runner->outcome(id_of("breaks"))->result.status, bench::Status::skipped);
    // Only "unsure" is named in the notes: a side stopped "breaks", not the budget (the
    // comparison says why it has no verdict).
    EXPECT_EQ(notes,
              (std::vector<std::string>{"still inconclusive after --max-rounds 6 pairs: performance/ab/unsure"}));
}

TEST(AbLoop, AnInterruptionStopsTheLoopAfterTheExecutionRunning) {
    AbRun ab({scenario("unsure", Shape::unsure), scenario("same", Shape::same)});
    ab.executions.on_execution = [&ab](const ExecutionProgress& progress) {
        if (progress.number == 3) ab.base.record.interrupted = true;
    };
    const std::vector<std::string> notes = ab.run(loop_options(3, 10));
    EXPECT_TRUE(notes.empty());
    EXPECT_EQ(ab.executions.seen,
              (std::vector<std::string>{"1/12 performance/ab/unsure (base)", "2/12 performance/ab/unsure (new)",
                                        "3/12 performance/ab/same (base)"}));
}

TEST(AbLoop, ASlowerScenarioRunsItsConfirmationPairsOnBothSidesEvenPastMaxRounds) {
    AbRun ab({scenario("slower", Shape::slower), scenario("same", Shape::same)});
    AbLoopOptions options = loop_options(3, 3);
    options.confirm = 2;
    const std::vector<std::string> notes = ab.run(options);
    EXPECT_EQ(ab.executions.pairs_of("slower"), 5u);
    EXPECT_EQ(ab.executions.pairs_of("same"), 3u);
    ASSERT_EQ(ab.executions.seen.size(), 16u);
    // The confirmation's pairs go on alternating: its first is the scenario's fourth, B A.
    EXPECT_EQ(std::vector<std::string>(ab.executions.seen.begin() + 12, ab.executions.seen.end()),
              (std::vector<std::string>{"13/13 performance/ab/slower (new)", "14/14 performance/ab/slower (base)",
                                        "15/15 performance/ab/slower (base)", "16/16 performance/ab/slower (new)"}));
    // Both sides were reopened for it; the scenario that was the same was not.
    EXPECT_GT(ab.base.runner->outcome(id_of("slower"))->first_rounds, 0);
    EXPECT_GT(ab.next.runner->outcome(id_of("slower"))->first_rounds, 0);
    EXPECT_EQ(ab.next.runner->outcome(id_of("same"))->first_rounds, 0);
    EXPECT_EQ(notes,
              (std::vector<std::string>{"1 of 1 scenario found slower stayed slower over 2 more pairs (--confirm)"}));
    EXPECT_NE(ab.log_text.str().find("1 scenario slower: 2 more pairs each to confirm"), std::string::npos)
        << ab.log_text.str();
}

TEST(AbLoop, AScenarioSlowerByAGraphBreakAloneRunsNoConfirmationPairs) {
    // The same latency on both sides, a graph break more on the new one: the count is the
    // same on every run of a build, so no pair could change the verdict.
    AbRun::Scenario broken = scenario("broken", Shape::same);
    broken.base.result.scalars.push_back({"graph_breaks", 0, "count"});
    broken.next.result.scalars.push_back({"graph_breaks", 1, "count"});
    AbRun ab({broken, scenario("slower", Shape::slower)});
    AbLoopOptions options = loop_options(3, 3);
    options.confirm = 2;
    const std::vector<std::string> notes = ab.run(options);
    EXPECT_EQ(ab.executions.pairs_of("broken"), 3u);
    EXPECT_EQ(ab.executions.pairs_of("slower"), 5u);  // its latency is confirmed as before
    EXPECT_EQ(ab.next.runner->outcome(id_of("broken"))->first_rounds, 0);
    EXPECT_EQ(notes,
              (std::vector<std::string>{"1 of 1 scenario found slower stayed slower over 2 more pairs (--confirm)"}));
    EXPECT_NE(ab.log_text.str().find("performance/ab/broken: slower by its compiler counts alone, which are the same "
                                     "on every run of a build: no pairs to confirm"),
              std::string::npos)
        << ab.log_text.str();
}

TEST(AbLoop, AConfirmationPairThatFailsLeavesTheScenarioNotConfirmedAndSaysItFailed) {
    AbRun ab({scenario("slower", Shape::slower)});
    // The new side crashes in the confirmation's pair (the scenario's fourth: executions 7 and 8).
    ab.executions.on_execution = [&](const ExecutionProgress& progress) {
        if (progress.number != 7) return;
        ab.next.record.outcomes[0].result.status = bench::Status::crashed;
        ab.next.record.outcomes[0].result.reason = "round 4: SIGSEGV";
    };
    AbLoopOptions options = loop_options(3, 6);
    options.confirm = 1;
    const std::vector<std::string> notes = ab.run(options);
    EXPECT_EQ(ab.executions.pairs_of("slower"), 4u);
    // It did not stay slower, and is not taken for undecided or the same: it failed.
    EXPECT_EQ(notes,
              (std::vector<std::string>{"0 of 1 scenario found slower stayed slower over 1 more pair (--confirm)"}));
    EXPECT_NE(ab.log_text.str().find("performance/ab/slower: a side failed during its confirmation, 4 pairs: not "
                                     "confirmed"),
              std::string::npos)
        << ab.log_text.str();
}

TEST(AbLoop, AConfirmationThatLeavesTheScenarioInconclusiveOpensItForMorePairsAndConfirmsItAgain) {
    AbRun ab({scenario("flip", Shape::slower)});
    // The new side's figures turn unsure with the confirmation's pair (the scenario's
    // fourth: executions 7 and 8), and slower again with its sixth pair (11 and 12).
    const ScenarioOutcome unsure = new_side("flip", Shape::unsure), slower = new_side("flip", Shape::slower);
    ab.executions.on_execution = [&](const ExecutionProgress& progress) {
        if (progress.number == 7) ab.next.record.outcomes[0].result.series = unsure.result.series;
        if (progress.number == 11) ab.next.record.outcomes[0].result.series = slower.result.series;
    };
    AbLoopOptions options = loop_options(3, 8);
    options.confirm = 1;
    const std::vector<std::string> notes = ab.run(options);
    // 3 pairs, slower; 1 to confirm, inconclusive; 2 more, slower; 1 to confirm, slower.
    EXPECT_EQ(ab.executions.pairs_of("flip"), 7u);
    EXPECT_EQ(notes, (std::vector<std::string>{
                         "1 of 1 scenario found slower stayed slower over 1 more pair (--confirm); 1 of them, left "
                         "undecided by a confirmation, ran more pairs and was found slower and confirmed again"}));
    EXPECT_NE(ab.log_text.str().find("performance/ab/flip: inconclusive after its confirmation, 4 pairs: more pairs"),
              std::string::npos)
        << ab.log_text.str();
}

TEST(AbLoop, AScenarioLeftInconclusiveByItsConfirmationAtMaxRoundsStaysSo) {
    AbRun ab({scenario("flip", Shape::slower)});
    const ScenarioOutcome unsure = new_side("flip", Shape::unsure);
    ab.executions.on_execution = [&](const ExecutionProgress& progress) {
        if (progress.number == 7) ab.next.record.outcomes[0].result.series = unsure.result.series;
    };
    AbLoopOptions options = loop_options(3, 4);
    options.confirm = 1;
    const std::vector<std::string> notes = ab.run(options);
    EXPECT_EQ(ab.executions.pairs_of("flip"), 4u);
    EXPECT_EQ(notes,
              (std::vector<std::string>{"still inconclusive after --max-rounds 4 pairs: performance/ab/flip",
                                        "0 of 1 scenario found slower stayed slower over 1 more pair (--confirm)"}));
}

}  // namespace
