// The serving loop: Context::serve drives a handler with the run's load (<bench/serve.hpp>,
// <bench/load.hpp>) and records what each query went through.
#include "serve_loop.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <bench/internal/arrivals.hpp>
#include <bench/internal/load_figures.hpp>
#include <bench/internal/peak_search.hpp>
#include <bench/statistics.hpp>

namespace bench {

void Query::token() { token_times_->push_back(Clock::now()); }
long long Query::tokens() const { return static_cast<long long>(token_times_->size()); }

namespace {

using Ms = std::chrono::duration<double, std::milli>;

/// How long before a scheduled arrival the issuing thread stops sleeping and spins to
/// the exact time. A sleep on this 2-core VM overshoots by 60 us at the median and 90 us
/// at the 90th percentile, even with a timer slack of 1 ns; 200 us of spinning hides that
/// at a cost of about 140 us of CPU per arrival.
constexpr auto spin_margin = std::chrono::microseconds(200);

/// Sleeps until `deadline - spin_margin`, then spins on the clock until `deadline`:
/// on time to the microsecond without holding a core. False when `stop` was set.
bool wait_until(Clock::time_point deadline, std::mutex& mutex, std::condition_variable& wake, const bool& stop) {
    {
        std::unique_lock lock(mutex);
        if (wake.wait_until(lock, deadline - spin_margin, [&] { return stop; })) return false;
    }
    while (Clock::now() < deadline) {
    }
    return true;
}

struct LoadRun {
    const LoadConfig& load;
    LoadMode mode;
    const ServeHandler& handler;
    int samples;
    long long queries;  // at least this many
    double min_duration_s;
    std::vector<QueryTimes> times;
    Clock::time_point start;

    double ms_since_start(Clock::time_point t) const { return Ms(t - start).count(); }

    /// Serves query `index`, scheduled at `scheduled` and issued at `issued`.
    void serve_one(long long index, Clock::time_point scheduled, Clock::time_point issued) {
        std::vector<Clock::time_point> tokens;
        Query query(index, samples, &tokens);
        const auto started = Clock::now();
        handler(query);
        const auto completed = Clock::now();
        QueryTimes& t = times[static_cast<std::size_t>(index)];
        t.scheduled = ms_since_start(scheduled);
        t.issued = ms_since_start(issued);
        t.started = ms_since_start(started);
        t.completed = ms_since_start(completed);
        t.samples = samples;
        t.tokens.reserve(tokens.size());
        for (const auto token : tokens) t.tokens.push_back(ms_since_start(token));
    }

    bool more(long long issued) const {
        return issued < queries || std::chrono::duration<double>(Clock::now() - start).count() < min_duration_s;
    }

    /// single-stream, multi-stream: the next query is issued as the last one completes.
    void sequential() {
        for (long long i = 0; more(i); ++i) {
            times.emplace_back();
            const auto now = Clock::now();
            serve_one(i, now, now);
        }
    }

    /// offline: every query is there at the start, served one after another.
    void offline() {
        for (long long i = 0; more(i); ++i) {
            times.emplace_back();
            serve_one(i, start, start);
        }
    }

    /// server, closed loop: `clients` queries wait at the start; each completion issues
    /// the next query of its client, which queues behind the others.
    void closed_loop(int clients) {
        std::deque<Clock::time_point> waiting(static_cast<std::size_t>(clients), start);
        long long issued = clients;
        for (long long i = 0; !waiting.empty(); ++i) {
            const Clock::time_point scheduled = waiting.front();
            waiting.pop_front();
            times.emplace_back();
            serve_one(i, scheduled, scheduled);
            if (more(issued)) {
                waiting.push_back(Clock::now());
                ++issued;
            }
        }
    }

    /// server, open loop: the queries of a load at `rate` (--queries, or more to last
    /// --min-duration).
    std::size_t planned_queries(double rate) const {
        const auto needed = static_cast<long long>(std::ceil(min_duration_s * rate));
        return static_cast<std::size_t>(std::max(queries, needed));
    }

