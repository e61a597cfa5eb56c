// The search of `benchhost bisect` (bisect/bisect_search.hpp): which revision it tests
// next, when it is done, what skipped revisions leave open, and how a comparison with
// --good decides a revision.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "bisect/bisect_search.hpp"

namespace {

using namespace benchhost;

/// Runs the search over `n` revisions whose first bad one is `first_bad`, with the
/// revisions in `unbuildable` skipped; returns the revisions it tested, in order.
std::vector<std::size_t> search_until_done(BisectSearch& search, std::size_t first_bad,
                                           const std::vector<std::size_t>& unbuildable = {}) {
    std::vector<std::size_t> tested;
    while (const std::optional<std::size_t> next = search.next()) {
        tested.push_back(*next);
        const bool skipped = std::find(unbuildable.begin(), unbuildable.end(), *next) != unbuildable.end();
        search.mark(*next, skipped              ? RevisionState::skipped
                           : *next >= first_bad ? RevisionState::bad
                                                : RevisionState::good);
        if (tested.size() > 64) break;
    }
    return tested;
}

TEST(BisectSearchTest, FindsEveryFirstBadRevisionAmong16InFourSteps) {
    for (std::size_t first_bad = 0; first_bad < 16; ++first_bad) {
        BisectSearch search(16);
        EXPECT_EQ(search.steps_left(), 4u);
        const std::vector<std::size_t> tested = search_until_done(search, first_bad);
        EXPECT_LE(tested.size(), 4u) << "first bad " << first_bad;
        EXPECT_EQ(search.candidates(), std::vector<std::size_t>{first_bad});
    }
}

TEST(BisectSearchTest, StartsInTheMiddleAndHalvesTheRangeInDoubt) {
    BisectSearch search(16);  // revisions 0..15; --good is before 0, 15 is --bad
    EXPECT_EQ(search.next(), 7u);
    search.mark(7, RevisionState::good);
    EXPECT_EQ(search.next(), 11u);
    search.mark(11, RevisionState::bad);
    EXPECT_EQ(search.next(), 9u);
    EXPECT_EQ(search.steps_left(), 2u);
}

TEST(BisectSearchTest, ASkippedRevisionIsReplacedByItsNeighbour) {
    BisectSearch search(16);
    const std::vector<std::size_t> tested = search_until_done(search, 11, {7});
    ASSERT_GE(tested.size(), 2u);
    EXPECT_EQ(tested[0], 7u);
    EXPECT_TRUE(tested[1] == 6u || tested[1] == 8u) << tested[1];
    EXPECT_EQ(search.candidates(), std::vector<std::size_t>{11});
}

TEST(BisectSearchTest, SkippedRevisionsBesideTheFirstBadOneLeaveItOpen) {
    BisectSearch search(16);
    search_until_done(search, 9, {7, 8});
    // 6 is good and 9 bad, but 7 and 8 could not be judged: any of the three is the first bad one.
    EXPECT_EQ(search.candidates(), (std::vector<std::size_t>{7, 8, 9}));
    EXPECT_EQ(search.state(7), RevisionState::skipped);
    EXPECT_FALSE(search.next().has_value());
}

TEST(BisectSearchTest, OneRevisionIsBadAtOnce) {
    BisectSearch search(1);
    EXPECT_FALSE(search.next().has_value());
    EXPECT_EQ(search.candidates(), std::vector<std::size_t>{0});
    EXPECT_EQ(search.steps_left(), 0u);
    EXPECT_THROW(BisectSearch(0), std::invalid_argument);
}

SeriesComparison row(const std::string& id, const std::string& series, Verdict verdict) {
    SeriesComparison r;
    r.scenario_id = id;
    r.series = series;
    r.verdict = verdict;
    r.new_rounds = r.base_rounds = 12;
    return r;
}

TEST(BisectSearchTest, AComparisonDecidesByTheSeriesSlowerAtBad) {
    Comparison at_bad;
    at_bad.rows = {row("perf/a/x", "latency", Verdict::slower), row("perf/a/y", "latency", Verdict::same),
                   row("perf/a/x", "throughput", Verdict::faster)};
    const std::vector<SlowSeries> slow = slower_series(at_bad);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow[0].scenario_id, "perf/a/x");
    EXPECT_EQ(slow[0].series, "latency");

