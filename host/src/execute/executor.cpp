#include "execute/executor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "util/atomic_file.hpp"
#include "json/result_json.hpp"
#include "execute/worker.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

std::atomic<int> interrupts{0};
std::atomic<pid_t> running_worker_group{0};

void on_interrupt(int) {
    if (interrupts.fetch_add(1) >= 1) {
        const pid_t group = running_worker_group.load();
        if (group > 0) kill(-group, SIGKILL);
        _exit(130);
    }
    const pid_t group = running_worker_group.load();
    if (group > 0) kill(-group, SIGKILL);
}

std::string iso_now() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

/// Keeps the last `capacity` bytes of the worker's output and forwards whole lines to
/// the log, up to a limit, so that a plugin flooding its output cannot flood the log.
class OutputCollector {
public:
    OutputCollector(spdlog::logger& log, std::string prefix) : log_(log), prefix_(std::move(prefix)) {}

    void append(const char* data, std::size_t size) {
        tail_.append(data, size);
        if (tail_.size() > 2 * tail_capacity) tail_.erase(0, tail_.size() - tail_capacity);
        pending_.append(data, size);
        for (std::size_t newline; (newline = pending_.find('\n')) != std::string::npos;) {
            forward(pending_.substr(0, newline));
            pending_.erase(0, newline + 1);
        }
        if (pending_.size() > 4096) {  // a very long line without a newline
            forward(pending_);
            pending_.clear();
        }
    }
    void finish() {
        if (!pending_.empty()) forward(pending_);
        pending_.clear();
        if (dropped_ > 0) log_.warn("{}: {} more bytes of output were not logged", prefix_, dropped_);
    }
    /// The last lines of output, at most tail_capacity bytes.
    std::string tail() const {
        std::string text = tail_.size() > tail_capacity ? tail_.substr(tail_.size() - tail_capacity) : tail_;
        if (tail_.size() > tail_capacity) text.erase(0, text.find('\n') + 1);
        return text;
    }

private:
    static constexpr std::size_t tail_capacity = 4096;
    static constexpr std::size_t forward_limit = 1 << 20;

    void forward(const std::string& line) {
        if (forwarded_ + line.size() > forward_limit) {
            dropped_ += line.size() + 1;
            return;
        }
        forwarded_ += line.size() + 1;
        log_.debug("{}: {}", prefix_, line);
    }

    spdlog::logger& log_;
    std::string prefix_;
    std::string tail_, pending_;
    std::size_t forwarded_ = 0, dropped_ = 0;
};

bench::ScenarioResult ended(bench::Status status, std::string reason) {
    bench::ScenarioResult result;
    result.status = status;
    result.reason = std::move(reason);
    return result;
}

std::string read_whole_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
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

