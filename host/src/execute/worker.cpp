#include "execute/worker.hpp"

#include <cxxabi.h>
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <boost/dll/shared_library.hpp>

#include <bench/abi.hpp>
#include <bench/clock.hpp>
#include <bench/context.hpp>
#include <bench/internal/monitors/scenario_monitors.hpp>
#include <bench/memory_peak.hpp>
#include <bench/python_plugin.hpp>

#include "discover/discovery.hpp"
#include "discover/python_inspector.hpp"
#include "execute/compiled_samples.hpp"
#include "json/result_json.hpp"
#include "util/atomic_file.hpp"
#include "util/text_file.hpp"

namespace benchhost {

namespace {

bench::ScenarioResult failure(std::string reason) {
    bench::ScenarioResult result;
    result.status = bench::Status::failed;
    result.reason = std::move(reason);
    return result;
}

/// The name of the exception being handled, demangled: "std::runtime_error".
std::string current_exception_type() {
    const std::type_info* type = abi::__cxa_current_exception_type();
    if (type == nullptr) return "unknown exception";
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type->name(), nullptr, nullptr, &status),
                                                     std::free);
    return status == 0 && demangled ? demangled.get() : type->name();
}

/// Libraries stay loaded for the life of the process.
boost::dll::shared_library& load(const std::filesystem::path& plugin) {
    static std::mutex mutex;
    static std::vector<std::unique_ptr<boost::dll::shared_library>> loaded;
    std::lock_guard lock(mutex);
    for (auto& library : loaded)
        if (library->location() == boost::dll::fs::path(plugin.string())) return *library;
    loaded.push_back(std::make_unique<boost::dll::shared_library>(
        plugin.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local));
    return *loaded.back();
}

/// The loader's own words from a Boost.DLL exception: "<path>: undefined symbol: f".
std::string loader_message(const std::string& what, const std::filesystem::path& plugin) {
    const std::string marker = "(dlerror system message: ";
    std::string message = what;
    if (auto start = what.find(marker); start != std::string::npos) {
        start += marker.size();
        const auto end = what.rfind("): ");
        message = what.substr(start, end != std::string::npos && end > start ? end - start : std::string::npos);
    }
    const std::string prefix = plugin.string() + ": ";
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
    return message;
}

LoadedEntryPoint load_python_entry_point(const std::filesystem::path& plugin, const std::string& function) {
    std::string python;
    try {
        python = plugin_python();
    } catch (const std::exception& e) {
        return {{}, plugin.string() + ": " + e.what()};
    }
    const std::filesystem::path loader = python_loader_path();
    try {
        bench::PythonRunFunction& run = load(loader).get<bench::PythonRunFunction>(bench::python_run_symbol);
        return {[&run, plugin = plugin.string(), function, python](bench::Context& ctx) {
                    bench::PythonOutcome outcome;
                    run(ctx, plugin.c_str(), function.c_str(), python.c_str(), &outcome);
                    if (outcome.status == bench::PythonOutcome::skipped) ctx.skip(outcome.reason);
                    if (outcome.status == bench::PythonOutcome::failed) throw EntryFailure(outcome.reason);
                },
                {}};
    } catch (const std::exception& e) {
        return {{},
                plugin.string() + ": cannot load the Python loader " + loader.string() + ": " +
                    loader_message(e.what(), loader)};
    }
}

}  // namespace

std::string not_serving_reason(const bench::ScenarioConfig& config) {
    return "--load " + std::string(bench::to_string(config.load.mode)) + ": plugin " + config.plugin + ", benchmark " +
           config.benchmark_id() + " does not serve (it never calls ctx.serve with a request handler)";
}

std::string not_profiled_warning(const bench::ScenarioConfig& config) {
    return "--profile: plugin " + config.plugin + ", benchmark " + config.benchmark_id() +
           " has no profile: it never hands a call to ctx.profile (<bench/profile.hpp>; a Python benchmark "
           "cannot yet)";
}

