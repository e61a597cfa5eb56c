#include "run/ab_loop.hpp"

#include <fmt/format.h>

#include "util/join.hpp"

namespace benchhost {

namespace {

using Clock = std::chrono::steady_clock;

/// Where one scenario's pairs stand.
struct PairState {
    const AbPair* pair = nullptr;
    int rounds = 0;  // pairs run
    bool ended = false;  // decided, failed or skipped on a side, or out of budget
    bool out_of_time = false;
    bool failed = false;  // a side did not succeed (or was skipped): nothing to compare
    bool confirmed = false;  // found slower, and still slower after its confirmation pairs
    bool by_counts = false;  // slower by compiler counts alone: no pairs can change it
    int confirmations = 0;  // how many times its verdict was confirmed (--confirm)
    Verdict verdict = Verdict::inconclusive;
    double last_pair_s = 0;  // wall time of its last pair
};

class AbLoop {
public:
    AbLoop(const std::vector<AbPair>& pairs, const AbLoopOptions& options, AbSide base, AbSide next,
           spdlog::logger& log)
        : options_(options), base_(base), next_(next), log_(log), start_(Clock::now()) {
        options_.compare.paired = true;
        for (const AbPair& pair : pairs) states_.push_back(PairState{&pair});
        planned_ = pairs.size() * 2 * static_cast<std::size_t>(options.min_rounds);
    }

    std::vector<std::string> run() {
        // More pairs for the undecided, then the confirmation of those found slower; a
        // scenario that the confirmation leaves undecided goes on with more pairs (and,
        // found slower again, is confirmed again), within the same budget.
        do {
            if (!run_until_decided()) return notes();
        } while (confirm());
        return notes();
    }

private:
    double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

    /// Pairs, one a scenario at a time, until every scenario has ended. False when the
    /// run was interrupted.
    bool run_until_decided() {
        for (;;) {
            bool any = false;
            for (PairState& state : states_) {
                if (state.ended) continue;
                if (state.rounds >= options_.min_rounds && options_.time_limit_s > 0 &&
                    elapsed_s() + state.last_pair_s > options_.time_limit_s) {
                    state.ended = true;
                    state.out_of_time = true;
                    continue;
                }
                any = true;
                if (!run_pair(state)) return false;
                judge(state);
            }
            if (!any) return true;
        }
    }

    /// One more pair of `state`'s scenario: A then B on odd pairs, B then A on even ones.
    /// False when the run was interrupted.
    bool run_pair(PairState& state) {
        const int round = state.rounds + 1;
        const bool base_first = round % 2 == 1;
        const auto started = Clock::now();
        for (int k = 0; k < 2; ++k) {
            const bool base_side = (k == 0) == base_first;
            AbSide& side = base_side ? base_ : next_;
            const std::size_t index = base_side ? state.pair->base_index : state.pair->new_index;
            planned_ = std::max(planned_, executed_ + 1);
            side.runner.run(
                index, round, false,
                ExecutionProgress{++executed_, planned_, state.pair->scenario_id + (base_side ? " (base)" : " (new)")});
            if (side.record.interrupted) return false;
        }
        state.rounds = round;
        state.last_pair_s = std::chrono::duration<double>(Clock::now() - started).count();
        return true;
    }

    /// The scenario's verdict after its pairs so far; ends it when it is decided, when a
    /// side did not succeed, or at --max-rounds.
    void judge(PairState& state) {
        const ScenarioOutcome* a = base_.runner.outcome(state.pair->scenario_id);
        const ScenarioOutcome* b = next_.runner.outcome(state.pair->scenario_id);
        if (a == nullptr || b == nullptr || a->result.status != bench::Status::success ||
            b->result.status != bench::Status::success) {
            state.ended = true;  // skipped or failed on a side: the comparison says which
            state.failed = true;
            return;
        }
        if (state.rounds < options_.min_rounds) return;
        const std::vector<SeriesComparison> rows = compare_outcomes(*a, *b, compare_options());
        state.verdict = scenario_verdict(rows);
        state.by_counts = slower_by_counts_alone(rows);
        if (state.by_counts && options_.confirm > 0)
            log_.info(
                "{}: slower by its compiler counts alone, which are the same on every run of a build: no "
                "pairs to confirm",
                state.pair->scenario_id);
        if (state.verdict != Verdict::inconclusive || state.rounds >= options_.max_rounds) state.ended = true;
        if (!rows.empty()) {
            std::string series;  // every series, the one that decided among them
            for (const SeriesComparison& row : rows)
                series +=
                    fmt::format("{}{} {} ratio {:.4g}, 95% CI [{:.4g}, {:.4g}]", series.empty() ? "" : "; ", row.series,
                                to_string(row.verdict), row.ratio, row.ratio_ci.low, row.ratio_ci.high);
            log_.debug("{}: {} after {} pairs ({})", state.pair->scenario_id, to_string(state.verdict), state.rounds,
                       series);
        }
    }