    /// server, open loop: the arrival times are drawn up front; a thread of their own
    /// issues them on schedule, and this thread serves them in order. With a judge
    /// (--find-peak), the load stops as soon as the judge decides the rate: the queries
    /// not served yet are dropped, and `times` keeps those served, in the order they
    /// were. Neither thread may add its own delay to the queue it measures:
    /// - the schedule's clock starts once the issuing thread runs: starting a thread took
    ///   1.6 to 2.5 ms on an idle 16-core VM, and every query due by then was issued late;
    /// - the serving thread, when it has nothing to serve, sleeps only until the next
    ///   arrival's time less `spin_margin` and then spins on the count of issued queries:
    ///   woken by a condition variable instead, it started each query 35 to 40 us after
    ///   its issue on that machine, which added 17% to the mean wait of an M/D/1 queue
    ///   at rho 0.5 (service 0.4 ms).
    RateJudge::Verdict open_loop(double rate, RateJudge* judge = nullptr) {
        const std::size_t count = planned_queries(rate);
        const std::vector<double> arrivals = arrival_times(rate, count, load.burstiness, load.seed);
        times.resize(count);
        std::vector<Clock::time_point> issued_at(count);
        std::vector<std::size_t> served_order;
        RateJudge::Verdict verdict = RateJudge::Verdict::undecided;
        std::atomic<std::size_t> issued{0};  // queries 0 .. issued-1 are issued (release/acquire on issued_at)
        std::atomic<int> phase{0};           // 1: the issuer runs; 2: `start` is set
        std::mutex mutex;
        std::condition_variable wake_issuer, wake_server;
        bool stop = false;
        auto scheduled = [&](std::size_t i) {
            return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(arrivals[i]));
        };
        std::thread issuer([&] {
#ifdef __linux__
            prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake when asked, not up to 50 us later
#endif
            phase.store(1, std::memory_order_release);
            while (phase.load(std::memory_order_acquire) != 2) {
            }
            for (std::size_t i = 0; i < count; ++i) {
                if (!wait_until(scheduled(i), mutex, wake_issuer, stop)) return;
                issued_at[i] = Clock::now();
                {
                    std::lock_guard lock(mutex);  // so that a server about to sleep sees it
                    issued.store(i + 1, std::memory_order_release);
                }
                wake_server.notify_one();
            }
        });
        while (phase.load(std::memory_order_acquire) != 1) std::this_thread::yield();
        start = Clock::now();
        phase.store(2, std::memory_order_release);
        auto stop_issuer = [&] {
            {
                std::lock_guard lock(mutex);
                stop = true;
            }
            wake_issuer.notify_all();
            issuer.join();
        };
        try {
            for (std::size_t i = 0; i < count; ++i) {
                if (issued.load(std::memory_order_acquire) <= i) {
                    {
                        std::unique_lock lock(mutex);
                        wake_server.wait_until(lock, scheduled(i) - spin_margin,
                                               [&] { return issued.load(std::memory_order_relaxed) > i; });
                    }
                    while (issued.load(std::memory_order_acquire) <= i) {
                    }
                }
                serve_one(static_cast<long long>(i), scheduled(i), issued_at[i]);
                if (judge == nullptr) continue;
                served_order.push_back(i);
                verdict = judge->add(times[i]);
                if (verdict != RateJudge::Verdict::undecided) break;
            }
        } catch (...) {
            stop_issuer();
            throw;
        }
        stop_issuer();
        if (judge != nullptr && served_order.size() < count) {
            std::vector<QueryTimes> served;
            served.reserve(served_order.size());
            for (const std::size_t i : served_order) served.push_back(std::move(times[i]));
            times = std::move(served);
        }
        return verdict;
    }
};

std::string number_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

std::string percentile_text(double percentile) {
    std::ostringstream text;  // (not "p" + ...: GCC 12 warns about it, wrongly, with -Wrestrict)
    text << 'p' << percentile;
    return text.str();
}

void record_figures(Context& ctx, const LoadRun& run, const LoadFigures& f) {
    const LoadConfig& load = run.load;
    const auto series = [&](const char* name, const std::vector<double>& values) {
        if (values.empty()) return;
        ctx.record_series(name, values, "ms");
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        // p50 to p99 are in every series' statistics; p99.9 is not.
        ctx.record_scalar(std::string(name) + "_p99_9", percentile_of_sorted(sorted, 99.9), "ms");
    };
    series("latency", f.latency);
    series("queue_wait", f.queue_wait);
    series("service_time", f.service_time);
    series("time_to_first_token", f.ttft);
    series("time_per_output_token", f.tpot);
    series("inter_token_latency", f.itl);

    const double percentile = headline_percentile(run.mode);
    if (percentile > 0) {
        std::vector<double> sorted = f.latency;
        std::sort(sorted.begin(), sorted.end());
        ctx.record_scalar("headline_latency", percentile_of_sorted(sorted, percentile), "ms");
        const auto [low, high] = percentile_interval(sorted, percentile);
        ctx.record_scalar("headline_latency_ci95_low", low, "ms");
        ctx.record_scalar("headline_latency_ci95_high", high, "ms");
        std::ostringstream headline;  // (not a chain of +: GCC 12 warns about it, wrongly, with -Wrestrict)
        headline << 'p' << percentile << " of latency (" << to_string(run.mode) << ", as MLPerf LoadGen)";
        ctx.set_info("headline_latency", headline.str());
    }
    ctx.record_scalar("queries", static_cast<double>(run.times.size()), "queries");
    ctx.record_scalar("samples_per_query", run.samples, "samples");
    ctx.record_scalar("achieved_qps", f.achieved_qps, "queries/s");
    ctx.record_scalar("throughput", f.throughput, "samples/s");
    ctx.record_scalar("late_issues", static_cast<double>(f.late_issues), "queries");
    ctx.record_scalar("max_issue_delay", f.max_issue_delay_ms, "ms");
    ctx.record_scalar("late_tolerance", load.late_tolerance_ms > 0 ? load.late_tolerance_ms : default_late_tolerance_ms, "ms");
    ctx.set_info("load", std::string(to_string(run.mode)));
    if (run.mode == LoadMode::server && load.concurrency > 0) {
        ctx.record_scalar("concurrency", load.concurrency, "clients");
        ctx.set_info("arrivals", "closed loop, " + std::to_string(load.concurrency) + " clients");
    } else if (run.mode == LoadMode::server) {
        ctx.record_scalar("target_qps", load.target_qps, "queries/s");
        ctx.set_info("arrivals", load.burstiness == 1 ? "Poisson, seed " + std::to_string(load.seed)
                                                      : "gamma, shape " + number_text(load.burstiness) + ", seed " +
                                                            std::to_string(load.seed));
    }
    if (!load.slos.empty()) {
        ctx.record_scalar("goodput", f.goodput * 100, "%");
        ctx.set_info("slo", (load.slo_percentile > 0 ? percentile_text(load.slo_percentile) + ":" : std::string()) +
                                to_string(load.slos));
        for (const std::string& metric : f.unmeasured_slo_metrics)
            ctx.add_warning("--slo bounds " + metric +
                            ", but some queries reported no tokens (Query::token): they count as missing it");
    }
    if (f.late_issues > 0)
        ctx.add_warning(std::to_string(f.late_issues) + " of " + std::to_string(run.times.size()) +
                        " queries were issued more than " + number_text(ctx.result().find_scalar("late_tolerance")->value) +
                        " ms after their scheduled time (the latest by " + number_text(f.max_issue_delay_ms) +
                        " ms): the load generator fell behind its schedule; their latencies count from the schedule");
}


/// --find-peak: the search (peak_search.hpp), each rate a server load of its own served
/// to the end or until its verdict is certain; then the figures of the peak rate (or,
/// when no rate passed, of the last one tried) are recorded as a server load's.
PeakSearch find_peak(Context& ctx, const LoadConfig& load, const ServeHandler& handler, double first_qps,
                     long long& served_queries) {
    const ScenarioConfig& config = ctx.config();
    const double percentile = load.slo_percentile > 0 ? load.slo_percentile : headline_percentile(LoadMode::server);
    const double tolerance = load.late_tolerance_ms > 0 ? load.late_tolerance_ms : default_late_tolerance_ms;
    const long long queries = load.queries > 0 ? load.queries : default_queries;
    std::vector<QueryTimes> kept;  // the queries of the highest rate that passed, or of the last one tried
    double kept_rate = 0;
    bool kept_passed = false;

    PeakSearchSettings settings;
    settings.start_qps = first_qps;
    settings.precision = load.peak_precision > 0 ? load.peak_precision : default_peak_precision;
    settings.percentile = percentile;
    const PeakSearch search = search_peak(settings, [&](double rate, const std::string& phase) {
        LoadRun run{load, LoadMode::server, handler, 1, queries, load.min_duration_s, {}, {}};
        const auto planned = static_cast<long long>(run.planned_queries(rate));
        RateJudge judge(load.slos, percentile, planned);
        run.start = Clock::now();
        const RateJudge::Verdict verdict = run.open_loop(rate, &judge);
        served_queries += static_cast<long long>(run.times.size());
        PeakStep step = peak_step(run.times, load.slos, percentile, tolerance, rate, planned, verdict, judge.why());
        step.phase = phase;
        // A bound on tokens that no query reported cannot be judged at any rate.
        const bool tokens = std::any_of(run.times.begin(), run.times.end(),
                                        [](const QueryTimes& q) { return !q.tokens.empty(); });
        for (const Slo& slo : load.slos)
            if (slo.metric != "latency" && !tokens) ctx.skip(peak_unjudged_reason(config, slo.metric));
        ctx.log().info("--find-peak: {} {:.4g} queries/s: {} ({} of {} queries{})", phase, rate,
                       step.passed ? "passed" : "failed", step.queries, step.planned,
                       step.stopped_early.empty() ? "" : ", " + step.stopped_early);
        if (step.passed ? (!kept_passed || rate > kept_rate) : !kept_passed) {
            kept = std::move(run.times);
            kept_rate = rate;
            kept_passed = step.passed;
        }
        return step;
    });

    LoadConfig at = load;
    at.target_qps = kept_rate;
    LoadRun figures{at, LoadMode::server, handler, 1, queries, load.min_duration_s, std::move(kept), {}};
    record_figures(ctx, figures, load_figures(figures.times, tolerance, load.slos));
    std::string bounds;
    for (const Slo& slo : load.slos)
        bounds += (bounds.empty() ? "" : ", ") + percentile_text(percentile) + " of " + slo.metric + " <= " +
                  number_text(slo.limit_ms) + " ms";
    ctx.set_info("find_peak", bounds + "; " + std::to_string(search.steps.size()) + " rates tried, to within " +
                                  number_text(search.precision * 100) + "%");
    ctx.record_scalar("peak_search_rates", static_cast<double>(search.steps.size()), "rates");
    if (!std::isnan(search.peak_qps)) ctx.record_scalar("peak_qps", search.peak_qps, "queries/s");
    if (search.end == peak_end_no_pass)
        ctx.add_warning("--find-peak: no rate met the SLO (" + bounds + "), down to " + number_text(kept_rate) +
                        " queries/s: the figures are that rate's");
    else if (search.end == peak_end_no_fail)
        ctx.add_warning("--find-peak: every rate met the SLO, up to " + number_text(search.peak_qps) +
                        " queries/s: the peak is at least that");
    else if (search.end == peak_end_steps)
        ctx.add_warning("--find-peak: the search stopped after " + std::to_string(search.steps.size()) +
                        " rates, before the lowest rate that failed came within " +
                        number_text(search.precision * 100) + "% of the peak");
    return search;
}

}  // namespace

