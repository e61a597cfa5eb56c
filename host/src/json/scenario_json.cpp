#include "json/scenario_json.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

namespace benchhost {
namespace {

bool exact(const JsonOut& out) { return out.format().values == JsonFormat::Values::exact; }

// The statistics a report gives before a series' unit.
void write_summary(JsonOut& out, const bench::Summary& s) {
    out.field("mean", s.mean);
    out.field("median", s.median);
    out.field("std", s.std);
    out.field("min", s.min);
    out.field("max", s.max);
    out.field("p25", s.p25);
    out.field("p75", s.p75);
    out.field("p90", s.p90);
    out.field("p95", s.p95);
    out.field("p99", s.p99);
    out.field("count", s.count);
}

// The statistics a report gives after a series' inner iterations.
void write_analysis(JsonOut& out, const SeriesStatistics& statistics) {
    const bench::SeriesAnalysis& analysis = statistics.analysis;
    out.field("cv", analysis.cv);
    out.key("ci95");
    out.start_object();
    out.field("median", analysis.median_ci);
    out.field("mean", analysis.mean_ci);
    out.field("level", 0.95);
    out.field("block", analysis.block);
    out.field("method", analysis.block > 1
                            ? "circular block bootstrap, blocks of " + std::to_string(analysis.block) +
                                  " samples (from their autocorrelation), " +
                                  std::to_string(statistics.bootstrap_resamples) + " resamples"
                            : "percentile bootstrap, " + std::to_string(statistics.bootstrap_resamples) + " resamples");
    out.end_object();
    if (analysis.states.distinct()) {
        out.key("speed_states");
        out.start_object();
        out.field("span_s", analysis.states.span_s);
        out.key("states");
        out.start_array();
        for (const bench::SpeedState& state : analysis.states.states) {
            out.start_object();
            out.field("median", state.median);
            out.field("samples", state.samples);
            out.field("stretches", state.stretches);
            out.field("seconds", state.seconds);
            out.end_object();
        }
        out.end_array();
        out.end_object();
    }
    out.key("outliers");
    out.start_object();
    out.field("low_severe", analysis.outliers.low_severe);
    out.field("low_mild", analysis.outliers.low_mild);
    out.field("high_mild", analysis.outliers.high_mild);
    out.field("high_severe", analysis.outliers.high_severe);
    out.end_object();
    out.field("stable", analysis.stable);
}

}  // namespace

// ---- config -------------------------------------------------------------------------

void write_config(JsonOut& out, const bench::ScenarioConfig& config) {
    out.start_object();
    out.field("category", config.category);
    out.field("plugin", config.plugin);
    out.field("benchmark", config.benchmark);
    out.field("scenario_name", config.scenario_name);
    out.field("variant", bench::to_string(config.variant));
    out.field("compile_mode", config.compile_mode);
    out.field("batch_size", config.batch_size);
    out.field("dtype", config.dtype);
    out.field("device", config.device);
    out.field("threads", config.threads);
    out.field("warmup_iterations", config.warmup_iterations);
    out.field("measurement_iterations", config.measurement_iterations);
    out.field("num_tokens_to_generate", config.num_tokens_to_generate);
    out.field("model_id", config.model_id);
    out.field("min_time_s", config.min_time_s);
    out.field("max_time_s", config.max_time_s);
    out.field("target_ci_width", config.target_ci_width);
    if (config.profile) out.field("profile", true);
    if (config.compile_timeout_s > 0) out.field("compile_timeout_s", config.compile_timeout_s);
    out.field("timer", config.timer);
    out.field("cache", config.cache);
    if (config.discard_throttled) out.field("discard_throttled", true);
    if (config.throttle_cooldown_s > 0) out.field("throttle_cooldown_s", config.throttle_cooldown_s);
    if (config.world_size > 0) out.field("world_size", config.world_size);
    if (config.discard_recompiled) out.field("discard_recompiled", true);
    if (config.compile_cache != "warm") out.field("compile_cache", config.compile_cache);
    if (config.load.mode != bench::LoadMode::none) {
        const bench::LoadConfig& load = config.load;
        out.key("load");
        out.start_object();
        out.field("mode", bench::to_string(load.mode));
        out.field("queries", load.queries);
        out.field("min_duration_s", load.min_duration_s);
        out.field("samples_per_query", load.samples_per_query);
        out.field("target_qps", load.target_qps);
        out.field("burstiness", load.burstiness);
        out.field("concurrency", load.concurrency);
        out.field("late_tolerance_ms", load.late_tolerance_ms);
        out.field("seed", static_cast<long long>(load.seed));
        out.key("slo");
        out.start_object();
        for (const bench::Slo& slo : load.slos) out.field(slo.metric, slo.limit_ms);
        out.end_object();
        out.field("slo_percentile", load.slo_percentile);
        out.field("find_peak", load.find_peak);
        out.field("peak_precision", load.peak_precision);
        out.field("max_batch", load.max_batch);
        out.field("max_batch_wait_ms", load.max_batch_wait_ms);
        out.end_object();
    }
    out.field("params", config.params.all());
    out.end_object();
}

bench::ScenarioConfig read_config(const FieldReader& object) {
    bench::ScenarioConfig config;
    config.category = object.string("category");
    config.plugin = object.string("plugin");
    config.benchmark = object.string("benchmark");
    config.scenario_name = object.string("scenario_name");
    config.variant = object.enumerated("variant", bench::parse_variant);
    config.compile_mode = object.string("compile_mode");
    config.batch_size = object.integer("batch_size");
    config.dtype = object.string("dtype");
    config.device = object.string("device");
    config.threads = object.integer("threads");
    config.warmup_iterations = object.integer("warmup_iterations");
    config.measurement_iterations = object.integer("measurement_iterations");
    config.num_tokens_to_generate = object.integer("num_tokens_to_generate");
    config.model_id = object.string("model_id");
    if (object.has("min_time_s")) config.min_time_s = object.number("min_time_s");
    if (object.has("max_time_s")) config.max_time_s = object.number("max_time_s");
    if (object.has("target_ci_width")) config.target_ci_width = object.number("target_ci_width");
    if (object.has("profile")) config.profile = object.boolean("profile");
    if (object.has("compile_timeout_s")) config.compile_timeout_s = object.number("compile_timeout_s");
    if (object.has("timer")) config.timer = object.string("timer");
    if (object.has("cache")) config.cache = object.string("cache");
    if (object.has("discard_throttled")) config.discard_throttled = object["discard_throttled"].as_bool();
    if (object.has("throttle_cooldown_s")) config.throttle_cooldown_s = object.number("throttle_cooldown_s");
    if (object.has("world_size")) config.world_size = object.integer("world_size");
    if (object.has("discard_recompiled")) config.discard_recompiled = object["discard_recompiled"].as_bool();
    if (object.has("compile_cache")) config.compile_cache = object.string("compile_cache");
    if (object.has("load")) {
        const FieldReader load = object.object("load");
        config.load.mode = load.enumerated("mode", bench::parse_load_mode);
        config.load.queries = load.integer64("queries");
        config.load.min_duration_s = load.number("min_duration_s");
        config.load.samples_per_query = load.integer("samples_per_query");
        config.load.target_qps = load.number("target_qps");
        config.load.burstiness = load.number("burstiness");
        config.load.concurrency = load.integer("concurrency");
        config.load.late_tolerance_ms = load.number("late_tolerance_ms");
        config.load.seed = static_cast<std::uint64_t>(load.integer64("seed"));
        load.object("slo").each_member([&](const std::string& metric, const FieldReader& limit) {
            config.load.slos.push_back(bench::Slo{metric, limit.as_number()});
        });
        if (load.has("slo_percentile")) config.load.slo_percentile = load.number("slo_percentile");
        if (load.has("find_peak")) config.load.find_peak = load.boolean("find_peak");
        if (load.has("peak_precision")) config.load.peak_precision = load.number("peak_precision");
        if (load.has("max_batch")) config.load.max_batch = load.integer("max_batch");
        if (load.has("max_batch_wait_ms")) config.load.max_batch_wait_ms = load.number("max_batch_wait_ms");
    }
    object.object("params").each_member([&](const std::string& key, const FieldReader& values) {
        if (!values.value().IsArray()) values.expected("an array of strings");
        config.params.set(key, values.as_strings());
    });
    return config;
}

// ---- series and figures -------------------------------------------------------------

void write_series(JsonOut& out, const bench::Series& series, const SeriesStatistics* statistics,
                  const std::vector<double>* times) {
    out.start_object();
    if (statistics == nullptr) out.field("name", series.name);
    if (statistics != nullptr) write_summary(out, statistics->analysis.summary);
    out.field("unit", series.unit);
    out.field("inner_iterations", series.inner_iterations);
    if (statistics != nullptr) write_analysis(out, *statistics);
    out.field(statistics == nullptr ? "samples" : "measurements", series.samples);
    if (times != nullptr && times->size() == series.samples.size() && !times->empty())
        out.field("sample_times_s", *times);
    out.end_object();
}

bench::Series read_series(const FieldReader& object, const std::optional<std::string>& key,
                          std::vector<double>* times) {
    bench::Series series;
    series.name = key ? *key : object.string("name");
    series.unit = object.string("unit");
    if (object.has("inner_iterations")) series.inner_iterations = object.integer64("inner_iterations");
    series.samples = object[key ? "measurements" : "samples"].as_numbers();
    if (times != nullptr) {
        times->clear();
        if (object.has("sample_times_s")) {
            *times = object["sample_times_s"].as_numbers();
            if (times->size() != series.samples.size())
                object.fail("sample_times_s must have a time per sample (" + std::to_string(series.samples.size()) +
                            "), has " + std::to_string(times->size()));
        }
    }
    return series;
}

void write_figure(JsonOut& out, double value, std::string_view unit, std::optional<std::string_view> name) {
    out.start_object();
    if (name) out.field("name", *name);
    out.field("value", value);
    out.field("unit", unit);
    out.end_object();
}

bench::Scalar read_figure(const FieldReader& object, const std::optional<std::string>& key) {
    bench::Scalar scalar;
    scalar.name = key ? *key : object.string("name");
    scalar.value = object.number("value");
    scalar.unit = object.string("unit");
    return scalar;
}

// ---- monitor ------------------------------------------------------------------------

void write_monitor(JsonOut& out, const bench::MonitorReport& report) {
    out.start_object();
    out.field("available", report.available);
    if (exact(out) || !report.available || !report.reason.empty()) out.field("reason", report.reason);
    out.key("metrics");
    out.start_object();
    for (const auto& [name, stats] : report.metrics) {
        out.key(name);
        out.start_object();
        out.field("mean", stats.mean);
        out.field("min", stats.min);
        out.field("max", stats.max);
        out.field("count", stats.count);
        out.field("unit", stats.unit);
        out.end_object();
    }
    out.end_object();
    out.key("values");
    out.start_object();
    for (const auto& [name, value] : report.values) {
        out.key(name);
        write_figure(out, value.value, value.unit);
    }
    out.end_object();
    out.field("flags", report.flags);
    out.field("info", report.info);
    out.field("warnings", report.warnings);
    out.key("timeline");
    out.start_object();
    out.field("time_s", report.timeline.time_s);
    out.field("series", report.timeline.series);
    out.end_object();
    out.end_object();
}

bench::MonitorReport read_monitor(const FieldReader& object) {
    const FieldReader monitor = object.as_object();
    bench::MonitorReport report;
    report.available = monitor.boolean("available");
    report.reason = monitor.string_or("reason", "");
    monitor.object("metrics").each_member([&](const std::string& name, const FieldReader& field) {
        const FieldReader item = field.as_object();
        bench::MetricStats stats;
        stats.mean = item.number("mean");
        stats.min = item.number("min");
        stats.max = item.number("max");
        stats.count = item.integer64("count");
        stats.unit = item.string("unit");
        report.metrics.emplace(name, std::move(stats));
    });
    monitor.object("values").each_member([&](const std::string& name, const FieldReader& field) {
        const bench::Scalar figure = read_figure(field.as_object(), name);
        report.values.emplace(name, bench::MonitorValue{figure.value, figure.unit});
    });
    monitor.object("flags").each_member(
        [&](const std::string& name, const FieldReader& field) { report.flags.emplace(name, field.as_bool()); });
    report.info = monitor["info"].as_string_map();
    report.warnings = monitor["warnings"].as_strings();
    const FieldReader timeline = monitor.object("timeline");
    report.timeline.time_s = timeline["time_s"].as_numbers();
    timeline.object("series").each_member([&](const std::string& name, const FieldReader& field) {
        report.timeline.series.emplace(name, field.as_numbers());
    });
    return report;
}

// ---- sampling -----------------------------------------------------------------------

void write_sampling(JsonOut& out, const std::map<std::string, bench::SamplingReport>& sampling) {
    out.start_object();
    for (const auto& [name, report] : sampling) {
        out.key(name);
        out.start_object();
        out.field("stop_reason", report.stop_reason);
        out.field("elapsed_s", report.elapsed_s);
        out.field("samples", report.samples);
        // 0 means no target: null for other readers.
        out.key("target_ci_width");
        if (exact(out) || report.target_ci_width > 0) {
            out.number(report.target_ci_width);
        } else {
            out.null();
        }
        out.field("ci_width", report.ci_width);
        out.field("clock_resolution_ns", report.clock_resolution_ns);
        out.field("clock_cost_ns", report.clock_cost_ns);
        out.end_object();
    }
    out.end_object();
}

std::map<std::string, bench::SamplingReport> read_sampling(const FieldReader& object) {
    std::map<std::string, bench::SamplingReport> sampling;
    object.each_member([&](const std::string& name, const FieldReader& field) {
        const FieldReader item = field.as_object();
        bench::SamplingReport report;
        report.stop_reason = item.string("stop_reason");
        report.elapsed_s = item.number("elapsed_s");
        report.samples = item.integer64("samples");
        if (item.has("target_ci_width") && !item["target_ci_width"].value().IsNull())
            report.target_ci_width = item.number("target_ci_width");
        report.ci_width = item.number("ci_width");
        report.clock_resolution_ns = item.number("clock_resolution_ns");
        report.clock_cost_ns = item.number("clock_cost_ns");
        sampling.emplace(name, std::move(report));
    });
    return sampling;
}

// ---- peak search --------------------------------------------------------------------

void write_peak_search(JsonOut& out, const bench::PeakSearch& search) {
    out.start_object();
    out.field("percentile", search.percentile);
    out.field("precision", search.precision);
    out.field("peak_qps", search.peak_qps);
    out.field("end", search.end);
    out.key("steps");
    out.start_array();
    for (const bench::PeakStep& step : search.steps) {
        out.start_object();
        out.field("phase", step.phase);
        out.field("target_qps", step.target_qps);
        out.field("achieved_qps", step.achieved_qps);
        out.field("queries", step.queries);
        out.field("planned", step.planned);
        out.field("goodput", step.goodput);
        out.field("late_issues", step.late_issues);
        out.field("passed", step.passed);
        out.field("stopped_early", step.stopped_early);
        out.key("metrics");
        out.start_array();
        for (const bench::PeakMetric& metric : step.metrics) {
            out.start_object();
            out.field("metric", metric.metric);
            out.field("bound_ms", metric.bound_ms);
            out.field("p50_ms", metric.p50_ms);
            out.field("percentile_ms", metric.percentile_ms);
            out.end_object();
        }
        out.end_array();
        out.end_object();
    }
    out.end_array();
    out.end_object();
}

bench::PeakSearch read_peak_search(const FieldReader& object) {
    const FieldReader item = object.as_object();
    bench::PeakSearch search;
    search.percentile = item.number("percentile");
    search.precision = item.number("precision");
    search.peak_qps = item.number("peak_qps");
    search.end = item.string("end");
    const FieldReader steps = item.array("steps");
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const FieldReader s = steps.at(i).as_object();
        bench::PeakStep step;
        step.phase = s.string("phase");
        step.target_qps = s.number("target_qps");
        step.achieved_qps = s.number("achieved_qps");
        step.queries = s.integer64("queries");
        step.planned = s.integer64("planned");
        step.goodput = s.number("goodput");
        step.late_issues = s.integer64("late_issues");
        step.passed = s.boolean("passed");
        step.stopped_early = s.string("stopped_early");
        const FieldReader metrics = s.array("metrics");
        for (std::size_t m = 0; m < metrics.size(); ++m) {
            const FieldReader metric = metrics.at(m).as_object();
            step.metrics.push_back({metric.string("metric"), metric.number("bound_ms"), metric.number("p50_ms"),
                                    metric.number("percentile_ms")});
        }
        search.steps.push_back(std::move(step));
    }
    return search;
}

