#include "execute/executor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

#include <bench/internal/environment/worker_allocator.hpp>
#include <bench/memory_peak.hpp>

#include "discover/elf_inspector.hpp"
#include "discover/python_inspector.hpp"
#include "execute/cold_compile_caches.hpp"
#include "execute/leftover_processes.hpp"
#include "execute/memory_cgroup.hpp"
#include "execute/rank_executor.hpp"
#include "execute/worker.hpp"
#include "execute/worker_io.hpp"
#include "execute/worker_server.hpp"
#include "json/result_json.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

std::string iso_now() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

bench::ScenarioResult ended(bench::Status status, std::string reason) {
    bench::ScenarioResult result;
    result.status = status;
    result.reason = std::move(reason);
    return result;
}

/// Whether a worker that ran under a memory limit failed for lack of memory: it threw
/// std::bad_alloc, or died after saying so (an allocation failure in a noexcept path).
bool ran_out_of_memory(const ScenarioOutcome& outcome) {
    const bench::ScenarioResult& result = outcome.result;
    if (result.status == bench::Status::failed) return result.reason.find("std::bad_alloc") != std::string::npos;
    if (result.status == bench::Status::crashed || result.status == bench::Status::exited)
        return outcome.log_tail.find("bad_alloc") != std::string::npos ||
               outcome.log_tail.find("Cannot allocate memory") != std::string::npos ||
               outcome.log_tail.find("out of memory") != std::string::npos;
    return false;
}

/// The groups of the running workers, for the interrupt handler: a fixed set of slots,
/// which a signal handler can read.
class RunningGroups {
public:
    void add(pid_t group) {
        for (auto& slot : slots_) {
            pid_t empty = 0;
            if (slot.compare_exchange_strong(empty, group)) return;
        }
    }
    void remove(pid_t group) {
        for (auto& slot : slots_) {
            pid_t expected = group;
            if (slot.compare_exchange_strong(expected, 0)) return;
        }
    }
    void kill_all() {
        for (auto& slot : slots_)
            if (const pid_t group = slot.load(); group > 0) kill(-group, SIGKILL);
    }

private:
    std::array<std::atomic<pid_t>, 64> slots_{};
};

/// How the wait for a worker ended.
struct WorkerEnd {
    pid_t pid = 0;  // 0: the server never said it started one
    bool ended = false;  // its wait status came
    int wait_status = 0;
    int fork_error = 0;  // the server could not fork it: errno
    bool server_lost = false;  // the status pipe closed without an end: the server is gone
    bool timed_out = false;
    bool loaded = false;  // the worker said that the plugin is loaded
    std::string result;  // what followed 'R' on the result pipe
    std::vector<StoppedProcess> stopped;  // what the server stopped that the worker left running
    std::string stopped_unreadable;  // why the server's list of them could not be read
};

std::atomic<int> interrupts{0};
RunningGroups running_groups;

void on_interrupt(int) {
    const bool second = interrupts.fetch_add(1) >= 1;
    running_groups.kill_all();
    if (second) _exit(130);
}

