// The A/B loop (`benchhost ab`): each scenario run in pairs of rounds, one round of
// each side back to back in fresh workers, the order alternating A B, B A, A B, ...
// so that neither side always runs first. What a pair shares (the moment's load, the
// clock, the caches of the machine) cancels in its ratio.
//
// Every scenario runs `min_rounds` pairs. Then, Pinpoint-style, only the scenarios
// whose comparison is still inconclusive run more pairs, until it decides, or
// `max_rounds` pairs, or the time limit. With `confirm`, a scenario found slower runs
// that many more pairs (both sides) before the verdict stands; one that they leave
// inconclusive goes on with more pairs within the same budget, and is confirmed again
// if it is found slower again.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <spdlog/logger.h>

#include "analysis/compare.hpp"
#include "plan/ab_pairs.hpp"
#include "run/run_loop.hpp"

namespace benchhost {

/// The pairs every scenario of an A/B run runs unless told otherwise (`ab --rounds`): the
/// fewest whose paired bootstrap gives a 95% interval (bench::fewest_pairs(0.95)).
inline constexpr int default_ab_pairs = 6;
/// The pairs at most for a scenario still inconclusive unless told otherwise (`ab --max-rounds`).
inline constexpr int default_ab_max_pairs = 40;

struct AbLoopOptions {
    int min_rounds = default_ab_pairs;  // pairs every scenario runs
    int max_rounds = default_ab_max_pairs;  // pairs at most, for a scenario still inconclusive
    double time_limit_s = 0;  // no pair starts once this much has passed; 0: no limit
    int confirm = 0;  // more pairs for a scenario found slower
    CompareOptions compare;  // how a scenario is judged after each pair (paired)
};

/// One side: its plan, its runner, and the record the runner fills.
struct AbSide {
    const Plan& plan;
    ScenarioRunner& runner;
    const RunRecord& record;
};

/// Runs the pairs; the caller calls each runner's finish(). Returns what the reader of
/// the comparison should know about the budget: scenarios left inconclusive at
/// --max-rounds or at the time limit, and the confirmations.
std::vector<std::string> run_ab(const std::vector<AbPair>& pairs, const AbLoopOptions& options, AbSide base,
                                AbSide next, spdlog::logger& log);

}  // namespace benchhost