std::filesystem::path python_loader_path() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path prefix = exe.parent_path().parent_path();
    for (const std::filesystem::path& dir : {prefix / BENCHHOST_INSTALL_LIBDIR, prefix / "lib"})
        if (std::filesystem::is_regular_file(dir / bench::python_loader_library, ec))
            return dir / bench::python_loader_library;
    return prefix / "lib" / bench::python_loader_library;
}

bool is_python_plugin(const std::filesystem::path& plugin) {
    std::error_code ec;
    return plugin.extension() == ".py" || std::filesystem::is_directory(plugin, ec);
}

LoadedEntryPoint load_entry_point(const std::filesystem::path& plugin, const std::string& symbol) {
    const std::string where = plugin.string() + ": ";
    if (is_python_plugin(plugin)) return load_python_entry_point(plugin, symbol);
    try {
        boost::dll::shared_library& library = load(plugin);
        if (!library.has(bench::plugin_info_symbol))
            return {nullptr, where + "bench_plugin_info is not exported (no BENCH_PLUGIN)"};
        const auto& info = library.get<const bench::PluginInfo>(bench::plugin_info_symbol);
        if (std::string problem = abi_problem(info); !problem.empty()) return {nullptr, where + problem};
        if (!library.has(symbol)) return {nullptr, where + "entry point " + symbol + " is not exported"};
        return {library.get<bench::EntryPoint>(symbol), {}};
    } catch (const std::exception& e) {
        return {nullptr, where + "cannot load: " + loader_message(e.what(), plugin)};
    }
}

bench::ScenarioResult call_entry_point(const std::function<void(bench::Context&)>& entry,
                                       const bench::ScenarioConfig& config, std::shared_ptr<spdlog::logger> logger,
                                       const bench::MonitorOptions& monitoring) {
    bench::MonitorOptions options = monitoring;
    options.device = config.device;
    bench::Context context(config, std::move(logger));
    std::optional<bench::ScenarioMonitors> monitors;  // samples from here until attach()
    std::string monitor_error;
    try {
        monitors.emplace(options);
    } catch (const std::exception& e) {
        monitor_error = e.what();
    }
    // --throttle-cooldown: the timing loops' stopping rule waits before a sample while the GPU throttles.
    const bool cool_downs = monitors && config.throttle_cooldown_s > 0 && config.device.rfind("cuda", 0) == 0;
    if (cool_downs)
        bench::StoppingRule::set_pause_between_samples(
            [&monitors, max_s = config.throttle_cooldown_s] { return monitors->cool_down(max_s); });
    bench::ScenarioResult result;
    try {
        entry(context);
        const bool served = context.served();
        result = context.take_result();
        result.status = bench::Status::success;
        if (config.load.mode != bench::LoadMode::none && !served) {
            result.status = bench::Status::skipped;
            result.reason = not_serving_reason(config);
        } else if (config.profile && !result.profile) {
            result.warnings.push_back(not_profiled_warning(config));
        }
    } catch (const bench::SkipScenario& skip) {
        result = context.take_result();
        result.status = bench::Status::skipped;
        result.reason = skip.what();
    } catch (const EntryFailure& e) {
        result = context.take_result();
        result.status = bench::Status::failed;
        result.reason = e.what();
    } catch (const std::exception& e) {
        result = context.take_result();
        result.status = bench::Status::failed;
        result.reason = "threw " + current_exception_type() + ": " + e.what();
    } catch (...) {
        result = context.take_result();
        result.status = bench::Status::failed;
        result.reason = "threw " + current_exception_type();
    }
    if (cool_downs) bench::StoppingRule::set_pause_between_samples({});
    if (monitors) monitors->stop();
    // The samples a compile ran in (a recompile the framework's callbacks reported),
    // marked and, with --discard-recompiled, dropped before the GPU's state is matched.
    const SampleEnds sample_ends =
        result.status == bench::Status::skipped
            ? context.sample_ends()
            : mark_compiled_samples(result, context.sample_ends(), context.compiles(), config.discard_recompiled);
    if (result.status != bench::Status::skipped) {
        try {
            if (!monitors) throw std::runtime_error(monitor_error);
            monitors->attach(result, context.measurement_windows());
            if (config.device.rfind("cuda", 0) == 0)
                monitors->attach_sample_states(result, sample_ends, config.discard_throttled);
            if (cool_downs) monitors->attach_cool_downs(result, config.throttle_cooldown_s);
        } catch (const std::exception& e) {
            result.warnings.push_back(std::string("the monitors failed: ") + e.what());
        }
    }
    return result;
}

