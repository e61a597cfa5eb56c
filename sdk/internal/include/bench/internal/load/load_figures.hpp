// The figures of a serving load, computed from what happened to each query: when it
// was scheduled, issued, started and completed, and when its tokens came. No clock is
// read here, so the tests check these figures on made-up queries.
//
// Internal (sdk/internal): for the SDK's serving loop and the tests; not installed,
// not exported.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <bench/load.hpp>

namespace bench {

/// One query's times, in ms from the start of the load.
struct QueryTimes {
    double scheduled = 0;  // when it was to arrive: the schedule's time, or (closed loop) when it was issued
    double issued = 0;  // when the load generator handed it over
    double started = 0;  // when the handler took it
    double completed = 0;  // when the handler returned
    std::vector<double> tokens;  // when each token was reported
    int samples = 1;
};

struct LoadFigures {
    // Per query, in ms.
    std::vector<double> latency;  // scheduled arrival to completion: the queueing counts
    std::vector<double> queue_wait;  // scheduled arrival to the start of its service
    std::vector<double> service_time;  // start of service to completion
    std::vector<double> ttft;  // scheduled arrival to the first token (queries with tokens)
    std::vector<double> tpot;  // (last token - first token) / (tokens - 1) (queries with 2 tokens or more)
    std::vector<double> itl;  // every gap between two tokens of a query, pooled
    /// Queries issued more than the tolerance after their scheduled time, and the
    /// largest delay of any (ms).
    long long late_issues = 0;
    double max_issue_delay_ms = 0;
    /// Served one at a time (no query started before the one before it completed): the
    /// queries whose service started more than the tolerance after it could have (their
    /// issue, or the completion of the query before, whichever came later), and the
    /// largest such delay (ms): the serving thread was not running when a query was
    /// there for it. -1 where queries were served together (batches, slots).
    long long late_starts = -1;
    double max_start_delay_ms = 0;
    /// Queries per second issued: the queries over the time of the last issue (an
    /// arrival rate); samples per second completed: the samples over the time of the
    /// last completion (the throughput).
    double achieved_qps = 0;
    double throughput = 0;
    /// Queries that met every SLO, and their share (NaN without SLOs or queries).
    long long slo_met = 0;
    double goodput = 0;
    /// SLO metrics that no query could be judged by (ttft without tokens): each such
    /// query counts as missing its SLO.
    std::vector<std::string> unmeasured_slo_metrics;
};

/// A query's value of an SLO metric (slo_metrics): latency, ttft, its mean tpot, or its
/// largest gap between tokens for itl; empty when the query has none (no tokens).
std::optional<double> slo_metric_value(const QueryTimes& query, const std::string& metric);

LoadFigures load_figures(const std::vector<QueryTimes>& queries, double late_tolerance_ms,
                         const std::vector<Slo>& slos);

/// A distribution-free 95% interval of the `q`-th percentile (0 to 100) of `sorted`: the
/// order statistics whose ranks bound, at 95%, how many samples fall below that
/// percentile (binomial, by its normal approximation). A side is NaN where the samples
/// are too few to bound it (for p99, fewer than about 570 samples do not bound it from above).
std::pair<double, double> percentile_interval(const std::vector<double>& sorted, double q);

/// The headline percentile of a mode's latency (MLPerf LoadGen's rule): 90 for
/// single-stream, 99 for multi-stream and server; 0 for offline, judged by throughput.
double headline_percentile(LoadMode mode);

}  // namespace bench
