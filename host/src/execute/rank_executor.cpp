#include "execute/rank_executor.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "execute/leftover_processes.hpp"
#include "execute/memory_cgroup.hpp"
#include "execute/rank_results.hpp"
#include "execute/slurm_ranks.hpp"
#include "execute/worker.hpp"
#include "execute/worker_io.hpp"
#include "execute/worker_server.hpp"
#include "json/result_json.hpp"
#include "util/append_unique.hpp"
#include "util/atomic_file.hpp"
#include "util/join.hpp"
#include "util/text_file.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

/// How long the other ranks may go on after the first one ended without success: long
/// enough for the rank that caused a peer's "connection closed" to report its own cause.
constexpr auto settle_time = std::chrono::milliseconds(1000);
/// How long the host waits for the server's word that a killed rank ended.
constexpr auto kill_wait = std::chrono::seconds(10);
/// Rendezvous ports tried when a rank finds its port taken.
constexpr int max_port_attempts = 3;

bench::ScenarioResult ended_with(bench::Status status, std::string reason) {
    bench::ScenarioResult result;
    result.status = status;
    result.reason = std::move(reason);
    return result;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// One rank's worker as the host watches it.
struct Rank {
    int rank = 0;
    std::vector<int> cpus;
    WorkerLaunch launch;
    std::unique_ptr<OutputCollector> collector;
    bool status_open = true, output_open = true, result_open = true;
    std::string status_bytes, channel;
    pid_t pid = 0;
    bool ended = false;  // its wait status came
    int wait_status = 0;
    int fork_error = 0;
    bool server_lost = false;
    bool killed = false;  // by the host: after another rank ended, at the timeout, on interrupt
    bool loaded = false;
    std::vector<StoppedProcess> stopped;
    std::string stopped_unreadable;
    bench::ScenarioResult result;  // once finished: what it reported, or how it ended
    bool finished = false;  // classified
    steady::time_point finished_at{};
    fs::path cgroup;
    std::string log_tail;
    std::string where;  // --launcher slurm: "<job>.<step> <node> <threads>", as its task wrote it

    bool running() const { return !ended && fork_error == 0 && !server_lost; }
    ~Rank() {
        for (const int fd : {launch.status, launch.output, launch.result})
            if (fd >= 0) close(fd);
    }
};

/// Reads the server's status records of `rank` from `data`.
void consume_status(Rank& rank, const char* data, std::size_t size, bool stopping) {
    rank.status_bytes.append(data, size);
    while (rank.status_bytes.size() >= sizeof(WorkerStatusRecord)) {
        WorkerStatusRecord record;
        std::memcpy(&record, rank.status_bytes.data(), sizeof record);
        if (record.kind == WorkerStatusRecord::stopped) {
            const std::size_t length = static_cast<std::size_t>(std::max(record.value, 0));
            if (rank.status_bytes.size() < sizeof record + length) break;
            try {
                rank.stopped =
                    stopped_processes_from_json(std::string_view(rank.status_bytes).substr(sizeof record, length));
            } catch (const std::exception& e) {
                rank.stopped_unreadable = e.what();
            }
            rank.status_bytes.erase(0, sizeof record + length);
            continue;
        }
        rank.status_bytes.erase(0, sizeof record);
        if (record.kind == WorkerStatusRecord::started && rank.pid == 0) {
            rank.pid = record.value;
            track_worker_group(rank.pid);
            if (stopping) {  // started after the others were stopped: it goes too
                kill(-rank.pid, SIGKILL);
                rank.killed = true;
            }
        } else if (record.kind == WorkerStatusRecord::ended) {
            rank.ended = true;
            rank.wait_status = record.value;
        } else if (record.kind == WorkerStatusRecord::fork_failed) {
            rank.fork_error = record.value;
        }
    }
}

/// What a rank that has ended produced: its result, or how its worker ended.
bench::ScenarioResult classify(const Rank& rank) {
    const std::string while_loading = rank.loaded ? "" : " while loading the plugin";
    if (rank.fork_error != 0)
        return ended_with(bench::Status::failed,
                          std::string("cannot start its worker: fork: ") + std::strerror(rank.fork_error));
    if (rank.server_lost) return ended_with(bench::Status::crashed, "its worker was killed: the worker server ended");
    if (WIFSIGNALED(rank.wait_status))
        return ended_with(bench::Status::crashed,
                          "crashed with " + describe_signal(WTERMSIG(rank.wait_status)) + while_loading);
    if (WIFEXITED(rank.wait_status) && WEXITSTATUS(rank.wait_status) != 0)
        return ended_with(bench::Status::exited, "exited with status " + std::to_string(WEXITSTATUS(rank.wait_status)) +
                                                     (rank.loaded ? " before reporting a result" : while_loading));
    std::string text = rank.channel;
    if (text.starts_with("L")) text.erase(0, 1);
    if (!text.starts_with("R"))
        return ended_with(bench::Status::exited, "exited with status 0 before reporting a result");
    try {
        return result_from_json(std::string_view(text).substr(1));
    } catch (const std::exception& e) {
        return ended_with(bench::Status::failed, std::string("unreadable worker result: ") + e.what());
    }
}

/// Reads `path`'s first line; empty when there is none.
std::string first_line(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

/// A folder of the rank progress files of one attempt (and, with --launcher slurm, of
/// their other files), in `parent` (default: the temporary folder), removed with its files.
struct ProgressFolder {
    fs::path dir;
    explicit ProgressFolder(const fs::path& parent = {}) {
        std::error_code ec;
        std::string pattern =
            ((parent.empty() ? fs::temp_directory_path(ec) : parent) / "benchhost-ranks-XXXXXX").string();
        if (mkdtemp(pattern.data()) != nullptr) dir = pattern;
    }
    ~ProgressFolder() {
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
    std::string file(int rank) const { return dir.empty() ? "" : (dir / ("rank" + std::to_string(rank))).string(); }
};

/// How an attempt ended.
struct Attempt {
    std::vector<std::unique_ptr<Rank>> ranks;
    bool timed_out = false;
    bool interrupted = false;
    std::vector<std::string> progress;  // at the timeout, each rank's
    std::string launch_error;  // the server could not take a rank's request; srun could not start the ranks
    bool none_started = false;  // srun started no rank: launch_error is the scenario's reason
};

/// When an attempt's ranks are stopped, the same for both launchers' wait loops (each
/// reads its ranks its own way: the worker server's pipes, the files of srun's tasks):
/// on interrupt, at the deadline (each rank's progress read first), settle_time after
/// the first rank that ended without success, and once every rank has its result; and
/// how long the stopped ranks are waited for (kill_wait).
class StopRule {
public:
    StopRule(Attempt& attempt, const ExecutionOptions& options)
        : attempt_(attempt),
          limited_(options.timeout_s > 0),
          deadline_(steady::now() +
                    std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(options.timeout_s))) {}

    bool stopping() const { return stopping_; }

    /// Whether the ranks are to be stopped now, at the start of a turn: on interrupt, at
    /// the deadline (`progress_of(rank)` read for each rank), or when the settle time is over.
    template <class ProgressOf>
    bool due(steady::time_point now, ProgressOf&& progress_of) {
        if (stopping_) return false;
        if (interrupt_requested()) {
            attempt_.interrupted = true;
            return true;
        }
        if (limited_ && now >= deadline_) {
            attempt_.timed_out = true;
            for (std::size_t r = 0; r < attempt_.ranks.size(); ++r)
                attempt_.progress.push_back(progress_of(static_cast<int>(r)));
            return true;
        }
        return settle_until_ && now >= *settle_until_;
    }
    /// After a turn: whether every rank has its result while some may still be exiting.
    bool all_finished() const {
        return !stopping_ && std::all_of(attempt_.ranks.begin(), attempt_.ranks.end(),
                                         [](const auto& rank) { return rank->finished; });
    }
    /// The ranks were just told to stop: they are waited for kill_wait.
    void stopped() {
        stopping_ = true;
        given_up_at_ = steady::now() + kill_wait;
    }
    /// Whether the stopped ranks have been waited for long enough; once only.
    bool waited_too_long(steady::time_point now) {
        if (!given_up_at_ || now < *given_up_at_) return false;
        given_up_at_.reset();
        return true;
    }
    /// `rank` has just finished: one that did not succeed starts the settle time.
    void finished(const Rank& rank) {
        if (rank.result.status != bench::Status::success && !settle_until_ && !stopping_)
            settle_until_ = rank.finished_at + settle_time;
    }
    /// How long a turn may wait for the ranks, at most `most`: until the deadline or the
    /// end of the settle time, whichever comes first.
    std::chrono::milliseconds wait_at_most(steady::time_point now, std::chrono::milliseconds most) const {
        if (stopping_) return most;
        auto until = settle_until_ ? *settle_until_ : steady::time_point::max();
        if (limited_) until = std::min(until, deadline_);
        if (until == steady::time_point::max()) return most;
        return std::clamp(std::chrono::ceil<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(0),
                          most);
    }

private:
    Attempt& attempt_;
    bool limited_;
    steady::time_point deadline_;
    bool stopping_ = false;
    std::optional<steady::time_point> settle_until_, given_up_at_;
};

/// Starts the ranks on `port` and waits until every one has ended; stops them all once
/// one ended without success (after settle_time), at the deadline, or on interrupt.
Attempt run_attempt(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log, int port,
                    const std::vector<std::vector<int>>& shares, int threads, const MemoryCgroups& cgroups) {
    Attempt attempt;
    const int world = scenario.config.world_size;
    ProgressFolder progress;
    StopRule rule(attempt, options);
    static std::atomic<long> cgroup_count{0};

    for (int r = 0; r < world; ++r) {
        auto rank = std::make_unique<Rank>();
        rank->rank = r;
        rank->cpus = shares[static_cast<std::size_t>(r)];
        rank->collector =
            std::make_unique<OutputCollector>(log, scenario.config.scenario_id() + " rank " + std::to_string(r));
        bench::ScenarioConfig config = scenario.config;
        if (config.threads <= 0) config.threads = threads;
        if (config.device.rfind("cuda", 0) == 0) config.device = "cuda:" + std::to_string(r);  // LOCAL_RANK's GPU
        WorkerRequest request;
        request.plugin = scenario.plugin_path.string();
        request.symbol = scenario.symbol;
        request.config_json = config_to_json(config);
        request.log_level = options.worker_log_level;
        // One monitor is enough: rank 0's watches the machine (and its GPU).
        request.monitor_interval_ms = r == 0 ? options.monitor_interval_ms : 0;
        request.memory_limit_mib = options.memory_limit_mib;
        request.environment = rank_environment(with_variables(worker_environment(), options.environment), r, world,
                                               port, threads, progress.file(r));
        request.cpus = rank->cpus;
        if (options.memory_limit_mib > 0 && cgroups.available()) {
            try {
                rank->cgroup =
                    cgroups.create("benchhost-" + std::to_string(getpid()) + "-rank-" + std::to_string(++cgroup_count),
                                   options.memory_limit_mib);
                request.cgroup = rank->cgroup.string();
            } catch (const std::exception& e) {
                log.warn("{}: rank {}'s memory limit is RLIMIT_DATA", e.what(), r);
            }
        }
        try {
            rank->launch = launch_worker(request);
        } catch (const std::exception& e) {
            attempt.launch_error = "cannot start rank " + std::to_string(r) + "'s worker: " + e.what();
            attempt.ranks.push_back(std::move(rank));
            break;
        }
        attempt.ranks.push_back(std::move(rank));
    }
    auto& ranks = attempt.ranks;
    if (!attempt.launch_error.empty()) {
        // Those started are stopped as they start; the one that failed never runs.
        ranks.back()->fork_error = -1;
        ranks.back()->finished = true;
        ranks.back()->result = ended_with(bench::Status::failed, attempt.launch_error);
    }

    char buffer[65536];
    const auto stop_all = [&] {
        for (auto& rank : ranks) {
            if (rank->pid > 0 && rank->running()) {
                kill(-rank->pid, SIGKILL);
                rank->killed = !rank->finished;  // one that reported its result was only exiting
            }
        }
        rule.stopped();
    };
    if (!attempt.launch_error.empty()) stop_all();

    const auto any_running = [&] {
        return std::any_of(ranks.begin(), ranks.end(),
                           [](const auto& rank) { return rank->launch.status >= 0 && rank->running(); });
    };
    while (any_running()) {
        const auto now = steady::now();
        if (rule.due(now, [&](int r) { return first_line(progress.file(r)); })) stop_all();
        if (rule.waited_too_long(now)) {
            // The server does not say that the killed ranks ended: it is replaced.
            for (auto& rank : ranks)
                if (rank->launch.status >= 0 && rank->running()) rank->server_lost = true;
            if (const pid_t server = worker_server_pid(); server > 0) kill(server, SIGKILL);
            break;
        }
        const int timeout_ms = static_cast<int>(rule.wait_at_most(now, std::chrono::milliseconds(100)).count());
        std::vector<pollfd> fds;
        std::vector<std::pair<Rank*, int>> owners;  // the rank and which pipe: 0 status, 1 output, 2 result
        for (auto& rank : ranks) {
            if (rank->launch.status < 0) continue;
            const std::pair<bool, int> pipes[] = {{rank->status_open, rank->launch.status},
                                                  {rank->output_open, rank->launch.output},
                                                  {rank->result_open, rank->launch.result}};
            for (int which = 0; which < 3; ++which) {
                if (!pipes[which].first) continue;
                fds.push_back({pipes[which].second, POLLIN, 0});
                owners.emplace_back(rank.get(), which);
            }
        }
        if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].revents == 0) continue;
            Rank& rank = *owners[i].first;
            const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            const bool closed = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
            if (n > 0) {
                if (owners[i].second == 0) consume_status(rank, buffer, static_cast<std::size_t>(n), rule.stopping());
                else if (owners[i].second == 1) rank.collector->append(buffer, static_cast<std::size_t>(n));
                else rank.channel.append(buffer, static_cast<std::size_t>(n));
            }
            if (closed) {
                if (owners[i].second == 0) rank.status_open = false;
                else if (owners[i].second == 1) rank.output_open = false;
                else rank.result_open = false;
            }
        }
        const auto seen = steady::now();
        for (auto& rank : ranks) {
            if (rank->launch.status < 0 || rank->finished) continue;
            if (!rank->status_open && rank->running()) rank->server_lost = true;
            // A rank whose result came whole (the worker closes the channel after it) has
            // finished, even while its process still exits (PyTorch's teardown may take
            // its time): the others need not wait for that.
            const bool reported = !rank->result_open && rank->channel.find('R') != std::string::npos;
            if (rank->running() && !reported) continue;
            // Ended: what is left of its output and result, without waiting on a
            // descendant that kept a pipe open.
            for (const int which : {1, 2}) {
                if (rank->running()) break;
                const int fd = which == 1 ? rank->launch.output : rank->launch.result;
                bool& open = which == 1 ? rank->output_open : rank->result_open;
                fcntl(fd, F_SETFL, O_NONBLOCK);
                while (open) {
                    const ssize_t n = read(fd, buffer, sizeof buffer);
                    if (n > 0) {
                        if (which == 1) rank->collector->append(buffer, static_cast<std::size_t>(n));
                        else rank->channel.append(buffer, static_cast<std::size_t>(n));
                    } else if (n < 0 && errno == EINTR) {
                        continue;
                    } else {
                        open = false;
                    }
                }
            }
            if (rank->pid > 0 && !rank->running()) {
                kill(-rank->pid, SIGKILL);  // what it started goes with it
                untrack_worker_group(rank->pid);
            }
            rank->loaded = rank->channel.starts_with("L");
            rank->result = classify(*rank);
            rank->finished = true;
            rank->finished_at = seen;
            rule.finished(*rank);
        }
        // Every rank has its result, and some are still exiting: they are stopped.
        if (rule.all_finished()) stop_all();
        if (options.while_waiting && !rule.stopping()) options.while_waiting();
    }
    for (auto& rank : ranks) {
        if (rank->pid > 0) {
            kill(-rank->pid, SIGKILL);
            untrack_worker_group(rank->pid);
        }
        if (!rank->finished && rank->launch.status >= 0) {
            rank->result = classify(*rank);
            rank->finished = true;
            rank->finished_at = steady::now();
        }
        rank->collector->finish();
        rank->log_tail = rank->collector->tail();
        if (!rank->cgroup.empty()) {
            if (cgroups.oom_killed(rank->cgroup)) {
                rank->result =
                    ended_with(bench::Status::failed, "out of memory: the worker exceeded --memory-limit " +
                                                          std::to_string(options.memory_limit_mib) + " MiB (" +
                                                          cgroups.limit_file() + " of " + rank->cgroup.string() +
                                                          ": the kernel's OOM killer ended it)");
                rank->killed = false;
            }
            cgroups.remove(rank->cgroup);
        }
    }
    return attempt;
}

