// The perf sampler behind a profile's native stacks: who may sample (perf installed,
// kernel.perf_event_paranoid, root), perf script's output folded into stacks, and a real
// perf run on this process where the machine allows it.
#include <bench/internal/profile/perf_sampler.hpp>

#include <chrono>
#include <filesystem>

#include <bench/clock.hpp>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "../../../support/scoped_env.hpp"
#include "../../../support/test_support.hpp"

namespace {

using benchtest::ScopedEnv;

TEST(PerfSampler, FoldsPerfScriptIntoStacksFromTheRootWeightedByPeriod) {
    // Two samples of one stack, one of another; a comm with a space; a frame without a
    // symbol; a symbol with spaces and parentheses; an offset-free ip.
    std::istringstream script(
        "benchhost worker 4242    2004008 \n"
        "\t          98109 _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
        "\t         f614c2 [unknown] (/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0)\n"
        "\t           1ab9 main (/opt/bench/worker)\n"
        "\n"
        "benchhost worker 4242    2004008 \n"
        "\t          98109 _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
        "\t         f614c2 [unknown] (/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0)\n"
        "\t           1ab9 main (/opt/bench/worker)\n"
        "\n"
        "omp 4243    1000000 \n"
        "\t          a958b operator new(unsigned long) (/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30)\n"
        "\t          4a1d f;g (/opt/x.so)\n");
    long long samples = 0;
    const bench::FlameGraph graph = bench::fold_perf_script(script, samples);
    EXPECT_EQ(samples, 3);
    EXPECT_EQ(graph.name, "native");
    EXPECT_EQ(graph.unit, "ms");
    ASSERT_EQ(graph.stacks.size(), 2u);
    // The heaviest first: 2 x 2.004008 ms.
    EXPECT_EQ(graph.stacks[0].frames, "main;[libtorch_cpu.so.1.13.0];_int_malloc");
    EXPECT_NEAR(graph.stacks[0].value, 2 * 2.004008, 1e-12);
    EXPECT_EQ(graph.stacks[1].frames, "f:g;operator new(unsigned long)");
    EXPECT_NEAR(graph.stacks[1].value, 1.0, 1e-12);
}

TEST(PerfSampler, KeepsTheHeaviestStacksAndSumsTheRest) {
    std::string text;
    for (int i = 0; i < 10; ++i) {
        text += "w 1 " + std::to_string(1000000 * (i + 1)) + "\n\t1 f" + std::to_string(i) + " (/x)\n\n";
    }
    std::istringstream script(text);
    long long samples = 0;
    const bench::FlameGraph graph = bench::fold_perf_script(script, samples, 3);
    EXPECT_EQ(samples, 10);
    ASSERT_EQ(graph.stacks.size(), 4u);
    EXPECT_EQ(graph.stacks[0].frames, "f9");
    EXPECT_EQ(graph.stacks[2].frames, "f7");
    EXPECT_EQ(graph.stacks[3].frames, "[other stacks]");
    EXPECT_NEAR(graph.stacks[3].value, 1 + 2 + 3 + 4 + 5 + 6 + 7, 1e-9);
}

TEST(PerfSampler, WhoMaySampleDependsOnParanoiaAndRoot) {
    benchtest::TempDir dir;
    const auto paranoid = dir / "perf_event_paranoid";
    const ScopedEnv perf("BENCH_PERF", "/bin/true");  // an executable, whatever perf is here

    benchtest::write_file(paranoid, "3\n");
    bench::PerfAccess access = bench::perf_access(paranoid.string(), 1000);
    EXPECT_NE(access.reason.find("kernel.perf_event_paranoid is 3"), std::string::npos) << access.reason;
    EXPECT_TRUE(bench::perf_access(paranoid.string(), 0).reason.empty());  // root may

    benchtest::write_file(paranoid, "2\n");
    access = bench::perf_access(paranoid.string(), 1000);
    EXPECT_TRUE(access.reason.empty()) << access.reason;
    EXPECT_EQ(access.event, "cpu-clock:u");
    EXPECT_NE(access.note.find("user-space frames only"), std::string::npos) << access.note;

    benchtest::write_file(paranoid, "1\n");
    access = bench::perf_access(paranoid.string(), 1000);
    EXPECT_EQ(access.event, "cpu-clock");

    const ScopedEnv missing("BENCH_PERF", "/nonexistent/perf");
    access = bench::perf_access(paranoid.string(), 0);
    EXPECT_EQ(access.reason, "BENCH_PERF=/nonexistent/perf is not an executable");
    const ScopedEnv unset("BENCH_PERF", std::nullopt);
    const ScopedEnv no_path("PATH", "/nonexistent");
    access = bench::perf_access(paranoid.string(), 0);
    EXPECT_EQ(access.reason, "perf is not installed (Debian's linux-perf package has it)");
}

TEST(PerfSampler, AFailingPerfSaysWhy) {
    // A "perf" that fails at once, as perf does when the kernel refuses it.
    benchtest::TempDir dir;
    const auto fake = dir / "perf";
    benchtest::write_file(fake, "#!/bin/sh\necho 'Error: no access to perf_event_open' >&2\nexit 255\n");
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    bench::PerfAccess access;
    access.perf = fake.string();
    access.event = "cpu-clock";
    bench::PerfSampler sampler(access);
    EXPECT_FALSE(sampler.start());
    EXPECT_EQ(sampler.error(), "perf record failed: Error: no access to perf_event_open");
}

[[gnu::noinline]] std::uint64_t profiled_spin(std::uint64_t n) {
    std::uint64_t x = 88172645463325252ULL;
    for (std::uint64_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

TEST(PerfSampler, SamplesThisProcessWhereTheMachineAllowsIt) {
    const bench::PerfAccess access = bench::perf_access();
    if (!access.reason.empty()) GTEST_SKIP() << "perf cannot sample here: " << access.reason;
    bench::PerfSampler sampler(access);
    ASSERT_TRUE(sampler.start()) << sampler.error();
    volatile std::uint64_t sink = 0;
    const auto until = bench::Clock::now() + std::chrono::milliseconds(600);
    while (bench::Clock::now() < until) sink = sink + profiled_spin(100000);
    const auto graph = sampler.stop();
    ASSERT_TRUE(graph.has_value()) << sampler.error();
    EXPECT_GE(sampler.samples(), 5);  // 299 at 499 Hz on an idle CPU; far fewer when others take it
    // The spin is this test's own function: perf found it by its symbol.
    double spin_ms = 0, all_ms = 0;
    for (const auto& stack : graph->stacks) {
        all_ms += stack.value;
        if (stack.frames.find("profiled_spin") != std::string::npos) spin_ms += stack.value;
    }
    EXPECT_GT(spin_ms, 0.5 * all_ms) << "of " << all_ms << " ms sampled";
    EXPECT_NE(sampler.description().find("perf record -e " + access.event), std::string::npos) << sampler.description();
}

}  // namespace
