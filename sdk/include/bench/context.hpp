// bench::Context: what a benchmark entry point receives. It carries the scenario's
// configuration and a logger, and collects what the benchmark measures.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/logger.h>

#include <bench/config.hpp>
#include <bench/device_timer.hpp>
#include <bench/export.hpp>
#include <bench/measurement_window.hpp>
#include <bench/profile.hpp>
#include <bench/ranks.hpp>
#include <bench/result.hpp>
#include <bench/serve.hpp>
#include <bench/timer.hpp>

namespace bench {

/// Thrown by Context::skip; the host records the scenario as skipped.
class BENCH_EXPORT SkipScenario : public std::exception {
public:
    explicit SkipScenario(std::string reason) : reason_(std::move(reason)) {}
    const char* what() const noexcept override { return reason_.c_str(); }

private:
    std::string reason_;
};

class BENCH_EXPORT Context {
public:
    Context(ScenarioConfig config, std::shared_ptr<spdlog::logger> logger);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const ScenarioConfig& config() const;
    const Params& params() const { return config().params; }
    spdlog::logger& log() const;

    /// Timing options from the config: its warmup and measurement iterations and its
    /// time rule (--min-time, --max-time, --target-ci-width).
    TimingOptions timing_options() const;

    /// Times `fn` (see time_callable) and records the samples, in ms, as series `name`.
    /// In a distributed scenario (config.world_size > 0) every rank times it alike
    /// (measure_on_ranks): a barrier of the ranks before each sample, outside the timed
    /// region, one call a sample, --measurement-iterations samples on every rank.
    template <class Fn>
    Series measure(std::string_view name, Fn&& fn) {
        return measure(name, std::forward<Fn>(fn), timing_options());
    }
    /// With --cache cold, the CPU's caches are flushed before each sample (one call a
    /// sample; bench::flush_cpu_cache), outside the timed region.
    template <class Fn>
    Series measure(std::string_view name, Fn&& fn, const TimingOptions& options) {
        if (config().world_size > 0) return measure_on_ranks(name, fn, options);
        before_timing();
        if (config().cache == "cold") return record_timed(name, time_callable(fn, options, [] { flush_cpu_cache(); }));
        return record_timed(name, time_callable(fn, options));
    }

    /// Times `fn`, which queues work on a CUDA device (ABI 2.10), as --timer says: by
    /// the device's clock, CUDA events around each sample on `stream` (nullptr: the
    /// legacy default stream), recorded as series `name`, with the host's clock (the
    /// call and the wait for the device) as `name` + "_host"; or by the host's clock
    /// around each call and cudaDeviceSynchronize, as series `name`. `device` is the
    /// CUDA device's index (-1: the current one). --timer auto (the default) uses the
    /// events when the CUDA runtime has a device, else the host's clock; --timer
    /// cuda-events without a device fails the scenario, saying why. With --cache cold
    /// the device's L2 is flushed before each sample (without a device, the CPU's
    /// caches). Records info "timer": what timed it, and why when it fell back. In a
    /// distributed scenario (config.world_size > 0) every rank times it alike, by the host's
    /// clock with a synchronization of the device after each call (measure_on_ranks).
    template <class Fn>
    Series measure_device(std::string_view name, Fn&& fn, int device = -1, void* stream = nullptr) {
        if (config().world_size > 0) return measure_on_ranks(name, fn, timing_options(), cuda_device(device), stream);
        before_timing();
        const TimingOptions options = timing_options();
        const bool cold = config().cache == "cold";
        if (CudaDevice* events = event_timer(device)) {
            DeviceTimedSamples timed = time_on_device(fn, options, *events, cold, stream);
            // The same samples by the host's clock: the same ends, so that the GPU's state
            // per sample (and --discard-throttled) applies to both series alike.
            record_sample_ends(std::string(name) + "_host", timed.device.sample_ends);
            record_series(std::string(name) + "_host", std::move(timed.host_ms), "ms", timed.device.inner_iterations);
            return record_timed(name, std::move(timed.device));
        }
        CudaDevice* cuda = cuda_device(device);
        const auto call = [&] {
            fn();
            if (cuda != nullptr) cuda->synchronize();
        };
        if (cold && cuda != nullptr)
            return record_timed(name, time_callable(call, options, [&] {
                                    cuda->flush_l2(stream);
                                    cuda->synchronize();
                                }));
        if (cold) return record_timed(name, time_callable(call, options, [] { flush_cpu_cache(); }));
        return record_timed(name, time_callable(call, options));
    }

