// Fixture: a C++ plugin whose benchmark is distributed, declared as a C++ plugin can: the
// axis world_size among BENCH_PLUGIN's axes, which the ELF inspector reads. Each rank
// records the environment the host gave it and a series of its own; rank
// --param fail_rank throws. With --param measure=1 it also times a call with ctx.measure,
// which in a distributed scenario needs the ranks' process group, and this plugin does not
// link the LibTorch layer that gives it: the scenario fails, saying what to link.
#include <bench/plugin.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

BENCH_PLUGIN("fixture_ranks", "1.0.0", .axes = "world_size");

namespace {

std::string variable(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? "(unset)" : value;
}

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    const int rank = std::atoi(variable("RANK").c_str());
    ctx.set_info("seen", "rank " + variable("RANK") + " of " + variable("WORLD_SIZE") + ", config world_size " +
                             std::to_string(ctx.config().world_size) + ", master " + variable("MASTER_ADDR"));
    for (int i = 0; i < 3; ++i) ctx.add_sample("step", 1.0 + i + rank, "ms");
    if (ctx.params().get_int("fail_rank", -1) == rank)
        throw std::runtime_error("rank " + std::to_string(rank) + " fails on purpose");
    if (ctx.params().get_int("measure", 0) == 1) ctx.measure("timed", [] {});
}
