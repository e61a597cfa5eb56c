// The history gate (analysis/history_check.hpp) on synthetic histories whose noise and
// steps are known: a run of the same code passes, a real slowdown fails, an old step is
// neither noise nor a regression, and too short a history decides nothing.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "analysis/history_check.hpp"

namespace {

using benchhost::check_against_history;
using benchhost::check_count_against_history;
using benchhost::HistoryCheck;
using benchhost::HistoryCheckOptions;
using benchhost::Verdict;

/// n medians around `level`, each off by a normal relative noise of `spread`.
std::vector<double> history(std::size_t n, double level, double spread, std::mt19937_64& rng) {
    std::normal_distribution<double> noise(0, spread);
    std::vector<double> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(level * std::exp(noise(rng)));
    return out;
}

TEST(HistoryCheck, TheSameCodeIsNeverSlowerAndARegressionBeyondTheNoiseIs) {
    // 1000 histories of 30 runs with 2% between-run noise: a new run of the same code
    // (drawn like the others) against each, and one 10% slower.
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0, 0.02);
    int false_alarms = 0, found = 0;
    for (int trial = 0; trial < 1000; ++trial) {
        const std::vector<double> earlier = history(30, 10.0, 0.02, rng);
        const double same = 10.0 * std::exp(noise(rng));
        false_alarms += check_against_history(earlier, same).verdict == Verdict::slower;
        found += check_against_history(earlier, 1.10 * 10.0 * std::exp(noise(rng))).verdict == Verdict::slower;
    }
    // A run of the same code falls outside the 99% range 1% of the time, above it 0.5%.
    EXPECT_LE(false_alarms, 10);
    EXPECT_GE(found, 900);  // 10% is 5 standard deviations of the noise
}

TEST(HistoryCheck, TheNoiseIsLearnedFromTheSpreadBetweenRuns) {
    std::mt19937_64 rng(11);
    const std::vector<double> quiet = history(30, 10.0, 0.005, rng);
    const std::vector<double> noisy = history(30, 10.0, 0.05, rng);
    const auto on_quiet = check_against_history(quiet, 10.8);
    const auto on_noisy = check_against_history(noisy, 10.8);
    EXPECT_NEAR(on_quiet.noise, 0.005, 0.002);
    EXPECT_NEAR(on_noisy.noise, 0.05, 0.02);
    EXPECT_EQ(on_quiet.verdict, Verdict::slower);  // +8% where runs differ by 0.5%
    EXPECT_EQ(on_noisy.verdict, Verdict::inconclusive) << on_noisy.ratio_ci.low;  // and where they differ by 5%
    EXPECT_EQ(on_quiet.runs, 30u);
    EXPECT_FALSE(on_quiet.after_step);
    // A change within the threshold on a quiet history is the same.
    EXPECT_EQ(check_against_history(quiet, 10.1).verdict, Verdict::same);
    EXPECT_EQ(check_against_history(quiet, 8.5).verdict, Verdict::faster);
}

TEST(HistoryCheck, OnlyTheRunsSinceTheLastStepAreTheBaseline) {
    // 15 runs at 10, then 15 at 11 (a step 10% up that was accepted): a run at 11 is
    // the same as the runs since the step, and 12.1 (10% above them) is slower.
    std::mt19937_64 rng(3);
    std::vector<double> earlier = history(15, 10.0, 0.01, rng);
    const std::vector<double> after = history(15, 11.0, 0.01, rng);
    earlier.insert(earlier.end(), after.begin(), after.end());
    const auto level = check_against_history(earlier, 11.0);
    EXPECT_TRUE(level.after_step);
    EXPECT_EQ(level.first, 15u);
    EXPECT_EQ(level.runs, 15u);
    EXPECT_NEAR(level.baseline, 11.0, 0.1);
    EXPECT_EQ(level.verdict, Verdict::same);
    EXPECT_EQ(check_against_history(earlier, 12.1).verdict, Verdict::slower);
}

TEST(HistoryCheck, AGrownCountIsSlowerAndNamesWhatTheCheckedRunSaidOfIt) {
    const std::vector<double> earlier = {0, 0};
    const std::string reason = "Unsupported Tensor.item() call with capture_scalar_outputs=False";
    const HistoryCheck grown = check_count_against_history(earlier, 1, "graph_breaks", reason);
    EXPECT_EQ(grown.verdict, Verdict::slower);
    EXPECT_EQ(grown.runs, 1u);
    EXPECT_EQ(grown.note, "graph_breaks 0 -> 1 since the run before: " + reason);
    // Without reasons stored (a history of schema 4), the count alone.
    EXPECT_EQ(check_count_against_history(earlier, 1, "graph_breaks").note, "graph_breaks 0 -> 1 since the run before");
    // A count that fell or stayed: no reasons named, whatever the run said.
    const std::vector<double> two = {2};
    const HistoryCheck fell = check_count_against_history(two, 1, "graph_breaks", reason);
    EXPECT_EQ(fell.verdict, Verdict::faster);
    EXPECT_EQ(fell.note, "graph_breaks 2 -> 1 since the run before");
    const HistoryCheck same = check_count_against_history(two, 2, "graph_breaks", reason);
    EXPECT_EQ(same.verdict, Verdict::same);
    EXPECT_EQ(same.note, "");
}

TEST(HistoryCheck, TooFewRunsDecideNothing) {
    const std::vector<double> earlier = {10.0, 10.1, 9.9};
    const auto check = check_against_history(earlier, 20.0);
    EXPECT_EQ(check.verdict, Verdict::inconclusive);
    EXPECT_EQ(check.runs, 3u);
    EXPECT_NEAR(check.ratio, 2.0, 0.01);
    EXPECT_NE(check.note.find("3 earlier runs, fewer than 5"), std::string::npos) << check.note;
    EXPECT_EQ(check_against_history({}, 10.0).note, "no earlier run");
    const std::vector<double> one = {10.0};
    EXPECT_NE(check_against_history(one, 10.0).note.find("1 earlier run, fewer than 5"), std::string::npos);
    HistoryCheckOptions three;
    three.min_runs = 3;
    EXPECT_EQ(check_against_history(earlier, 20.0, three).verdict, Verdict::slower);
}

TEST(HistoryCheck, OnlyTheLastRunsOfTheLookbackCount) {
    // An old level far below, beyond the lookback of 10: not seen.
    std::mt19937_64 rng(5);
    std::vector<double> earlier(50, 5.0);
    const std::vector<double> recent = history(10, 10.0, 0.01, rng);
    earlier.insert(earlier.end(), recent.begin(), recent.end());
    HistoryCheckOptions options;
    options.lookback = 10;
    const auto check = check_against_history(earlier, 10.0, options);
    EXPECT_EQ(check.runs, 10u);
    EXPECT_FALSE(check.after_step);
    EXPECT_EQ(check.verdict, Verdict::same);
}

}  // namespace
