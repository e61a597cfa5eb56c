// The `benchhost` module that Python plugins import: the scenario's Context, as the C++
// SDK gives it (<bench/context.hpp>), timed by the same C++ timer and stopping rules.
// Built into the loader library (an embedded module): it exists only in a worker that
// runs a Python plugin.
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <bench/clock.hpp>
#include <bench/context.hpp>
#include <bench/internal/environment/cache_dir.hpp>
#include <bench/result.hpp>
#include <bench/serve.hpp>
#include <bench/timer.hpp>

namespace py = pybind11;

namespace {

/// A parameter's values as Python sees them: one value a string, several a list.
py::dict params_of(const bench::Params& params) {
    py::dict out;
    for (const auto& [key, values] : params.all()) {
        if (values.size() == 1) out[py::str(key)] = values.front();
        else out[py::str(key)] = py::cast(values);
    }
    return out;
}

/// The queries of a batch or step, as a list of Query objects borrowed for the call.
py::list queries_of(bench::QueryBatch batch) {
    py::list out(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) out[i] = py::cast(batch[i], py::return_value_policy::reference);
    return out;
}

/// The scenario's point on the standard axes, by name.
py::dict axes_of(const bench::ScenarioConfig& c) {
    py::dict out;
    out["variant"] = std::string(bench::to_string(c.variant));
    out["compile_mode"] = c.compile_mode;
    out["batch_size"] = c.batch_size;
    out["dtype"] = c.dtype;
    out["device"] = c.device;
    return out;
}

/// Calls `fn(arg)`, its result dropped; a Python exception goes on as error_already_set.
void call_with(PyObject* fn, const py::handle& arg) {
    PyObject* result = PyObject_CallOneArg(fn, arg.ptr());
    if (result == nullptr) throw py::error_already_set();
    Py_DECREF(result);
}

/// A query as Python sees it: borrowed for the handler's call.
py::object to_query(bench::Query& query) { return py::cast(&query, py::return_value_policy::reference); }

/// Context::serve, serve_batches or serve_steps (`Serve`) for a Python handler: the
/// handler gets what `convert` makes of the SDK's argument (a query, or the list of a
/// batch's queries). The GIL is let go while the SDK waits for arrivals, and taken for
/// each call.
template <auto Serve, class Convert>
auto serving(Convert convert) {
    return [convert](bench::Context& ctx, const py::function& handler) {
        PyObject* fn = handler.ptr();
        const py::gil_scoped_release unlocked;
        (ctx.*Serve)([fn, convert](auto&& argument) {
            const py::gil_scoped_acquire locked;
            call_with(fn, convert(argument));
        });
    };
}

/// Calls `fn` with no arguments; a Python exception goes on as error_already_set.
py::object call(PyObject* fn) {
    PyObject* result = PyObject_CallNoArgs(fn);
    if (result == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(result);
}

/// The CUDA device index of a device name: cuda:N gives N, cuda -1 (the current one).
int cuda_index(const std::string& device) {
    return device.size() > 5 && device[4] == ':' ? std::stoi(device.substr(5)) : -1;
}

/// ctx.measure in a distributed scenario (config.world_size > 0; docs/distributed.md):
/// the process group made ready first (benchhost.distributed.process_group), then before
/// each sample, outside the timed region, benchhost.distributed._before_sample: a barrier,
/// so that sample i of every rank times the same step. Each sample is one call (batches
/// calibrated on each rank would differ in their calls, and a collective would wait for
/// calls that never come), and every rank takes --measurement-iterations samples: a time
/// rule would end each rank's sampling on its own, so it is not applied, with a warning.
/// On CUDA each call is followed by a synchronization (the host's clock: --timer host).
/// The timing is the C++ SDK's (Context::time_on_ranks), with benchhost.distributed's
/// group and barrier.
std::vector<double> measure_ranks(bench::Context& ctx, std::string_view name, PyObject* callable) {
    const py::module_ distributed = py::module_::import("benchhost.distributed");
    distributed.attr("process_group")(py::cast(&ctx, py::return_value_policy::reference));
    const py::object before_sample = distributed.attr("_before_sample");
    const std::string& device = ctx.config().device;
    bench::CudaDevice* cuda = device.rfind("cuda", 0) == 0 ? ctx.cuda_device(cuda_index(device)) : nullptr;
    PyObject* align = before_sample.ptr();
    return ctx
        .time_on_ranks(
            name, [callable] { call(callable); }, ctx.timing_options(),
            [cuda] {
                if (cuda != nullptr) cuda->synchronize();
            },
            [align] { call(align); }, [] { bench::flush_cpu_cache(); })
        .samples;
}

}  // namespace

PYBIND11_EMBEDDED_MODULE(benchhost, m) {
    m.doc() = "benchhost's SDK for Python plugins: the Context of the scenario being run.";

    // ctx.skip raises it. A BaseException, not an Exception, so that a plugin's
    // `except Exception` does not swallow it (as with SystemExit).
    py::register_exception<bench::SkipScenario>(m, "SkipScenario", PyExc_BaseException);

    m.def(
        "cache_dir",
        []() -> py::object {
            const auto dir = bench::benchhost_cache_dir();
            return dir ? py::object(py::str(dir->string())) : py::object(py::none());
        },
        "benchhost's cache folder, kept between runs ($BENCHHOST_CACHE_DIR, else $XDG_CACHE_HOME/benchhost, "
        "else ~/.cache/benchhost; not created), or None when none of them is an absolute path.");

    m.def(
        "_clock_ns",
        [] {
            return static_cast<long long>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(bench::Clock::now().time_since_epoch()).count());
        },
        "Now on the clock that times the samples (bench::Clock, steady), in ns: what "
        "Context.record_compile takes.");

