#include "execute/slurm_ranks.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "execute/executor.hpp"
#include "execute/rank_executor.hpp"
#include "execute/worker.hpp"
#include "json/result_json.hpp"
#include "util/atomic_file.hpp"
#include "util/text_file.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

std::optional<int> whole_number(const char* text) {
    if (text == nullptr || *text == '\0') return std::nullopt;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 0 || value > 1 << 30) return std::nullopt;
    return static_cast<int>(value);
}

std::optional<int> environment_number(const char* name) { return whole_number(std::getenv(name)); }

/// `name` looked up in PATH, as execvp would; `name` itself when it has a slash or is
/// not found (exec then fails with ENOENT).
std::string find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    const char* path = std::getenv("PATH");
    std::string folders = path != nullptr ? path : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= folders.size()) {
        const std::size_t colon = std::min(folders.find(':', start), folders.size());
        const std::string folder = folders.substr(start, colon - start);
        const std::string candidate = (folder.empty() ? "." : folder) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
        start = colon + 1;
    }
    return name;
}

}  // namespace

fs::path rank_file(const fs::path& dir, int rank, std::string_view what) {
    return dir / ("rank" + std::to_string(rank) + "." + std::string(what));
}

std::string slurm_allocation_problem() {
    const char* job = std::getenv("SLURM_JOB_ID");
    if (job != nullptr && *job != '\0') return "";
    return "--launcher slurm: not inside a SLURM allocation (SLURM_JOB_ID is not set): run benchhost in a job "
           "(sbatch, salloc; scripts/slurm/submit --nodes N --ntasks-per-node M), or use --launcher local";
}

std::optional<int> tasks_on_node(std::string_view tasks_per_node, int node) {
    // "2(x3),1": groups of "count" or "count(xrepeat)".
    int first = 0;
    while (!tasks_per_node.empty()) {
        const std::size_t comma = std::min(tasks_per_node.find(','), tasks_per_node.size());
        const std::string group(tasks_per_node.substr(0, comma));
        tasks_per_node.remove_prefix(std::min(comma + 1, tasks_per_node.size()));
        int count = 0, repeat = 1;
        char tail = '\0';
        if (std::sscanf(group.c_str(), "%d(x%d)%c", &count, &repeat, &tail) == 2) {
        } else if (std::sscanf(group.c_str(), "%d%c", &count, &tail) == 1) {
            repeat = 1;
        } else {
            return std::nullopt;
        }
        if (count < 0 || repeat < 1) return std::nullopt;
        if (node < first + repeat) return node >= first ? std::optional<int>(count) : std::nullopt;
        first += repeat;
    }
    return std::nullopt;
}

pid_t spawn_with_output(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                        int* output) {
    if (argv.empty()) throw std::runtime_error("no command to start");
    // Everything the child needs is made before fork: it only calls what is safe there.
    const std::string program = find_program(argv.front());
    std::vector<char*> args, env;
    for (const std::string& word : argv) args.push_back(const_cast<char*>(word.c_str()));
    args.push_back(nullptr);
    for (const std::string& variable : environment) env.push_back(const_cast<char*>(variable.c_str()));
    env.push_back(nullptr);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot start ") + argv.front() + ": pipe: " + std::strerror(errno));
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        const int error = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        throw std::runtime_error(std::string("cannot start ") + argv.front() + ": fork: " + std::strerror(error));
    }
    if (pid == 0) {
        setpgid(0, 0);
        // srun forwards SIGTERM to its tasks: a host that dies takes its ranks along.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        const int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, STDIN_FILENO);
        dup2(pipe_fds[1], STDOUT_FILENO);
        dup2(pipe_fds[1], STDERR_FILENO);
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, nullptr);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        execve(program.c_str(), args.data(), env.data());
        const char* message = "cannot run the command: exec failed\n";
        if (write(STDERR_FILENO, message, std::strlen(message)) < 0) _exit(127);
        _exit(127);
    }
    setpgid(pid, pid);
    close(pipe_fds[1]);
    *output = pipe_fds[0];
    return pid;
}

int run_to_end(const std::vector<std::string>& argv, std::string* output, double timeout_s) {
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
    int fd = -1;
    pid_t pid = 0;
    try {
        pid = spawn_with_output(argv, environment, &fd);
    } catch (const std::exception& e) {
        if (output != nullptr) *output = e.what();
        return -1;
    }
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
    std::string text;
    char buffer[4096];
    bool late = false;
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            late = true;
            break;
        }
        pollfd poll_fd{fd, POLLIN, 0};
        const int ready = poll(&poll_fd, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) continue;
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    close(fd);
    if (late) kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (output != nullptr) *output = text;
    if (late) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurm_master_address() {
    const char* list = std::getenv("SLURM_JOB_NODELIST");
    if (list == nullptr || *list == '\0') list = std::getenv("SLURM_NODELIST");
    if (list == nullptr || *list == '\0') throw std::runtime_error("SLURM_JOB_NODELIST is not set");
    std::string hosts;
    const int status = run_to_end({"scontrol", "show", "hostnames", list}, &hosts);
    const std::string host = hosts.substr(0, hosts.find('\n'));
    if (status != 0 || host.empty())
        throw std::runtime_error("`scontrol show hostnames " + std::string(list) + "` failed (status " +
                                 std::to_string(status) + "): " + one_line(hosts, 200));
    // A node's NodeAddr, when SLURM reaches it by another name or an address.
    std::string node;
    if (run_to_end({"scontrol", "-o", "show", "node", host}, &node) == 0) {
        const std::size_t at = node.find(" NodeAddr=");
        if (at != std::string::npos) {
            const std::size_t start = at + std::strlen(" NodeAddr=");
            const std::string address = node.substr(start, node.find_first_of(" \n", start) - start);
            if (!address.empty() && address != "(null)") return address;
        }
    }
    return host;
}