    /// Times the CUDA work `launch(stream)` queues as one CUDA graph, for a call bound by
    /// its launches (many short kernels) as CUDA graphs run it (ABI 2.11). `launch` is
    /// called twice, before anything is timed: once to warm up, once under capture on a
    /// stream of the SDK's (CudaDevice::capture_graph says what it may not do); each
    /// timed call then launches the graph on that stream, timed as measure_device times
    /// (--timer, --cache), into series `name` (and `name` + "_host"). Info "cuda_graph"
    /// says so. Without a CUDA device, or when the capture fails, std::runtime_error
    /// saying why: the scenario fails.
    template <class Launch>
    Series measure_graph(std::string_view name, Launch&& launch, int device = -1) {
        CudaDevice* cuda = captured_graph(device, launch);
        return measure_device(
            name, [cuda] { cuda->launch_graph(); }, device, cuda->stream());
    }
    /// measure_graph's capture: the device with `launch` captured (ABI 2.11).
    CudaDevice* captured_graph(int device, const std::function<void(void*)>& launch);

    /// What measure and measure_device do in a distributed scenario (ABI 2.16;
    /// docs/distributed.md): every rank times `fn` alike, with the rank hooks registered
    /// in the process (bench::RankHooks: the LibTorch layer's, <bench/torch/distributed.hpp>):
    /// the ranks' process group made ready, then --warmup-iterations calls, then
    /// --measurement-iterations samples of one call each on every rank (the time rule is
    /// not applied: rank_timing_options), each after the hooks' before_sample (the
    /// progress file and a barrier) outside the timed region, so that sample i of every
    /// rank times the same step. Each call is followed by a synchronization: of `cuda`
    /// when given (measure_device's device), else the hooks' after_call (the rank's
    /// device; nothing on the CPU). With --cache cold, `cuda`'s L2 is flushed before each
    /// sample, else the CPU's caches. Without rank hooks (a plugin that does not link the
    /// LibTorch layer) std::runtime_error saying what to link: the scenario fails.
    template <class Fn>
    Series measure_on_ranks(std::string_view name, Fn&& fn, const TimingOptions& options, CudaDevice* cuda = nullptr,
                            void* stream = nullptr) {
        const RankHooks& ranks = rank_hooks_for(name);
        ranks.ready(*this);
        return time_on_ranks(
            name, fn, options,
            [&] {
                if (cuda != nullptr) cuda->synchronize();
                else if (ranks.after_call != nullptr) ranks.after_call(*this);
            },
            [&] { ranks.before_sample(*this); },
            [&] {
                if (cuda == nullptr) {
                    flush_cpu_cache();
                    return;
                }
                cuda->flush_l2(stream);
                cuda->synchronize();
            });
    }
    /// The timing of every rank alike (ABI 2.16), which measure_on_ranks and Python's
    /// ctx.measure share, with the ranks' part given: `after_call()` follows each call of
    /// `fn` inside the timed region (the device's synchronization), `before_sample()`
    /// precedes each sample outside it (the barrier), and with --cache cold `flush()`
    /// follows that. The options are `options` less the time rule (rank_timing_options);
    /// each sample is one call. The samples are recorded as series `name` (record_timed).
    template <class Fn, class AfterCall, class BeforeSample, class Flush>
    Series time_on_ranks(std::string_view name, Fn&& fn, const TimingOptions& options, AfterCall&& after_call,
                         BeforeSample&& before_sample, Flush&& flush) {
        const TimingOptions aligned = rank_timing_options(name, options);
        const bool cold = config().cache == "cold";
        before_timing();
        return record_timed(name, time_callable(
                                      [&] {
                                          fn();
                                          after_call();
                                      },
                                      aligned,
                                      [&] {
                                          before_sample();
                                          if (cold) flush();
                                      }));
    }
    /// `options` less the time rule (--min-time, --max-time, --target-ci-width would end
    /// each rank's sampling on its own, and the others would wait for it at the next
    /// barrier), with a warning naming series `name` when they had one (ABI 2.16).
    TimingOptions rank_timing_options(std::string_view name, TimingOptions options);
    /// The rank hooks registered in the process (ABI 2.16), whose `ready` and
    /// `before_sample` are set; else std::runtime_error naming series `name` and what to
    /// link.
    const RankHooks& rank_hooks_for(std::string_view name);

