// gbench_peer: the four workloads of calibrated_work.hpp timed by Google Benchmark,
// the peer that scripts/compare_gbench sets benchhost's ctx.measure against (the
// plugin gbench_peer_plugin.cpp times the same code). Run with Google Benchmark's own
// flags, e.g. --benchmark_format=json --benchmark_repetitions=10.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <utility>

#include "calibrated_work.hpp"

namespace {

using gbench_peer::Work;

template <Work work>
void time_work(benchmark::State& state) {
    std::uint64_t chain = known_work::seed;
    for (auto _ : state) {
        if constexpr (work == Work::empty) {
            chain = gbench_peer::nothing(chain);
        } else {
            chain = known_work::spin(chain, gbench_peer::steps(work));
        }
        // As const: the "r,m" form, the same asm statement as bench::do_not_optimize
        // (the non-const overload is "+m,r", with which GCC stores and reloads the
        // chain every call).
        benchmark::DoNotOptimize(std::as_const(chain));
    }
    state.counters["xorshift_steps"] = static_cast<double>(gbench_peer::steps(work));
}

void register_all() {
    const auto add = [](Work work, benchmark::internal::Function* fn) {
        benchmark::RegisterBenchmark(std::string(gbench_peer::name(work)).c_str(), fn)->Unit(benchmark::kNanosecond);
    };
    add(Work::empty, time_work<Work::empty>);
    add(Work::ns20, time_work<Work::ns20>);
    add(Work::us1, time_work<Work::us1>);
    add(Work::ms1, time_work<Work::ms1>);
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