/// The same on SLURM (--launcher slurm): the ranks as the tasks of one `srun` step in the
/// current allocation (slurm_ranks.hpp), rendezvousing on `address`:`port`. What the local
/// launcher's worker server says on pipes each task writes into the rank folder; the
/// host reads it there, and each task's output from srun's (--label). Stopping the ranks
/// is cancelling the step: SIGKILL to every process of it (scancel), then srun itself.
Attempt run_srun_attempt(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log,
                         const std::string& address, int port) {
    Attempt attempt;
    auto& ranks = attempt.ranks;
    const int world = scenario.config.world_size;
    for (int r = 0; r < world; ++r) {
        auto rank = std::make_unique<Rank>();
        rank->rank = r;
        rank->collector =
            std::make_unique<OutputCollector>(log, scenario.config.scenario_id() + " rank " + std::to_string(r));
        ranks.push_back(std::move(rank));
    }
    const auto none_started = [&](const std::string& why) {
        attempt.launch_error = why;
        attempt.none_started = true;
        for (auto& rank : ranks) {
            rank->result = ended_with(bench::Status::failed, why);
            rank->finished = true;
        }
        return std::move(attempt);
    };
    std::error_code ec;
    ProgressFolder folder(options.rank_files_dir.empty() ? fs::path() : fs::absolute(options.rank_files_dir, ec));
    if (folder.dir.empty())
        return none_started("cannot make a folder for the ranks' files in " + (options.rank_files_dir.empty()
                                                                                   ? std::string("the temporary folder")
                                                                                   : options.rank_files_dir.string()));
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    std::vector<std::string> argv = {"srun"};
    try {
        write_file_atomically(folder.dir / "config.json", config_to_json(scenario.config));
        std::ostringstream monitor;
        monitor << options.monitor_interval_ms;
        const std::vector<std::string> worker = {ec ? std::string("benchhost") : self.string(),
                                                 "worker",
                                                 "--plugin",
                                                 fs::absolute(scenario.plugin_path, ec).string(),
                                                 "--symbol",
                                                 scenario.symbol,
                                                 "--rank-dir",
                                                 folder.dir.string(),
                                                 "--log-level",
                                                 options.worker_log_level,
                                                 "--monitor-interval",
                                                 monitor.str()};
        for (std::string& word : srun_arguments(world, "benchhost-ranks", worker)) argv.push_back(std::move(word));
    } catch (const std::exception& e) {
        return none_started(std::string("cannot write the ranks' config: ") + e.what());
    }
    // srun gets the host's whole environment (SLURM's variables place the step in the
    // allocation); each task makes its plugin's environment from it (slurm_rank_main).
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string_view variable = *entry;
        if (!variable.starts_with("MASTER_ADDR=") && !variable.starts_with("MASTER_PORT="))
            environment.emplace_back(variable);
    }
    environment.push_back("MASTER_ADDR=" + address);
    environment.push_back("MASTER_PORT=" + std::to_string(port));
    int output = -1;
    pid_t srun = 0;
    try {
        srun = spawn_with_output(argv, environment, &output);
    } catch (const std::exception& e) {
        return none_started(std::string("cannot start srun: ") + e.what());
    }
    log.debug("{}: {}", scenario.config.scenario_id(), join(argv, " "));

    StopRule rule(attempt, options);
    std::string pending, srun_says;  // a line not yet whole; srun's own lines
    bool output_open = true, srun_ended = false;
    int srun_status = 0;
    std::string step;  // "<job>.<step>", once a task wrote it

    const auto take_line = [&](std::string_view line) {
        // "1: text" from rank 1 (srun pads the number with spaces to the widest one).
        std::size_t at = line.find_first_not_of(' ');
        std::size_t digits = at;
        while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
        if (at != std::string_view::npos && digits > at && line.substr(digits, 2) == ": ") {
            const int r = std::atoi(std::string(line.substr(at, digits - at)).c_str());
            if (r >= 0 && r < world) {
                const std::string text = std::string(line.substr(digits + 2)) + "\n";
                ranks[static_cast<std::size_t>(r)]->collector->append(text.data(), text.size());
                return;
            }
        }
        log.debug("{}: {}", scenario.config.scenario_id(), line);
        srun_says += std::string(line) + "\n";
        if (srun_says.size() > 4096) srun_says.erase(0, srun_says.size() - 4096);
    };
    const auto read_files = [&](Rank& rank) {
        const int r = rank.rank;
        if (rank.where.empty() && fs::exists(rank_file(folder.dir, r, "where"), ec)) {
            rank.where = first_line(rank_file(folder.dir, r, "where"));
            if (step.empty()) step = rank.where.substr(0, rank.where.find(' '));
        }
        if (rank.finished) return;
        rank.loaded = rank.loaded || fs::exists(rank_file(folder.dir, r, "loaded"), ec);
        const bool reported = fs::exists(rank_file(folder.dir, r, "json"), ec);
        const bool ended = fs::exists(rank_file(folder.dir, r, "status"), ec);
        if (!reported && !ended) return;
        if (ended) {
            rank.ended = true;
            rank.wait_status = std::atoi(first_line(rank_file(folder.dir, r, "status")).c_str());
        }
        rank.channel = rank.loaded ? "L" : "";
        if (reported) {
            try {
                rank.channel += "R" + read_text_file(rank_file(folder.dir, r, "json"));
            } catch (const std::exception&) {}
        }
        rank.result = classify(rank);
        rank.finished = true;
        rank.finished_at = steady::now();
        rule.finished(rank);
    };
    const auto stop_all = [&] {
        for (auto& rank : ranks) read_files(*rank);  // the step the tasks are in
        if (!step.empty()) {
            std::string said;
            if (run_to_end({"scancel", "--signal=KILL", step}, &said, 10) != 0)
                log.warn("{}: scancel --signal=KILL {} failed: {}", scenario.config.scenario_id(), step,
                         one_line(said, 200));
        } else {
            kill(srun, SIGTERM);  // no task started yet: srun forwards it, or gives up the step
        }
        for (auto& rank : ranks)
            if (!rank->finished) rank->killed = true;
        rule.stopped();
    };

    char buffer[65536];
    while (!srun_ended || output_open) {
        const auto now = steady::now();
        if (rule.due(now, [&](int r) { return first_line(rank_file(folder.dir, r, "progress")); })) stop_all();
        if (rule.waited_too_long(now)) {
            // The step did not end: srun and what it left go, and SLURM is told to cancel it.
            log.warn("{}: srun did not end {} s after its step was killed: killing srun", scenario.config.scenario_id(),
                     std::chrono::duration_cast<std::chrono::seconds>(kill_wait).count());
            if (!step.empty()) run_to_end({"scancel", step}, nullptr, 10);
            kill(-srun, SIGKILL);
        }
        if (output_open) {
            pollfd poll_fd{output, POLLIN, 0};
            if (poll(&poll_fd, 1, 100) > 0) {
                const ssize_t n = read(output, buffer, sizeof buffer);
                if (n > 0) {
                    pending.append(buffer, static_cast<std::size_t>(n));
                    for (std::size_t newline; (newline = pending.find('\n')) != std::string::npos;) {
                        take_line(std::string_view(pending).substr(0, newline));
                        pending.erase(0, newline + 1);
                    }
                } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                    output_open = false;
                }
            }
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (!srun_ended && waitpid(srun, &srun_status, WNOHANG) == srun) srun_ended = true;
        for (auto& rank : ranks) read_files(*rank);
        // Every rank has its result, and some are still exiting: the step is ended.
        if (!srun_ended && rule.all_finished()) stop_all();
        if (options.while_waiting && !rule.stopping()) options.while_waiting();
    }
    if (!pending.empty()) take_line(pending);
    close(output);

    bool any_started = false;
    for (auto& rank : ranks) {
        read_files(*rank);
        any_started = any_started || !rank->where.empty();
    }
    const std::string srun_ended_how = WIFEXITED(srun_status)
                                           ? "exit status " + std::to_string(WEXITSTATUS(srun_status))
                                           : describe_signal(WIFSIGNALED(srun_status) ? WTERMSIG(srun_status) : 0);
    if (!any_started && !rule.stopping()) {
        // srun's words, and what SLURM said in rank 0's output (slurmstepd: execve() ...).
        std::string said = one_line(srun_says, 400);
        ranks.front()->collector->finish();
        if (const std::string tail = ranks.front()->collector->tail(); !tail.empty())
            said += "; rank 0: " + one_line(tail, 300);
        return none_started("srun started no rank (" + srun_ended_how + "): " + said);
    }
    for (auto& rank : ranks) {
        if (!rank->finished) {
            // Its task ended without saying how its scenario ended: srun's words are all there
            // is (a failure of the step, not a crash of the plugin's to remember).
            rank->result =
                ended_with(bench::Status::failed, "its task ended without a result (srun: " + srun_ended_how + "; " +
                                                      one_line(srun_says, 300) + ")");
            rank->finished = true;
            rank->finished_at = steady::now();
        }
        rank->collector->finish();
        rank->log_tail = rank->collector->tail();
    }
    return attempt;
}

