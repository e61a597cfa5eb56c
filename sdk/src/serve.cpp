// The serving loop: Context::serve drives a handler with the run's load (<bench/serve.hpp>,
// <bench/load.hpp>) and records what each query went through.
#include "serve_loop.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <bench/internal/load/arrivals.hpp>
#include <bench/internal/load/load_figures.hpp>
#include <bench/internal/load/peak_search.hpp>
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
    while (Clock::now() < deadline) {}
    return true;
}

/// How the handler takes its queries: one at a time (Context::serve: a batch handler of
/// at most one), in batches, or in steps of a continuous batch.
struct Engine {
    enum class Kind { batches, steps };
    Kind kind = Kind::batches;
    BatchHandler batch;  // Kind::batches
    StepHandler step;  // Kind::steps
    std::size_t max_batch = 1;
    Clock::duration max_wait{};  // batches: how long a batch that is not full waits for more
    bool batching = false;  // serve_batches or serve_steps: record the batch sizes
};

/// A query issued and not yet taken by the handler.
struct Waiting {
    std::size_t index;
    Clock::time_point scheduled, issued;
};

/// The queries the load generator issued, waiting for the handler. Pushed by the
/// serving thread (queries issued as others complete) or by the issuing thread (server,
/// open loop), taken by the serving thread.
class WaitingQueue {
public:
    /// The open loop's schedule: the n-th query pushed (from 0, of `count`) is due at
    /// `due(n)`. A taker that finds the queue empty then sleeps only until `spin_margin`
    /// before the next one is due and spins on the count pushed from there: woken by the
    /// condition variable instead, it started each query 35 to 40 us after its issue on
    /// an idle 16-core VM, which added 17% to the mean wait of an M/D/1 queue at rho 0.5
    /// (service 0.4 ms).
    void set_schedule(std::size_t count, std::function<Clock::time_point(std::size_t)> due) {
        scheduled_ = count;
        due_ = std::move(due);
    }
    void push(const Waiting& waiting) {
        {
            std::lock_guard lock(mutex_);  // so that a taker about to sleep sees it
            queue_.push_back(waiting);
            pushed_.store(pushed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        }
        ready_.notify_one();
    }
    /// The issuing thread will issue no more.
    void close() {
        {
            std::lock_guard lock(mutex_);
            closed_.store(true, std::memory_order_release);
        }
        ready_.notify_all();
    }
    /// Up to `max` waiting queries, oldest first. With `block`, waits until one is
    /// waiting (or the queue is closed and empty: none). While `arrivals` (the issuing
    /// thread may issue more), a batch that is not full waits until `max` are waiting
    /// or until `wait` after its first query was issued.
    std::vector<Waiting> take(std::size_t max, bool block, bool arrivals, Clock::duration wait) {
        std::unique_lock lock(mutex_);
        const auto ready = [&] { return !queue_.empty() || closed_.load(std::memory_order_relaxed); };
        if (block && !ready() && pushed_.load(std::memory_order_relaxed) < scheduled_) {
            const std::size_t next = pushed_.load(std::memory_order_relaxed);
            ready_.wait_until(lock, due_(next) - spin_margin, ready);
            if (!ready()) {
                lock.unlock();
                while (pushed_.load(std::memory_order_acquire) == next && !closed_.load(std::memory_order_acquire)) {}
                lock.lock();
            }
        }
        if (block) ready_.wait(lock, ready);
        if (queue_.empty()) return {};
        if (arrivals && wait > Clock::duration::zero() && queue_.size() < max) {
            const Clock::time_point deadline = queue_.front().issued + wait;
            ready_.wait_until(lock, deadline, [&] { return queue_.size() >= max || closed_; });
        }
        std::vector<Waiting> taken;
        while (!queue_.empty() && taken.size() < max) {
            taken.push_back(queue_.front());
            queue_.pop_front();
        }
        return taken;
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Waiting> queue_;
    std::atomic<std::size_t> pushed_{0};
    std::atomic<bool> closed_{false};
    std::size_t scheduled_ = 0;  // set_schedule
    std::function<Clock::time_point(std::size_t)> due_;
};

}  // namespace

/// What only the serving loop changes in a Query: the steps it has been in.
struct QueryProgress {
    static void step_done(Query& query) { ++query.steps_; }
};

namespace {

struct LoadRun {
    const LoadConfig& load;
    LoadMode mode;
    const Engine& engine;
    int samples;
    long long queries;  // at least this many
    double min_duration_s;
    std::vector<QueryTimes> times;  // by index; with a judge that stopped early, those served
    Clock::time_point start;
    std::vector<double> batch_sizes;  // queries per batch or step, in order

