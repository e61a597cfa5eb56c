#include <bench/context.hpp>

#include <bench/memory_peak.hpp>
#include <bench/statistics.hpp>

#include <algorithm>
#include <exception>
#include <map>

#include "profile_pass.hpp"
#include "serve_loop.hpp"
#include "speed_reference.hpp"

#include <stdexcept>
#include <utility>

namespace bench {

struct Context::Impl {
    ScenarioConfig config;
    std::shared_ptr<spdlog::logger> logger;
    ScenarioResult result;
    std::vector<MeasurementWindow> windows;
    bool window_open = false;
    MeasurementWindow open_window;  // while window_open: its start and measure()'s calls
    bool served = false;  // serve() was called
    std::map<int, std::unique_ptr<CudaDevice>> devices;  // cuda_device's, by the index asked for
    std::map<std::string, std::vector<Clock::time_point>> sample_ends;  // by series
    std::vector<CompileWindow> compiles{};  // record_compile's
    bool timing_began = false;  // before_timing() was called
    bool peak_restarted = false;  // and restarted the resident peak there
    Clock::time_point created = Clock::now();  // what the samples' times count from
    bool rank_ended = false;  // a distributed scenario's rank hooks were told it ended

    /// After timed samples: the resident peak since before_timing() restarted it.
    void after_timing() {
        if (!peak_restarted) return;
        double peak = resident_peak_mib();
        if (const Scalar* earlier = result.find_scalar("measured_peak_rss")) peak = std::max(peak, earlier->value);
        if (peak == peak) set_scalar("measured_peak_rss", peak);
    }
    void set_scalar(std::string_view name, double value) {
        for (Scalar& s : result.scalars)
            if (s.name == name) {
                s.value = value;
                return;
            }
        result.scalars.push_back({std::string(name), value, "MiB"});
    }