/// "rank 1 of 2" for a reason.
std::string rank_name(int rank, int world) { return "rank " + std::to_string(rank) + " of " + std::to_string(world); }

/// The rank whose failure ends the scenario: of those that ended without success on
/// their own (not killed by the host), one whose failure is not only that a peer went
/// away, else any, the first to end. nullptr when every failure was the host's doing.
const Rank* first_failure(const Attempt& attempt) {
    const Rank* found = nullptr;
    const auto better = [](const Rank* candidate, const Rank* best) {
        if (best == nullptr) return true;
        const bool peer_candidate = peer_went_away(candidate->result.reason + candidate->log_tail);
        const bool peer_best = peer_went_away(best->result.reason + best->log_tail);
        if (peer_candidate != peer_best) return !peer_candidate;
        if (candidate->finished_at != best->finished_at) return candidate->finished_at < best->finished_at;
        // Seen at the same moment: a process that died is likelier the cause than one that
        // raised (after its peer died).
        const auto died = [](const Rank* rank) {
            return rank->result.status == bench::Status::crashed || rank->result.status == bench::Status::exited;
        };
        return died(candidate) && !died(best);
    };
    for (const auto& rank : attempt.ranks) {
        if (rank->killed || rank->result.status == bench::Status::success) continue;
        if (better(rank.get(), found)) found = rank.get();
    }
    return found;
}