    double ms_since_start(Clock::time_point t) const { return Ms(t - start).count(); }

    bool more(long long issued) const {
        return issued < queries || std::chrono::duration<double>(Clock::now() - start).count() < min_duration_s;
    }

    /// server, open loop: the queries of a load at `rate` (--queries, or more to last
    /// --min-duration).
    std::size_t planned_queries(double rate) const {
        const auto needed = static_cast<long long>(std::ceil(min_duration_s * rate));
        return static_cast<std::size_t>(std::max(queries, needed));
    }

    /// A query in service: what the handler sees, and when it started.
    struct InService {
        Waiting waiting;
        std::vector<Clock::time_point> tokens;
        Query query;
        Clock::time_point started;
        InService(const Waiting& w, int samples, int slot, Clock::time_point start)
            : waiting(w), query(static_cast<long long>(w.index), samples, &tokens, slot), started(start) {}
    };

    void record(const InService& s, Clock::time_point completed) {
        if (times.size() <= s.waiting.index) times.resize(s.waiting.index + 1);
        QueryTimes& t = times[s.waiting.index];
        t.scheduled = ms_since_start(s.waiting.scheduled);
        t.issued = ms_since_start(s.waiting.issued);
        t.started = ms_since_start(s.started);
        t.completed = ms_since_start(completed);
        t.samples = samples;
        t.tokens.reserve(s.tokens.size());
        for (const auto token : s.tokens) t.tokens.push_back(ms_since_start(token));
    }

    /// Serves what `queue` holds until `done()` says every query was issued and none is
    /// waiting or in service. After each query completes, `completed(index)` (which may
    /// issue more: push them) and, with a judge, its verdict: once decided, the rest is
    /// dropped (`served` lists the queries served, in order).
    RateJudge::Verdict serve_queue(WaitingQueue& queue, const std::function<bool()>& arrivals,
                                   const std::function<bool()>& done, const std::function<void(std::size_t)>& completed,
                                   RateJudge* judge, std::vector<std::size_t>& served) {
        RateJudge::Verdict verdict = RateJudge::Verdict::undecided;
        const auto complete = [&](const InService& s, Clock::time_point at) {
            record(s, at);
            served.push_back(s.waiting.index);
            completed(s.waiting.index);
            if (judge != nullptr && verdict == RateJudge::Verdict::undecided)
                verdict = judge->add(times[s.waiting.index]);
        };
        if (engine.kind == Engine::Kind::batches) {
            while (verdict == RateJudge::Verdict::undecided) {
                const std::vector<Waiting> taken = queue.take(engine.max_batch, true, arrivals(), engine.max_wait);
                if (taken.empty()) break;  // closed and empty
                const auto started = Clock::now();
                std::vector<std::unique_ptr<InService>> batch;
                std::vector<Query*> handed;
                for (const Waiting& w : taken) {
                    batch.push_back(std::make_unique<InService>(w, samples, static_cast<int>(batch.size()), started));
                    handed.push_back(&batch.back()->query);
                }
                engine.batch(QueryBatch(handed));
                const auto finished = Clock::now();
                if (engine.batching) batch_sizes.push_back(static_cast<double>(batch.size()));
                for (const auto& s : batch) complete(*s, finished);
                if (done()) break;
            }
            return verdict;
        }
        // Continuous batching: the active queries, each in a slot; new ones join at the
        // next step with a free slot.
        std::vector<std::unique_ptr<InService>> active;
        std::vector<int> free_slots;
        for (int slot = static_cast<int>(engine.max_batch) - 1; slot >= 0; --slot) free_slots.push_back(slot);
        while (verdict == RateJudge::Verdict::undecided) {
            if (!free_slots.empty()) {
                const auto joined = Clock::now();
                for (const Waiting& w : queue.take(free_slots.size(), active.empty(), false, {})) {
                    active.push_back(std::make_unique<InService>(w, samples, free_slots.back(), joined));
                    free_slots.pop_back();
                }
            }
            if (active.empty()) break;  // closed and empty
            std::vector<Query*> handed;
            for (const auto& s : active) handed.push_back(&s->query);
            engine.step(QueryBatch(handed));
            const auto stepped = Clock::now();
            batch_sizes.push_back(static_cast<double>(active.size()));
            std::vector<std::unique_ptr<InService>> left;
            for (auto& s : active) {
                QueryProgress::step_done(s->query);
                if (!s->query.finished()) {
                    left.push_back(std::move(s));
                    continue;
                }
                free_slots.push_back(s->query.slot());
                complete(*s, stepped);
            }
            active = std::move(left);
            if (active.empty() && done()) break;
        }
        return verdict;
    }