bench::ScenarioResult run_entry_point(const std::filesystem::path& plugin, const std::string& symbol,
                                      const bench::ScenarioConfig& config, std::shared_ptr<spdlog::logger> logger,
                                      const bench::MonitorOptions& monitoring) {
    const LoadedEntryPoint loaded = load_entry_point(plugin, symbol);
    if (loaded.entry == nullptr) return failure(loaded.error);
    return call_entry_point(loaded.entry, config, std::move(logger), monitoring);
}

void add_peak_rss(bench::ScenarioResult& result) {
    // The kernel's high-water mark, with the part before a restart of it (the SDK restarts
    // it before the first timed sample): the whole scenario's peak.
    double peak = bench::scenario_resident_peak_mib();
    rusage usage{};
    if (peak != peak && getrusage(RUSAGE_SELF, &usage) == 0) peak = static_cast<double>(usage.ru_maxrss) / 1024.0;
    if (peak == peak && result.find_scalar("peak_rss") == nullptr) result.scalars.push_back({"peak_rss", peak, "MiB"});
}

bench::ScenarioResult run_worker_scenario(const std::filesystem::path& plugin, const std::string& symbol,
                                          const std::string& config_json, const std::string& log_level,
                                          double monitor_interval_ms, const std::function<void()>& loaded) {
    // The host reads these lines from the worker's stderr into its log.
    auto logger = std::make_shared<spdlog::logger>("plugin", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    logger->set_pattern("[%l] %v");
    logger->set_level(spdlog::level::from_str(log_level));

    bench::ScenarioResult result;
    try {
        const bench::ScenarioConfig config = config_from_json(config_json);
        const auto load_start = bench::Clock::now();
        const LoadedEntryPoint entry = load_entry_point(plugin, symbol);
        const double load_ms = bench::elapsed_ns(load_start, bench::Clock::now()) / 1e6;
        if (entry.entry == nullptr) {
            result = failure(entry.error);
        } else {
            loaded();
            bench::MonitorOptions monitoring;
            monitoring.interval_ms = monitor_interval_ms;
            result = call_entry_point(entry.entry, config, logger, monitoring);
            // The cold start begins with loading the plugin (and what it links: LibTorch).
            if (result.find_scalar("plugin_load") == nullptr) result.scalars.push_back({"plugin_load", load_ms, "ms"});
        }
    } catch (const std::exception& e) {
        result = failure(std::string("worker: ") + e.what());
    }
    add_peak_rss(result);
    logger->flush();
    return result;
}

int worker_main(const std::filesystem::path& plugin, const std::string& symbol,
                const std::filesystem::path& config_file, const std::filesystem::path& result_file,
                const std::string& log_level, double monitor_interval_ms) {
    std::string config_json;
    std::string config_error;
    try {
        config_json = read_text_file(config_file);
    } catch (const std::exception& e) {
        config_error = std::string("worker: ") + e.what();
    }
    bench::ScenarioResult result;
    if (config_error.empty()) {
        result = run_worker_scenario(plugin, symbol, config_json, log_level, monitor_interval_ms, [&] {
            write_file_atomically(std::filesystem::path(result_file.string() + ".loaded"), "");
        });
    } else {
        result = failure(config_error);
    }
    try {
        write_file_atomically(result_file, result_to_json(result));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[error] %s\n", e.what());
        return 70;  // EX_SOFTWARE: the host reports that no result came back
    }
    return 0;
}

}  // namespace benchhost
