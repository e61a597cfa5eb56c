// The load a serving benchmark runs under: the mode (--load), how many queries, the
// arrival process and the service-level objectives (--slo), or the search for the
// highest rate that meets them (--find-peak, ABI 2.4). It is part of the scenario's
// configuration (ScenarioConfig::load, ABI 2.3); bench::Context::serve reads it
// (<bench/serve.hpp>; docs/serving.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/export.hpp>

namespace bench {

/// How queries reach a serving benchmark's handler (MLPerf LoadGen's scenarios).
enum class LoadMode {
    none,  // no --load: a benchmark that serves runs single-stream
    single_stream,  // one query after another; headline: p90 of the latency
    multi_stream,  // one query of N samples after another; headline: p99
    server,  // arrivals at a target rate (or closed-loop clients), queued; headline: p99
    offline,  // every query at once; headline: the throughput
};

BENCH_EXPORT std::string_view to_string(LoadMode mode);
/// "single-stream", "multi-stream", "server", "offline"; empty for anything else.
BENCH_EXPORT std::optional<LoadMode> parse_load_mode(std::string_view text);

/// A service-level objective: a per-query figure and the bound it must stay within.
/// `metric` is one of slo_metrics.
struct Slo {
    std::string metric;
    double limit_ms = 0;

    friend bool operator==(const Slo&, const Slo&) = default;
};

/// The figures an SLO may bound: latency (arrival to completion), ttft (arrival to the
/// first token), tpot (the query's mean time per output token after the first), itl
/// (each gap between two tokens of the query).
inline constexpr std::string_view slo_metrics[] = {"latency", "ttft", "tpot", "itl"};

/// "200ms", "1.5s", "250us": the duration in ms. Empty without a unit, for a number
/// that is not finite or below 0, or for an unknown unit.
BENCH_EXPORT std::optional<double> parse_duration_ms(std::string_view text);

/// "latency=200ms" or "ttft=500ms,tpot=50ms". Throws std::invalid_argument saying what
/// is wrong (an unknown metric, a bound without a unit, a metric given twice).
BENCH_EXPORT std::vector<Slo> parse_slos(std::string_view text);
/// The text parse_slos reads back: "ttft=500ms,tpot=50ms".
BENCH_EXPORT std::string to_string(const std::vector<Slo>& slos);

/// "p99", "p95", "p99.9": the percentile, above 0 and below 100; empty for anything
/// else (ABI 2.4).
BENCH_EXPORT std::optional<double> parse_percentile(std::string_view text);

struct LoadConfig {
    LoadMode mode = LoadMode::none;
    /// Queries to issue; 0: default_queries. With min_duration_s, the run issues at
    /// least this many and goes on until that much time has passed.
    long long queries = 0;
    double min_duration_s = 0;
    /// Samples per query in multi-stream; 0: default_samples_per_query.
    int samples_per_query = 0;
    /// Server, open loop: the arrival rate, queries/s (0: not set).
    double target_qps = 0;
    /// Server, open loop: the shape of the gamma distribution of the gaps between
    /// arrivals (1: exponential gaps, a Poisson process; below 1: burstier).
    double burstiness = 1;
    /// Server, closed loop: this many clients, each issuing its next query as its last
    /// one completes (0: open loop at target_qps).
    int concurrency = 0;
    /// A query issued more than this after its scheduled time counts as late; 0:
    /// default_late_tolerance_ms.
    double late_tolerance_ms = 0;
    /// Seed of the arrival times.
    std::uint64_t seed = 1;
    std::vector<Slo> slos;

    // (Added in ABI 2.4, after the members older plugins know.)
    /// Server: search the highest target_qps whose percentile (slo_percentile) of each
    /// bounded metric meets its SLO, as MLPerf LoadGen's FindPeakPerformance
    /// (--find-peak; the search is ScenarioResult::peak_search).
    bool find_peak = false;
    /// With find_peak: the search ends when the lowest rate that failed is within this
    /// fraction of the highest that passed; 0: default_peak_precision.
    double peak_precision = 0;
    /// The percentile of each bounded metric that must meet its bound, 0 to 100
    /// exclusive (--slo p95:...); 0: the mode's headline percentile (99 in server).
    double slo_percentile = 0;

    // (Added in ABI 2.6, after the members older plugins know.)
    /// Context::serve_batches and serve_steps: the most queries in a batch or a step
    /// (--max-batch); 0: 1, no batching.
    int max_batch = 0;
    /// Context::serve_batches: how long a batch that is not full waits for more queries
    /// after its first was issued, while arrivals may still come (--max-batch-wait); 0:
    /// it does not wait.
    double max_batch_wait_ms = 0;

    friend bool operator==(const LoadConfig&, const LoadConfig&) = default;
};

inline constexpr long long default_queries = 200;
inline constexpr double default_peak_precision = 0.05;
inline constexpr int default_samples_per_query = 8;
inline constexpr double default_late_tolerance_ms = 1.0;

}  // namespace bench
