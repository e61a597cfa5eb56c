// The memory cgroups of --memory-limit (execute/memory_cgroup.hpp) on stand-ins of the
// cgroup filesystem: folders of plain files laid out as cgroup v2 and v1 lay them out,
// with a /proc/self/cgroup of their own. What the kernel does with the files (the limit
// enforced, the OOM kill counted) is tested by the real runs of worker_server_test and
// broken_plugins_test where this machine lets the host make cgroups.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../support/test_support.hpp"
#include "execute/memory_cgroup.hpp"

namespace {

using benchhost::MemoryCgroups;
using benchtest::read_file;
using benchtest::TempDir;
using benchtest::write_file;
namespace fs = std::filesystem;

TEST(MemoryCgroups, V2LimitsAChildOfTheHostsCgroupAndReadsTheOomKill) {
    TempDir root;
    write_file(root / "cgroup.controllers", "cpuset cpu io memory pids\n");
    write_file(root / "proc_cgroup", "0::/user.slice/bench\n");
    const fs::path own = root.path() / "user.slice" / "bench";
    write_file(own / "cgroup.controllers", "cpu memory pids\n");
    write_file(own / "cgroup.subtree_control", "memory pids\n");
    const MemoryCgroups cgroups = MemoryCgroups::find(root.path(), root / "proc_cgroup");
    ASSERT_TRUE(cgroups.available()) << cgroups.why_not();
    EXPECT_EQ(cgroups.version(), 2);
    EXPECT_EQ(cgroups.parent(), own);
    EXPECT_EQ(cgroups.limit_file(), "cgroup v2 memory.max");
    EXPECT_FALSE(fs::exists(own / ("benchhost-probe-" + std::to_string(getpid())))) << "the probe is removed";

    const fs::path dir = cgroups.create("worker-1", 300);
    EXPECT_EQ(dir, own / "worker-1");
    EXPECT_EQ(read_file(dir / "memory.max"), std::to_string(300ULL << 20));
    write_file(dir / "memory.events", "low 0\nhigh 0\nmax 12\noom 0\noom_kill 0\n");
    EXPECT_FALSE(cgroups.oom_killed(dir));
    write_file(dir / "memory.events", "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n");
    EXPECT_TRUE(cgroups.oom_killed(dir));
    cgroups.remove(dir);
    EXPECT_FALSE(fs::exists(dir));
}

TEST(MemoryCgroups, TheCgroupsOfHostsThatAreGoneAreRemovedOthersKept) {
    TempDir root;
    write_file(root / "cgroup.controllers", "memory\n");
    write_file(root / "proc_cgroup", "0::/bench\n");
    const fs::path own = root.path() / "bench";
    write_file(own / "cgroup.controllers", "memory\n");
    write_file(own / "cgroup.subtree_control", "memory\n");
    // A pid no process has: above the kernel's largest (pid_max is at most 2^22).
    const std::string gone = "999999999";
    const std::string alive = std::to_string(getpid());
    for (const std::string& name :
         std::vector<std::string>{"benchhost-" + gone + "-1", "benchhost-" + gone + "-12", "benchhost-probe-" + gone,
                                  "benchhost-" + alive + "-3", "benchhost-x-1", "someone-else"})
        write_file(own / name / "memory.max", "max\n");
    write_file(own / ("benchhost-" + gone + "-2"), "a file, not a cgroup\n");

    const MemoryCgroups cgroups = MemoryCgroups::find(root.path(), root / "proc_cgroup");
    ASSERT_TRUE(cgroups.available()) << cgroups.why_not();
    for (const std::string& name :
         std::vector<std::string>{"benchhost-" + gone + "-1", "benchhost-" + gone + "-12", "benchhost-probe-" + gone})
        EXPECT_FALSE(fs::exists(own / name)) << name;
    for (const std::string& name : std::vector<std::string>{"benchhost-" + alive + "-3", "benchhost-x-1",
                                                            "someone-else", "benchhost-" + gone + "-2"})
        EXPECT_TRUE(fs::exists(own / name)) << name;
}

TEST(MemoryCgroups, V2WithoutTheControllerForItsChildrenIsNotUsedAndSaysWhy) {
    TempDir root;
    write_file(root / "cgroup.controllers", "cpu memory\n");
    write_file(root / "proc_cgroup", "0::/bench\n");
    write_file(root / "bench" / "cgroup.controllers", "cpu memory\n");
    write_file(root / "bench" / "cgroup.subtree_control", "");  // the write of +memory does not enable it here
    const MemoryCgroups cgroups = MemoryCgroups::find(root.path(), root / "proc_cgroup");
    EXPECT_FALSE(cgroups.available());
    EXPECT_NE(
        cgroups.why_not().find("cannot enable the memory controller for the children of " + (root / "bench").string()),
        std::string::npos)
        << cgroups.why_not();

    write_file(root / "bench" / "cgroup.controllers", "cpu\n");
    const MemoryCgroups no_memory = MemoryCgroups::find(root.path(), root / "proc_cgroup");
    EXPECT_FALSE(no_memory.available());
    EXPECT_NE(no_memory.why_not().find("no memory controller"), std::string::npos) << no_memory.why_not();
}

TEST(MemoryCgroups, V1LimitsMemoryAndSwapTogether) {
    TempDir root;
    write_file(root / "proc_cgroup", "12:pids:/x\n4:memory:/process_api/abc\n1:name=systemd:/\n");
    write_file(root / "memory" / "memory.limit_in_bytes", "9223372036854771712\n");
    const fs::path own = root.path() / "memory" / "process_api" / "abc";
    fs::create_directories(own);
    const MemoryCgroups cgroups = MemoryCgroups::find(root.path(), root / "proc_cgroup");
    ASSERT_TRUE(cgroups.available()) << cgroups.why_not();
    EXPECT_EQ(cgroups.version(), 1);
    EXPECT_EQ(cgroups.parent(), own);
    EXPECT_EQ(cgroups.limit_file(), "cgroup v1 memory.limit_in_bytes");
    const fs::path dir = own / "worker-2";
    fs::create_directories(dir);
    write_file(dir / "memory.memsw.limit_in_bytes", "9223372036854771712\n");  // the kernel has swap accounting
    EXPECT_EQ(cgroups.create("worker-2", 64), dir);
    EXPECT_EQ(read_file(dir / "memory.limit_in_bytes"), std::to_string(64ULL << 20));
    EXPECT_EQ(read_file(dir / "memory.memsw.limit_in_bytes"), std::to_string(64ULL << 20));
    write_file(dir / "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    EXPECT_TRUE(cgroups.oom_killed(dir));
    cgroups.remove(dir);
    EXPECT_FALSE(fs::exists(dir));
}

TEST(MemoryCgroups, NoControllerAtAllSaysWhereItLooked) {
    TempDir root;
    write_file(root / "proc_cgroup", "0::/\n");
    const MemoryCgroups cgroups = MemoryCgroups::find(root.path(), root / "proc_cgroup");
    EXPECT_FALSE(cgroups.available());
    EXPECT_EQ(cgroups.version(), 0);
    EXPECT_NE(cgroups.why_not().find("no memory cgroup controller under " + root.path().string()), std::string::npos)
        << cgroups.why_not();
}

}  // namespace
