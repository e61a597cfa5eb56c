#include "bisect/bisect_search.hpp"

#include <cmath>
#include <stdexcept>

namespace benchhost {

std::string_view to_string(RevisionState state) {
    switch (state) {
        case RevisionState::untested:
            return "untested";
        case RevisionState::good:
            return "good";
        case RevisionState::bad:
            return "bad";
        case RevisionState::skipped:
            return "skipped";
    }
    return "?";
}

BisectSearch::BisectSearch(std::size_t revisions) : states_(revisions, RevisionState::untested) {
    if (revisions == 0) throw std::invalid_argument("bisect: no revision after --good up to --bad");
    states_.back() = RevisionState::bad;
}

void BisectSearch::mark(std::size_t index, RevisionState state) { states_.at(index) = state; }

std::size_t BisectSearch::first_bad() const {
    for (std::size_t i = 0; i < states_.size(); ++i)
        if (states_[i] == RevisionState::bad) return i;
    return states_.size() - 1;  // unreachable: the last one is bad unless marked otherwise
}

long long BisectSearch::last_good() const {
    const std::size_t bad = first_bad();
    for (std::size_t i = bad; i-- > 0;)
        if (states_[i] == RevisionState::good) return static_cast<long long>(i);
    return -1;
}

std::optional<std::size_t> BisectSearch::next() const {
    const long long good = last_good();
    const long long bad = static_cast<long long>(first_bad());
    const long long middle = good + (bad - good) / 2;
    std::optional<std::size_t> best;
    long long best_distance = 0;
    for (long long i = good + 1; i < bad; ++i) {
        if (states_[static_cast<std::size_t>(i)] != RevisionState::untested) continue;
        const long long distance = std::llabs(i - middle);
        if (!best || distance < best_distance) {
            best = static_cast<std::size_t>(i);
            best_distance = distance;
        }
    }
    return best;
}

std::vector<std::size_t> BisectSearch::candidates() const {
    std::vector<std::size_t> result;
    const std::size_t bad = first_bad();
    for (long long i = last_good() + 1; i <= static_cast<long long>(bad); ++i)
        if (static_cast<std::size_t>(i) == bad || states_[static_cast<std::size_t>(i)] != RevisionState::good)
            result.push_back(static_cast<std::size_t>(i));
    return result;
}

std::size_t BisectSearch::steps_left() const {
    std::size_t untested = 0;
    for (long long i = last_good() + 1; i < static_cast<long long>(first_bad()); ++i)
        if (states_[static_cast<std::size_t>(i)] == RevisionState::untested) ++untested;
    return untested == 0 ? 0 : static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(untested) + 1)));
}

std::vector<SlowSeries> slower_series(const Comparison& comparison) {
    std::vector<SlowSeries> slow;
    for (const SeriesComparison& row : comparison.rows)
        if (row.verdict == Verdict::slower) slow.push_back({row.scenario_id, row.series});
    return slow;
}

RevisionJudgement judge_revision(const Comparison& comparison, const std::vector<SlowSeries>& slow) {
    RevisionJudgement judgement;
    std::vector<const SeriesComparison*> rows;
    for (const SlowSeries& wanted : slow) {
        const SeriesComparison* found = nullptr;
        for (const SeriesComparison& row : comparison.rows)
            if (row.scenario_id == wanted.scenario_id && row.series == wanted.series) found = &row;
        if (found != nullptr && found->verdict == Verdict::slower) {
            judgement.state = RevisionState::bad;
            judgement.evidence = found;
            return judgement;
        }
        rows.push_back(found);
    }
    for (std::size_t i = 0; i < slow.size(); ++i) {
        if (rows[i] == nullptr) {
            judgement.reason = slow[i].scenario_id + " " + slow[i].series + " was not compared";
            for (const std::string& why : comparison.not_compared)
                if (why.rfind(slow[i].scenario_id + ":", 0) == 0) judgement.reason = why;
            return judgement;
        }
        if (rows[i]->verdict == Verdict::inconclusive) {
            judgement.evidence = rows[i];
            judgement.reason = slow[i].scenario_id + " " + slow[i].series + ": still inconclusive after " +
                               std::to_string(rows[i]->new_rounds) + " pairs";
            return judgement;
        }
    }
    judgement.state = RevisionState::good;
    judgement.evidence = rows.empty() ? nullptr : rows.front();
    return judgement;
}

bool run_bisect_steps(
    BisectSearch& search, const std::vector<SlowSeries>& slow,
    const std::function<RevisionTrial(std::size_t index, int number)>& try_revision,
    const std::function<void(std::size_t index, int number, const RevisionJudgement& judgement)>& step_done) {
    for (int number = 1; const std::optional<std::size_t> next = search.next(); ++number) {
        const RevisionTrial trial = try_revision(*next, number);
        if (trial.interrupted) return false;
        RevisionJudgement judgement;
        if (trial.comparison) judgement = judge_revision(*trial.comparison, slow);
        else judgement.reason = trial.problem;
        search.mark(*next, judgement.state);
        step_done(*next, number, judgement);
    }
    return true;
}

}  // namespace benchhost