    Series& series_named(std::string_view name, std::string_view unit) {
        for (Series& s : result.series) {
            if (s.name != name) continue;
            if (s.unit != unit)
                throw std::invalid_argument("series '" + std::string(name) + "' is recorded in '" + s.unit +
                                            "', cannot add samples in '" + std::string(unit) + "'");
            return s;
        }
        result.series.push_back(Series{std::string(name), std::string(unit), {}, 1});
        return result.series.back();
    }
};

Context::Context(ScenarioConfig config, std::shared_ptr<spdlog::logger> logger)
    : impl_(std::make_unique<Impl>(Impl{std::move(config), std::move(logger), {}, {}, false, {}, false, {}, {}})) {
    if (!impl_->logger) throw std::invalid_argument("bench::Context needs a logger");
    // One rank of a distributed scenario starts its benchmark (its progress file says so).
    if (impl_->config.world_size > 0)
        if (const RankHooks* ranks = rank_hooks(); ranks != nullptr && ranks->started != nullptr) ranks->started(*this);
}

Context::~Context() = default;

const ScenarioConfig& Context::config() const { return impl_->config; }
spdlog::logger& Context::log() const { return *impl_->logger; }

TimingOptions Context::timing_options() const {
    TimingOptions options;
    options.warmup_iterations = impl_->config.warmup_iterations;
    options.measurement_iterations = impl_->config.measurement_iterations;
    options.min_time_s = impl_->config.min_time_s;
    options.max_time_s = impl_->config.max_time_s;
    options.target_ci_width = impl_->config.target_ci_width;
    return options;
}

void Context::record_sample_ends(std::string_view name, std::vector<Clock::time_point> ends) {
    std::vector<Clock::time_point>& all = impl_->sample_ends[std::string(name)];
    all.insert(all.end(), ends.begin(), ends.end());
}

const std::map<std::string, std::vector<Clock::time_point>>& Context::sample_ends() const { return impl_->sample_ends; }

void Context::record_compile(Clock::time_point start, Clock::time_point end, std::string_view what) {
    impl_->compiles.push_back({start, std::max(start, end), std::string(what)});
}

const std::vector<CompileWindow>& Context::compiles() const { return impl_->compiles; }

CudaDevice* Context::cuda_device(int device) {
    std::unique_ptr<CudaDevice>& slot = impl_->devices[device];
    if (!slot) slot = std::make_unique<CudaDevice>(device);
    return slot->available() ? slot.get() : nullptr;
}

CudaDevice* Context::captured_graph(int device, const std::function<void(void*)>& launch) {
    CudaDevice* cuda = cuda_device(device);
    if (cuda == nullptr) throw std::runtime_error("measure_graph: " + impl_->devices[device]->unavailable_reason());
    cuda->capture_graph(launch);
    set_info("cuda_graph", "captured once on device " + std::to_string(cuda->index()) + ", launched at each call");
    return cuda;
}

CudaDevice* Context::event_timer(int device) {
    const std::string& timer = impl_->config.timer;
    if (timer == "host") {
        set_info("timer", "host clock (--timer host)");
        return nullptr;
    }
    CudaDevice* cuda = cuda_device(device);
    if (cuda == nullptr) {
        const std::string why = impl_->devices[device]->unavailable_reason();
        if (timer == "cuda-events") throw std::runtime_error("--timer cuda-events: " + why);
        set_info("timer", "host clock (" + why + ")");
        return nullptr;
    }
    set_info("timer", "CUDA events on device " + std::to_string(cuda->index()));
    return cuda;
}

Series Context::record_series(std::string_view name, std::vector<double> samples, std::string_view unit,
                              long long inner_iterations) {
    if (name.empty()) throw std::invalid_argument("a series needs a name");
    Series& series = impl_->series_named(name, unit);
    if (series.samples.empty()) series.inner_iterations = inner_iterations;
    series.samples.insert(series.samples.end(), samples.begin(), samples.end());
    return series;
}

void Context::record_sampling(std::string_view name, const SamplingReport& report) {
    if (name.empty()) throw std::invalid_argument("a series needs a name");
    impl_->result.sampling[std::string(name)] = report;
}

void Context::add_sample(std::string_view name, double value, std::string_view unit) {
    impl_->series_named(name, unit).samples.push_back(value);
    impl_->sample_ends[std::string(name)].push_back(Clock::now());
}

Series Context::record_throughput(std::string_view name, const Series& latency_ms, double items_per_call,
                                  std::string_view unit) {
    if (latency_ms.unit != "ms")
        throw std::invalid_argument("record_throughput: series '" + latency_ms.name + "' is in '" + latency_ms.unit +
                                    "', expected ms");
    std::vector<double> rates;
    rates.reserve(latency_ms.samples.size());
    for (double ms : latency_ms.samples) rates.push_back(ms > 0 ? items_per_call / (ms / 1000.0) : 0.0);
    return record_series(name, std::move(rates), unit);
}

Series Context::record_bandwidth(std::string_view name, const Series& latency_ms, double bytes_per_call, int device) {
    Series series = record_throughput(name, latency_ms, bytes_per_call / 1e9, "GB/s");
    if (impl_->config.device.rfind("cuda", 0) != 0) return series;
    CudaDevice* cuda = cuda_device(device);
    const double peak = cuda != nullptr ? cuda->peak_memory_bandwidth_gbs() : 0.0;
    if (peak <= 0) {
        set_info("peak_memory_bandwidth",
                 "unknown: " + (cuda != nullptr
                                    ? std::string("the CUDA runtime does not state the memory's clock and bus width")
                                    : impl_->devices[device]->unavailable_reason()));
        return series;
    }
    record_scalar("peak_memory_bandwidth", peak, "GB/s");
    if (!series.samples.empty())
        record_scalar("fraction_of_peak_" + std::string(name), summarize(series.samples).median / peak, "ratio");
    return series;
}

void Context::record_scalar(std::string_view name, double value, std::string_view unit) {
    for (Scalar& s : impl_->result.scalars) {
        if (s.name == name) {
            s.value = value;
            s.unit = std::string(unit);
            return;
        }
    }
    impl_->result.scalars.push_back(Scalar{std::string(name), value, std::string(unit)});
}

void Context::add_warning(std::string_view warning) { impl_->result.warnings.emplace_back(warning); }

void Context::set_info(std::string_view key, std::string_view value) {
    impl_->result.info[std::string(key)] = std::string(value);
}

void Context::record_accuracy(const Accuracy& accuracy) {
    if (accuracy.inputs < 0 || accuracy.top1_correct < 0 || accuracy.top1_correct > accuracy.top5_correct ||
        accuracy.top5_correct > accuracy.inputs)
        throw std::invalid_argument("record_accuracy: '" + accuracy.model + "': need 0 <= top1_correct (" +
                                    std::to_string(accuracy.top1_correct) + ") <= top5_correct (" +
                                    std::to_string(accuracy.top5_correct) + ") <= inputs (" +
                                    std::to_string(accuracy.inputs) + ")");
    for (Accuracy& existing : impl_->result.accuracy) {
        if (existing.model == accuracy.model) {
            existing = accuracy;
            return;
        }
    }
    impl_->result.accuracy.push_back(accuracy);
}

void Context::before_timing() {
    if (impl_->timing_began) return;
    impl_->timing_began = true;
    // The machine's speed as the measurement starts (bench/speed_reference.hpp).
    const auto [reference_ns, kind] = detail::read_speed_reference();
    impl_->result.scalars.push_back({"speed_reference_start", reference_ns, "ns"});
    impl_->result.info["speed_reference"] = kind;
    const double setup = scenario_resident_peak_mib();
    if (!restart_resident_peak()) return;
    impl_->peak_restarted = true;
    impl_->set_scalar("setup_peak_rss", setup);
}

void Context::begin_measurement() {
    if (impl_->window_open) throw std::logic_error("begin_measurement: a measurement window is already open");
    before_timing();
    impl_->window_open = true;
    impl_->open_window = MeasurementWindow{Clock::now(), {}, 0};
}

void Context::end_measurement(long long iterations) {
    const auto stop = Clock::now();
    if (!impl_->window_open) throw std::logic_error("end_measurement: no measurement window is open");
    impl_->window_open = false;
    MeasurementWindow window = impl_->open_window;
    window.stop = stop;
    if (iterations >= 0) window.iterations = iterations;
    impl_->windows.push_back(window);
    impl_->after_timing();
}

void Context::record_measurement(Clock::time_point start, Clock::time_point stop, long long iterations) {
    if (iterations < 0) iterations = 0;
    if (impl_->window_open) {
        impl_->open_window.iterations += iterations;
        return;
    }
    if (stop < start) std::swap(start, stop);
    impl_->windows.push_back(MeasurementWindow{start, stop, iterations});
    impl_->after_timing();
}

std::vector<MeasurementWindow> Context::measurement_windows() const { return impl_->windows; }

void Context::serve(const ServeHandler& handler) {
    if (impl_->served) throw std::logic_error("Context::serve: called twice in one scenario");
    impl_->served = true;
    before_timing();
    impl_->result.peak_search = detail::run_load(*this, handler);
}

void Context::serve_batches(const BatchHandler& handler) {
    if (impl_->served) throw std::logic_error("Context::serve_batches: a scenario serves once");
    impl_->served = true;
    before_timing();
    impl_->result.peak_search = detail::run_batches(*this, handler);
}

void Context::serve_steps(const StepHandler& handler) {
    if (impl_->served) throw std::logic_error("Context::serve_steps: a scenario serves once");
    impl_->served = true;
    before_timing();
    impl_->result.peak_search = detail::run_steps(*this, handler);
}

bool Context::served() const { return impl_->served; }

void Context::skip(std::string_view reason) { throw SkipScenario(std::string(reason)); }

const ScenarioResult& Context::result() const { return impl_->result; }
ScenarioResult Context::take_result() {
    // A rank's benchmark ended. The worker takes the result inside its handler of what the
    // benchmark threw, when it threw (a failure, or a skip), and after it returned else.
    if (impl_->config.world_size > 0 && !impl_->rank_ended)
        if (const RankHooks* ranks = rank_hooks(); ranks != nullptr && ranks->ended != nullptr) {
            impl_->rank_ended = true;
            ranks->ended(*this, std::current_exception() == nullptr);
        }
    // And as it ends, when anything was timed.
    if (impl_->timing_began && impl_->result.find_scalar("speed_reference_end") == nullptr)
        impl_->result.scalars.push_back({"speed_reference_end", detail::read_speed_reference().first, "ns"});
    // Each series whose every sample has its end recorded gets their times, so that the
    // statistics can see how the samples lie in time.
    for (const Series& series : impl_->result.series) {
        const auto ends = impl_->sample_ends.find(series.name);
        if (ends == impl_->sample_ends.end() || ends->second.size() != series.samples.size()) continue;
        std::vector<double>& times = impl_->result.sample_times[series.name];
        times.clear();
        times.reserve(ends->second.size());
        for (const Clock::time_point end : ends->second) times.push_back(elapsed_ns(impl_->created, end) / 1e9);
    }
    return std::move(impl_->result);
}

bool Context::profiling() const { return impl_->config.profile; }

void Context::profile(const ProfileCall& call) {
    if (!impl_->config.profile) return;
    if (impl_->window_open)
        throw std::logic_error("Context::profile: called inside a measurement window; profile after the measurement");
    if (impl_->result.profile) throw std::logic_error("Context::profile: called twice in one scenario");
    impl_->result.profile = run_profile_pass(call, *impl_->logger);
}

}  // namespace bench