    // @benchhost.benchmark(axes=..., variants=...) declares a benchmark function's own axes
    // and variants. The host reads its literal arguments from the file without running it
    // (host/src/discover/inspect_python.py); here it only hands the function back.
    m.def(
        "benchmark",
        [](const py::object&, const py::object&, bool) {
            return py::cpp_function([](const py::object& function) { return function; }, py::arg("function"));
        },
        py::kw_only(), py::arg("axes") = py::none(), py::arg("variants") = py::none(), py::arg("distributed") = false,
        "Declares a benchmark function's own axes (a list of names, or a dict of names to their values; {}: it runs "
        "once) and variants, in place of the module's BENCHHOST_PLUGIN axes, and whether it is distributed (it "
        "varies over world_size, one process a rank): literals only, read from the file without running it. "
        "Returns the function unchanged.");

    using bench::ScenarioConfig;
    py::class_<ScenarioConfig>(m, "Config", "The scenario's settings (read-only).")
        .def_readonly("category", &ScenarioConfig::category)
        .def_readonly("plugin", &ScenarioConfig::plugin)
        .def_readonly("benchmark", &ScenarioConfig::benchmark)
        .def_readonly("scenario_name", &ScenarioConfig::scenario_name)
        .def_property_readonly("variant",
                               [](const ScenarioConfig& c) { return std::string(bench::to_string(c.variant)); })
        .def_readonly("compile_mode", &ScenarioConfig::compile_mode)
        .def_readonly("batch_size", &ScenarioConfig::batch_size)
        .def_readonly("dtype", &ScenarioConfig::dtype)
        .def_readonly("device", &ScenarioConfig::device)
        .def_readonly("timer", &ScenarioConfig::timer, "--timer: auto, host or cuda-events")
        .def_readonly("cache", &ScenarioConfig::cache, "--cache: warm or cold")
        .def_readonly("compile_cache", &ScenarioConfig::compile_cache,
                      "--compile-cache: warm, or cold (the worker's compile caches are fresh, empty folders)")
        .def_readonly("discard_recompiled", &ScenarioConfig::discard_recompiled,
                      "--discard-recompiled: the samples a compile ran in are dropped")
        .def_readonly("threads", &ScenarioConfig::threads)
        .def_readonly("world_size", &ScenarioConfig::world_size,
                      "A distributed scenario's ranks (the world_size axis); 0: not distributed")
        .def_readonly("warmup_iterations", &ScenarioConfig::warmup_iterations)
        .def_readonly("measurement_iterations", &ScenarioConfig::measurement_iterations)
        .def_readonly("num_tokens_to_generate", &ScenarioConfig::num_tokens_to_generate)
        .def_readonly("model_id", &ScenarioConfig::model_id)
        .def_property_readonly(
            "params", [](const ScenarioConfig& c) { return params_of(c.params); },
            "--param and YAML params: name -> a string, or a list of strings")
        .def_property_readonly("axes", &axes_of,
                               "The scenario's values of the standard axes: variant, compile_mode, batch_size, "
                               "dtype, device (a custom axis's value is in params)")
        .def("__repr__", [](const ScenarioConfig& c) { return "<benchhost.Config " + c.scenario_id() + ">"; });