    /// Right before a scenario's first timed sample (ABI 2.11; measure, measure_device,
    /// begin_measurement and serve call it; once a scenario): the process's resident peak
    /// so far is recorded as scalar "setup_peak_rss" (loading, building, reference passes,
    /// compiling) and restarted, so that "measured_peak_rss", recorded after each timed
    /// series or window, is the peak from the timed samples on (bench/memory_peak.hpp).
    /// The worker's "peak_rss" stays the whole scenario's.
    void before_timing();

    /// The CUDA device whose events measure_device times with, as --timer says (ABI
    /// 2.10): null for the host's clock. Records info "timer". std::runtime_error for
    /// --timer cuda-events without a CUDA device.
    CudaDevice* event_timer(int device = -1);
    /// CUDA device `device` (-1: the current one) when the CUDA runtime has it, else null.
    CudaDevice* cuda_device(int device = -1);

    /// Records what a timing loop measured as series `name` (ms), with its window,
    /// its sampling and the scenario's first call; what measure() does after timing.
    Series record_timed(std::string_view name, TimedSamples timed) {
        record_measurement(timed.start, timed.stop, static_cast<long long>(timed.ms.size()) * timed.inner_iterations);
        record_sampling(name, timed.sampling);
        // The cold start of the scenario: the first call of the first thing measured,
        // unless the benchmark recorded its own.
        if (result().find_scalar("first_call") == nullptr && timed.first_call_ms == timed.first_call_ms)
            record_scalar("first_call", timed.first_call_ms, "ms");
        if (timed.batch_limited)
            add_warning(std::string(name) + ": " + std::to_string(timed.inner_iterations) +
                        " calls did not fill one sample: the call takes next to no time; is its work optimized "
                        "away? (use bench::do_not_optimize on its result)");
        record_sample_ends(name, std::move(timed.sample_ends));
        return record_series(name, std::move(timed.ms), "ms", timed.inner_iterations);
    }

    /// When each sample of series `name` ended, in order (ABI 2.10; record_timed does it):
    /// the worker gives each sample the SM clock and throttle reasons the GPU monitor saw
    /// while it ran, and with --discard-throttled drops the throttled ones. Appends, as
    /// record_series does.
    void record_sample_ends(std::string_view name, std::vector<Clock::time_point> ends);
    /// What record_sample_ends recorded, by series.
    const std::map<std::string, std::vector<Clock::time_point>>& sample_ends() const;

    /// A compile ran from `start` to `end` (ABI 2.15): a framework's compile callbacks
    /// say so (benchhost.torch records each compile of torch.compile after the first
    /// call), and `what` says what was compiled and why (the guard that failed). The
    /// worker marks every timed sample that overlaps one, with a warning naming `what`,
    /// and with --discard-recompiled drops those samples.
    void record_compile(Clock::time_point start, Clock::time_point end, std::string_view what);
    /// What record_compile recorded, in order.
    const std::vector<CompileWindow>& compiles() const;

    /// Measurement windows, for benchmarks that time themselves: the monitors count
    /// what they see between begin_measurement() and end_measurement() as "during
    /// measurement". `iterations` is the number of measured calls in the window; -1
    /// counts the calls measured by measure() inside it (0 when none). Windows do not
    /// nest: begin_measurement() while one is open throws std::logic_error, and so
    /// does end_measurement() without one. See also bench::MeasurementScope.
    void begin_measurement();
    void end_measurement(long long iterations = -1);
    /// Records a window that already ended (what measure() does). Inside an open
    /// window, only its iterations are added to that window.
    void record_measurement(Clock::time_point start, Clock::time_point stop, long long iterations);
    /// The windows recorded so far, in order (an open window is not included).
    std::vector<MeasurementWindow> measurement_windows() const;

    /// Records how the sampling of series `name` ended. measure() does it; a benchmark
    /// that times itself with a bench::StoppingRule passes the rule's report().
    void record_sampling(std::string_view name, const SamplingReport& report);