std::vector<std::string> srun_arguments(int world_size, const std::string& job_name,
                                        const std::vector<std::string>& worker_command) {
    std::vector<std::string> args = {
        "--ntasks=" + std::to_string(world_size),
        // The host ends the step when a rank fails, after the others could say why.
        "--kill-on-bad-exit=0",
        // Each line of a task's output with its rank ("1: ..."), for its log tail.
        "--label",
        "--job-name=" + job_name,
    };
    args.insert(args.end(), worker_command.begin(), worker_command.end());
    return args;
}

int slurm_rank_main(const fs::path& plugin, const std::string& symbol, const fs::path& dir,
                    const std::string& log_level, double monitor_interval_ms) {
    const std::optional<int> procid = environment_number("SLURM_PROCID");
    if (!procid) {
        std::fprintf(stderr,
                     "[error] worker --rank-dir: SLURM_PROCID is not set: srun starts this worker "
                     "(benchhost run --launcher slurm)\n");
        return 2;
    }
    RankPlace place;
    place.rank = *procid;
    place.local_rank = environment_number("SLURM_LOCALID").value_or(0);
    place.world_size =
        environment_number("SLURM_STEP_NUM_TASKS").value_or(environment_number("SLURM_NTASKS").value_or(1));
    place.group_rank = environment_number("SLURM_NODEID").value_or(0);
    const char* per_node = std::getenv("SLURM_STEP_TASKS_PER_NODE");
    if (per_node == nullptr) per_node = std::getenv("SLURM_TASKS_PER_NODE");
    place.local_world_size = per_node != nullptr ? tasks_on_node(per_node, place.group_rank).value_or(1) : 1;
    const char* address = std::getenv("MASTER_ADDR");
    place.master_addr = address != nullptr && *address != '\0' ? address : "127.0.0.1";
    place.port = environment_number("MASTER_PORT").value_or(0);
    const int rank = place.rank;

    bench::ScenarioConfig config;
    std::string problem;
    try {
        config = config_from_json(read_text_file(dir / "config.json"));
    } catch (const std::exception& e) {
        problem = std::string("worker --rank-dir: ") + e.what();
    }
    if (config.device.rfind("cuda", 0) == 0) config.device = "cuda:" + std::to_string(place.local_rank);
    if (config.threads <= 0) {
        // SLURM's CPUs for the task when it says; else this node's CPUs shared by its ranks.
        const int share = static_cast<int>(available_cpus().size()) / std::max(place.local_world_size, 1);
        config.threads = environment_number("SLURM_CPUS_PER_TASK").value_or(std::max(share, 1));
    }
    // The node as SLURM names it (several may share a host), else the host's name.
    char host[256] = {};
    if (const char* node = std::getenv("SLURMD_NODENAME"); node != nullptr && *node != '\0')
        std::snprintf(host, sizeof host, "%s", node);
    else gethostname(host, sizeof host - 1);
    const char* job = std::getenv("SLURM_JOB_ID");
    const char* step = std::getenv("SLURM_STEP_ID");
    try {
        write_file_atomically(rank_file(dir, rank, "where"), std::string(job != nullptr ? job : "") + "." +
                                                                 (step != nullptr ? step : "") + " " + host + " " +
                                                                 std::to_string(config.threads) + "\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[error] %s\n", e.what());
    }

    // The plugin's environment: a worker's, torchrun's variables and SLURM's.
    std::vector<std::string> environment =
        rank_environment(worker_environment(), place, config.threads, rank_file(dir, rank, "progress").string());
    for (char** entry = environ; *entry != nullptr; ++entry)
        if (std::string_view(*entry).starts_with("SLURM_")) environment.emplace_back(*entry);

    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "[error] worker --rank-dir: fork: %s\n", std::strerror(errno));
        return 71;
    }
    if (child == 0) {
        clearenv();
        for (std::string& variable : environment) putenv(variable.data());
        bench::ScenarioResult result;
        if (problem.empty()) {
            result = run_worker_scenario(plugin, symbol, config_to_json(config), log_level,
                                         rank == 0 ? monitor_interval_ms : 0,
                                         [&] { write_file_atomically(rank_file(dir, rank, "loaded"), ""); });
        } else {
            result.status = bench::Status::failed;
            result.reason = problem;
        }
        int status = 0;
        try {
            write_file_atomically(rank_file(dir, rank, "json"), result_to_json(result));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "[error] %s\n", e.what());
            status = 70;
        }
        std::fflush(nullptr);
        _exit(status);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    try {
        write_file_atomically(rank_file(dir, rank, "status"), std::to_string(status) + "\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[error] %s\n", e.what());
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace benchhost