    using bench::Query;
    // A query belongs to the serving loop: valid during the handler's call only.
    py::class_<Query, std::unique_ptr<Query, py::nodelete>>(m, "Query", "One query being served.")
        .def_property_readonly("index", &Query::index, "Which query, from 0: pick the input by it")
        .def_property_readonly("samples", &Query::samples, "Samples in the query: 1, or --samples-per-query")
        .def_property_readonly("slot", &Query::slot,
                               "serve_steps: the query's slot, 0 to --max-batch - 1; serve_batches: its place in "
                               "the batch; serve: 0")
        .def_property_readonly("steps", &Query::steps, "serve_steps: the steps it was in before this one")
        .def_property_readonly("tokens", &Query::tokens, "Tokens reported so far")
        .def_property_readonly("finished", &Query::finished)
        .def("token", &Query::token, "A token is ready (time to first token, time per output token)")
        .def("finish", &Query::finish, "serve_steps: the query is complete; it leaves the batch after this step")
        .def("__repr__", [](const Query& q) { return "<benchhost.Query " + std::to_string(q.index()) + ">"; });

    using bench::Context;
    // The Context belongs to the worker: Python only borrows it for the call.
    py::class_<Context, std::unique_ptr<Context, py::nodelete>>(m, "Context", "The scenario being run.")
        .def_property_readonly("config", &Context::config, py::return_value_policy::reference_internal)
        .def(
            "measure",
            [](Context& ctx, std::string_view name, const py::object& fn) {
                PyObject* callable = fn.ptr();
                if (ctx.config().world_size > 0) return measure_ranks(ctx, name, callable);
                // On a CUDA device the device's work is timed, as the LibTorch layer's
                // measure_synchronized does: by CUDA events, or the host's clock and a
                // synchronization after each call (--timer).
                const std::string& device = ctx.config().device;
                if (device.rfind("cuda", 0) != 0) return ctx.measure(name, [callable] { call(callable); }).samples;
                const int index = cuda_index(device);
                return ctx
                    .measure_device(
                        name, [callable] { call(callable); }, index)
                    .samples;
            },
            py::arg("name"), py::arg("fn"),
            "Times fn() as the C++ SDK does (warmup, then samples until the stopping rule ends: "
            "--measurement-iterations, --min-time, --max-time, --target-ci-width) and records the samples, "
            "in ms, as series `name`. On a CUDA device (config.device cuda...) it is Context::measure_device: "
            "CUDA events around each sample (the host's clock beside, as `name`_host), or with --timer host "
            "the host's clock around each call and a device synchronization. In a distributed scenario the "
            "ranks meet at a barrier before each sample, outside the timed region, and each takes "
            "--measurement-iterations samples of one call. Returns the samples.")
        .def(
            "_timed_call",
            [](Context&, const py::object& fn) {
                const auto start = bench::Clock::now();
                py::object result = call(fn.ptr());
                const double ms = bench::elapsed_ns(start, bench::Clock::now()) / 1e6;
                return py::make_tuple(ms, result);
            },
            "(ms, result) of one call of fn(), timed by the C++ clock.")
        .def(
            "_figures",
            [](const Context& ctx) {
                // The SDK's own readings as timing begins (the machine's speed, the setup's
                // memory peak) are not the benchmark's figures.
                std::vector<std::string> names;
                const bench::ScenarioResult& result = ctx.result();
                for (const bench::Series& s : result.series)
                    if (!s.samples.empty()) names.push_back(s.name);
                for (const bench::Scalar& s : result.scalars)
                    if (s.name != "speed_reference_start" && s.name != "setup_peak_rss") names.push_back(s.name);
                for (const bench::Accuracy& a : result.accuracy) names.push_back("accuracy of " + a.model);
                return names;
            },
            "Names of the figures recorded so far: series with samples, scalars, accuracies.")
        .def(
            "_info", [](const Context& ctx) { return ctx.result().info; },
            "The text facts recorded so far (set_info), key -> value.")
        .def(
            "record_compile",
            [](Context& ctx, long long start_ns, long long end_ns, std::string_view what) {
                const auto at = [](long long ns) {
                    return bench::Clock::time_point(
                        std::chrono::duration_cast<bench::Clock::duration>(std::chrono::nanoseconds(ns)));
                };
                ctx.record_compile(at(start_ns), at(end_ns), what);
            },
            py::arg("start_ns"), py::arg("end_ns"), py::arg("what"),
            "A compile ran from start_ns to end_ns (benchhost._clock_ns()); what: what was compiled and why. "
            "The timed samples it overlaps are marked, with a warning naming `what`, and dropped with "
            "--discard-recompiled.")
        .def("add_sample", &Context::add_sample, py::arg("name"), py::arg("value"), py::arg("unit") = "",
             "Appends one sample to series `name`.")
        .def(
            "record_series",
            [](Context& ctx, std::string_view name, std::vector<double> samples, std::string_view unit) {
                ctx.record_series(name, std::move(samples), unit);
            },
            py::arg("name"), py::arg("samples"), py::arg("unit") = "", "Records samples as series `name`.")
        .def(
            "record_throughput",
            [](Context& ctx, std::string_view name, std::vector<double> latency_ms, double items_per_call,
               std::string_view unit) {
                ctx.record_throughput(name, bench::Series{"latency", "ms", std::move(latency_ms), 1}, items_per_call,
                                      unit);
            },
            py::arg("name"), py::arg("latency_ms"), py::arg("items_per_call"), py::arg("unit"),
            "Records items_per_call / latency for each latency sample (ms) as series `name`, in `unit`.")
        .def(
            "record_bandwidth",
            [](Context& ctx, std::string_view name, std::vector<double> latency_ms, double bytes_per_call, int device) {
                ctx.record_bandwidth(name, bench::Series{"latency", "ms", std::move(latency_ms), 1}, bytes_per_call,
                                     device);
            },
            py::arg("name"), py::arg("latency_ms"), py::arg("bytes_per_call"), py::arg("device") = -1,
            "Records bytes_per_call / latency for each latency sample (ms) as series `name` in GB/s; on a CUDA "
            "scenario also peak_memory_bandwidth and fraction_of_peak_<name> against the GPU memory's peak.")
        .def("record_scalar", &Context::record_scalar, py::arg("name"), py::arg("value"), py::arg("unit") = "",
             "Records a single figure; recording a name again replaces it.")
        .def("set_info", &Context::set_info, py::arg("key"), py::arg("value"),
             "Records a text fact shown in the report.")
        .def("add_warning", &Context::add_warning, py::arg("warning"),
             "Adds a warning about the scenario's figures, shown in the report and the log.")
        .def("skip", &Context::skip, py::arg("reason"),
             "Ends the scenario as skipped, with the reason (raises benchhost.SkipScenario).")
        .def("serve", serving<&Context::serve>(to_query), py::arg("handler"),
             "Serves queries under the run's load (--load; single-stream without it), as the C++ SDK's "
             "Context::serve: handler(query) serves one query and returns when it is complete, calling "
             "query.token() as each token is ready. The queries are issued by the SDK's C++ load generator; "
             "an exception from the handler fails the scenario. Once per scenario.")
        .def("serve_batches", serving<&Context::serve_batches>(queries_of), py::arg("handler"),
             "serve() with dynamic batching: handler(queries) serves a list of 1 to --max-batch queries "
             "together; each completes when it returns.")
        .def("serve_steps", serving<&Context::serve_steps>(queries_of), py::arg("handler"),
             "serve() with continuous batching: handler(active) runs one step of the active queries (a list, "
             "each with its slot), calling token() for each and finish() on those that are complete.")
        .def_property_readonly("served", &Context::served, "Whether serve, serve_batches or serve_steps ran")
        .def("begin_measurement", &Context::begin_measurement,
             "Opens a measurement window: the monitors count what they see until end_measurement().")
        .def("end_measurement", &Context::end_measurement, py::arg("iterations") = -1)
        .def(
            "log",
            [](Context& ctx, std::string_view level, std::string_view message) {
                ctx.log().log(spdlog::level::from_str(std::string(level)), "{}", message);
            },
            py::arg("level"), py::arg("message"),
            "Writes a line to the scenario's log: level is trace, debug, info, warning, error.")
        .def("__repr__", [](const Context& ctx) { return "<benchhost.Context " + ctx.config().scenario_id() + ">"; });
}
