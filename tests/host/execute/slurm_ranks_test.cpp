// --launcher slurm's parts that need no cluster: SLURM's tasks per node, torchrun's
// environment of a rank on another node, srun's command line, the refusal outside an
// allocation, and a program's output and exit status (what srun and scontrol give). The
// launch itself is tested on a real cluster: tests/slurm/slurm_test.sh BUILD ranks.
#include "execute/slurm_ranks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "execute/rank_executor.hpp"

namespace {

using namespace benchhost;

TEST(SlurmRanks, TheTasksOnANodeAreReadFromSlurmsCompressedList) {
    EXPECT_EQ(tasks_on_node("2", 0), 2);
    EXPECT_EQ(tasks_on_node("1(x2)", 0), 1);
    EXPECT_EQ(tasks_on_node("1(x2)", 1), 1);
    EXPECT_EQ(tasks_on_node("1(x2)", 2), std::nullopt);
    EXPECT_EQ(tasks_on_node("4(x3),2", 2), 4);
    EXPECT_EQ(tasks_on_node("4(x3),2", 3), 2);
    EXPECT_EQ(tasks_on_node("3,1(x2),5", 0), 3);
    EXPECT_EQ(tasks_on_node("3,1(x2),5", 2), 1);
    EXPECT_EQ(tasks_on_node("3,1(x2),5", 3), 5);
    EXPECT_EQ(tasks_on_node("", 0), std::nullopt);
    EXPECT_EQ(tasks_on_node("two", 0), std::nullopt);
    EXPECT_EQ(tasks_on_node("2(x", 0), std::nullopt);
}

TEST(SlurmRanks, ARankOnAnotherNodeHasItsLocalRankAndTheFirstNodesAddress) {
    RankPlace place;
    place.rank = 5;
    place.local_rank = 1;
    place.world_size = 8;
    place.local_world_size = 4;
    place.group_rank = 1;
    place.master_addr = "node017";
    place.port = 29400;
    const std::vector<std::string> env = rank_environment({"PATH=/bin", "MASTER_ADDR=stale"}, place, 3, "/r/p");
    const auto value = [&](const std::string& name) {
        const auto found =
            std::find_if(env.begin(), env.end(), [&](const std::string& v) { return v.starts_with(name + "="); });
        return found == env.end() ? std::string("(unset)") : found->substr(name.size() + 1);
    };
    EXPECT_EQ(value("RANK"), "5");
    EXPECT_EQ(value("LOCAL_RANK"), "1");
    EXPECT_EQ(value("GROUP_RANK"), "1");
    EXPECT_EQ(value("ROLE_RANK"), "5");
    EXPECT_EQ(value("WORLD_SIZE"), "8");
    EXPECT_EQ(value("LOCAL_WORLD_SIZE"), "4");
    EXPECT_EQ(value("ROLE_WORLD_SIZE"), "8");
    EXPECT_EQ(value("MASTER_ADDR"), "node017");
    EXPECT_EQ(std::count_if(env.begin(), env.end(), [](const std::string& v) { return v.starts_with("MASTER_ADDR="); }),
              1);
    EXPECT_EQ(value("MASTER_PORT"), "29400");
    EXPECT_EQ(value("OMP_NUM_THREADS"), "3");
    EXPECT_EQ(value("BENCHHOST_RANK_PROGRESS"), "/r/p");
}

TEST(SlurmRanks, SrunStartsOneTaskPerRankWithItsOutputLabelled) {
    const std::vector<std::string> args =
        srun_arguments(4, "benchhost-ranks", {"/b/benchhost", "worker", "--rank-dir", "/d"});
    const auto has = [&](const std::string& word) { return std::find(args.begin(), args.end(), word) != args.end(); };
    EXPECT_TRUE(has("--ntasks=4"));
    EXPECT_TRUE(has("--label"));
    EXPECT_TRUE(has("--kill-on-bad-exit=0"));  // the host ends the step, after the others could say why
    EXPECT_TRUE(has("--job-name=benchhost-ranks"));
    ASSERT_GE(args.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(args.end() - 4, args.end()),
              (std::vector<std::string>{"/b/benchhost", "worker", "--rank-dir", "/d"}));
}

TEST(SlurmRanks, OutsideAnAllocationTheLauncherSaysSo) {
    const char* saved = std::getenv("SLURM_JOB_ID");
    const std::string kept = saved != nullptr ? saved : "";
    unsetenv("SLURM_JOB_ID");
    EXPECT_NE(slurm_allocation_problem().find("not inside a SLURM allocation (SLURM_JOB_ID is not set)"),
              std::string::npos);
    setenv("SLURM_JOB_ID", "42", 1);
    EXPECT_EQ(slurm_allocation_problem(), "");
    if (saved != nullptr) setenv("SLURM_JOB_ID", kept.c_str(), 1);
    else unsetenv("SLURM_JOB_ID");
}

TEST(SlurmRanks, AProgramsOutputAndStatusComeBack) {
    std::string output;
    EXPECT_EQ(run_to_end({"sh", "-c", "echo out; echo err >&2; exit 3"}, &output), 3);
    EXPECT_EQ(output, "out\nerr\n");
    EXPECT_EQ(run_to_end({"no-such-program-of-benchhost"}, &output), 127);
    EXPECT_NE(output.find("exec failed"), std::string::npos);
    EXPECT_EQ(run_to_end({"sleep", "10"}, &output, 0.3), -1);  // past its time: killed
    EXPECT_EQ(rank_file("/d", 3, "json"), std::filesystem::path("/d/rank3.json"));
}

}  // namespace