    Comparison step;
    step.rows = {row("perf/a/x", "latency", Verdict::slower), row("perf/a/y", "latency", Verdict::same)};
    RevisionJudgement judged = judge_revision(step, slow);
    EXPECT_EQ(judged.state, RevisionState::bad);
    ASSERT_NE(judged.evidence, nullptr);
    EXPECT_EQ(judged.evidence->scenario_id, "perf/a/x");

    // Another series slower does not make it bad: only the regression bisected counts.
    step.rows = {row("perf/a/x", "latency", Verdict::faster), row("perf/a/y", "latency", Verdict::slower)};
    EXPECT_EQ(judge_revision(step, slow).state, RevisionState::good);

    step.rows = {row("perf/a/x", "latency", Verdict::inconclusive)};
    judged = judge_revision(step, slow);
    EXPECT_EQ(judged.state, RevisionState::skipped);
    EXPECT_NE(judged.reason.find("inconclusive after 12 pairs"), std::string::npos) << judged.reason;

    step.rows.clear();
    step.not_compared = {"perf/a/x: failed in new run (ZeroDivisionError)"};
    judged = judge_revision(step, slow);
    EXPECT_EQ(judged.state, RevisionState::skipped);
    EXPECT_EQ(judged.reason, "perf/a/x: failed in new run (ZeroDivisionError)");
}

// The step loop with the build and the A/B run passed in: each trial's comparison decides
// its revision, one that does not build is skipped with its problem, the steps are
// numbered, and an interrupted trial stops the search unmarked.
TEST(BisectSearchTest, TheStepLoopJudgesEachTrialsComparison) {
    const std::vector<SlowSeries> slow = {{"perf/a/x", "latency"}};
    const auto run = [&](std::size_t first_bad, std::size_t unbuildable, std::size_t interrupted_at,
                         std::vector<std::string>& said) {
        BisectSearch search(16);
        const bool done = run_bisect_steps(
            search, slow,
            [&](std::size_t index, int) {
                RevisionTrial trial;
                trial.interrupted = index == interrupted_at;
                if (index == unbuildable) {
                    trial.problem = "does not build: exit status 2";
                } else {
                    trial.comparison.emplace();
                    trial.comparison->rows = {
                        row("perf/a/x", "latency", index >= first_bad ? Verdict::slower : Verdict::same)};
                }
                return trial;
            },
            [&](std::size_t index, int number, const RevisionJudgement& judgement) {
                said.push_back(std::to_string(number) + " " + std::to_string(index) + " " +
                               std::string(to_string(judgement.state)) + (judgement.evidence ? " row" : "") +
                               (judgement.reason.empty() ? "" : " " + judgement.reason));
            });
        return std::pair{done, search.candidates()};
    };
    std::vector<std::string> said;
    auto [done, candidates] = run(11, 16, 16, said);
    EXPECT_TRUE(done);
    EXPECT_EQ(candidates, std::vector<std::size_t>{11});
    EXPECT_EQ(said, (std::vector<std::string>{"1 7 good row", "2 11 bad row", "3 9 good row", "4 10 good row"}));

    said.clear();
    std::tie(done, candidates) = run(11, 7, 16, said);
    ASSERT_FALSE(said.empty());
    EXPECT_EQ(said[0], "1 7 skipped does not build: exit status 2");
    EXPECT_EQ(candidates, std::vector<std::size_t>{11});

    said.clear();
    std::tie(done, candidates) = run(11, 16, 11, said);
    EXPECT_FALSE(done);
    EXPECT_EQ(said, std::vector<std::string>{"1 7 good row"});
}

}  // namespace
