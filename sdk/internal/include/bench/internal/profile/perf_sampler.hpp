// Native call stacks of the worker, sampled by Linux perf during a profiled pass
// (<bench/profile.hpp>): `perf record` attached to this process, then `perf script`,
// folded into the stacks of a flame graph. Where the machine does not allow it (perf is
// not installed, kernel.perf_event_paranoid forbids it, perf fails to start) it says why,
// and nothing else happens.
//
// Internal (sdk/internal): for the SDK's own implementation; not installed, not exported.
#pragma once

#include <sys/types.h>
#include <istream>
#include <optional>
#include <string>

#include <bench/profile.hpp>

namespace bench {

/// How perf may sample this process here: `reason` empty when it may (then `event` is the
/// event to sample), else why not ("perf is not installed (Debian: linux-perf)",
/// "kernel.perf_event_paranoid is 3 ...").
struct PerfAccess {
    std::string perf;  // the perf executable
    std::string event;  // "cpu-clock" (kernel frames too) or "cpu-clock:u" (user space only)
    std::string reason;  // empty: allowed
    std::string note;  // what the reader should know (only user space, no hardware PMU)
};

/// Looks for perf (BENCH_PERF, else `perf` on PATH) and reads
/// /proc/sys/kernel/perf_event_paranoid: root, or paranoid <= 1, samples kernel and user
/// frames; paranoid 2 only user frames of our own process; above 2 nothing. The event is
/// always cpu-clock, a software timer that needs no hardware PMU (a VM often has none).
/// `paranoid_file` and `euid` are for tests.
PerfAccess perf_access(const std::string& paranoid_file = "/proc/sys/kernel/perf_event_paranoid",
                       std::optional<uid_t> euid = std::nullopt);

/// The frequency perf samples at (Hz).
inline constexpr int perf_frequency_hz = 499;

/// perf record attached to this process, from start() to stop(); stop() runs perf script
/// and folds its stacks. Never throws: a failure becomes `error()`.
class PerfSampler {
public:
    explicit PerfSampler(PerfAccess access);
    ~PerfSampler();  // stops perf and removes its files, if still there
    PerfSampler(const PerfSampler&) = delete;
    PerfSampler& operator=(const PerfSampler&) = delete;

    /// Starts perf record on this process and waits (up to 10 s) until it has attached.
    /// False, with error() set, when it could not.
    bool start();
    /// Stops perf record (SIGINT) and folds its samples. Nullopt, with error() set, when
    /// perf failed or sampled nothing.
    std::optional<FlameGraph> stop();

    const std::string& error() const { return error_; }
    /// What sampled: "perf record -e cpu-clock -F 499 --call-graph dwarf (perf 6.1)".
    std::string description() const;
    long long samples() const { return samples_; }

private:
    void cleanup();

    PerfAccess access_;
    std::string dir_;  // a temporary folder for perf.data, its log and the script
    pid_t record_pid_ = -1;
    std::string error_;
    long long samples_ = 0;
};

/// Folds `perf script -F comm,tid,period,ip,sym,dso` output: each sample (a header line,
/// then its frames, innermost first, one per line, indented) becomes its frames from the
/// root, joined by ';', weighted by its period (ns of cpu-clock) and summed, in ms. A
/// frame without a symbol is named by its object file ("[libtorch_cpu.so.1.13.0]");
/// names are cut to 240 characters, ';' in them becomes ':'. At most `max_stacks`
/// stacks are kept, the heaviest; the rest are summed into one "[other stacks]".
/// `samples` is set to the samples read.
FlameGraph fold_perf_script(std::istream& script, long long& samples, std::size_t max_stacks = 4000);

}  // namespace bench
