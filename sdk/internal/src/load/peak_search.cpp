#include <bench/internal/load/peak_search.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <bench/statistics.hpp>

namespace bench {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

std::string number_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

/// percentile_of_sorted over values some of which are infinite (queries without the
/// metric): infinite where an infinite value takes part in its interpolation (which
/// reads only the two ranks around q).
double percentile_with_infinity(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(rank));
    const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
    if (std::isinf(sorted[lower])) return infinity;
    if (std::isinf(sorted[upper])) return rank > static_cast<double>(lower) ? infinity : sorted[lower];
    return percentile_of_sorted(sorted, q);
}

}  // namespace

PeakSearch search_peak(const PeakSearchSettings& settings, const PeakStepRunner& run_step) {
    if (!(settings.start_qps > 0) || !std::isfinite(settings.start_qps))
        throw std::invalid_argument("the peak search's first rate must be above 0, got " +
                                    number_text(settings.start_qps));
    if (!(settings.precision > 0)) throw std::invalid_argument("the peak search's precision must be above 0");
    PeakSearch search;
    search.percentile = settings.percentile;
    search.precision = settings.precision;
    const auto run = [&](double rate, const char* phase) {
        search.steps.push_back(run_step(rate, phase));
        search.steps.back().phase = phase;
        search.steps.back().target_qps = rate;
        return search.steps.back().passed;
    };
    const auto steps_left = [&] { return static_cast<int>(search.steps.size()) < settings.max_steps; };

    // Coarse: from the first rate, doubling while it passes, or halving while it fails.
    double passed = std::numeric_limits<double>::quiet_NaN(), failed = passed;
    double rate = settings.start_qps;
    if (run(rate, "coarse")) {
        passed = rate;
        for (int i = 0; i < settings.max_doublings && steps_left(); ++i) {
            rate *= 2;
            if (!run(rate, "coarse")) {
                failed = rate;
                break;
            }
            passed = rate;
        }
        if (std::isnan(failed)) {
            search.peak_qps = passed;
            search.end = peak_end_no_fail;
            return search;
        }
    } else {
        failed = rate;
        for (int i = 0; i < settings.max_halvings && steps_left(); ++i) {
            rate /= 2;
            if (run(rate, "coarse")) {
                passed = rate;
                break;
            }
            failed = rate;
        }
        if (std::isnan(passed)) {
            search.end = peak_end_no_pass;
            return search;
        }
    }

    // Binary: the middle of the span, until the span is within the precision.
    while (failed - passed > settings.precision * passed) {
        if (!steps_left()) {
            search.peak_qps = passed;
            search.end = peak_end_steps;
            return search;
        }
        const double middle = passed + (failed - passed) / 2;
        if (run(middle, "binary")) passed = middle;
        else failed = middle;
    }
    search.peak_qps = passed;
    search.end = peak_end_precision;
    return search;
}

RateJudge::RateJudge(std::vector<Slo> slos, double percentile, long long planned)
    : slos_(std::move(slos)), percentile_(percentile), planned_(planned), over_(slos_.size(), 0) {
    if (planned_ < 1) throw std::invalid_argument("a rate needs at least one query");
    const double h = percentile_ / 100.0 * static_cast<double>(planned_ - 1);
    fail_at_ = planned_ - static_cast<long long>(std::floor(h));
    pass_within_ = planned_ - 1 - static_cast<long long>(std::ceil(h));
}

RateJudge::Verdict RateJudge::add(const QueryTimes& query) {
    ++seen_;
    for (std::size_t i = 0; i < slos_.size(); ++i) {
        const std::optional<double> value = slo_metric_value(query, slos_[i].metric);
        if (!value || *value > slos_[i].limit_ms) ++over_[i];
    }
    // After the last query, its percentiles decide (peak_step).
    const long long left = planned_ - seen_;
    if (left <= 0) return Verdict::undecided;
    bool certain_pass = true;
    for (std::size_t i = 0; i < slos_.size(); ++i) {
        if (over_[i] >= fail_at_) {
            why_ = std::to_string(over_[i]) + " of " + std::to_string(seen_) + " queries over the " + slos_[i].metric +
                   " bound, enough to take p" + number_text(percentile_) + " of " + std::to_string(planned_) +
                   " over it";
            return Verdict::failed;
        }
        certain_pass = certain_pass && over_[i] + left <= pass_within_;
    }
    if (!certain_pass) return Verdict::undecided;
    why_ = "no query left could take p" + number_text(percentile_) + " over a bound (" + std::to_string(left) + " of " +
           std::to_string(planned_) + " not served)";
    return Verdict::passed;
}

PeakStep peak_step(const std::vector<QueryTimes>& served, const std::vector<Slo>& slos, double percentile,
                   double late_tolerance_ms, double target_qps, long long planned, RateJudge::Verdict early,
                   const std::string& why) {
    const LoadFigures figures = load_figures(served, late_tolerance_ms, slos);
    PeakStep step;
    step.target_qps = target_qps;
    step.achieved_qps = figures.achieved_qps;
    step.queries = static_cast<long long>(served.size());
    step.planned = planned;
    step.goodput = figures.goodput * 100;
    step.late_issues = figures.late_issues;
    bool within = true;
    for (const Slo& slo : slos) {
        std::vector<double> values;
        values.reserve(served.size());
        for (const QueryTimes& query : served) values.push_back(slo_metric_value(query, slo.metric).value_or(infinity));
        std::sort(values.begin(), values.end());
        PeakMetric metric{slo.metric, slo.limit_ms, percentile_with_infinity(values, 50),
                          percentile_with_infinity(values, percentile)};
        within = within && metric.percentile_ms <= slo.limit_ms;
        step.metrics.push_back(std::move(metric));
    }
    if (early == RateJudge::Verdict::undecided) {
        step.passed = within && !served.empty();
    } else {
        step.passed = early == RateJudge::Verdict::passed;
        step.stopped_early = why;
    }
    return step;
}

std::string peak_unjudged_reason(const ScenarioConfig& config, const std::string& metric) {
    return "--find-peak --slo " + metric + ": plugin " + config.plugin + ", benchmark " + config.benchmark_id() +
           " reports no tokens (Query::token), so its " + metric + " cannot be judged at any rate";
}

}  // namespace bench