/// Reads what the worker and the server say until the worker has ended (or the server
/// is gone), forwarding the output to `collector`; kills the worker's group at the
/// deadline and on interrupt. Returns with the group killed and the pipes drained.
WorkerEnd wait_for_worker(const WorkerLaunch& launch, const ExecutionOptions& options, OutputCollector& collector,
                          std::chrono::steady_clock::time_point start) {
    WorkerEnd end;
    const bool limited = options.timeout_s > 0;
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(options.timeout_s));
    bool status_open = true, output_open = true, result_open = true;
    std::string status_bytes, channel;
    char buffer[65536];

    auto read_channel = [&](int fd, bool& open, auto&& consume) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) consume(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) open = false;
    };
    auto to_collector = [&](const char* data, std::size_t size) { collector.append(data, size); };
    auto to_channel = [&](const char* data, std::size_t size) { channel.append(data, size); };
    auto to_status = [&](const char* data, std::size_t size) {
        status_bytes.append(data, size);
        while (status_bytes.size() >= sizeof(WorkerStatusRecord)) {
            WorkerStatusRecord record;
            std::memcpy(&record, status_bytes.data(), sizeof record);
            if (record.kind == WorkerStatusRecord::stopped) {  // the record, then its JSON
                const std::size_t length = static_cast<std::size_t>(std::max(record.value, 0));
                if (status_bytes.size() < sizeof record + length) break;  // the rest is still coming
                try {
                    end.stopped =
                        stopped_processes_from_json(std::string_view(status_bytes).substr(sizeof record, length));
                } catch (const std::exception& e) {
                    end.stopped_unreadable = e.what();
                }
                status_bytes.erase(0, sizeof record + length);
                continue;
            }
            status_bytes.erase(0, sizeof record);
            if (record.kind == WorkerStatusRecord::started && end.pid == 0) {
                end.pid = record.value;
                running_groups.add(end.pid);
            } else if (record.kind == WorkerStatusRecord::ended) {
                end.ended = true;
                end.wait_status = record.value;
            } else if (record.kind == WorkerStatusRecord::fork_failed) {
                end.fork_error = record.value;
            }
        }
    };

    // A server that has not said it started the worker this long after the deadline
    // does not answer: it is killed, and replaced.
    const auto server_deadline = deadline + std::chrono::seconds(5);
    bool stop = false, killed = false, server_killed = false;
    while (!end.ended && end.fork_error == 0 && !end.server_lost) {
        const auto now = std::chrono::steady_clock::now();
        // The group is registered (on 'P') before this check: an interrupt either finds
        // the group to kill or is found here.
        if (!stop && interrupt_requested()) stop = true;
        if (!stop && limited && now >= deadline) stop = end.timed_out = true;
        if (stop && !killed && end.pid > 0) {
            kill(-end.pid, SIGKILL);
            killed = true;
        }
        if (end.timed_out && end.pid == 0 && !server_killed && now >= server_deadline) {
            if (const pid_t server = worker_server_pid(); server > 0) kill(server, SIGKILL);
            server_killed = true;
        }
        // Until the deadline, or the server's; then until the status comes.
        int timeout_ms = -1;
        if (limited && (!stop || (end.pid == 0 && !server_killed))) {
            const auto until = (stop ? server_deadline : deadline) - now;
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(until).count();
            timeout_ms = static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(left, 0, 3'600'000));
        }
        // The run may bring its files up to date while a long scenario runs.
        if (options.while_waiting && !stop) timeout_ms = timeout_ms < 0 ? 100 : std::min(timeout_ms, 100);
        pollfd fds[3];
        nfds_t count = 0;
        if (status_open) fds[count++] = {launch.status, POLLIN, 0};
        if (output_open) fds[count++] = {launch.output, POLLIN, 0};
        if (result_open) fds[count++] = {launch.result, POLLIN, 0};
        if (poll(fds, count, timeout_ms) < 0 && errno != EINTR) {
            end.server_lost = true;  // cannot wait: treated as a lost server, which kills the worker
            break;
        }
        for (nfds_t i = 0; i < count; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == launch.status) read_channel(launch.status, status_open, to_status);
            else if (fds[i].fd == launch.output) read_channel(launch.output, output_open, to_collector);
            else read_channel(launch.result, result_open, to_channel);
        }
        if (!status_open && !end.ended && end.fork_error == 0) end.server_lost = true;
        if (options.while_waiting && !stop && !end.ended) options.while_waiting();
    }
    if (end.pid > 0) {
        // Whatever the plugin started goes with it (and a worker whose server is gone).
        kill(-end.pid, SIGKILL);
        running_groups.remove(end.pid);
    }
    // Drain what is left without waiting on a descendant that kept a pipe open.
    auto drain = [&](int fd, bool open, auto&& consume) {
        fcntl(fd, F_SETFL, O_NONBLOCK);
        while (open) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n > 0) consume(buffer, static_cast<std::size_t>(n));
            else if (n < 0 && errno == EINTR) continue;
            else open = false;
        }
    };
    drain(launch.output, output_open, to_collector);
    drain(launch.result, result_open, to_channel);

    if (channel.starts_with("L")) {
        end.loaded = true;
        channel.erase(0, 1);
    }
    if (channel.starts_with("R")) end.result = channel.substr(1);
    return end;
}