    /// The loads whose queries are issued as others complete: `initial` wait at the
    /// start, and each completion issues one more while more are wanted, at the start
    /// (`at_start`: offline, every query counts as there from the start) or then.
    void issue_on_completion(long long initial, bool at_start) {
        WaitingQueue queue;
        long long issued = 0;
        const auto issue = [&](Clock::time_point at) { queue.push({static_cast<std::size_t>(issued++), at, at}); };
        while (issued < initial) issue(start);
        std::vector<std::size_t> served;
        serve_queue(
            queue, [] { return false; },
            [&] { return !more(issued) && served.size() == static_cast<std::size_t>(issued); },
            [&](std::size_t) {
                if (more(issued)) issue(at_start ? start : Clock::now());
            },
            nullptr, served);
    }

    /// single-stream, multi-stream: the next query is issued as the last one completes.
    void sequential() { issue_on_completion(1, false); }

    /// offline: every query is there at the start (with --min-duration, more are added,
    /// as there at the start too, while it has not passed).
    void offline() { issue_on_completion(queries, true); }

    /// server, closed loop: `clients` queries wait at the start; each completion issues
    /// the next query of its client, which queues behind the others.
    void closed_loop(int clients) { issue_on_completion(clients, false); }

    /// server, open loop: the arrival times are drawn up front; a thread of their own
    /// issues them on schedule into the queue, and this thread serves it. With a judge
    /// (--find-peak), the load stops as soon as the judge decides the rate: the queries
    /// not served yet are dropped, and `times` keeps those served, in the order they
    /// were. Neither thread may add its own delay to the queue it measures:
    /// - the schedule's clock starts once the issuing thread runs: starting a thread took
    ///   1.6 to 2.5 ms on an idle 16-core VM, and every query due by then was issued late;
    /// - the serving thread, when it has nothing to serve, sleeps only until the next
    ///   arrival's time less `spin_margin` and then spins (WaitingQueue::set_schedule).
    RateJudge::Verdict open_loop(double rate, RateJudge* judge = nullptr) {
        const std::size_t count = planned_queries(rate);
        const std::vector<double> arrivals = arrival_times(rate, count, load.burstiness, load.seed);
        times.resize(count);
        WaitingQueue queue;
        std::atomic<int> phase{0};  // 1: the issuer runs; 2: `start` is set
        std::mutex mutex;
        std::condition_variable wake_issuer;
        bool stop = false;
        std::atomic<bool> issuing{true};
        auto scheduled = [&](std::size_t i) {
            return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(arrivals[i]));
        };
        queue.set_schedule(count, scheduled);
        std::thread issuer([&] {
#ifdef __linux__
            prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake when asked, not up to 50 us later
#endif
            phase.store(1, std::memory_order_release);
            while (phase.load(std::memory_order_acquire) != 2) {}
            for (std::size_t i = 0; i < count; ++i) {
                if (!wait_until(scheduled(i), mutex, wake_issuer, stop)) break;
                queue.push({i, scheduled(i), Clock::now()});
            }
            issuing = false;
            queue.close();
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
        std::vector<std::size_t> served;
        RateJudge::Verdict verdict = RateJudge::Verdict::undecided;
        try {
            verdict = serve_queue(
                queue, [&] { return issuing.load(); }, [&] { return served.size() == count; }, [](std::size_t) {},
                judge, served);
        } catch (...) {
            stop_issuer();
            throw;
        }
        stop_issuer();
        if (served.size() < count) {
            std::vector<QueryTimes> kept;
            kept.reserve(served.size());
            for (const std::size_t i : served) kept.push_back(std::move(times[i]));
            times = std::move(kept);
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
    ctx.record_scalar("late_tolerance", load.late_tolerance_ms > 0 ? load.late_tolerance_ms : default_late_tolerance_ms,
                      "ms");
    if (f.late_starts >= 0) {
        ctx.record_scalar("late_starts", static_cast<double>(f.late_starts), "queries");
        ctx.record_scalar("max_start_delay", f.max_start_delay_ms, "ms");
    }
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
    if (run.engine.batching) {
        // The batches' sizes: a series of its own, not one of milliseconds.
        if (!run.batch_sizes.empty()) ctx.record_series("queries_per_batch", run.batch_sizes, "queries");
        ctx.record_scalar("max_batch", static_cast<double>(run.engine.max_batch), "queries");
        const double wait_ms = Ms(run.engine.max_wait).count();
        ctx.set_info("batching", run.engine.kind == Engine::Kind::steps
                                     ? "continuous, up to " + std::to_string(run.engine.max_batch) + " queries a step"
                                     : "dynamic, up to " + std::to_string(run.engine.max_batch) + " queries a batch" +
                                           (wait_ms > 0 ? ", waiting up to " + number_text(wait_ms) +
                                                              " ms for more while arrivals may come"
                                                        : ""));
    }
    if (f.late_issues > 0)
        ctx.add_warning(std::to_string(f.late_issues) + " of " + std::to_string(run.times.size()) +
                        " queries were issued more than " +
                        number_text(ctx.result().find_scalar("late_tolerance")->value) +
                        " ms after their scheduled time (the latest by " + number_text(f.max_issue_delay_ms) +
                        " ms): the load generator fell behind its schedule; their latencies count from the schedule");
    if (f.late_starts > 0)
        ctx.add_warning(std::to_string(f.late_starts) + " of " + std::to_string(run.times.size()) +
                        " queries started more than " + number_text(ctx.result().find_scalar("late_tolerance")->value) +
                        " ms after the handler could have taken them (the latest by " +
                        number_text(f.max_start_delay_ms) +
                        " ms): the serving thread was not running then, and their waits include that");
}

/// --find-peak: the search (peak_search.hpp), each rate a server load of its own served
/// to the end or until its verdict is certain; then the figures of the peak rate (or,
/// when no rate passed, of the last one tried) are recorded as a server load's.
PeakSearch find_peak(Context& ctx, const LoadConfig& load, const Engine& engine, double first_qps,
                     long long& served_queries) {
    const ScenarioConfig& config = ctx.config();
    const double percentile = load.slo_percentile > 0 ? load.slo_percentile : headline_percentile(LoadMode::server);
    const double tolerance = load.late_tolerance_ms > 0 ? load.late_tolerance_ms : default_late_tolerance_ms;
    const long long queries = load.queries > 0 ? load.queries : default_queries;
    std::vector<QueryTimes> kept;  // the queries of the highest rate that passed, or of the last one tried
    std::vector<double> kept_batches;
    double kept_rate = 0;
    bool kept_passed = false;

    PeakSearchSettings settings;
    settings.start_qps = first_qps;
    settings.precision = load.peak_precision > 0 ? load.peak_precision : default_peak_precision;
    settings.percentile = percentile;
    const PeakSearch search = search_peak(settings, [&](double rate, const std::string& phase) {
        LoadRun run{load, LoadMode::server, engine, 1, queries, load.min_duration_s, {}, {}, {}};
        const auto planned = static_cast<long long>(run.planned_queries(rate));
        RateJudge judge(load.slos, percentile, planned);
        run.start = Clock::now();
        const RateJudge::Verdict verdict = run.open_loop(rate, &judge);
        served_queries += static_cast<long long>(run.times.size());
        PeakStep step = peak_step(run.times, load.slos, percentile, tolerance, rate, planned, verdict, judge.why());
        step.phase = phase;
        // A bound on tokens that no query reported cannot be judged at any rate.
        const bool tokens =
            std::any_of(run.times.begin(), run.times.end(), [](const QueryTimes& q) { return !q.tokens.empty(); });
        for (const Slo& slo : load.slos)
            if (slo.metric != "latency" && !tokens) ctx.skip(peak_unjudged_reason(config, slo.metric));
        ctx.log().info("--find-peak: {} {:.4g} queries/s: {} ({} of {} queries{})", phase, rate,
                       step.passed ? "passed" : "failed", step.queries, step.planned,
                       step.stopped_early.empty() ? "" : ", " + step.stopped_early);
        if (step.passed ? (!kept_passed || rate > kept_rate) : !kept_passed) {
            kept = std::move(run.times);
            kept_batches = std::move(run.batch_sizes);
            kept_rate = rate;
            kept_passed = step.passed;
        }
        return step;
    });

    LoadConfig at = load;
    at.target_qps = kept_rate;
    LoadRun figures{at, LoadMode::server,       engine, 1, queries, load.min_duration_s, std::move(kept),
                    {}, std::move(kept_batches)};
    record_figures(ctx, figures, load_figures(figures.times, tolerance, load.slos));
    std::string bounds;
    for (const Slo& slo : load.slos)
        bounds += (bounds.empty() ? "" : ", ") + percentile_text(percentile) + " of " + slo.metric +
                  " <= " + number_text(slo.limit_ms) + " ms";
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

/// Serves with `engine` under the run's load: the warmup, then the load (or the peak
/// search), then the figures.
std::optional<PeakSearch> serve_with(Context& ctx, const Engine& engine) {
    const ScenarioConfig& config = ctx.config();
    const LoadConfig& load = config.load;
    const LoadMode mode = load.mode == LoadMode::none ? LoadMode::single_stream : load.mode;
    if (load.find_peak && (mode != LoadMode::server || load.slos.empty()))
        throw std::invalid_argument("--find-peak needs --load server and --slo");
    if (mode == LoadMode::server && !load.find_peak && load.concurrency <= 0 && !(load.target_qps > 0))
        throw std::invalid_argument("--load server needs --target-qps above 0 or --concurrency");
    const int samples = mode == LoadMode::multi_stream
                            ? (load.samples_per_query > 0 ? load.samples_per_query : default_samples_per_query)
                            : 1;
    LoadRun run{load, mode, engine, samples, load.queries > 0 ? load.queries : default_queries, load.min_duration_s,
                {},   {},   {}};

    // Warmup: queries served one after another, alone, not recorded. The fastest sets the
    // first rate of --find-peak (half of what one query at a time allows), for which
    // one query is served even without warmup.
    const int warmup = std::max(config.warmup_iterations, load.find_peak ? 1 : 0);
    double fastest_s = std::numeric_limits<double>::infinity();
    for (int i = 0; i < warmup; ++i) {
        std::vector<Clock::time_point> tokens;
        Query query(i, samples, &tokens);
        Query* alone[] = {&query};
        const auto started = Clock::now();
        if (engine.kind == Engine::Kind::batches) {
            engine.batch(QueryBatch(alone));
        } else {
            for (long long step = 0; !query.finished(); ++step) {
                if (step == 1'000'000)
                    throw std::runtime_error(
                        "Context::serve_steps: a warmup query was not finished after a million "
                        "steps: the handler must call Query::finish() on every query");
                engine.step(QueryBatch(alone));
                QueryProgress::step_done(query);
            }
        }
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
            search = find_peak(ctx, load, engine, first_qps, served);
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

/// The batching options of the run: --max-batch (1 without it), --max-batch-wait.
Engine batching_engine(const LoadConfig& load, Engine::Kind kind) {
    Engine engine;
    engine.kind = kind;
    engine.batching = true;
    engine.max_batch = static_cast<std::size_t>(std::max(load.max_batch, 1));
    engine.max_wait = std::chrono::duration_cast<Clock::duration>(Ms(load.max_batch_wait_ms));
    return engine;
}

}  // namespace

namespace detail {

std::optional<PeakSearch> run_load(Context& ctx, const ServeHandler& handler) {
    if (!handler) throw std::invalid_argument("Context::serve: the handler is empty");
    if (ctx.config().load.max_batch > 1)
        ctx.add_warning("--max-batch " + std::to_string(ctx.config().load.max_batch) +
                        ": this benchmark serves one query at a time (Context::serve), so it does not batch");
    Engine engine;
    engine.batch = [&handler](QueryBatch batch) { handler(*batch.front()); };
    return serve_with(ctx, engine);
}

std::optional<PeakSearch> run_batches(Context& ctx, const BatchHandler& handler) {
    if (!handler) throw std::invalid_argument("Context::serve_batches: the handler is empty");
    Engine engine = batching_engine(ctx.config().load, Engine::Kind::batches);
    engine.batch = handler;
    return serve_with(ctx, engine);
}

std::optional<PeakSearch> run_steps(Context& ctx, const StepHandler& handler) {
    if (!handler) throw std::invalid_argument("Context::serve_steps: the handler is empty");
    if (ctx.config().load.max_batch_wait_ms > 0)
        ctx.add_warning("--max-batch-wait " + number_text(ctx.config().load.max_batch_wait_ms) +
                        " ms: this benchmark batches continuously (Context::serve_steps), where a query joins at the "
                        "next step, so it does not wait");
    Engine engine = batching_engine(ctx.config().load, Engine::Kind::steps);
    engine.step = handler;
    return serve_with(ctx, engine);
}

}  // namespace detail

}  // namespace bench
