// The search for the peak rate of a serving benchmark (--find-peak, docs/serving.md), as
// MLPerf LoadGen's FindPeakPerformance: a coarse phase that doubles the rate until one
// fails (or halves it until one passes), then a binary search between the highest rate
// that passed and the lowest that failed, to a relative precision. Which rate comes
// next, when a rate is decided before its last query, and a rate's figures are
// computed here from what the caller reports: no clock is read, so the tests drive the
// search with made-up servers.
//
// Internal (sdk/internal): for the SDK's serving loop and the tests; not installed,
// not exported.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <bench/config.hpp>
#include <bench/internal/load/load_figures.hpp>
#include <bench/load.hpp>
#include <bench/peak.hpp>

namespace bench {

struct PeakSearchSettings {
    double start_qps = 1;  // the first rate tried, above 0
    double precision = default_peak_precision;
    double percentile = 99;
    /// Rates tried at most, in both phases together; and how far the coarse phase may
    /// go from the first rate (a factor of 2 per step, either way).
    int max_steps = 40;
    int max_doublings = 24;
    int max_halvings = 12;
};

/// Serves the load at `rate` queries/s and says how it fared; `phase` is "coarse" or
/// "binary", to be recorded in the step.
using PeakStepRunner = std::function<PeakStep(double rate, const std::string& phase)>;

/// Runs the search: the steps in order, the highest target rate that passed (NaN when
/// none did) and why it ended (peak_end_*). std::invalid_argument for settings out of
/// range (a start or a precision not above 0).
PeakSearch search_peak(const PeakSearchSettings& settings, const PeakStepRunner& run_step);

/// Decides a rate from its queries as they complete, before the last one when the ones
/// left cannot change the verdict. With N planned queries and the percentile p, the
/// p-th percentile (interpolated between ranks floor(h) and ceil(h), h = p/100 (N - 1),
/// as percentile_of_sorted) exceeds a bound for certain once N - floor(h) queries
/// exceeded it, and stays within it for certain while the queries over it, and every
/// query left, come to at most N - 1 - ceil(h). A query without the metric (no tokens
/// for ttft, tpot, itl) counts as over its bound.
class RateJudge {
public:
    enum class Verdict { undecided, passed, failed };

    RateJudge(std::vector<Slo> slos, double percentile, long long planned);
    /// One more query completed: the verdict so far.
    Verdict add(const QueryTimes& query);
    /// After add() decided: why, for PeakStep::stopped_early.
    const std::string& why() const { return why_; }

private:
    std::vector<Slo> slos_;
    double percentile_;
    long long planned_, seen_ = 0;
    std::vector<long long> over_;  // per bound: queries over it
    long long fail_at_, pass_within_;
    std::string why_;
};

/// The figures of one rate from the queries served there (all `planned` of them, or
/// those served before `early` decided it, with `why`): the percentiles of each bound's
/// metric (a query without it counts as infinite), the goodput, the achieved rate and
/// the late issues. Without an early verdict, the rate passed when every metric's
/// percentile is within its bound.
PeakStep peak_step(const std::vector<QueryTimes>& served, const std::vector<Slo>& slos, double percentile,
                   double late_tolerance_ms, double target_qps, long long planned,
                   RateJudge::Verdict early = RateJudge::Verdict::undecided, const std::string& why = "");

/// Why a --find-peak scenario is skipped when the SLO bounds `metric` (ttft, tpot, itl),
/// which only tokens give, and its handler reported none (Query::token): no rate can be
/// judged. The host knows the skip by it.
std::string peak_unjudged_reason(const ScenarioConfig& config, const std::string& metric);

}  // namespace bench
