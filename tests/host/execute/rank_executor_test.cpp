// The parts of a distributed scenario's run that need no rank: the cores each rank gets,
// torchrun's environment, the rendezvous port, and how a failure or a timeout is read.
#include "execute/rank_executor.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace benchhost;

TEST(RankExecutor, EachRankGetsItsOwnShareOfTheCores) {
    EXPECT_EQ(rank_cpu_shares({0, 1, 2, 3}, 2), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
    EXPECT_EQ(rank_cpu_shares({0, 1}, 2), (std::vector<std::vector<int>>{{0}, {1}}));
    EXPECT_EQ(rank_cpu_shares({2, 5, 7}, 2), (std::vector<std::vector<int>>{{2}, {5}}));  // the remainder unused
    EXPECT_EQ(rank_cpu_shares({0, 1, 2, 3, 4, 5, 6, 7}, 1), (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
    // More ranks than CPUs: one CPU each, in turn.
    EXPECT_EQ(rank_cpu_shares({0, 1}, 4), (std::vector<std::vector<int>>{{0}, {1}, {0}, {1}}));
    EXPECT_FALSE(available_cpus().empty());
}

TEST(RankExecutor, TheEnvironmentIsTorchrunsContract) {
    const std::vector<std::string> base = {"PATH=/bin", "RANK=9", "OMP_NUM_THREADS=3"};
    const std::vector<std::string> env = rank_environment(base, 1, 4, 29511, 2, "/tmp/progress/rank1");
    const auto value = [&](const std::string& name) {
        const auto found =
            std::find_if(env.begin(), env.end(), [&](const std::string& v) { return v.starts_with(name + "="); });
        return found == env.end() ? std::string("(unset)") : found->substr(name.size() + 1);
    };
    EXPECT_EQ(value("PATH"), "/bin");
    EXPECT_EQ(value("RANK"), "1");  // replaced, not doubled
    EXPECT_EQ(std::count_if(env.begin(), env.end(), [](const std::string& v) { return v.starts_with("RANK="); }), 1);
    EXPECT_EQ(value("LOCAL_RANK"), "1");
    EXPECT_EQ(value("GROUP_RANK"), "0");
    EXPECT_EQ(value("ROLE_RANK"), "1");
    EXPECT_EQ(value("WORLD_SIZE"), "4");
    EXPECT_EQ(value("LOCAL_WORLD_SIZE"), "4");
    EXPECT_EQ(value("ROLE_WORLD_SIZE"), "4");
    EXPECT_EQ(value("MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(value("MASTER_PORT"), "29511");
    EXPECT_EQ(value("OMP_NUM_THREADS"), "3");  // the user's stands
    EXPECT_EQ(value("BENCHHOST_RANK_PROGRESS"), "/tmp/progress/rank1");
    const std::vector<std::string> own = rank_environment({"PATH=/bin"}, 0, 2, 1234, 2, "");
    EXPECT_NE(std::find(own.begin(), own.end(), "OMP_NUM_THREADS=2"), own.end());
}

TEST(RankExecutor, ATakenPortIsPassedOver) {
    const int any = free_port();
    ASSERT_GT(any, 0);
    // Hold a port, as another program would: the first free one after it is given.
    const int held = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(held, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = 0;
    ASSERT_EQ(bind(held, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(listen(held, 1), 0);
    socklen_t length = sizeof address;
    ASSERT_EQ(getsockname(held, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const int taken = ntohs(address.sin_port);
    const int given = free_port(taken);
    EXPECT_NE(given, taken);
    EXPECT_GT(given, taken);
    EXPECT_LT(given, taken + 100);
    close(held);
}

TEST(RankExecutor, AFailureIsReadForATakenPortAndForAPeerThatWentAway) {
    EXPECT_TRUE(port_was_taken(
        "raised DistStoreError: The server socket has failed to listen on any local network address. port: 29500, "
        "useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use"));
    EXPECT_TRUE(port_was_taken("OSError: [Errno 98] Address already in use"));
    EXPECT_FALSE(port_was_taken("raised ValueError: wrong size"));
    EXPECT_TRUE(
        peer_went_away("raised RuntimeError: [gloo/transport/tcp/pair.cc:534] Connection closed by peer "
                       "[127.0.0.1]:41234"));
    EXPECT_TRUE(peer_went_away("Connection reset by peer"));
    EXPECT_FALSE(peer_went_away("raised ValueError: rank 1 fails on purpose"));
}

TEST(RankExecutor, ATimeoutNamesTheRanksBehindTheOthers) {
    EXPECT_EQ(ranks_behind({"7 waiting at sample 3's barrier", "6 timing sample 2 (past its barrier)"}),
              "rank 1 was behind the others, timing sample 2 (past its barrier), while rank 0 was waiting at sample "
              "3's barrier");
    EXPECT_EQ(ranks_behind({"2 in the process group's rendezvous (init_process_group)", "",
                            "2 in the process group's rendezvous (init_process_group)"}),
              "rank 1 was behind the others, starting (it had not begun the benchmark: loading the plugin, "
              "importing), while rank 0 was in the process group's rendezvous (init_process_group), rank 2 was in "
              "the process group's rendezvous (init_process_group)");
    EXPECT_EQ(ranks_behind({"5 waiting at sample 2's barrier", "5 waiting at sample 2's barrier"}),
              "every rank was waiting at sample 2's barrier; none was behind the others");
    EXPECT_EQ(ranks_behind({"3 x", "1 y", "1 y"}), "ranks 1, 2 were behind the others, y, while rank 0 was x");
}

}  // namespace