/// The scenario's log tail: the failing rank's last lines first, then the others', each
/// headed by its rank, within the single worker's budget.
std::string combined_tail(const Attempt& attempt, const Rank* first) {
    std::string tail;
    const auto add = [&](const Rank& rank) {
        if (rank.log_tail.empty()) return;
        tail += "[rank " + std::to_string(rank.rank) + "]\n" + rank.log_tail;
        if (!tail.ends_with("\n")) tail += "\n";
    };
    if (first != nullptr) add(*first);
    for (const auto& rank : attempt.ranks)
        if (rank.get() != first) add(*rank);
    constexpr std::size_t budget = 8192;
    if (tail.size() > budget) tail.resize(budget);
    return tail;
}

}  // namespace

std::vector<int> available_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    if (cpus.empty()) {
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        for (long cpu = 0; cpu < std::max(online, 1L); ++cpu) cpus.push_back(static_cast<int>(cpu));
    }
    return cpus;
}

std::vector<std::vector<int>> rank_cpu_shares(const std::vector<int>& available, int world_size) {
    std::vector<std::vector<int>> shares(static_cast<std::size_t>(std::max(world_size, 0)));
    if (available.empty() || world_size <= 0) return shares;
    const std::size_t ranks = shares.size();
    if (available.size() >= ranks) {
        const std::size_t each = available.size() / ranks;
        for (std::size_t r = 0; r < ranks; ++r)
            shares[r].assign(available.begin() + static_cast<long>(r * each),
                             available.begin() + static_cast<long>((r + 1) * each));
    } else {
        for (std::size_t r = 0; r < ranks; ++r) shares[r] = {available[r % available.size()]};
    }
    return shares;
}

