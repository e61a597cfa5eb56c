#include "execute/worker_server.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include <bench/python_plugin.hpp>

#include "execute/executor.hpp"
#include "execute/leftover_processes.hpp"
#include "execute/memory_cgroup.hpp"
#include "execute/worker.hpp"
#include "json/result_json.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {

namespace {

// ---------------------------------------------------------------- the request's bytes

// A request on the socket: a 4-byte length, then that many bytes of fields, each a
// 4-byte length and its bytes; the status, output and result pipe ends come with the
// length (SCM_RIGHTS).
constexpr std::size_t request_fd_count = 3;
constexpr std::uint32_t max_request_bytes = 256u << 20;

void put_field(std::string& out, std::string_view field) {
    const auto size = static_cast<std::uint32_t>(field.size());
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out.append(field);
}

class RequestFieldReader {
public:
    explicit RequestFieldReader(std::string_view bytes) : bytes_(bytes) {}
    std::string next() {
        std::uint32_t size = 0;
        if (bytes_.size() < sizeof size) throw std::runtime_error("truncated request");
        std::memcpy(&size, bytes_.data(), sizeof size);
        bytes_.remove_prefix(sizeof size);
        if (bytes_.size() < size) throw std::runtime_error("truncated request");
        std::string field(bytes_.substr(0, size));
        bytes_.remove_prefix(size);
        return field;
    }

private:
    std::string_view bytes_;
};

std::string encode(const WorkerRequest& request) {
    std::string payload;
    put_field(payload, request.plugin);
    put_field(payload, request.symbol);
    put_field(payload, request.config_json);
    put_field(payload, request.log_level);
    char interval[64];
    std::snprintf(interval, sizeof interval, "%.17g", request.monitor_interval_ms);
    put_field(payload, interval);
    put_field(payload, std::to_string(request.memory_limit_mib));
    put_field(payload, request.cgroup);
    put_field(payload, std::to_string(request.environment.size()));
    for (const std::string& variable : request.environment) put_field(payload, variable);
    std::string cpus;
    for (const int cpu : request.cpus) {
        if (!cpus.empty()) cpus += ',';
        cpus += std::to_string(cpu);
    }
    put_field(payload, cpus);
    put_field(payload, std::to_string(request.preload.libraries.size()));
    for (const std::string& library : request.preload.libraries) put_field(payload, library);
    put_field(payload, request.preload.python);
    put_field(payload, request.preload.loader);
    put_field(payload, std::to_string(request.preload.modules.size()));
    for (const std::string& module : request.preload.modules) put_field(payload, module);
    return payload;
}

/// What tells preloaded parents apart: the preload and the environment the parent
/// loaded it with (libgomp, LibTorch and Inductor read theirs as they load).
std::string preload_key(const WorkerRequest& request) {
    WorkerRequest key;
    key.preload = request.preload;
    key.environment = request.environment;
    return encode(key);
}

WorkerRequest decode(std::string_view payload) {
    RequestFieldReader fields(payload);
    WorkerRequest request;
    request.plugin = fields.next();
    request.symbol = fields.next();
    request.config_json = fields.next();
    request.log_level = fields.next();
    request.monitor_interval_ms = std::strtod(fields.next().c_str(), nullptr);
    request.memory_limit_mib = std::strtoull(fields.next().c_str(), nullptr, 10);
    request.cgroup = fields.next();
    const std::size_t count = std::strtoull(fields.next().c_str(), nullptr, 10);
    for (std::size_t i = 0; i < count; ++i) request.environment.push_back(fields.next());
    const std::string cpus = fields.next();
    for (std::size_t start = 0; start < cpus.size();) {
        std::size_t comma = cpus.find(',', start);
        if (comma == std::string::npos) comma = cpus.size();
        request.cpus.push_back(std::atoi(cpus.substr(start, comma - start).c_str()));
        start = comma + 1;
    }
    const std::size_t libraries = std::strtoull(fields.next().c_str(), nullptr, 10);
    for (std::size_t i = 0; i < libraries; ++i) request.preload.libraries.push_back(fields.next());
    request.preload.python = fields.next();
    request.preload.loader = fields.next();
    const std::size_t modules = std::strtoull(fields.next().c_str(), nullptr, 10);
    for (std::size_t i = 0; i < modules; ++i) request.preload.modules.push_back(fields.next());
    return request;
}

void write_record(int fd, WorkerStatusRecord::Kind kind, int value) {
    const WorkerStatusRecord record{kind, value};
    // Smaller than PIPE_BUF, into a pipe holding at most one other record: one write.
    [[maybe_unused]] const bool written =
        write_all(fd, std::string_view(reinterpret_cast<const char*>(&record), sizeof record));
}

/// The 'K' record and its list: longer than PIPE_BUF at times, written while the host
/// reads the pipe, which it does until the 'S' that follows.
void write_stopped(int fd, const std::vector<StoppedProcess>& processes) {
    const std::string json = stopped_processes_to_json(processes);
    const WorkerStatusRecord record{WorkerStatusRecord::stopped, static_cast<std::int32_t>(json.size())};
    std::string bytes(reinterpret_cast<const char*>(&record), sizeof record);
    bytes += json;
    [[maybe_unused]] const bool written = write_all(fd, bytes);
}

// ---------------------------------------------------------------- frames

/// Sends a frame: the length of `payload`, with `fds` attached (SCM_RIGHTS), then the
/// payload. False when the peer is gone.
bool send_frame(int socket, std::string_view payload, const int* fds, std::size_t fd_count) {
    std::string frame(sizeof(std::uint32_t), '\0');
    const auto length = static_cast<std::uint32_t>(payload.size());
    std::memcpy(frame.data(), &length, sizeof length);
    frame += payload;

    iovec iov{frame.data(), frame.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * request_fd_count)] = {};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    if (fd_count > 0) {
        message.msg_control = control;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
        cmsghdr* c = CMSG_FIRSTHDR(&message);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
        std::memcpy(CMSG_DATA(c), fds, sizeof(int) * fd_count);
    }
    ssize_t n;
    do n = sendmsg(socket, &message, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    for (std::size_t at = static_cast<std::size_t>(n); at < frame.size();) {
        n = send(socket, frame.data() + at, frame.size() - at, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        at += static_cast<std::size_t>(n);
    }
    return true;
}

/// A frame as read: its payload and the descriptors that came with it (owned).
struct Frame {
    std::string payload;
    std::vector<int> fds;
    bool truncated = false;  // more descriptors came than there was room for
};

/// Reads one frame; false at the end of the socket (the peer closed it, or is gone).
bool read_frame(int socket, Frame& frame) {
    std::uint32_t length = 0;
    iovec iov{&length, sizeof length};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * request_fd_count)];
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t n;
    do n = recvmsg(socket, &message, MSG_WAITALL | MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof length)) return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            frame.fds.push_back(fd);
        }
    }
    frame.truncated = (message.msg_flags & MSG_CTRUNC) != 0;
    if (length > max_request_bytes) return false;  // not a peer speaking this protocol
    frame.payload.assign(length, '\0');
    for (std::size_t at = 0; at < frame.payload.size();) {
        const ssize_t got = recv(socket, frame.payload.data() + at, frame.payload.size() - at, MSG_WAITALL);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        at += static_cast<std::size_t>(got);
    }
    return true;
}