/// Runs the scenario in a worker process; fills the outcome's result and log tail.
void run_in_worker(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log,
                   ScenarioOutcome& outcome) {
    static std::atomic<int> sequence{0};
    const std::string stem = "scenario_" + std::to_string(sequence++);
    const fs::path config_file = options.scratch_dir / (stem + ".config.json");
    const fs::path result_file = options.scratch_dir / (stem + ".result.json");
    write_file_atomically(config_file, config_to_json(scenario.config));
    fs::remove(result_file);

    int output[2];
    if (pipe2(output, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

    static const std::vector<std::string> environment = worker_environment();
    std::vector<const char*> envp;
    for (const std::string& variable : environment) envp.push_back(variable.c_str());
    envp.push_back(nullptr);
    const fs::path loaded_marker = result_file.string() + ".loaded";
    fs::remove(loaded_marker);

    const std::string plugin = scenario.plugin_path.string();
    const std::string config = config_file.string(), result = result_file.string();
    std::ostringstream interval;
    interval << options.monitor_interval_ms;
    const std::string monitor_interval = interval.str();
    std::vector<const char*> argv = {"benchhost-worker", "worker",   "--plugin",    plugin.c_str(),
                                     "--symbol",         scenario.symbol.c_str(),      "--config",
                                     config.c_str(),     "--result", result.c_str(), "--log-level",
                                     options.worker_log_level.c_str(), "--monitor-interval",
                                     monitor_interval.c_str(), nullptr};
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // In the child: only async-signal-safe calls until exec.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // die with the host, even on kill -9
        if (getppid() != parent) _exit(125);
        dup2(output[1], STDOUT_FILENO);
        dup2(output[1], STDERR_FILENO);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (options.memory_limit_mib > 0) {
            const rlim_t bytes = static_cast<rlim_t>(options.memory_limit_mib) << 20;
            const rlimit limit{bytes, bytes};
            setrlimit(RLIMIT_AS, &limit);
        }
        execve("/proc/self/exe", const_cast<char* const*>(argv.data()), const_cast<char* const*>(envp.data()));
        _exit(127);
    }
    setpgid(pid, pid);  // also here, so that the group exists before we may kill it
    running_worker_group = pid;
    close(output[1]);

    OutputCollector collector(log, scenario.config.scenario_id());
    const auto start = std::chrono::steady_clock::now();
    const bool limited = options.timeout_s > 0;
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(options.timeout_s));
    int wait_status = 0;
    bool exited = false, timed_out = false, pipe_open = true;
    char buffer[65536];
    while (!exited) {
        if (pipe_open) {
            pollfd fd{output[0], POLLIN, 0};
            if (poll(&fd, 1, 20) > 0) {
                const ssize_t n = read(output[0], buffer, sizeof buffer);
                if (n > 0) collector.append(buffer, static_cast<std::size_t>(n));
                else if (n == 0 || errno != EINTR) pipe_open = false;
            }
        } else {
            usleep(20'000);
        }
        const pid_t waited = waitpid(pid, &wait_status, WNOHANG);
        if (waited == pid) exited = true;
        if (!exited && options.while_waiting) options.while_waiting();
        if (!exited && interrupt_requested()) {
            kill(-pid, SIGKILL);
            waitpid(pid, &wait_status, 0);
            exited = true;
        }
        if (!exited && limited && std::chrono::steady_clock::now() >= deadline) {
            kill(-pid, SIGKILL);
            waitpid(pid, &wait_status, 0);
            exited = timed_out = true;
        }
    }
    // Whatever the plugin started goes with it.
    kill(-pid, SIGKILL);
    running_worker_group = 0;
    // Drain what is left without waiting on a descendant that kept the pipe open.
    fcntl(output[0], F_SETFL, O_NONBLOCK);
    for (ssize_t n; pipe_open && (n = read(output[0], buffer, sizeof buffer)) > 0;)
        collector.append(buffer, static_cast<std::size_t>(n));
    close(output[0]);
    collector.finish();

    outcome.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.log_tail = collector.tail();

    const bool loaded = fs::exists(loaded_marker);
    const std::string while_loading = loaded ? "" : " while loading " + scenario.plugin_path.string();
    if (timed_out) {
        std::ostringstream reason;
        reason << "timed out after " << options.timeout_s << " s" << while_loading << "; the worker was killed";
        outcome.result = ended(bench::Status::timed_out, reason.str());
    } else if (WIFSIGNALED(wait_status)) {
        outcome.result = ended(bench::Status::crashed, "crashed with " + describe_signal(WTERMSIG(wait_status)) + while_loading);
        outcome.crashed_while_loading = !loaded;
    } else if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
        outcome.result = ended(bench::Status::exited, "the worker exited with status " +
                                                          std::to_string(WEXITSTATUS(wait_status)) +
                                                          (loaded ? " before reporting a result" : while_loading));
        outcome.crashed_while_loading = !loaded;
    } else if (!fs::exists(result_file)) {
        outcome.result = ended(bench::Status::exited, "the worker exited with status 0 before reporting a result");
    } else {
        try {
            outcome.result = result_from_json(read_whole_file(result_file));
        } catch (const std::exception& e) {
            outcome.result = ended(bench::Status::failed, std::string("unreadable worker result: ") + e.what());
        }
    }
    if (options.memory_limit_mib > 0 && ran_out_of_memory(outcome)) {
        outcome.result.status = bench::Status::failed;
        outcome.result.reason = "out of memory: the worker exceeded --memory-limit " +
                                std::to_string(options.memory_limit_mib) + " MiB (" + outcome.result.reason + ")";
    }
    std::error_code ignored;
    fs::remove(config_file, ignored);
    fs::remove(result_file, ignored);
    fs::remove(loaded_marker, ignored);
}

}  // namespace

std::string describe_signal(int signal_number) {
    const char* abbrev = sigabbrev_np(signal_number);
    const char* description = strsignal(signal_number);
    std::string text = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal_number);
    if (description) text += std::string(" (") + description + ")";
    return text;
}

std::vector<std::string> worker_environment() {
    static const char* const names[] = {"PATH",           "HOME",          "USER",      "LOGNAME", "SHELL",
                                        "LANG",           "TZ",            "TMPDIR",    "TERM",    "LD_LIBRARY_PATH",
                                        "XDG_CACHE_HOME", "GLIBC_TUNABLES", "LD_PRELOAD"};
    // MALLOC_ (glibc's MALLOC_ARENA_MAX and the like, jemalloc's MALLOC_CONF) and
    // TCMALLOC_: the allocator changes what a worker measures as much as the thread
    // settings do.
    static const char* const prefixes[] = {"LC_",    "OMP_",    "KMP_",     "MKL_",   "OPENBLAS_", "GOTO_",
                                           "DNNL_",  "ONEDNN_", "CUDA_",    "NVIDIA_", "CUBLAS_",  "CUDNN_",
                                           "NCCL_",  "TORCH_",  "PYTORCH_", "BENCH_", "ASAN_",     "UBSAN_",
                                           "LSAN_",  "MALLOC_", "TCMALLOC_"};
    std::vector<std::string> kept;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string variable = *entry;
        const std::string name = variable.substr(0, variable.find('='));
        bool keep = std::find(std::begin(names), std::end(names), name) != std::end(names);
        for (const char* prefix : prefixes) keep = keep || name.starts_with(prefix);
        if (keep) kept.push_back(variable);
    }
    kept.emplace_back("BENCHHOST_WORKER=1");
    return kept;
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
    outcome.started_at = iso_now();
    if (!scenario.reject_reason.empty()) {
        outcome.result = ended(bench::Status::rejected, scenario.reject_reason);
        return outcome;
    }
    if (!scenario.skip_reason.empty()) {
        outcome.result = ended(bench::Status::skipped, scenario.skip_reason);
        return outcome;
    }
    if (options.isolation == Isolation::none) {
        const auto start = std::chrono::steady_clock::now();
        auto plugin_log = log.clone("plugin");
        bench::MonitorOptions monitoring;
        monitoring.interval_ms = options.monitor_interval_ms;
        outcome.result = run_entry_point(scenario.plugin_path, scenario.symbol, scenario.config, plugin_log, monitoring);
        outcome.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return outcome;
    }
    run_in_worker(scenario, options, log, outcome);
    return outcome;
}

}  // namespace benchhost