std::vector<std::string> rank_environment(std::vector<std::string> base, int rank, int world_size, int port,
                                          int threads, const std::string& progress_file) {
    // One machine: the local rank is the rank.
    return rank_environment(std::move(base), RankPlace{rank, rank, world_size, world_size, 0, "127.0.0.1", port},
                            threads, progress_file);
}

std::vector<std::string> rank_environment(std::vector<std::string> base, const RankPlace& place, int threads,
                                          const std::string& progress_file) {
    const auto set = [&base](const std::string& name, const std::string& value, bool keep_existing = false) {
        const auto same = [&](const std::string& variable) { return variable.starts_with(name + "="); };
        if (keep_existing && std::any_of(base.begin(), base.end(), same)) return;
        std::erase_if(base, same);
        base.push_back(name + "=" + value);
    };
    set("RANK", std::to_string(place.rank));
    set("LOCAL_RANK", std::to_string(place.local_rank));
    set("GROUP_RANK", std::to_string(place.group_rank));
    set("ROLE_RANK", std::to_string(place.rank));
    set("WORLD_SIZE", std::to_string(place.world_size));
    set("LOCAL_WORLD_SIZE", std::to_string(place.local_world_size));
    set("ROLE_WORLD_SIZE", std::to_string(place.world_size));
    set("MASTER_ADDR", place.master_addr);
    set("MASTER_PORT", std::to_string(place.port));
    if (threads > 0) set("OMP_NUM_THREADS", std::to_string(threads), /*keep_existing=*/true);
    if (!progress_file.empty()) set("BENCHHOST_RANK_PROGRESS", progress_file);
    return base;
}

