// The worker server: the process that starts the workers of process isolation.
//
// Starting a worker by fork and exec of this executable costs tens of milliseconds per
// scenario (exec, dynamic linking of the host binary, its static initializers). So the
// host starts one worker server per run instead: this executable once more, run as
// `benchhost __worker-server FD` with the workers' filtered environment, single-threaded,
// connected to the host by a Unix socket. It never loads plugin code itself. For each
// scenario the host sends a request (plugin, entry point, scenario config as JSON, log
// level, monitor interval, memory limit, environment) with three pipe ends attached
// (SCM_RIGHTS), and the server gives it to a new worker process, which:
//
//   - makes itself the leader of a new process group, which the host kills on timeout,
//     on interrupt and after the worker ends, so that nothing the plugin started
//     outlives it;
//   - dies with the server (PR_SET_PDEATHSIG), as the server dies with the host, so
//     that kill -9 of the host leaves no process behind;
//   - resets every signal to its default and unblocks them all;
//   - writes stdout and stderr into the output pipe, which the host reads (the log tail
//     and the forwarded lines), and keeps no other descriptor of the server;
//   - applies the memory limit (joins the request's memory cgroup, else RLIMIT_DATA) and
//     replaces its environment by the request's;
//   - runs the scenario exactly as `benchhost worker` does (run_worker_scenario in
//     worker.hpp), writing to the result pipe 'L' once the plugin is loaded (a crash
//     before it is a crash while loading) and then 'R' and the result as JSON.
//
// The first three steps need no request: the server forks a worker ahead, a spare,
// whenever no worker runs (so that the fork never competes with a scenario for the
// CPU, nor with a parent's worker whose pid has not come yet), and the spare waits on a
// socket of its own for the request the server passes on. A request that finds no spare
// (the first, or one beside a running worker) gets a worker forked for it; one with a
// preload goes to its parent (below), and the spare waits on. Either way the worker is a
// fresh process that ran no plugin code before: the server never loads a plugin, nor
// does a spare before its request, nor a preloaded parent ever.
//
// Preloaded parents. Loading LibTorch takes a C++ plugin's worker about half a second,
// and importing torch and torchvision a Python one seconds, every scenario again
// (docs/install.md has the figures). So a request
// may name what to load ahead (WorkerPreload, which the host reads off the plugin's files
// without loading them: the libtorch*/libc10* libraries a C++ plugin links, found through
// its own run paths, or torch and torchvision where a Python plugin imports them at top
// level), and its worker is then forked from a process that has loaded it: a preloaded
// parent, one for each preload and environment (the request's), forked by the server on
// the first request that needs it. The parent dies with the server (PR_SET_PDEATHSIG),
// sets the request's environment before it loads anything (libgomp, LibTorch and
// Inductor read theirs as they load), loads the libraries (RTLD_NOW | RTLD_GLOBAL) or
// starts the interpreter through the Python loader and imports the modules, checks that
// no thread of its own is left that a fork would lose (a trial fork first: OpenBLAS stops
// its threads before a fork), says it is ready, and then forks a worker for each request
// the server passes on. It forks twice: the middle process exits at once, so the worker
// becomes the server's child (its subreaper) and is reaped, watched and stopped exactly as
// the workers the server forks; the worker waits until its parent is the server, then
// becomes a worker as above, runs no plugin code before its request, and loads its plugin,
// which finds LibTorch (or torch in sys.modules) loaded already. Python is told of the
// fork (PyOS_BeforeFork, PyOS_AfterFork_Parent and _Child), and sys.argv is the plugin's
// in each worker. The middle process sends the worker's pid to the server, which writes
// the 'P' record then (the wait status of a worker that ended before its pid came is kept
// until it comes). At most two parents run; the one used least recently goes. A parent
// that cannot load its preload (a missing library, a crash while loading, an import
// error, a thread it cannot fork without) or dies: its requests run the plain way, in a
// worker the server forks, which loads everything itself and fails as it always would,
// and its preload is not tried again by this server. What differs in a preloaded worker:
// the plugin_load scalar no longer counts loading what the parent loaded; the parent's
// output while loading (an import's warning) goes nowhere rather than into the scenario's
// log; what the worker inherits from the parent is not charged to the worker's memory
// cgroup (pages it copies on write are); and its resident set (peak_rss) holds the
// anonymous pages it inherited but only the pages of the loaded libraries it touches
// itself, hundreds of MiB less than a worker that loaded LibTorch (docs/running.md).
// Distributed ranks (each its own environment), --compile-cache cold (a fresh environment
// each scenario), --isolation none and --worker-preload off send no preload.
//
// The server writes to the status pipe of each request a record with the worker's pid
// as soon as the worker has the request (from then on the host can kill its group), and
// one with its wait status when it ends. The server reaps its workers; it is also the
// subreaper of what they leave behind, whatever session or group that put itself in:
// when a worker has ended (and no other runs), the server stops every process the
// worker left running, with their descendants (SIGTERM, SIGKILL after 200 ms:
// leftover_processes.hpp), and names them in a record before the wait status. A server
// that ends closes these pipes: the host sees end of file without a wait status, reports the scenario,
// and starts a new server for the next one. When the host closes the socket, the server
// kills its workers' groups, its spare and its parents, and exits.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace benchhost {