/// What the worker of `plugin` can be forked with loaded (worker_server.hpp): the
/// LibTorch libraries a C++ plugin links, the fork-safe modules a Python plugin imports.
/// Read from the files, never by loading them; once a file (as long as it is unchanged).
/// Empty when there is nothing to load ahead, or the files cannot be read.
WorkerPreload preload_of(const fs::path& plugin) {
    static std::mutex mutex;
    static std::map<std::string, std::pair<fs::file_time_type, WorkerPreload>> known;
    std::error_code ec;
    const bool package = fs::is_directory(plugin, ec);
    const fs::path file = package ? plugin / "__init__.py" : plugin;
    const fs::file_time_type modified = fs::last_write_time(file, ec);
    if (ec) return {};
    std::lock_guard lock(mutex);
    if (const auto found = known.find(file.string()); found != known.end() && found->second.first == modified)
        return found->second.second;
    WorkerPreload preload;
    try {
        if (is_python_plugin(plugin)) {
            const std::string python = plugin_python();
            const PythonInspection inspection = inspect_python_files(python, {file}, 30);
            if (inspection.files.size() == 1 && inspection.files[0].error.empty())
                preload.modules = fork_safe_preloads(inspection.files[0].imports);
            if (!preload.modules.empty()) {
                preload.python = python;
                preload.loader = python_loader_path().string();
            }
        } else if (const ElfInspection inspection = inspect_elf(plugin); inspection.info) {
            preload.libraries = linked_torch_libraries(*inspection.info, plugin.parent_path());
        }
    } catch (const std::exception&) {
        preload = {};  // loaded the plain way
    }
    known[file.string()] = {modified, preload};
    return preload;
}

/// Runs the scenario in a worker process, started by the worker server; fills the
/// outcome's result and log tail.
void run_in_worker(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log,
                   ScenarioOutcome& outcome) {
    WorkerRequest request;
    request.plugin = scenario.plugin_path.string();
    request.symbol = scenario.symbol;
    request.config_json = config_to_json(scenario.config);
    request.log_level = options.worker_log_level;
    request.monitor_interval_ms = options.monitor_interval_ms;
    request.memory_limit_mib = options.memory_limit_mib;
    request.environment = with_variables(worker_environment(), options.environment);
    if (options.worker_preload) request.preload = preload_of(scenario.plugin_path);
    // The worker's own memory cgroup where the host can make one, removed when it ends.
    const MemoryCgroups& cgroups = MemoryCgroups::system();
    struct WorkerCgroup {
        const MemoryCgroups& cgroups;
        std::filesystem::path dir;
        ~WorkerCgroup() {
            if (!dir.empty()) cgroups.remove(dir);
        }
    } cgroup{cgroups, {}};
    if (options.memory_limit_mib > 0 && cgroups.available()) {
        static std::atomic<long> workers{0};
        try {
            cgroup.dir = cgroups.create("benchhost-" + std::to_string(getpid()) + "-" + std::to_string(++workers),
                                        options.memory_limit_mib);
            request.cgroup = cgroup.dir.string();
        } catch (const std::exception& e) {
            log.warn("{}: this worker's memory limit is RLIMIT_DATA", e.what());
        }
    }

    OutputCollector collector(log, scenario.config.scenario_id());
    const auto start = std::chrono::steady_clock::now();
    WorkerEnd end;
    for (int attempt = 1;; ++attempt) {
        WorkerLaunch launch;
        try {
            launch = launch_worker(request);
        } catch (const std::exception& e) {
            outcome.result = ended(bench::Status::failed, e.what());
            return;
        }
        const Fd status(launch.status), output(launch.output), result(launch.result);
        end = wait_for_worker(launch, options, collector, start);
        if (!end.server_lost) break;
        const std::string how = worker_server_lost(launch.server_generation);
        log.warn("the worker server ended{}{}; a new one is started", how.empty() ? "" : " (" + how + ")",
                 end.pid > 0 ? " while " + scenario.config.scenario_id() + " ran" : "");
        // The scenario never started: it runs on the new server.
        if (end.pid > 0 || end.timed_out || interrupt_requested() || attempt == 2) break;
    }
    collector.finish();
    outcome.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.log_tail = collector.tail();

    const bool loaded = end.loaded;
    const std::string while_loading = loaded ? "" : " while loading " + scenario.plugin_path.string();
    if (end.timed_out) {
        std::ostringstream reason;
        reason << "timed out after " << options.timeout_s << " s" << while_loading << "; the worker was killed";
        outcome.result = ended(bench::Status::timed_out, reason.str());
    } else if (end.fork_error != 0) {
        outcome.result =
            ended(bench::Status::failed, std::string("cannot start a worker: fork: ") + std::strerror(end.fork_error));
    } else if (end.server_lost && end.pid > 0) {
        // Not the plugin's doing: not a crash while loading, whatever it had reached.
        outcome.result =
            ended(bench::Status::crashed, "the worker was killed: the worker server that started it ended");
    } else if (end.server_lost) {
        outcome.result =
            ended(bench::Status::failed, "cannot start a worker: the worker server ended twice before starting it");
    } else if (WIFSIGNALED(end.wait_status)) {
        outcome.result =
            ended(bench::Status::crashed, "crashed with " + describe_signal(WTERMSIG(end.wait_status)) + while_loading);
        outcome.crashed_while_loading = !loaded;
    } else if (WIFEXITED(end.wait_status) && WEXITSTATUS(end.wait_status) != 0) {
        outcome.result = ended(bench::Status::exited, "the worker exited with status " +
                                                          std::to_string(WEXITSTATUS(end.wait_status)) +
                                                          (loaded ? " before reporting a result" : while_loading));
        outcome.crashed_while_loading = !loaded;
    } else if (end.result.empty()) {
        outcome.result = ended(bench::Status::exited, "the worker exited with status 0 before reporting a result");
    } else {
        try {
            outcome.result = result_from_json(end.result);
        } catch (const std::exception& e) {
            outcome.result = ended(bench::Status::failed, std::string("unreadable worker result: ") + e.what());
        }
    }
    if (!cgroup.dir.empty() && cgroups.oom_killed(cgroup.dir)) {
        outcome.result.status = bench::Status::failed;
        outcome.result.reason = "out of memory: the worker exceeded --memory-limit " +
                                std::to_string(options.memory_limit_mib) + " MiB (" + cgroups.limit_file() + " of " +
                                cgroup.dir.string() + ": the kernel's OOM killer ended it) (" + outcome.result.reason +
                                ")";
    } else if (cgroup.dir.empty() && options.memory_limit_mib > 0 && ran_out_of_memory(outcome)) {
        outcome.result.status = bench::Status::failed;
        outcome.result.reason = "out of memory: the worker exceeded --memory-limit " +
                                std::to_string(options.memory_limit_mib) +
                                " MiB of allocated memory (RLIMIT_DATA: its heap and private writable mappings) (" +
                                outcome.result.reason + ")";
    }
    // Whatever the result says, and beside the plugin's own warnings.
    if (!end.stopped.empty()) outcome.result.warnings.push_back(leftover_processes_warning(end.stopped));
    if (!end.stopped_unreadable.empty())
        outcome.result.warnings.push_back(
            "the worker server stopped processes the scenario left running, but its list of them "
            "is unreadable: " +
            end.stopped_unreadable);
}

}  // namespace