int free_port(int first) {
    const auto bindable = [](int port) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return 0;
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_ANY);  // as rank 0's store listens
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        int got = 0;
        if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
            socklen_t length = sizeof address;
            if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) got = ntohs(address.sin_port);
        }
        close(fd);
        return got;
    };
    if (first <= 0) return bindable(0);
    for (int port = first; port < first + 100 && port < 65536; ++port)
        if (bindable(port) == port) return port;
    return 0;
}

bool port_was_taken(std::string_view text) {
    const std::string low = lower(text);
    return low.find("eaddrinuse") != std::string::npos || low.find("address already in use") != std::string::npos;
}

bool peer_went_away(std::string_view text) {
    const std::string low = lower(text);
    for (const char* words : {"closed by peer", "reset by peer", "broken pipe", "econnreset", "epipe",
                              "connection refused", "connection closed", "socket closed"})
        if (low.find(words) != std::string::npos) return true;
    return false;
}

std::string ranks_behind(const std::vector<std::string>& progress) {
    struct Point {
        long long number = 0;
        std::string text;
    };
    std::vector<Point> points;
    for (const std::string& line : progress) {
        Point point;
        char* end = nullptr;
        point.number = std::strtoll(line.c_str(), &end, 10);
        if (end == line.c_str()) {
            point = {0, "starting (it had not begun the benchmark: loading the plugin, importing)"};
        } else {
            point.text = std::string(end);
            point.text.erase(0, point.text.find_first_not_of(' '));
        }
        points.push_back(std::move(point));
    }
    if (points.empty()) return "";
    const long long lowest = std::min_element(points.begin(), points.end(), [](const Point& a, const Point& b) {
                                 return a.number < b.number;
                             })->number;
    std::vector<std::string> behind, others;
    std::string behind_text;
    for (std::size_t r = 0; r < points.size(); ++r) {
        if (points[r].number == lowest) {
            behind.push_back(std::to_string(r));
            behind_text = points[r].text;
        } else {
            others.push_back("rank " + std::to_string(r) + " was " + points[r].text);
        }
    }
    if (others.empty()) return "every rank was " + behind_text + "; none was behind the others";
    return (behind.size() == 1 ? "rank " + behind[0] + " was" : "ranks " + join(behind, ", ") + " were") +
           " behind the others, " + behind_text + ", while " + join(others, ", ");
}