void close_all(const std::vector<int>& fds) {
    for (const int fd : fds) close(fd);
}

// ---------------------------------------------------------------- the worker

/// Every signal to its default disposition.
void reset_signal_dispositions() {
    for (int signal_number = 1; signal_number < NSIG; ++signal_number)
        if (signal_number != SIGKILL && signal_number != SIGSTOP) signal(signal_number, SIG_DFL);
}

/// In a process just forked by the server: what every worker is, whatever it runs. It
/// keeps, of the server's descriptors, the standard streams and those in `keep`.
void prepare_worker_process(pid_t server, std::initializer_list<int> keep) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the server, which dies with the host
    if (getppid() != server) _exit(125);
    reset_signal_dispositions();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<int> kept(keep);
    std::sort(kept.begin(), kept.end());
    unsigned from = 3;
    for (const int fd : kept) {
        if (fd < 3) continue;
        if (static_cast<unsigned>(fd) > from) close_range(from, static_cast<unsigned>(fd) - 1, 0);
        from = static_cast<unsigned>(fd) + 1;
    }
    close_range(from, ~0U, 0);
}

/// In a prepared worker: takes the request's pipes and limits, runs the scenario and
/// exits.
[[noreturn]] void run_request(const WorkerRequest& request, int output, int result) {
    // stdout and stderr into the output pipe; the result channel as descriptor 3, which
    // a program the plugin executes does not inherit; nothing else.
    dup2(output, STDOUT_FILENO);
    dup2(output, STDERR_FILENO);
    const int channel = 3;
    if (result != channel && dup3(result, channel, O_CLOEXEC) != channel) _exit(126);
    close_range(channel + 1, ~0U, 0);

    // A memory cgroup where the host made one (memory_cgroup.hpp); else RLIMIT_DATA, not
    // RLIMIT_AS: it counts the heap and the private writable mappings (what the worker
    // allocates), not address space reserved without access, which the CUDA runtime
    // takes by the tens of GiB and an address-space limit would refuse.
    bool in_cgroup = false;
    if (!request.cgroup.empty()) {
        std::string error;
        in_cgroup = join_cgroup(request.cgroup, error);
        if (!in_cgroup)
            std::fprintf(stderr, "[warning] cannot join the memory cgroup %s (%s): the memory limit is RLIMIT_DATA\n",
                         request.cgroup.c_str(), error.c_str());
    }
    if (request.memory_limit_mib > 0 && !in_cgroup) {
        const rlim_t bytes = static_cast<rlim_t>(request.memory_limit_mib) << 20;
        const rlimit limit{bytes, bytes};
        setrlimit(RLIMIT_DATA, &limit);
    }
    clearenv();
    for (const std::string& variable : request.environment) putenv(strdup(variable.c_str()));
    // A rank's share of the cores: set before the plugin (and its threads) start.
    if (!request.cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (const int cpu : request.cpus)
            if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            std::fprintf(stderr, "[warning] cannot pin the worker to its CPUs: sched_setaffinity: %s\n",
                         std::strerror(errno));
    }

    const bench::ScenarioResult outcome =
        run_worker_scenario(request.plugin, request.symbol, request.config_json, request.log_level,
                            request.monitor_interval_ms, [channel] { write_all(channel, "L"); });
    std::string message = "R";
    try {
        message += result_to_json(outcome);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[error] cannot write the result: %s\n", e.what());
        std::exit(70);
    }
    if (!write_all(channel, message)) {
        std::fprintf(stderr, "[error] cannot send the result to the host: %s\n", std::strerror(errno));
        std::exit(70);  // EX_SOFTWARE: the host reports that no result came back
    }
    close(channel);
    std::exit(0);  // as `benchhost worker` returns from main(): the plugin's destructors run
}