namespace detail {

std::optional<PeakSearch> run_load(Context& ctx, const ServeHandler& handler) {
    if (!handler) throw std::invalid_argument("Context::serve: the handler is empty");
    const ScenarioConfig& config = ctx.config();
    const LoadConfig& load = config.load;
    const LoadMode mode = load.mode == LoadMode::none ? LoadMode::single_stream : load.mode;
    if (load.find_peak && (mode != LoadMode::server || load.slos.empty()))
        throw std::invalid_argument("--find-peak needs --load server and --slo");
    if (mode == LoadMode::server && !load.find_peak && load.concurrency <= 0 && !(load.target_qps > 0))
        throw std::invalid_argument("--load server needs --target-qps above 0 or --concurrency");
    const int samples =
        mode == LoadMode::multi_stream ? (load.samples_per_query > 0 ? load.samples_per_query : default_samples_per_query) : 1;
    LoadRun run{load, mode, handler, samples, load.queries > 0 ? load.queries : default_queries, load.min_duration_s, {}, {}};

    // Warmup: queries served one after another, not recorded. The fastest sets the
    // first rate of --find-peak (half of what one query at a time allows), for which
    // one query is served even without warmup.
    const int warmup = std::max(config.warmup_iterations, load.find_peak ? 1 : 0);
    double fastest_s = std::numeric_limits<double>::infinity();
    for (int i = 0; i < warmup; ++i) {
        std::vector<Clock::time_point> tokens;
        Query query(i, samples, &tokens);
        const auto started = Clock::now();
        handler(query);
        fastest_s = std::min(fastest_s, std::chrono::duration<double>(Clock::now() - started).count());
    }
    if (load.find_peak) {
        // A handler that takes no time would make the first rate infinite: at most a
        // million queries/s, which the issuing thread cannot keep up with anyway.
        const double first_qps = 0.5 / std::max(fastest_s, 0.5e-6);
        long long served = 0;
        std::optional<PeakSearch> search;
        {
            MeasurementScope measuring(ctx);
            search = find_peak(ctx, load, handler, first_qps, served);
            measuring.set_iterations(served);
        }
        return search;
    }
    {
        MeasurementScope measuring(ctx);
        run.start = Clock::now();
        if (mode == LoadMode::offline) run.offline();
        else if (mode == LoadMode::server && load.concurrency > 0) run.closed_loop(load.concurrency);
        else if (mode == LoadMode::server) run.open_loop(load.target_qps);
        else run.sequential();
        measuring.set_iterations(static_cast<long long>(run.times.size()));
    }
    const double tolerance = load.late_tolerance_ms > 0 ? load.late_tolerance_ms : default_late_tolerance_ms;
    record_figures(ctx, run, load_figures(run.times, tolerance, load.slos));
    return std::nullopt;
}

}  // namespace detail

}  // namespace bench