void run_ranks(const PlannedScenario& scenario, const ExecutionOptions& options, spdlog::logger& log,
               ScenarioOutcome& outcome) {
    const int world = scenario.config.world_size;
    const std::vector<int> cpus = available_cpus();
    const std::vector<std::vector<int>> shares = rank_cpu_shares(cpus, world);
    const int threads = scenario.config.threads > 0 ? scenario.config.threads
                                                    : static_cast<int>(std::max<std::size_t>(shares.front().size(), 1));
    const MemoryCgroups& cgroups = MemoryCgroups::system();
    const auto start = steady::now();
    const bool slurm = options.launcher == Launcher::slurm;
    std::string address = "127.0.0.1";
    if (slurm) {
        if (std::string problem = slurm_allocation_problem(); !problem.empty()) {
            outcome.result = ended_with(bench::Status::failed, std::move(problem));
            return;
        }
        try {
            address = slurm_master_address();
        } catch (const std::exception& e) {
            outcome.result =
                ended_with(bench::Status::failed, std::string("--launcher slurm: no address for rank 0: ") + e.what());
            return;
        }
    }

    int first_port = 0;
    if (const char* given = std::getenv("BENCHHOST_MASTER_PORT"); given != nullptr && *given != '\0')
        first_port = std::atoi(given);
    std::vector<int> tried;
    Attempt attempt;
    int port = 0;
    for (int number = 1;; ++number) {
        port = free_port(first_port);
        if (port == 0) port = free_port();
        if (port == 0) {
            outcome.result = ended_with(bench::Status::failed, "no free TCP port to rendezvous on (" + address + ")");
            return;
        }
        tried.push_back(port);
        attempt = slurm ? run_srun_attempt(scenario, options, log, address, port)
                        : run_attempt(scenario, options, log, port, shares, threads, cgroups);
        if (attempt.timed_out || attempt.interrupted || number == max_port_attempts) break;
        const bool taken = std::any_of(attempt.ranks.begin(), attempt.ranks.end(), [](const auto& rank) {
            return rank->result.status != bench::Status::success &&
                   (port_was_taken(rank->result.reason) || port_was_taken(rank->log_tail));
        });
        if (!taken) break;
        log.info("{}: MASTER_PORT {} was taken when rank 0 listened on it; the ranks start again on another port",
                 scenario.config.scenario_id(), port);
        first_port = first_port > 0 ? port + 1 : 0;
    }
    outcome.wall_time_s = std::chrono::duration<double>(steady::now() - start).count();

    std::vector<std::string> cpu_texts;
    for (const auto& share : shares) {
        std::vector<std::string> each;
        for (const int cpu : share) each.push_back(std::to_string(cpu));
        cpu_texts.push_back(join(each, ","));
    }
    const Rank* first = first_failure(attempt);
    outcome.log_tail = combined_tail(attempt, first);

    if (attempt.none_started) {
        outcome.result = ended_with(bench::Status::failed, attempt.launch_error);
    } else if (attempt.timed_out) {
        std::ostringstream reason;
        reason << "timed out after " << options.timeout_s << " s";
        if (const std::string behind = ranks_behind(attempt.progress); !behind.empty()) reason << ": " << behind;
        reason << "; every rank was killed";
        outcome.result = ended_with(bench::Status::timed_out, reason.str());
    } else if (first != nullptr) {
        outcome.result = first->result;
        // "rank 1 of 2: raised ValueError: ..."; a skip that every rank made alike keeps its
        // own words.
        const bool skipped = first->result.status == bench::Status::skipped;
        std::string reason = rank_name(first->rank, world) + ": " + first->result.reason;
        std::vector<std::string> stopped, also;
        for (const auto& rank : attempt.ranks) {
            if (rank.get() == first || rank->result.status == bench::Status::success) continue;
            if (rank->killed) stopped.push_back(std::to_string(rank->rank));
            else if (!skipped || rank->result.reason != first->result.reason)
                also.push_back("rank " + std::to_string(rank->rank) + ": " + one_line(rank->result.reason, 160));
        }
        if (skipped && stopped.empty() && also.empty()) reason = first->result.reason;
        if (!also.empty()) reason += " (then " + join(also, "; ") + ")";
        if (!stopped.empty())
            reason +=
                "; the host stopped " + std::string(stopped.size() == 1 ? "rank " : "ranks ") + join(stopped, ", ");
        outcome.result.reason = reason;
        outcome.crashed_while_loading = !first->loaded && (first->result.status == bench::Status::crashed ||
                                                           first->result.status == bench::Status::exited);
    } else if (attempt.interrupted) {
        outcome.result = ended_with(bench::Status::crashed, "interrupted: every rank was killed");
    } else {
        std::vector<bench::ScenarioResult> results;
        for (const auto& rank : attempt.ranks) results.push_back(rank->result);
        outcome.result = merge_rank_results(results);
    }
    // Whatever the status: how the ranks ran.
    outcome.result.info["world_size"] = std::to_string(world);
    outcome.result.info["master_port"] = std::to_string(port);
    if (slurm) {
        // Each task said where it ran: "<job>.<step> <node> <threads>".
        std::vector<std::string> nodes, steps, task_threads;
        for (const auto& rank : attempt.ranks) {
            std::istringstream where(rank->where);
            std::string step, node, count;
            where >> step >> node >> count;
            nodes.push_back(node.empty() ? "?" : node);
            if (!step.empty()) append_unique(steps, step);
            task_threads.push_back(count.empty() ? "?" : count);
        }
        outcome.result.info["launcher"] = "slurm";
        outcome.result.info["master_addr"] = address;
        outcome.result.info["rank_nodes"] = join(nodes, " | ");
        outcome.result.info["slurm_step"] = join(steps, ", ");
        outcome.result.info["threads_per_rank"] = join(task_threads, " | ");
    } else {
        outcome.result.info["rank_cpus"] = join(cpu_texts, " | ");
        outcome.result.info["threads_per_rank"] = std::to_string(threads);
    }
    if (tried.size() > 1) {
        std::vector<std::string> taken;
        for (std::size_t i = 0; i + 1 < tried.size(); ++i) taken.push_back(std::to_string(tried[i]));
        outcome.result.info["master_ports_taken"] = join(taken, ", ");
    }
    if (!slurm && static_cast<std::size_t>(world) > cpus.size())
        outcome.result.warnings.push_back(std::to_string(world) + " ranks ran on " + std::to_string(cpus.size()) +
                                          " CPUs: ranks shared CPUs, and each waited for the others' turns");
    for (const auto& rank : attempt.ranks) {
        if (!rank->stopped.empty()) outcome.result.warnings.push_back(leftover_processes_warning(rank->stopped));
        if (!rank->stopped_unreadable.empty())
            outcome.result.warnings.push_back(
                "the worker server stopped processes rank " + std::to_string(rank->rank) +
                " left running, but its list of them is unreadable: " + rank->stopped_unreadable);
    }
}

}  // namespace benchhost
