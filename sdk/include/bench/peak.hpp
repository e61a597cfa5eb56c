// The search for the peak rate of a serving benchmark (--find-peak, docs/serving.md):
// the rates its handler was driven at, how each fared against the SLO, and the highest
// rate that met it. Context::serve fills it in; it is ScenarioResult::peak_search
// (ABI 2.4), written into the scenario's report and drawn in report.html.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace bench {

/// One bounded metric (an --slo bound) at one rate, over the queries served there.
struct PeakMetric {
    std::string metric;  // latency, ttft, tpot or itl
    double bound_ms = 0;  // its --slo bound
    double p50_ms = 0;  // the median of the queries' values
    double percentile_ms = 0;  // the search's percentile of them (PeakSearch::percentile)

    friend bool operator==(const PeakMetric&, const PeakMetric&) = default;
};

/// One rate tried: a server load of Poisson arrivals (gamma with --burstiness) at
/// `target_qps`.
struct PeakStep {
    /// "coarse": raising the rate from the first one until a rate fails (or lowering it
    /// until one passes); "binary": halving the span between the highest rate that
    /// passed and the lowest that failed.
    std::string phase;
    double target_qps = 0;
    double achieved_qps = 0;  // the queries served over the time of the last one's issue
    long long queries = 0;  // served
    long long planned = 0;  // the rate's queries, had it run to the end
    double goodput = 0;  // % of the queries served that met every bound
    long long late_issues = 0;
    bool passed = false;
    /// Empty: every planned query was served. Else why the rate was decided before
    /// (e.g. more queries missed a bound than the percentile allows of `planned`).
    std::string stopped_early;
    std::vector<PeakMetric> metrics;  // one per bound, in the order of --slo

    friend bool operator==(const PeakStep&, const PeakStep&) = default;
};

/// Why a search ended.
inline constexpr char peak_end_precision[] = "precision";  // the lowest failing rate is within `precision` of the peak
inline constexpr char peak_end_no_pass[] = "no_pass";  // no rate passed, down to the lowest tried
inline constexpr char peak_end_no_fail[] = "no_fail";  // no rate failed, up to the highest tried
inline constexpr char peak_end_steps[] = "steps";  // the steps ran out before the precision was reached

struct PeakSearch {
    double percentile = 99;  // of each bounded metric, judged against its bound
    double precision = 0;  // relative: see LoadConfig::peak_precision
    /// The highest target rate that passed; NaN when none did.
    double peak_qps = std::numeric_limits<double>::quiet_NaN();
    std::string end;  // peak_end_*
    std::vector<PeakStep> steps;  // in the order they ran

    /// Member by member; two NaN peaks (none found) are equal.
    friend bool operator==(const PeakSearch& a, const PeakSearch& b) {
        const bool same_peak = a.peak_qps == b.peak_qps || (a.peak_qps != a.peak_qps && b.peak_qps != b.peak_qps);
        return a.percentile == b.percentile && a.precision == b.precision && same_peak && a.end == b.end &&
               a.steps == b.steps;
    }
};

}  // namespace bench