// ---- accuracy -----------------------------------------------------------------------

void write_accuracy(JsonOut& out, const std::vector<bench::Accuracy>& accuracy) {
    out.start_object();
    for (const bench::Accuracy& a : accuracy) {
        out.key(a.model);
        out.start_object();
        out.field("dataset", a.dataset);
        out.field("inputs", a.inputs);
        out.field("top1_correct", a.top1_correct);
        out.field("top5_correct", a.top5_correct);
        out.field("top1", a.top1());
        out.field("top5", a.top5());
        out.end_object();
    }
    out.end_object();
}

std::vector<bench::Accuracy> read_accuracy(const FieldReader& object) {
    std::vector<bench::Accuracy> accuracy;
    object.as_object().each_member([&](const std::string& model, const FieldReader& field) {
        const FieldReader item = field.as_object();
        bench::Accuracy a;
        a.model = model;
        a.dataset = item.string("dataset");
        a.inputs = item.integer64("inputs");
        a.top1_correct = item.integer64("top1_correct");
        a.top5_correct = item.integer64("top5_correct");
        if (a.top1_correct < 0 || a.top1_correct > a.top5_correct || a.top5_correct > a.inputs)
            item.fail("needs 0 <= top1_correct <= top5_correct <= inputs, got " + std::to_string(a.top1_correct) +
                      ", " + std::to_string(a.top5_correct) + ", " + std::to_string(a.inputs));
        accuracy.push_back(std::move(a));
    });
    return accuracy;
}

