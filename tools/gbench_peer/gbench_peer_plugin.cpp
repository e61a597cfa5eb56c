// gbench_peer_plugin: the four workloads of calibrated_work.hpp timed by benchhost, the
// way a plugin's author times a call: ctx.measure(name, fn), the SDK's standard timing
// path (warmup, batches of calls when one is shorter than the minimum sample time).
// scripts/compare_gbench sets it against Google Benchmark's timing of the same code
// (gbench_peer.cpp). Built into build/tools/gbench_peer/plugins/unit/, not into
// build/plugins/: it is not part of the default suite.
#include <bench/plugin.hpp>

#include <cstdint>

#include "calibrated_work.hpp"

BENCH_PLUGIN("gbench_peer_plugin", "1.0.0");

namespace {

using gbench_peer::Work;

template <Work work>
void time_work(bench::Context& ctx) {
    std::uint64_t chain = known_work::seed;
    ctx.measure(gbench_peer::name(work), [&chain] {
        if constexpr (work == Work::empty) {
            chain = gbench_peer::nothing(chain);
        } else {
            chain = known_work::spin(chain, gbench_peer::steps(work));
        }
        bench::do_not_optimize(chain);
    });
    ctx.record_scalar("xorshift_steps", static_cast<double>(gbench_peer::steps(work)), "steps");
}

}  // namespace

BENCH_BENCHMARK(empty, ctx) { time_work<Work::empty>(ctx); }
BENCH_BENCHMARK(work_20ns, ctx) { time_work<Work::ns20>(ctx); }
BENCH_BENCHMARK(work_1us, ctx) { time_work<Work::us1>(ctx); }
BENCH_BENCHMARK(work_1ms, ctx) { time_work<Work::ms1>(ctx); }
