// Fixture: a distributed C++ plugin on the LibTorch layer's ranks
// (<bench/torch/distributed.hpp>). `all_reduce`: the ranks meet in a c10d all-reduce in
// each sample timed by measure_ranks, its result checked; --param fail_rank throws on
// that rank in its second sample, while the others wait for it in the all-reduce.
// `sleep`: each rank sleeps (no collective), rank --param slow_rank six times as long;
// rank --param hang_rank hangs in its second sample while the others go on to the next
// barrier (each rank then writes its pid into <--param out>/sleep_rank<N>.pid, for the
// test to see that none survives). `plain`: the same sleeps timed with a plain ctx.measure,
// which in a distributed scenario meets the other ranks as measure_ranks does; each rank
// writes how long its ctx.measure took from its first call (after the process group's
// rendezvous) into <--param out>/plain_rank<N>.ms; rank
// --param plain_hang_rank hangs before its ctx.measure (--param plain_hang_at=start) or
// after it (end).
#include <bench/plugin.hpp>
#include <bench/torch/distributed.hpp>

#include <torch/types.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

BENCH_PLUGIN("fixture_torch_ranks", "1.0.0", .axes = "world_size");

namespace lt = bench::libtorch;

BENCH_BENCHMARK(all_reduce, ctx) {
    const c10::intrusive_ptr<c10d::ProcessGroup> group = lt::process_group(ctx);
    const int rank = lt::rank(), world = lt::world_size();
    const int fail_rank = static_cast<int>(ctx.params().get_int("fail_rank", -1));
    std::vector<torch::Tensor> buffer{torch::ones({256})};
    int calls = 0;
    lt::measure_ranks(ctx, "latency", [&] {
        if (++calls == 3 && rank == fail_rank)  // the warmup call, then the second sample
            throw std::runtime_error("rank " + std::to_string(rank) + " fails on purpose");
        buffer[0].fill_(rank + 1);
        group->allreduce(buffer)->wait();
    });
    const double expected = world * (world + 1) / 2.0;
    if (buffer[0].min().item<double>() != expected || buffer[0].max().item<double>() != expected)
        throw std::runtime_error("the all-reduce gave " + std::to_string(buffer[0][0].item<double>()) + ", not " +
                                 std::to_string(expected));
    ctx.set_info("rank_seen", std::to_string(rank) + " of " + std::to_string(world));
}

BENCH_BENCHMARK(sleep, ctx) {
    const int rank = lt::rank();
    const bool slow = rank == ctx.params().get_int("slow_rank", -1);
    const bool hangs = rank == ctx.params().get_int("hang_rank", -1);
    if (ctx.params().get_int("hang_rank", -1) >= 0)
        std::ofstream(ctx.params().get_string("out", ".") + "/sleep_rank" + std::to_string(rank) + ".pid")
            << ::getpid();
    int calls = 0;
    lt::measure_ranks(ctx, "latency", [&] {
        if (++calls == 3 && hangs) std::this_thread::sleep_for(std::chrono::hours(1));  // its second sample
        std::this_thread::sleep_for(std::chrono::milliseconds(slow ? 24 : 4));
    });
}

BENCH_BENCHMARK(plain, ctx) {
    const int rank = lt::rank();
    const bool slow = rank == ctx.params().get_int("slow_rank", -1);
    const bool hangs = rank == ctx.params().get_int("plain_hang_rank", -1);
    const std::string hang_at = ctx.params().get_string("plain_hang_at", "");
    const std::string out = ctx.params().get_string("out", ".");
    if (ctx.params().get_int("plain_hang_rank", -1) >= 0)
        std::ofstream(out + "/plain_rank" + std::to_string(rank) + ".pid") << ::getpid();
    if (hangs && hang_at == "start") std::this_thread::sleep_for(std::chrono::hours(1));
    std::optional<std::chrono::steady_clock::time_point> first_call;  // after the rendezvous
    ctx.measure("latency", [&] {
        if (!first_call) first_call = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(slow ? 24 : 4));
    });
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - *first_call;
    std::ofstream(out + "/plain_rank" + std::to_string(rank) + ".ms") << took.count();
    if (hangs && hang_at == "end") std::this_thread::sleep_for(std::chrono::hours(1));
}