// ---- the GPU's state per sample -------------------------------------------------------

void write_device_state(JsonOut& out, const std::map<std::string, bench::SampleDeviceState>& states) {
    out.start_object();
    for (const auto& [name, state] : states) {
        out.key(name);
        out.start_object();
        out.field("sm_clock_mhz", state.sm_clock_mhz);
        out.field("throttle_reasons", state.throttle_reasons);
        if (state.discarded_throttled > 0) {
            out.field("discarded_throttled", state.discarded_throttled);
            out.field("discarded_reasons", state.discarded_reasons);
        }
        out.end_object();
    }
    out.end_object();
}

std::map<std::string, bench::SampleDeviceState> read_device_state(const FieldReader& object) {
    std::map<std::string, bench::SampleDeviceState> states;
    object.as_object().each_member([&](const std::string& name, const FieldReader& field) {
        const FieldReader item = field.as_object();
        bench::SampleDeviceState state;
        state.sm_clock_mhz = item["sm_clock_mhz"].as_numbers();
        for (const double reasons : item["throttle_reasons"].as_numbers()) {
            if (!(reasons >= 0) || reasons != std::floor(reasons)) item.fail("throttle_reasons must be bit masks");
            state.throttle_reasons.push_back(static_cast<std::uint64_t>(reasons));
        }
        if (state.throttle_reasons.size() != state.sm_clock_mhz.size())
            item.fail("sm_clock_mhz and throttle_reasons must have a value per sample each");
        if (item.has("discarded_throttled")) state.discarded_throttled = item.integer64("discarded_throttled");
        if (item.has("discarded_reasons")) state.discarded_reasons = item.string("discarded_reasons");
        states.emplace(name, std::move(state));
    });
    return states;
}

