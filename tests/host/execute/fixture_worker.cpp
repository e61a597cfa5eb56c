// integration/fixture_worker: benchmarks for the tests of the worker server
// (worker_server_test.cpp): one that reports how its worker process was set up, one
// that prints, two that hang (one leaving a child behind), one with a large result, one
// that says whether a library a preloaded parent loaded is loaded in its process.
#include <bench/plugin.hpp>

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

BENCH_PLUGIN("fixture_worker", "1.0.0");

namespace {

std::string disposition(int signal_number) {
    struct sigaction action {};
    sigaction(signal_number, nullptr, &action);
    if (action.sa_handler == SIG_DFL) return "default";
    if (action.sa_handler == SIG_IGN) return "ignored";
    return "handled";
}

/// The open descriptors, "0,1,2,3", without the one that lists them.
std::string open_descriptors() {
    DIR* dir = opendir("/proc/self/fd");
    if (dir == nullptr) return "unknown";
    std::string list;
    const int own = dirfd(dir);
    for (dirent* entry; (entry = readdir(dir)) != nullptr;) {
        if (entry->d_name[0] == '.') continue;
        const int fd = std::atoi(entry->d_name);
        if (fd == own) continue;
        if (!list.empty()) list += ',';
        list += std::to_string(fd);
    }
    closedir(dir);
    return list;
}

}  // namespace

// Reports its process: group, parent, limits, descriptors, signals, environment.
BENCH_BENCHMARK(inspects_its_process, ctx) {
    ctx.set_info("pid", std::to_string(getpid()));
    ctx.set_info("parent", std::to_string(getppid()));
    ctx.set_info("group_leader", getpgrp() == getpid() ? "yes" : "no");
    rlimit limit{};
    getrlimit(RLIMIT_DATA, &limit);
    ctx.set_info("data_limit", limit.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(limit.rlim_cur));
    {
        std::ifstream membership("/proc/self/cgroup");
        std::string cgroups;
        for (std::string line; std::getline(membership, line);) cgroups += line + "\n";
        ctx.set_info("cgroups", cgroups);
    }
    getrlimit(RLIMIT_AS, &limit);
    ctx.set_info("address_space_limit", limit.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(limit.rlim_cur));
    int death_signal = 0;
    prctl(PR_GET_PDEATHSIG, &death_signal);
    ctx.set_info("death_signal", std::to_string(death_signal));
    ctx.set_info("descriptors", open_descriptors());
    struct stat out {};
    fstat(STDOUT_FILENO, &out);
    ctx.set_info("stdout_is_pipe", S_ISFIFO(out.st_mode) ? "yes" : "no");
    for (const auto& [name, number] : {std::pair{"SIGINT", SIGINT}, std::pair{"SIGTERM", SIGTERM},
                                       std::pair{"SIGPIPE", SIGPIPE}, std::pair{"SIGCHLD", SIGCHLD}})
        ctx.set_info(name, disposition(number));
    sigset_t blocked;
    sigprocmask(SIG_BLOCK, nullptr, &blocked);
    int count = 0;
    for (int s = 1; s < NSIG; ++s) count += sigismember(&blocked, s) == 1;
    ctx.set_info("blocked_signals", std::to_string(count));
    for (const char* name : {"BENCHHOST_WORKER", "OMP_NUM_THREADS", "SECRET_TOKEN"}) {
        const char* value = std::getenv(name);
        ctx.set_info(name, value != nullptr ? value : "(unset)");
    }
}

// Prints a line on stdout and one on stderr, then measures.
BENCH_BENCHMARK(prints, ctx) {
    std::printf("a line on stdout\n");
    std::fflush(stdout);
    std::fprintf(stderr, "a line on stderr\n");
    ctx.measure("latency", [] { bench::do_not_optimize(1 + 1); });
}

// Forks a child that sleeps for five minutes, writes its pid into the file named by
// the parameter "pid_file", and hangs.
BENCH_BENCHMARK(forks_and_hangs, ctx) {
    const std::string pid_file = ctx.params().get_string("pid_file");
    if (pid_file.empty()) throw std::runtime_error("parameter pid_file is not set");
    const pid_t child = fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        sleep(300);
        _exit(0);
    }
    {
        std::ofstream out(pid_file + ".tmp");
        out << child << "\n";
    }
    std::rename((pid_file + ".tmp").c_str(), pid_file.c_str());
    for (;;) pause();
}

// Writes its pid into the file named by the parameter "pid_file", and hangs: the test
// knows then that its worker runs, and which process it is.
BENCH_BENCHMARK(writes_its_pid_and_hangs, ctx) {
    const std::string pid_file = ctx.params().get_string("pid_file");
    if (pid_file.empty()) throw std::runtime_error("parameter pid_file is not set");
    {
        std::ofstream out(pid_file + ".tmp");
        out << getpid() << "\n";
    }
    std::rename((pid_file + ".tmp").c_str(), pid_file.c_str());
    for (;;) pause();
}

// A result larger than a pipe holds: an info value of "bytes" (a parameter) letters.
BENCH_BENCHMARK(large_result, ctx) {
    const auto bytes = static_cast<std::size_t>(ctx.params().get_int("bytes", 1 << 20));
    std::string payload(bytes, 'x');
    for (std::size_t i = 0; i < payload.size(); i += 1000) payload[i] = static_cast<char>('a' + (i / 1000) % 26);
    ctx.set_info("payload", payload);
    ctx.record_scalar("bytes", static_cast<double>(bytes), "B");
}

// Reports whether the library named by the parameter "library" (libfixture_preload.so)
// is loaded in its process, without loading it: how many times it was loaded, by which
// process, with which FIXTURE_PRELOAD_TAG; and its own pid and parent.
BENCH_BENCHMARK(reports_preload, ctx) {
    ctx.set_info("pid", std::to_string(getpid()));
    ctx.set_info("parent", std::to_string(getppid()));
    void* library = dlopen(ctx.params().get_string("library").c_str(), RTLD_NOW | RTLD_NOLOAD);
    ctx.set_info("loaded", library != nullptr ? "yes" : "no");
    if (library == nullptr) return;
    const auto loads = reinterpret_cast<int (*)()>(dlsym(library, "fixture_preload_loads"));
    const auto loader = reinterpret_cast<int (*)()>(dlsym(library, "fixture_preload_loader"));
    const auto tag = reinterpret_cast<const char* (*)()>(dlsym(library, "fixture_preload_tag"));
    if (loads == nullptr || loader == nullptr || tag == nullptr) throw std::runtime_error("not libfixture_preload.so");
    ctx.set_info("loads", std::to_string(loads()));
    ctx.set_info("loader", std::to_string(loader()));
    ctx.set_info("tag", tag());
    dlclose(library);
}
