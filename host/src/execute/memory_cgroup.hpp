// --memory-limit by a memory cgroup: what the kernel charges a worker (its resident
// memory, page cache and kernel memory, its children's too), not the address space it
// reserves, which the CUDA runtime takes by the tens of GiB. Over the limit, the kernel's
// OOM killer ends the worker, and the cgroup's counters say so, so that the reason can
// name what was exceeded.
//
// Each worker gets a cgroup of its own, a child of the host's (cgroup v2: memory.max and
// memory.swap.max 0, the OOM kill read from memory.events; v1: memory.limit_in_bytes and
// memory.memsw.limit_in_bytes, read from memory.oom_control), which it joins itself
// before it runs the scenario, and which the host removes after it. Where the host cannot
// make one (no memory controller, not delegated, no right to write), the worker's limit
// is RLIMIT_DATA instead, and MemoryCgroups::why_not says why.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace benchhost {

class MemoryCgroups {
public:
    /// The memory controller under `root` (cgroup v2 when root/cgroup.controllers lists
    /// memory, else v1 at root/memory), below the host's own cgroup as `proc_cgroup`
    /// (/proc/self/cgroup) names it; tried by making and removing a child there.
    static MemoryCgroups find(const std::filesystem::path& root, const std::filesystem::path& proc_cgroup);
    /// find("/sys/fs/cgroup", "/proc/self/cgroup"), once per process; none when the
    /// environment sets BENCHHOST_MEMORY_CGROUP=0.
    static const MemoryCgroups& system();

    bool available() const { return version_ != 0; }
    int version() const { return version_; }  // 1 or 2; 0 when not available
    const std::filesystem::path& parent() const { return parent_; }
    /// Why not available: what was tried and what failed.
    const std::string& why_not() const { return why_not_; }
    /// "cgroup v2 memory.max" or "cgroup v1 memory.limit_in_bytes": what a reason names.
    std::string limit_file() const;

    /// A new child cgroup `name` limited to `mib` MiB, swap excluded; its folder. Throws
    /// std::runtime_error naming the file it could not write.
    std::filesystem::path create(const std::string& name, std::size_t mib) const;
    /// Whether the kernel's OOM killer ended a process of cgroup `dir`.
    bool oom_killed(const std::filesystem::path& dir) const;
    /// Removes cgroup `dir` once its processes are gone (waits up to a second for them).
    void remove(const std::filesystem::path& dir) const;
    /// Removes the cgroups that hosts no longer running made here (a host killed with
    /// SIGKILL leaves its workers' cgroups behind): those named after a pid that no process
    /// has. One that still holds a process stays. find() calls it.
    void remove_stale() const;

private:
    int version_ = 0;
    std::filesystem::path parent_;
    std::string why_not_;
};

/// Makes the calling process a member of cgroup `dir` (writes 0 to its cgroup.procs);
/// false, with errno's reason in `error`, when it cannot.
bool join_cgroup(const std::filesystem::path& dir, std::string& error);

}  // namespace benchhost