// ---- shard --------------------------------------------------------------------------

// ---- round sizes --------------------------------------------------------------------

void write_round_sizes(JsonOut& out, const std::map<std::string, std::vector<std::size_t>>& round_sizes) {
    out.start_object();
    for (const auto& [name, sizes] : round_sizes) out.field(name, sizes);
    out.end_object();
}

std::map<std::string, std::vector<std::size_t>> read_round_sizes(const FieldReader& object) {
    std::map<std::string, std::vector<std::size_t>> out;
    object.each_member([&](const std::string& name, const FieldReader& field) {
        const FieldReader sizes = field.as_array();
        std::vector<std::size_t>& into = out[name];
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const long long n = sizes.at(i).as_int64();
            if (n < 0) sizes.at(i).expected("a count of samples (0 or more)");
            into.push_back(static_cast<std::size_t>(n));
        }
    });
    return out;
}

void write_shard(JsonOut& out, const ShardInfo& shard) {
    out.start_object();
    out.field("index", shard.index);
    out.field("count", shard.count);
    out.field("plan_scenarios", shard.plan_scenarios);
    out.field("plan_fingerprint", shard.plan_fingerprint);
    out.end_object();
}

ShardInfo read_shard(const FieldReader& object) {
    const FieldReader item = object.as_object();
    ShardInfo shard;
    shard.index = item.integer("index");
    shard.count = item.integer("count");
    shard.plan_scenarios = static_cast<std::size_t>(item.integer64("plan_scenarios"));
    shard.plan_fingerprint = item.string("plan_fingerprint");
    if (shard.count < 1 || shard.index < 1 || shard.index > shard.count)
        item["index"].fail("must be between 1 and count");
    return shard;
}

void write_plugin_build(JsonOut& out, const PluginBuild& build) {
    out.start_object();
    out.field("known", build.known);
    if (build.known && build.language == "python") {
        out.field("language", build.language);
        out.field("runtime", build.runtime);
    } else if (build.known) {
        out.field("optimized", build.optimized);
        out.field("assertions", build.assertions);
        out.field("sanitizers", build.sanitizers);
        out.field("compiler", build.compiler);
    }
    out.end_object();
}

PluginBuild read_plugin_build(const FieldReader& object) {
    const FieldReader item = object.as_object();
    PluginBuild build;
    build.known = item.boolean("known");
    if (!build.known) return build;
    build.language = item.string_or("language", "c++");
    if (build.language == "python") {
        build.runtime = item.string("runtime");
        return build;
    }
    build.optimized = item.boolean("optimized");
    build.assertions = item.boolean("assertions");
    build.sanitizers = item["sanitizers"].as_strings();
    build.compiler = item.string("compiler");
    return build;
}

}  // namespace benchhost