void track_worker_group(pid_t group) { running_groups.add(group); }
void untrack_worker_group(pid_t group) { running_groups.remove(group); }

std::string describe_signal(int signal_number) {
    const char* abbrev = sigabbrev_np(signal_number);
    const char* description = strsignal(signal_number);
    std::string text = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal_number);
    if (description) text += std::string(" (") + description + ")";
    return text;
}

std::vector<std::string> worker_environment() {
    static const char* const names[] = {
        "PATH",      "HOME",   "USER", "LOGNAME",         "SHELL",          "LANG",
        "TZ",        "TMPDIR", "TERM", "LD_LIBRARY_PATH", "XDG_CACHE_HOME", "GLIBC_TUNABLES",
        "LD_PRELOAD"};
    // MALLOC_ (glibc's MALLOC_ARENA_MAX and the like, jemalloc's MALLOC_CONF) and
    // TCMALLOC_: the allocator changes what a worker measures as much as the thread
    // settings do.
    static const char* const prefixes[] = {"LC_", "OMP_", "KMP_", "MKL_", "OPENBLAS_", "GOTO_", "DNNL_", "ONEDNN_",
                                           "CUDA_", "NVIDIA_", "CUBLAS_", "CUDNN_", "NCCL_", "TORCH_", "PYTORCH_",
                                           "TORCHINDUCTOR_", "TORCHDYNAMO_", "BENCH_", "ASAN_", "UBSAN_", "LSAN_",
                                           "MALLOC_", "TCMALLOC_",
                                           // JAX's and XLA's (XLA_FLAGS, XLA_PYTHON_CLIENT_PREALLOCATE,
                                           // JAX_COMPILATION_CACHE_DIR), for Python plugins
                                           "XLA_", "JAX_",
                                           // benchhost's own (BENCHHOST_PYTHON, BENCHHOST_CACHE_DIR) and
                                           // Python's (PYTHONPATH) for the Python a worker runs
                                           "BENCHHOST_", "PYTHON"};
    std::vector<std::string> kept;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string variable = *entry;
        const std::string name = variable.substr(0, variable.find('='));
        bool keep = std::find(std::begin(names), std::end(names), name) != std::end(names);
        for (const char* prefix : prefixes) keep = keep || name.starts_with(prefix);
        if (keep) kept.push_back(variable);
    }
    kept.emplace_back("BENCHHOST_WORKER=1");
    // CUDA numbers GPUs fastest first by default, nvidia-smi and NVML (the GPU monitor) by
    // PCI bus: unless the user chose, the workers' cuda:N is nvidia-smi's GPU N.
    if (std::none_of(kept.begin(), kept.end(),
                     [](const std::string& v) { return v.starts_with("CUDA_DEVICE_ORDER="); }))
        kept.emplace_back("CUDA_DEVICE_ORDER=PCI_BUS_ID");
    // Unless the user chose the allocator's settings, the workers keep what they free,
    // up to 4 GiB (bench/internal/environment/worker_allocator.hpp says why).
    bool user_allocator = false;
    for (const std::string& variable : kept)
        for (const std::string_view name : bench::user_allocator_variables)
            user_allocator = user_allocator || variable.substr(0, variable.find('=')) == name;
    if (!user_allocator)
        for (const std::string_view variable : bench::kept_memory_environment) kept.emplace_back(variable);
    return kept;
}