    /// --confirm N: the scenarios found slower (and not confirmed before) run N more
    /// pairs, interleaved; the first time whatever the budget, again only within
    /// --max-rounds (a scenario with no pairs left keeps its verdict). True when one of
    /// them came out inconclusive with budget left: it is open again for more pairs.
    bool confirm() {
        if (options_.confirm <= 0) return false;
        std::vector<PairState*> flagged;
        for (PairState& state : states_) {
            if (state.verdict != Verdict::slower || state.confirmed || state.failed) continue;
            if (state.by_counts) continue;  // the same on every run of a build (said when decided)
            if (state.confirmations > 0 && state.rounds >= options_.max_rounds) continue;
            if (!base_.runner.reopen_for_confirmation(state.pair->scenario_id) ||
                !next_.runner.reopen_for_confirmation(state.pair->scenario_id))
                continue;
            flagged.push_back(&state);
        }
        if (flagged.empty()) return false;
        log_.info("{} scenario{} slower: {} more pair{} each to confirm", flagged.size(),
                  flagged.size() == 1 ? "" : "s", options_.confirm, options_.confirm == 1 ? "" : "s");
        for (int k = 0; k < options_.confirm; ++k)
            for (PairState* state : flagged)
                if (state->confirmations == 0 || state->rounds < options_.max_rounds)
                    if (!run_pair(*state)) return false;
        bool reopened = false;
        for (PairState* state : flagged) {
            ++state->confirmations;
            const ScenarioOutcome* a = base_.runner.outcome(state->pair->scenario_id);
            const ScenarioOutcome* b = next_.runner.outcome(state->pair->scenario_id);
            if (a == nullptr || b == nullptr || a->result.status != bench::Status::success ||
                b->result.status != bench::Status::success) {
                // A side failed in a confirmation pair: there is nothing to compare (not "same", which
                // scenario_verdict says of no rows), and it did not stay slower. It has ended.
                state->failed = true;
                state->confirmed = false;
                log_.warn("{}: a side failed during its confirmation, {} pairs: not confirmed",
                          state->pair->scenario_id, state->rounds);
                continue;
            }
            state->verdict = scenario_verdict(compare_outcomes(*a, *b, compare_options()));
            state->confirmed = state->verdict == Verdict::slower;
            if (state->verdict == Verdict::inconclusive && state->rounds < options_.max_rounds && !state->out_of_time) {
                state->ended = false;  // undecided again: more pairs, as for any other
                reopened = true;
                log_.info("{}: inconclusive after its confirmation, {} pairs: more pairs", state->pair->scenario_id,
                          state->rounds);
            }
        }
        std::size_t ever = 0, confirmed = 0, again = 0;
        for (const PairState& state : states_) {
            ever += state.confirmations > 0 ? 1 : 0;
            confirmed += state.confirmed ? 1 : 0;
            again += state.confirmations > 1 ? 1 : 0;
        }
        confirmations_ =
            fmt::format("{} of {} scenario{} found slower stayed slower over {} more pair{} (--confirm)", confirmed,
                        ever, ever == 1 ? "" : "s", options_.confirm, options_.confirm == 1 ? "" : "s");
        if (again > 0)
            confirmations_ += fmt::format(
                "; {} of them, left undecided by a confirmation, ran more pairs and {} found "
                "slower and confirmed again",
                again, again == 1 ? "was" : "were");
        log_.info("{}", confirmations_);
        return reopened;
    }

    /// The comparison's options with the series the run compares counted over every
    /// scenario that has run on both sides so far (all have, by the first look: the
    /// scenarios take their pairs in turn), as compare_runs counts them at the end.
    CompareOptions compare_options() const {
        CompareOptions options = options_.compare;
        if (options.family_rows != 0) return options;
        for (const PairState& state : states_) {
            const ScenarioOutcome* a = base_.runner.outcome(state.pair->scenario_id);
            const ScenarioOutcome* b = next_.runner.outcome(state.pair->scenario_id);
            if (a != nullptr && b != nullptr) options.family_rows += compared_series(*a, *b);
        }
        return options;
    }

    std::vector<std::string> notes() const {
        std::vector<std::string> out;
        std::vector<std::string> at_max, out_of_time;
        for (const PairState& state : states_) {
            if (state.verdict != Verdict::inconclusive || state.failed) continue;
            if (state.out_of_time) out_of_time.push_back(state.pair->scenario_id);
            else if (state.rounds >= options_.max_rounds) at_max.push_back(state.pair->scenario_id);
        }
        if (!at_max.empty())
            out.push_back(fmt::format("still inconclusive after --max-rounds {} pairs: {}", options_.max_rounds,
                                      join(at_max, ", ")));
        if (!out_of_time.empty())
            out.push_back(fmt::format("still inconclusive when the --time-limit of {:g} s was spent: {}",
                                      options_.time_limit_s, join(out_of_time, ", ")));
        if (!confirmations_.empty()) out.push_back(confirmations_);
        return out;
    }

    AbLoopOptions options_;
    AbSide base_, next_;
    spdlog::logger& log_;
    Clock::time_point start_;
    std::vector<PairState> states_;
    std::size_t executed_ = 0, planned_ = 0;
    std::string confirmations_;
};

}  // namespace

std::vector<std::string> run_ab(const std::vector<AbPair>& pairs, const AbLoopOptions& options, AbSide base,
                                AbSide next, spdlog::logger& log) {
    return AbLoop(pairs, options, base, next, log).run();
}

}  // namespace benchhost