/// A spare: a worker forked and prepared ahead, waiting on its socket for the request
/// (the frame the host sent, with the output and result pipes). It ends, unused, when
/// the socket closes.
[[noreturn]] void run_spare(pid_t server, int socket) {
    prepare_worker_process(server, {socket});
    Frame frame;
    if (!read_frame(socket, frame) || frame.fds.size() != 2) _exit(0);
    WorkerRequest request;
    try {
        request = decode(frame.payload);
    } catch (const std::exception&) {
        _exit(0);
    }
    run_request(request, frame.fds[0], frame.fds[1]);
}

// ---------------------------------------------------------------- preloaded parents

/// The threads of this process.
int thread_count() {
    int count = 0;
    if (DIR* dir = opendir("/proc/self/task")) {
        for (dirent* entry; (entry = readdir(dir)) != nullptr;) count += entry->d_name[0] != '.';
        closedir(dir);
    }
    return count;
}

/// A preloaded parent: sets the request's environment, loads its preload, says so (a
/// 0 on `socket`), then forks a worker for each frame the server sends (the request
/// and its output and result pipes), whose pid it writes back (a negative errno when
/// the fork failed). Exits at once when anything fails to load: the server then runs
/// the request the plain way.
[[noreturn]] void run_preload_parent(pid_t server, int socket, const WorkerRequest& first) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the server, which dies with the host
    if (getppid() != server) _exit(125);
    setpgid(0, 0);  // a group of its own: the server kills it and what it may leave with -pid
    // Nothing of the server's but the socket; what the loading prints goes nowhere (a
    // failure shows in the worker that then loads it the plain way).
    if (const int null = open("/dev/null", O_RDWR); null >= 0) {
        for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) dup2(null, fd);
        if (null > STDERR_FILENO) close(null);
    }
    if (socket > 3) close_range(3, static_cast<unsigned>(socket) - 1, 0);
    close_range(static_cast<unsigned>(socket) + 1, ~0U, 0);
    // The workers' environment before anything loads: libgomp, LibTorch and Inductor
    // read OMP_*, TORCH* and TORCHINDUCTOR_* when they load.
    clearenv();
    for (const std::string& variable : first.environment) putenv(strdup(variable.c_str()));

    const WorkerPreload& preload = first.preload;
    for (const std::string& library : preload.libraries)
        if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) _exit(1);
    bench::PythonForkFunction* python_fork = nullptr;
    if (!preload.modules.empty()) {
        // As the worker loads it (worker.cpp): RTLD_LOCAL; its dlopen then finds this one.
        void* loader = dlopen(preload.loader.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (loader == nullptr) _exit(1);
        auto* python_preload =
            reinterpret_cast<bench::PythonPreloadFunction*>(dlsym(loader, bench::python_preload_symbol));
        python_fork = reinterpret_cast<bench::PythonForkFunction*>(dlsym(loader, bench::python_fork_symbol));
        if (python_preload == nullptr || python_fork == nullptr) _exit(1);
        std::string modules;
        for (const std::string& module : preload.modules) {
            if (!modules.empty()) modules += ',';
            modules += module;
        }
        char error[1024] = {};
        if (python_preload(preload.python.c_str(), modules.c_str(), error, sizeof error) != 0) _exit(1);
    }
    // A fork keeps only the thread that forks. What started threads must stop them
    // before a fork (pthread_atfork: OpenBLAS, which numpy loads, does, and starts them
    // again when next used): after a trial fork none but this one may be left.
    if (thread_count() != 1) {
        if (python_fork != nullptr) python_fork(0);
        const pid_t trial = fork();
        if (trial == 0) _exit(0);
        if (python_fork != nullptr) python_fork(1);
        if (trial > 0) waitpid(trial, nullptr, 0);
        if (thread_count() != 1) _exit(1);
    }
    const std::int32_t ready = 0;
    if (!write_all(socket, std::string_view(reinterpret_cast<const char*>(&ready), sizeof ready))) _exit(0);

    for (;;) {
        Frame frame;
        if (!read_frame(socket, frame)) _exit(0);  // the server closed it, or is gone
        WorkerRequest request;
        bool valid = frame.fds.size() == 2 && !frame.truncated;
        try {
            if (valid) request = decode(frame.payload);
        } catch (const std::exception&) {
            valid = false;
        }
        std::int32_t reply = -EINVAL;
        if (valid) {
            // Twice: the middle process exits at once, and the worker, an orphan, becomes
            // the server's child (its subreaper), reaped by it as every worker is.
            if (python_fork != nullptr) python_fork(0);
            const pid_t middle = fork();
            if (middle == 0) {
                const pid_t middle_pid = getpid();
                const pid_t worker = fork();
                if (worker == 0) {
                    if (python_fork != nullptr) python_fork(2);
                    setpgid(0, 0);
                    // Until the middle process has exited: then the server is the parent.
                    for (int waited = 0; getppid() == middle_pid && waited < 10'000; ++waited) usleep(500);
                    prepare_worker_process(server, {frame.fds[0], frame.fds[1]});
                    run_request(request, frame.fds[0], frame.fds[1]);
                }
                if (worker > 0) setpgid(worker, worker);  // the group exists before the host may kill it
                const std::int32_t pid = worker > 0 ? worker : -errno;
                write_all(socket, std::string_view(reinterpret_cast<const char*>(&pid), sizeof pid));
                _exit(0);
            }
            const int fork_error = errno;
            if (python_fork != nullptr) python_fork(1);
            if (middle > 0) {
                int status = 0;
                while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {}
                reply = 0;  // the middle process wrote the pid
            } else {
                reply = -fork_error;
            }
        }
        close_all(frame.fds);
        if (reply != 0 && !write_all(socket, std::string_view(reinterpret_cast<const char*>(&reply), sizeof reply)))
            _exit(0);
    }
}

// ---------------------------------------------------------------- the server

class WorkerServerProcess {
public:
    explicit WorkerServerProcess(int socket) : socket_(socket), self_(getpid()) {}

    int run() {
        // Ctrl-C at the terminal reaches the whole process group, the server with the
        // host: the host decides what it stops. The host started the server with every
        // signal blocked; dispositions are set before they are unblocked.
        reset_signal_dispositions();
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);  // a host that stopped reading a status pipe: EPIPE
        sigset_t child_signal;
        sigemptyset(&child_signal);
        sigaddset(&child_signal, SIGCHLD);
        sigprocmask(SIG_SETMASK, &child_signal, nullptr);
        children_ = signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
        if (children_ < 0) {
            std::fprintf(stderr, "benchhost worker server: signalfd: %s\n", std::strerror(errno));
            return 71;
        }
        // What a worker leaves behind when it ends becomes the server's, to be reaped here.
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        make_spare();

        for (;;) {
            std::vector<pollfd> fds = {{socket_, POLLIN, 0}, {children_, POLLIN, 0}};
            for (const PreloadParent& parent : parents_) fds.push_back({parent.socket, POLLIN, 0});
            if (poll(fds.data(), fds.size(), -1) < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if (fds[1].revents != 0) {
                for (signalfd_siginfo info; read(children_, &info, sizeof info) > 0;) {}
                reap();
            }
            for (std::size_t i = 2; i < fds.size(); ++i)
                if (fds[i].revents != 0) hear_from_parent(fds[i].fd);
            if (fds[0].revents == 0) continue;
            Frame frame;
            if (!read_frame(socket_, frame)) break;  // the host closed the socket, or is gone
            start(frame);
        }
        shut_down();
        return 0;
    }

private:
    /// Starts the worker of a request from the host: the spare, or a new fork.
    void start(const Frame& frame) {
        WorkerRequest request;
        bool valid = frame.fds.size() == request_fd_count && !frame.truncated;
        try {
            if (valid) request = decode(frame.payload);
        } catch (const std::exception&) {
            valid = false;
        }
        if (!valid) {  // not from a host of this build: nothing to run
            close_all(frame.fds);
            return;
        }
        const int status = frame.fds[0], output = frame.fds[1], result = frame.fds[2];
        if (!request.preload.empty() && start_preloaded(request, frame.payload, status, output, result)) return;
        start_plain(frame.payload, request, status, output, result);
    }

    /// Starts the worker of a request the server forks itself: the spare, or a new fork.
    void start_plain(const std::string& payload, const WorkerRequest& request, int status, int output, int result) {
        pid_t pid = 0;
        if (spare_pid_ > 0) {
            const int pipes[2] = {output, result};
            if (send_frame(spare_socket_, payload, pipes, 2)) pid = spare_pid_;
            else kill(spare_pid_, SIGKILL);  // reaped as any child
            close(spare_socket_);
            spare_pid_ = 0;
            spare_socket_ = -1;
        }
        if (pid == 0) {
            pid = fork();
            if (pid == 0) {
                prepare_worker_process(self_, {output, result});
                run_request(request, output, result);
            }
        }
        close(output);
        close(result);
        if (pid < 0) {
            write_record(status, WorkerStatusRecord::fork_failed, errno);
            close(status);
            return;
        }
        setpgid(pid, pid);  // here too: the group exists before the host may kill it
        write_record(status, WorkerStatusRecord::started, pid);
        running_[pid] = status;
    }

    /// A request waiting for its worker's pid from a preloaded parent.
    struct Pending {
        std::string payload;
        int status = -1, output = -1, result = -1;
        bool sent = false;
    };

    /// A process that loaded a preload, with the environment of its key, and forks
    /// workers from it (run_preload_parent).
    struct PreloadParent {
        std::string key;
        pid_t pid = 0;
        int socket = -1;
        bool ready = false;  // it said it has loaded everything
        std::string replies;  // bytes read, not yet a whole reply
        std::deque<Pending> pending;  // in the order sent, which is the order of the replies
        std::uint64_t last_used = 0;
    };

    /// Gives the request to the preloaded parent of its preload and environment,
    /// forking one first where none runs; false when there is none to give it to (the
    /// parent of that key failed before, or cannot be forked).
    bool start_preloaded(const WorkerRequest& request, const std::string& payload, int status, int output, int result) {
        const std::string key = preload_key(request);
        if (failed_keys_.contains(key)) return false;
        auto parent =
            std::find_if(parents_.begin(), parents_.end(), [&](const PreloadParent& p) { return p.key == key; });
        if (parent == parents_.end()) {
            // At most two: the one used least recently goes (one that waits for nothing).
            while (parents_.size() >= max_parents) {
                auto oldest = parents_.end();
                for (auto p = parents_.begin(); p != parents_.end(); ++p)
                    if (p->pending.empty() && (oldest == parents_.end() || p->last_used < oldest->last_used))
                        oldest = p;
                if (oldest == parents_.end()) return false;
                end_parent(oldest);
            }
            int ends[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return false;
            const pid_t pid = fork();
            if (pid == 0) run_preload_parent(self_, ends[1], request);
            close(ends[1]);
            if (pid < 0) {
                close(ends[0]);
                return false;
            }
            setpgid(pid, pid);
            PreloadParent made;
            made.key = key;
            made.pid = pid;
            made.socket = ends[0];
            parents_.push_back(std::move(made));
            parent = parents_.end() - 1;
        }
        parent->last_used = ++uses_;
        parent->pending.push_back({payload, status, output, result, false});
        if (parent->ready) send_pending(*parent);
        return true;
    }

    /// Sends the parent the requests it has not been sent yet; one it cannot take ends it.
    void send_pending(PreloadParent& parent) {
        for (Pending& pending : parent.pending) {
            if (pending.sent) continue;
            const int pipes[2] = {pending.output, pending.result};
            if (!send_frame(parent.socket, pending.payload, pipes, 2)) {
                parent_failed(parent.socket);
                return;
            }
            pending.sent = true;  // its pipes are kept until the worker's pid comes
        }
    }

    /// Reads what a parent wrote: that it is ready, a worker's pid, or the end of its
    /// socket (it failed to load, or died).
    void hear_from_parent(int socket) {
        const auto parent =
            std::find_if(parents_.begin(), parents_.end(), [&](const PreloadParent& p) { return p.socket == socket; });
        if (parent == parents_.end()) return;
        char bytes[256];
        const ssize_t n = recv(socket, bytes, sizeof bytes, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
        if (n <= 0) {
            parent_failed(socket);
            return;
        }
        parent->replies.append(bytes, static_cast<std::size_t>(n));
        while (parent->replies.size() >= sizeof(std::int32_t)) {
            std::int32_t value = 0;
            std::memcpy(&value, parent->replies.data(), sizeof value);
            parent->replies.erase(0, sizeof value);
            if (!parent->ready) {
                parent->ready = true;
                send_pending(*parent);  // may end it
                if (std::find_if(parents_.begin(), parents_.end(),
                                 [&](const PreloadParent& p) { return p.socket == socket; }) == parents_.end())
                    return;
                continue;
            }
            if (parent->pending.empty() || !parent->pending.front().sent) continue;  // not from this build
            const Pending pending = parent->pending.front();
            parent->pending.pop_front();
            if (value <= 0) {  // the parent could not fork: the server tries
                start_plain(pending.payload, decode(pending.payload), pending.status, pending.output, pending.result);
                continue;
            }
            claim(value, pending);
        }
    }

    /// A worker a parent forked: the host hears of it, and it is tracked as the server's
    /// own; it may have ended already (reaped before its pid came).
    void claim(pid_t pid, const Pending& pending) {
        close(pending.output);
        close(pending.result);
        const int status_pipe = pending.status;
        write_record(status_pipe, WorkerStatusRecord::started, pid);
        if (const auto ended = unclaimed_.find(pid); ended != unclaimed_.end()) {
            const int wait_status = ended->second;
            unclaimed_.erase(ended);
            worker_ended(status_pipe, wait_status);
            make_spare();
            return;
        }
        running_[pid] = status_pipe;
        if (!awaiting_pids()) unclaimed_.clear();
    }

    /// A parent that failed to load or died: its requests run the plain way, and its key
    /// is not tried again.
    void parent_failed(int socket) {
        const auto parent =
            std::find_if(parents_.begin(), parents_.end(), [&](const PreloadParent& p) { return p.socket == socket; });
        if (parent == parents_.end()) return;
        failed_keys_.insert(parent->key);
        std::deque<Pending> pending = std::move(parent->pending);
        parent->pending.clear();
        end_parent(parent);
        for (const Pending& request : pending)
            start_plain(request.payload, decode(request.payload), request.status, request.output, request.result);
    }

    /// Kills a parent (reaped as any child) and forgets it.
    void end_parent(std::vector<PreloadParent>::iterator parent) {
        kill(-parent->pid, SIGKILL);
        kill(parent->pid, SIGKILL);
        close(parent->socket);
        for (const Pending& pending : parent->pending)
            for (const int fd : {pending.status, pending.output, pending.result})
                if (fd >= 0) close(fd);
        parents_.erase(parent);
    }

    /// Whether a worker a parent forks may be running without the server knowing its pid.
    bool awaiting_pids() const {
        for (const PreloadParent& parent : parents_)
            for (const Pending& pending : parent.pending)
                if (pending.sent) return true;
        return false;
    }

    bool any_pending() const {
        return std::any_of(parents_.begin(), parents_.end(),
                           [](const PreloadParent& parent) { return !parent.pending.empty(); });
    }

    /// Forks a spare worker, when none waits and no worker runs: the fork never competes
    /// with a scenario for the CPU.
    void make_spare() {
        if (spare_pid_ > 0 || !running_.empty() || any_pending()) return;
        int ends[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
        const pid_t pid = fork();
        if (pid == 0) run_spare(self_, ends[1]);
        close(ends[1]);
        if (pid < 0) {
            close(ends[0]);
            return;
        }
        setpgid(pid, pid);
        spare_pid_ = pid;
        spare_socket_ = ends[0];
    }

    void reap() {
        int status = 0;
        for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
            if (pid == spare_pid_) {  // a spare that died waiting: another one is made
                close(spare_socket_);
                spare_pid_ = 0;
                spare_socket_ = -1;
                continue;
            }
            const auto worker = running_.find(pid);
            if (worker == running_.end()) {
                // Something a worker left behind, a parent, or a worker a parent forked
                // whose pid has not come yet: kept until it does.
                if (awaiting_pids()) unclaimed_[pid] = status;
                continue;
            }
            const int status_pipe = worker->second;
            running_.erase(worker);
            worker_ended(status_pipe, status);
        }
        make_spare();
    }

    /// Tells the host that a worker ended, once what it left running is stopped.
    void worker_ended(int status_pipe, int wait_status) {
        // What the worker left running is stopped before the host hears that it
        // ended, so that the next scenario never runs beside it. Beside another
        // worker (the ranks of a distributed scenario run together) what each left
        // cannot be told apart: it waits for the last one (and for a worker whose
        // pid a parent has not sent yet).
        if (running_.empty() && !awaiting_pids()) {
            const std::vector<StoppedProcess> stopped = stop_leftover_processes(own_processes());
            if (!stopped.empty()) write_stopped(status_pipe, stopped);
        }
        write_record(status_pipe, WorkerStatusRecord::ended, wait_status);
        close(status_pipe);
    }

    /// The server's own children: its workers, its spare and its preloaded parents.
    std::vector<pid_t> own_processes() const {
        std::vector<pid_t> own;
        for (const auto& [pid, status] : running_) own.push_back(pid);
        if (spare_pid_ > 0) own.push_back(spare_pid_);
        for (const PreloadParent& parent : parents_) own.push_back(parent.pid);
        return own;
    }

    /// The host closed the socket or is gone: no worker outlives it.
    void shut_down() {
        if (spare_pid_ > 0) {
            kill(spare_pid_, SIGKILL);
            running_[spare_pid_] = -1;
        }
        while (!parents_.empty()) {
            running_[parents_.back().pid] = -1;
            end_parent(parents_.end() - 1);
        }
        for (const auto& [pid, status] : running_) kill(-pid, SIGKILL);
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (!running_.empty() && std::chrono::steady_clock::now() < give_up) {
            int status = 0;
            const pid_t pid = waitpid(-1, &status, WNOHANG);
            if (pid > 0) running_.erase(pid);
            else std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        // And what they left running, quickly: the host waits for this process.
        stop_leftover_processes(own_processes(), std::chrono::milliseconds(100), std::chrono::milliseconds(500));
    }

    int socket_;
    pid_t self_;
    int children_ = -1;
    std::map<pid_t, int> running_;  // worker -> its status pipe
    pid_t spare_pid_ = 0;
    int spare_socket_ = -1;
    static constexpr std::size_t max_parents = 2;
    std::vector<PreloadParent> parents_;
    std::uint64_t uses_ = 0;
    std::set<std::string> failed_keys_;  // preloads whose parent failed: not tried again
    std::map<pid_t, int> unclaimed_;  // wait statuses reaped while a parent's worker's pid was awaited
};

int worker_server_main(int socket) {
    // Only the socket and the standard streams: not what the host had open.
    if (socket > 3) close_range(3, static_cast<unsigned>(socket) - 1, 0);
    close_range(static_cast<unsigned>(socket) + 1, ~0U, 0);
    fcntl(socket, F_SETFD, FD_CLOEXEC);
    return WorkerServerProcess(socket).run();
}

// ---------------------------------------------------------------- the host's side

struct Server {
    pid_t pid = 0;
    int socket = -1;
    unsigned generation = 0;
};

std::mutex server_mutex;
Server server;  // guarded by server_mutex

std::string describe_wait_status(int status) {
    if (WIFSIGNALED(status)) return "killed by " + describe_signal(WTERMSIG(status));
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    return "ended";
}

/// Forks and executes the server; server_mutex is held.
void spawn_server_locked() {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    // Everything the child needs is made before fork: the host may have threads, and
    // between fork and exec the child may only make async-signal-safe calls.
    const std::string fd_text = std::to_string(ends[1]);
    const std::vector<std::string> environment = worker_environment();
    std::vector<const char*> envp;
    for (const std::string& variable : environment) envp.push_back(variable.c_str());
    envp.push_back(nullptr);
    const char* argv[] = {"benchhost-worker-server", worker_server_argument, fd_text.c_str(), nullptr};
    const pid_t host = getpid();

    // Blocked until the server has set its dispositions: a signal in between must not
    // run the host's handlers in the child.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    const pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the host, even on kill -9
        if (getppid() != host) _exit(125);
        fcntl(ends[1], F_SETFD, 0);
        execve("/proc/self/exe", const_cast<char* const*>(argv), const_cast<char* const*>(envp.data()));
        _exit(127);
    }
    const int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    close(ends[1]);
    if (pid < 0) {
        close(ends[0]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(fork_error));
    }
    server.pid = pid;
    server.socket = ends[0];
    ++server.generation;
}

/// Closes the server's socket, kills it unless it exits within `grace`, and reaps it;
/// server_mutex is held. Returns how it ended.
std::string end_server_locked(std::chrono::milliseconds grace) {
    if (server.pid <= 0) return "";
    close(server.socket);
    server.socket = -1;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + grace;
    pid_t waited = 0;
    while ((waited = waitpid(server.pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (waited == 0) {
        kill(server.pid, SIGKILL);
        waited = waitpid(server.pid, &status, 0);
    }
    server.pid = 0;
    return waited > 0 ? describe_wait_status(status) : "gone";
}

}  // namespace

std::optional<int> run_worker_server_if_requested(int argc, char** argv) {
    if (argc != 3 || std::strcmp(argv[1], worker_server_argument) != 0) return std::nullopt;
    char* end = nullptr;
    const long fd = std::strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || fd < 3 || fcntl(static_cast<int>(fd), F_GETFD) < 0) {
        std::fprintf(stderr, "benchhost: %s is started by the host, with the descriptor of its socket\n",
                     worker_server_argument);
        return 2;
    }
    return worker_server_main(static_cast<int>(fd));
}

void start_worker_server() {
    std::lock_guard lock(server_mutex);
    if (server.pid <= 0) spawn_server_locked();
}

void stop_worker_server() {
    std::lock_guard lock(server_mutex);
    end_server_locked(std::chrono::seconds(3));
}

pid_t worker_server_pid() {
    std::lock_guard lock(server_mutex);
    return server.pid;
}

WorkerLaunch launch_worker(const WorkerRequest& request) {
    const std::string payload = encode(request);
    int status[2], output[2], result[2];
    if (pipe2(status, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(output, O_CLOEXEC) != 0) {
        const int error = errno;
        close(status[0]), close(status[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(error));
    }
    if (pipe2(result, O_CLOEXEC) != 0) {
        const int error = errno;
        close(status[0]), close(status[1]), close(output[0]), close(output[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(error));
    }
    const int theirs[request_fd_count] = {status[1], output[1], result[1]};
    WorkerLaunch launch{status[0], output[0], result[0], 0};
    std::string failure;
    {
        std::lock_guard lock(server_mutex);
        // A server that died while idle is found here, when it cannot take the request.
        for (int attempt = 0; attempt < 2 && launch.server_generation == 0; ++attempt) {
            try {
                if (server.pid <= 0) spawn_server_locked();
            } catch (const std::exception& e) {
                failure = e.what();
                break;
            }
            if (send_frame(server.socket, payload, theirs, request_fd_count))
                launch.server_generation = server.generation;
            else failure = "the worker server ended (" + end_server_locked(std::chrono::milliseconds(0)) + ")";
        }
    }
    for (const int fd : theirs) close(fd);
    if (launch.server_generation == 0) {
        close(launch.status), close(launch.output), close(launch.result);
        throw std::runtime_error("cannot start a worker server: " + failure);
    }
    return launch;
}

std::string worker_server_lost(unsigned generation) {
    std::lock_guard lock(server_mutex);
    if (server.pid <= 0 || server.generation != generation) return "";
    return end_server_locked(std::chrono::milliseconds(0));
}

}  // namespace benchhost
