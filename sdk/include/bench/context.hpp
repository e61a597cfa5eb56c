// bench::Context: what a benchmark entry point receives. It carries the scenario's
// configuration and a logger, and collects what the benchmark measures.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/logger.h>

#include <bench/config.hpp>
#include <bench/export.hpp>
#include <bench/result.hpp>
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

    /// Timing options from the config: its warmup and measurement iterations.
    TimingOptions timing_options() const;

    /// Times `fn` (see time_callable) and records the samples, in ms, as series `name`.
    template <class Fn>
    Series measure(std::string_view name, Fn&& fn) {
        return measure(name, std::forward<Fn>(fn), timing_options());
    }
    template <class Fn>
    Series measure(std::string_view name, Fn&& fn, const TimingOptions& options) {
        TimedSamples timed = time_callable(fn, options);
        return record_series(name, std::move(timed.ms), "ms", timed.inner_iterations);
    }

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
    /// Records a single figure; recording a name again replaces it.
    void record_scalar(std::string_view name, double value, std::string_view unit);
    /// Records a text fact shown in the report (framework, model name, ...).
    void set_info(std::string_view key, std::string_view value);

    /// Ends the scenario as skipped, with a reason the user will read.
    [[noreturn]] void skip(std::string_view reason);

    const ScenarioResult& result() const;
    ScenarioResult take_result();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bench