std::vector<std::string> with_variables(std::vector<std::string> environment, const std::vector<std::string>& over) {
    for (const std::string& variable : over) {
        const std::string name = variable.substr(0, variable.find('=')) + "=";
        std::erase_if(environment, [&](const std::string& v) { return v.starts_with(name); });
        if (variable.find('=') != std::string::npos) environment.push_back(variable);
    }
    return environment;
}

void install_interrupt_handlers() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() { return interrupts.load() > 0; }

ScenarioOutcome execute_scenario(const PlannedScenario& scenario, const ExecutionOptions& options,
                                 spdlog::logger& log) {
    ScenarioOutcome outcome;
    outcome.config = scenario.config;
    outcome.plugin_path = scenario.plugin_path;
    outcome.plugin_version = scenario.plugin_version;
    outcome.plugin_build = scenario.plugin_build;
    outcome.started_at = iso_now();
    if (!scenario.reject_reason.empty()) {
        outcome.result = ended(bench::Status::rejected, scenario.reject_reason);
        return outcome;
    }
    if (!scenario.skip_reason.empty()) {
        outcome.result = ended(bench::Status::skipped, scenario.skip_reason);
        return outcome;
    }
    // --compile-cache cold: fresh compile caches for this scenario's workers, removed
    // when it ends; the report says which caches it measured with.
    std::optional<ColdCompileCaches> caches;
    try {
        caches.emplace(scenario.config);
    } catch (const std::exception& e) {
        outcome.result = ended(bench::Status::failed, e.what());
        return outcome;
    }
    ExecutionOptions own = options;
    own.environment = with_variables(options.environment, caches->environment());
    // Fresh caches are a new environment each scenario: a parent loaded for one would
    // serve no other.
    if (caches->cold()) own.worker_preload = false;
    // (Cold caches under --isolation none never get here: the run refuses them before
    // its first scenario, wherever they were asked for.)
    const auto say_caches = [&] {
        if (!caches->cold() && scenario.config.variant != bench::Variant::compiled) return;
        outcome.result.info["compile_caches"] = caches->describe();
    };
    // A distributed scenario's ranks are processes whatever the isolation: rank_executor.hpp.
    if (scenario.config.world_size > 0) {
        run_ranks(scenario, own, log, outcome);
        say_caches();
        return outcome;
    }
    if (options.isolation == Isolation::none) {
        const auto start = std::chrono::steady_clock::now();
        auto plugin_log = log.clone("plugin");
        bench::MonitorOptions monitoring;
        monitoring.interval_ms = options.monitor_interval_ms;
        bench::begin_scenario_resident_peak();  // not the scenarios' before this one
        outcome.result =
            run_entry_point(scenario.plugin_path, scenario.symbol, scenario.config, plugin_log, monitoring);
        add_peak_rss(outcome.result);
        outcome.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        say_caches();
        return outcome;
    }
    run_in_worker(scenario, own, log, outcome);
    say_caches();
    return outcome;
}

}  // namespace benchhost