    /// Records samples as series `name`. Recording a name again appends to it; the
    /// unit must then be the same (std::invalid_argument otherwise).
    Series record_series(std::string_view name, std::vector<double> samples, std::string_view unit,
                         long long inner_iterations = 1);
    /// Appends one sample to series `name`.
    void add_sample(std::string_view name, double value, std::string_view unit);
    /// Records `items_per_call / latency` for each latency sample (in ms) as series
    /// `name`, in `unit` (for example "images/s").
    Series record_throughput(std::string_view name, const Series& latency_ms, double items_per_call,
                             std::string_view unit);
    /// Records `bytes_per_call / latency` for each latency sample (in ms) as series
    /// `name`, in GB/s: the memory traffic a call has to move, over its time (ABI 2.11).
    /// On a CUDA scenario whose runtime states the memory's clock and bus width, also
    /// scalars "peak_memory_bandwidth" (GB/s: CudaDevice::peak_memory_bandwidth_gbs of
    /// `device`, -1 the current one) and "fraction_of_peak_<name>" (the series' median
    /// over that peak); where it does not, info "peak_memory_bandwidth" says why. The
    /// CPU's peak is not known here: a CPU scenario gets the series alone.
    Series record_bandwidth(std::string_view name, const Series& latency_ms, double bytes_per_call, int device = -1);
    /// Records a single figure; recording a name again replaces it.
    void record_scalar(std::string_view name, double value, std::string_view unit);
    /// Adds a warning about the scenario's figures, shown in the report and the log.
    void add_warning(std::string_view warning);
    /// Records a text fact shown in the report (framework, model name, ...).
    void set_info(std::string_view key, std::string_view value);
    /// Records the accuracy of a classifier (ABI 2.5); recording a model again replaces
    /// it. Counts that cannot be (negative, more correct than inputs, fewer in the top 5
    /// than at the top) are std::invalid_argument.
    void record_accuracy(const Accuracy& accuracy);

    /// Serves queries with `handler` under the run's load (--load single-stream,
    /// multi-stream, server or offline; single-stream without --load) and records the
    /// figures of every query: latency from its scheduled arrival to completion,
    /// queue_wait, service_time, and for a handler that reports tokens
    /// time_to_first_token, time_per_output_token and inter_token_latency; with the
    /// achieved rate, the late issues and the goodput under --slo (docs/serving.md).
    /// Once per scenario: a second call throws std::logic_error.
    void serve(const ServeHandler& handler);
    /// serve() with dynamic batching (ABI 2.6): the handler serves the queries waiting
    /// when it is free, up to --max-batch of them, together. While arrivals may still
    /// come (server, --target-qps), a batch that is not full waits up to
    /// --max-batch-wait after its first query was issued for more. A query completes
    /// when the handler returns. Records the series "queries_per_batch".
    void serve_batches(const BatchHandler& handler);
    /// serve() with continuous batching (ABI 2.6): the handler runs one step of the
    /// queries active in the batch, up to --max-batch of them, each in a slot of its own
    /// (Query::slot). A query that arrives joins at the next step that has a free slot
    /// (Query::steps() is 0 in it); one the handler finishes (Query::finish) leaves at
    /// the end of that step, and completes then. Its tokens (Query::token) give the
    /// time to first token, time per output token and inter-token latency as in
    /// serve(). Records the series "queries_per_batch" (queries per step). A query that never
    /// finishes keeps its slot: the handler must finish every query.
    void serve_steps(const StepHandler& handler);
    /// Whether serve(), serve_batches() or serve_steps() was called: a benchmark run
    /// with --load that never serves is skipped by the host, saying so.
    bool served() const;

    /// Whether this run profiles (--profile): a benchmark may leave out what only
    /// profile() needs.
    bool profiling() const;
    /// With --profile, runs the profiled pass of `call` (<bench/profile.hpp>) and records
    /// it as the result's profile; without it, returns at once. Call it after the
    /// measurement, outside any measurement window (std::logic_error inside one, or when
    /// called twice in a scenario). Nothing in the pass throws: a failure, an exception
    /// from `call` included, is recorded in the profile's notes, and the figures already
    /// measured stand.
    void profile(const ProfileCall& call);

    /// Ends the scenario as skipped, with a reason the user will read.
    [[noreturn]] void skip(std::string_view reason);

    const ScenarioResult& result() const;
    ScenarioResult take_result();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Marks a measurement window for the life of the scope:
///
///   {
///       bench::MeasurementScope measuring(ctx);
///       for (int i = 0; i < n; ++i) step();
///       measuring.set_iterations(n);
///   }
///
/// Without set_iterations, the window counts the calls measure() timed inside it.
class MeasurementScope {
public:
    explicit MeasurementScope(Context& ctx) : ctx_(ctx) { ctx_.begin_measurement(); }
    ~MeasurementScope() {
        try {
            ctx_.end_measurement(iterations_);
        } catch (...) {  // a destructor must not throw
        }
    }
    MeasurementScope(const MeasurementScope&) = delete;
    MeasurementScope& operator=(const MeasurementScope&) = delete;

    void set_iterations(long long iterations) { iterations_ = iterations; }
    void add_iterations(long long iterations) { iterations_ = (iterations_ < 0 ? 0 : iterations_) + iterations; }

private:
    Context& ctx_;
    long long iterations_ = -1;
};

}  // namespace bench