/// What a worker's parent loads before it forks the worker (see "Preloaded parents"
/// above): empty, the server forks the worker itself and the worker loads everything.
struct WorkerPreload {
    /// A C++ plugin's LibTorch libraries (discover/elf_inspector.hpp,
    /// linked_torch_libraries): absolute paths, loaded in this order, RTLD_NOW | RTLD_GLOBAL.
    std::vector<std::string> libraries;
    /// A Python plugin's: the interpreter's environment (plugin_python()), the Python
    /// loader (bench/python_plugin.hpp), and the modules to import (fork_safe_preloads).
    std::string python;
    std::string loader;
    std::vector<std::string> modules;

    bool empty() const { return libraries.empty() && modules.empty(); }
};

/// A scenario to run in a new worker process.
struct WorkerRequest {
    std::string plugin;  // the plugin file
    std::string symbol;  // its entry point
    std::string config_json;  // the scenario config (config_to_json)
    std::string log_level = "info";  // the plugin logger's level
    double monitor_interval_ms = 50;  // 0: no monitoring
    std::size_t memory_limit_mib = 0;  // RLIMIT_DATA of the worker, where no cgroup; 0: none
    std::string cgroup;  // the memory cgroup the worker joins; empty: none
    std::vector<std::string> environment;  // "NAME=value", the worker's whole environment
    /// The CPUs the worker runs on (sched_setaffinity, before the plugin loads): a rank's
    /// share of the cores in a distributed scenario; empty: the server's own.
    std::vector<int> cpus;
    WorkerPreload preload;  // what the worker's parent has loaded; empty: nothing
};

/// What the server writes into a request's status pipe: fixed-size records, 'P', then
/// 'K' when the worker left processes running, then 'S'; or 'F'. A 'K' record is
/// followed by its `value` bytes: stopped_processes_to_json (json/result_json.hpp).
struct WorkerStatusRecord {
    enum Kind : std::int32_t { started = 'P', stopped = 'K', ended = 'S', fork_failed = 'F' };
    std::int32_t kind = 0;
    std::int32_t value = 0;  // started: the pid; stopped: the length of the JSON; ended: the wait status;
                             // fork_failed: errno
};

/// The argument that makes this executable a worker server: `<exe> __worker-server FD`.
inline constexpr const char* worker_server_argument = "__worker-server";

/// When argv asks for the worker server, runs it and returns its exit status; otherwise
/// returns nothing. main() calls this first, before anything else (and so must the
/// main() of a test that runs scenarios in process isolation).
std::optional<int> run_worker_server_if_requested(int argc, char** argv);

/// Starts the worker server unless one runs. main() calls it before the run creates
/// any thread, so that the server's PR_SET_PDEATHSIG follows the main thread (it fires
/// when the thread that forked the server ends); launch_worker() calls it too, to
/// start a server when there is none. The server is /proc/self/exe: this program.
/// Throws std::runtime_error when the server cannot be forked.
void start_worker_server();

/// Ends the worker server, if one runs: closes its socket, which makes it kill its
/// workers and exit, and reaps it.
void stop_worker_server();

/// The pid of the running worker server; 0 when none runs.
pid_t worker_server_pid();

/// The host's ends of a started request's pipes (owned: close them).
struct WorkerLaunch {
    int status = -1;  // WorkerStatusRecords, then end of file
    int output = -1;  // the worker's stdout and stderr
    int result = -1;  // 'L', then 'R' and the result JSON
    unsigned server_generation = 0;  // which server took it (for worker_server_lost)
};

/// Sends `request` to the worker server, starting one first if none runs or if the
/// running one is gone. Throws std::runtime_error when no server can take it.
WorkerLaunch launch_worker(const WorkerRequest& request);

/// Called when the server of `generation` closed a status pipe without an end
/// record: it is gone (or broken). Kills and reaps it, unless a newer server runs
/// already, so that the next launch_worker() starts a new one. Returns how it ended
/// ("killed by SIGKILL (Killed)", "exited with status 1"), empty when it was replaced
/// already.
std::string worker_server_lost(unsigned generation);

}  // namespace benchhost
