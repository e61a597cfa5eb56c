// The search of `benchhost bisect`: a binary search for the first bad revision among
// those after --good up to --bad, where a revision may also be skipped (it does not
// build, or its verdict stayed open), as `git bisect skip` does. And how one A/B
// comparison of a revision with --good decides it.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare.hpp"

namespace benchhost {

enum class RevisionState { untested, good, bad, skipped };
std::string_view to_string(RevisionState state);

/// Revisions 0 .. n-1, oldest first: those after --good (known good, before 0) up to
/// --bad (n-1, known bad).
class BisectSearch {
public:
    explicit BisectSearch(std::size_t revisions);

    void mark(std::size_t index, RevisionState state);
    RevisionState state(std::size_t index) const { return states_.at(index); }

    /// The revision to test next: the untested one nearest the middle of the range still
    /// in doubt (after the last good revision, up to the first bad one), the older on a
    /// tie; none when every revision in that range is tested or skipped.
    std::optional<std::size_t> next() const;

    /// The revisions that may be the first bad one, oldest first: one once it is found;
    /// more when skipped revisions sit between the last good and the first bad one (they
    /// and the first bad one).
    std::vector<std::size_t> candidates() const;

    /// Revisions a search with no more skips still tests at most.
    std::size_t steps_left() const;

private:
    /// The first bad revision, and the last good one before it (-1: --good itself).
    std::size_t first_bad() const;
    long long last_good() const;

    std::vector<RevisionState> states_;
};

/// A series that --bad ran slower than --good.
struct SlowSeries {
    std::string scenario_id, series;
};

/// The series slower at --bad than at --good (the comparison of the two).
std::vector<SlowSeries> slower_series(const Comparison& comparison);

/// How a revision's comparison with --good decides it.
struct RevisionJudgement {
    RevisionState state = RevisionState::skipped;
    /// The row that decided it (the first slower one; for good, the first row), if any.
    const SeriesComparison* evidence = nullptr;
    std::string reason;  // for skipped: why the comparison could not decide
};

/// Bad when one of `slow` (the series found slower at --bad) is slower than at --good;
/// good when all of them are the same or faster; else skipped: a series not compared
/// (its scenario failed on one side) or still inconclusive after the pairs ran.
RevisionJudgement judge_revision(const Comparison& comparison, const std::vector<SlowSeries>& slow);

/// What trying one revision of the search gave: run_bisect_steps asks for it.
struct RevisionTrial {
    bool interrupted = false;  // the user stopped it: the search ends here
    /// Its A/B run against --good (the comparison's rows), none when it was not run or
    /// compared nothing; then `problem` says why ("does not build: ...").
    std::optional<Comparison> comparison;
    std::string problem;
};

/// The steps of `bisect` once both ends are judged: while `search` has a revision to
/// test (BisectSearch::next), `try_revision(index, number)` builds it and runs it against
/// --good (the build and the A/B run are the command's), its comparison decides it
/// (judge_revision, by `slow`: skipped with the trial's problem when there is none), the
/// search is marked and `step_done(index, number, judgement)` is told, while the trial's
/// comparison, which the judgement points into, is alive. Steps are numbered from 1.
/// False when a trial was interrupted: the search stops there, that step not marked.
bool run_bisect_steps(
    BisectSearch& search, const std::vector<SlowSeries>& slow,
    const std::function<RevisionTrial(std::size_t index, int number)>& try_revision,
    const std::function<void(std::size_t index, int number, const RevisionJudgement& judgement)>& step_done);

}  // namespace benchhost
