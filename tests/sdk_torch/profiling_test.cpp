// The LibTorch layer's operator profiler, driven directly: what it puts in the operator
// and module tables, the flame graph and the trace, under Kineto and under the legacy
// profiler (BENCH_TORCH_PROFILER), and which profiler and events it runs.
#include <bench/torch/profiling.hpp>

#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <gtest/gtest.h>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace {

using bench::libtorch::ModuleScope;
using bench::libtorch::TorchOperatorProfiler;

double self_sum(const bench::Profile& profile) {
    double sum = 0;
    for (const auto& op : profile.operators) sum += op.self_ms;
    return sum;
}

const bench::ProfileOperator* find_operator(const bench::Profile& profile, const std::string& name) {
    for (const auto& op : profile.operators)
        if (op.name == name) return &op;
    return nullptr;
}

const bench::ProfileModule* find_module(const bench::Profile& profile, const std::string& name) {
    for (const auto& m : profile.modules)
        if (m.name == name) return &m;
    return nullptr;
}

bool has_stack(const bench::FlameGraph& graph, const std::string& frames) {
    for (const auto& stack : graph.stacks)
        if (stack.frames == frames) return true;
    return false;
}

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// BENCH_TORCH_PROFILER set (or unset) for its lifetime.
class ProfilerEnvironment {
public:
    explicit ProfilerEnvironment(const std::optional<std::string>& value) {
        if (const char* old = std::getenv("BENCH_TORCH_PROFILER")) old_ = old;
        if (value) setenv("BENCH_TORCH_PROFILER", value->c_str(), 1);
        else unsetenv("BENCH_TORCH_PROFILER");
    }
    ~ProfilerEnvironment() {
        if (old_) setenv("BENCH_TORCH_PROFILER", old_->c_str(), 1);
        else unsetenv("BENCH_TORCH_PROFILER");
    }

private:
    std::optional<std::string> old_;
};

/// Each test under both profilers.
class BothProfilers : public ::testing::TestWithParam<std::string> {
protected:
    ProfilerEnvironment environment_{GetParam()};
};

INSTANTIATE_TEST_SUITE_P(TorchOperatorProfiler, BothProfilers, ::testing::Values("kineto", "legacy"),
                         [](const auto& param_info) { return param_info.param; });

TEST_P(BothProfilers, NamesWhichProfilerRuns) {
    const TorchOperatorProfiler profiler("forward");
    const std::string which = GetParam() == "kineto" ? "(Kineto, CPU events)" : "(legacy API, CPU events)";
    EXPECT_EQ(profiler.name(), std::string("LibTorch ") + TORCH_VERSION + " profiler " + which);
}

TEST_P(BothProfilers, TablesTheOperatorsAndModulesOfEachCall) {
    const torch::Tensor a = torch::ones({64, 64}), b = torch::ones({64, 64});
    TorchOperatorProfiler profiler("forward", {{"block", 4096}});
    for (int call = 0; call < 2; ++call) {
        profiler.start();
        {
            const ModuleScope scope("block");
            torch::Tensor c = torch::mm(a, b);
            c = torch::relu(c);
        }
        profiler.stop();
    }
    bench::Profile profile;
    profiler.report(profile, 2);
    const bench::ProfileOperator* mm = find_operator(profile, "aten::mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->calls, 1);  // per call
    EXPECT_EQ(mm->flops, 2.0 * 64 * 64 * 64);
    EXPECT_EQ(mm->input_shapes, "[[64, 64], [64, 64]]");
    EXPECT_NE(find_operator(profile, "aten::relu"), nullptr);
    ASSERT_EQ(profile.modules.size(), 1u);
    EXPECT_EQ(profile.modules[0].name, "block");
    EXPECT_EQ(profile.modules[0].parameters, 4096);
    EXPECT_GE(profile.modules[0].total_ms, self_sum(profile) * 0.99);  // the operators ran inside it
    ASSERT_FALSE(profile.flame_graphs.empty());
    EXPECT_EQ(profile.flame_graphs[0].name, "operators");
    EXPECT_TRUE(has_stack(profile.flame_graphs[0], "forward;block;aten::mm"));
    EXPECT_TRUE(profile.notes.empty()) << profile.notes.front();
}

TEST_P(BothProfilers, NestsModulesAndOperatorsAsTheyRan) {
    const torch::Tensor a = torch::ones({96, 96});
    TorchOperatorProfiler profiler("forward");
    profiler.start();
    {
        const ModuleScope outer("outer");
        torch::Tensor x = torch::relu(a);
        {
            const ModuleScope inner("inner");
            x = torch::mm(x, a);
        }
        x = torch::sigmoid(x);
    }
    torch::Tensor after = torch::neg(a);  // outside every module
    profiler.stop();
    bench::Profile profile;
    profiler.report(profile, 1);

    ASSERT_EQ(profile.modules.size(), 2u);
    EXPECT_EQ(profile.modules[0].name, "outer");  // in the order they began
    EXPECT_EQ(profile.modules[0].depth, 0);
    EXPECT_EQ(profile.modules[1].name, "inner");
    EXPECT_EQ(profile.modules[1].depth, 1);
    EXPECT_LE(profile.modules[1].total_ms, profile.modules[0].total_ms);
    const bench::FlameGraph& graph = profile.flame_graphs.at(0);
    EXPECT_TRUE(has_stack(graph, "forward;outer;aten::relu"));
    EXPECT_TRUE(has_stack(graph, "forward;outer;inner;aten::mm"));
    EXPECT_TRUE(has_stack(graph, "forward;outer;aten::sigmoid"));
    EXPECT_TRUE(has_stack(graph, "forward;aten::neg"));
    for (const auto& stack : graph.stacks) {  // it ran after the modules, not in them
        if (stack.frames.starts_with("forward;outer")) {
            EXPECT_EQ(stack.frames.find("aten::neg"), std::string::npos) << stack.frames;
        }
    }
    // An operator's total holds the operators it called; the self times of the
    // operators and modules (the flame graph's frames) add up to what ran outermost.
    double frames = 0;
    for (const auto& stack : graph.stacks) frames += stack.value;
    double outermost = find_operator(profile, "aten::neg")->total_ms + profile.modules[0].total_ms;
    EXPECT_NEAR(frames, outermost, outermost * 1e-6);
    for (const auto& op : profile.operators) EXPECT_GE(op.total_ms, op.self_ms * (1 - 1e-9)) << op.name;
    const bench::ProfileOperator* mm = find_operator(profile, "aten::mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_LE(mm->total_ms, profile.modules[1].total_ms);

    // The trace: every module and operator once, on the profiled thread, at the time it
    // ran (microseconds since the Unix epoch), the inner module inside the outer one.
    std::optional<bench::TraceEvent> outer, inner;
    std::size_t operators = 0;
    for (const auto& event : profile.trace) {
        EXPECT_GE(event.duration_us, 0);
        EXPECT_NE(event.thread, 0);
        EXPECT_NEAR(event.start_us, now_us(), 60e6) << event.name;
        if (event.category == "module") (event.name == "outer" ? outer : inner) = event;
        operators += event.category == "operator";
    }
    double calls = 0;
    for (const auto& op : profile.operators) calls += op.calls;
    EXPECT_EQ(static_cast<double>(operators), calls);
    ASSERT_TRUE(outer && inner);
    EXPECT_GE(inner->start_us, outer->start_us - 1);  // the clock's microseconds: doubles since 1970
    EXPECT_LE(inner->start_us + inner->duration_us, outer->start_us + outer->duration_us + 1);
}

TEST_P(BothProfilers, AModulesMemoryIsWhatItAllocatedAndTheMostLiveAtOnce) {
    const int64_t bytes = 1024 * 1024 * 4;  // a float32 1024x1024 tensor
    TorchOperatorProfiler profiler("forward");
    profiler.start();
    torch::Tensor before = torch::empty({1024, 1024});  // outside: not the module's
    {
        const ModuleScope scope("block");
        { torch::Tensor first = torch::empty({1024, 1024}); }  // freed
        torch::Tensor second = torch::empty({1024, 1024});
        torch::Tensor third = torch::empty({1024, 1024});
    }
    profiler.stop();
    bench::Profile profile;
    profiler.report(profile, 1);
    const bench::ProfileModule* block = find_module(profile, "block");
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(block->allocated_bytes, 3.0 * bytes);
    EXPECT_EQ(block->peak_bytes, 2.0 * bytes);  // second and third; first was gone
}

TEST_P(BothProfilers, EachReportIsPerCallAndStartsFromNothing) {
    const torch::Tensor a = torch::ones({32, 32});
    TorchOperatorProfiler profiler("forward");
    for (int call = 0; call < 3; ++call) {
        profiler.start();
        for (int i = 0; i < 4; ++i) torch::mm(a, a);
        profiler.stop();
    }
    bench::Profile first;
    profiler.report(first, 3);
    ASSERT_NE(find_operator(first, "aten::mm"), nullptr);
    EXPECT_EQ(find_operator(first, "aten::mm")->calls, 4);
    std::size_t traced = 0;
    for (const auto& event : first.trace) traced += event.name == "aten::mm";
    EXPECT_EQ(traced, 12u);  // every call's

    profiler.start();
    torch::relu(a);
    profiler.stop();
    bench::Profile second;
    profiler.report(second, 1);
    EXPECT_EQ(find_operator(second, "aten::mm"), nullptr);
    EXPECT_NE(find_operator(second, "aten::relu"), nullptr);
}

TEST(TorchOperatorProfilerChoice, RunsKinetoUnlessAskedForTheLegacyProfiler) {
    // The pinned PyTorch has Kineto: unset, BENCH_TORCH_PROFILER is Kineto.
    const ProfilerEnvironment unset(std::nullopt);
    EXPECT_NE(TorchOperatorProfiler("forward").name().find("(Kineto, "), std::string::npos);
}

TEST(TorchOperatorProfilerChoice, AnotherValueIsAClearErrorInTheProfileNotAFailedScenario) {
    const ProfilerEnvironment wrong("nvtx");
    TorchOperatorProfiler profiler("forward");  // made by profile() after the measurement: no throw here
    EXPECT_EQ(profiler.name(), std::string("LibTorch ") + TORCH_VERSION + " profiler (none: BENCH_TORCH_PROFILER)");
    try {
        profiler.start();
        FAIL() << "no error for BENCH_TORCH_PROFILER=nvtx";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "BENCH_TORCH_PROFILER=nvtx: expected kineto or legacy (unset: Kineto where "
                  "LibTorch has it)");
    }
    // Through profile(): a note of the profile says why.
    bench::ScenarioConfig config;
    config.profile = true;
    bench::Context ctx(config,
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    bench::libtorch::profile(ctx, "forward", [] { torch::relu(torch::ones({4})); });
    ASSERT_TRUE(ctx.result().profile.has_value());
    const auto& notes = ctx.result().profile->notes;
    ASSERT_FALSE(notes.empty());
    EXPECT_EQ(notes.front(),
              "the profiled pass stopped in the operator profiler: BENCH_TORCH_PROFILER=nvtx: expected "
              "kineto or legacy (unset: Kineto where LibTorch has it)");
}

TEST(TorchOperatorProfilerChoice, StartAndStopInTurn) {
    TorchOperatorProfiler profiler("forward");
    EXPECT_THROW(profiler.stop(), std::logic_error);
    profiler.start();
    EXPECT_THROW(profiler.start(), std::logic_error);
    profiler.stop();
}

/// A profiled pass of `call` through profile(), on a scenario on `device`.
bench::Profile profile_on(const std::string& device, const std::function<void()>& call) {
    bench::ScenarioConfig config;
    config.device = device;
    config.profile = true;
    bench::Context ctx(config,
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    bench::libtorch::profile(ctx, "forward", call);
    if (!ctx.result().profile) throw std::runtime_error("profile() recorded no profile");
    return *ctx.result().profile;
}

TEST(TorchOperatorProfilerDevice, OnTheCpuItAsksForTheCpusEventsAlone) {
    const ProfilerEnvironment unset(std::nullopt);
    const bench::Profile profile = profile_on("cpu", [] { torch::relu(torch::ones({16, 16})); });
    EXPECT_EQ(profile.operator_profiler, std::string("LibTorch ") + TORCH_VERSION + " profiler (Kineto, CPU events)");
    EXPECT_NE(find_operator(profile, "aten::relu"), nullptr);
    for (const auto& graph : profile.flame_graphs) EXPECT_NE(graph.name, "device");
    for (const auto& note : profile.notes) EXPECT_FALSE(note.starts_with("device: ")) << note;
}

TEST(TorchOperatorProfilerDevice, OnCudaItRecordsTheKernelsUnderTheOperatorsThatLaunchedThem) {
    const ProfilerEnvironment unset(std::nullopt);
    if (!torch::cuda::is_available()) {
        // A scenario on CUDA cannot run here (select_device skips it): profile() asks
        // Kineto for the CPU's events alone, and nothing reaches for CUPTI.
        const bench::Profile profile = profile_on("cuda", [] { torch::relu(torch::ones({16, 16})); });
        EXPECT_EQ(profile.operator_profiler,
                  std::string("LibTorch ") + TORCH_VERSION + " profiler (Kineto, CPU events)");
        for (const auto& event : profile.trace) EXPECT_NE(event.category, "kernel");
        GTEST_SKIP() << "no CUDA device here: checked that the CPU's events alone were asked for";
    }
    const torch::Tensor a = torch::ones({512, 512}, torch::kCUDA);
    const bench::Profile profile = profile_on("cuda", [&] {
        const ModuleScope scope("block");
        torch::Tensor c = torch::mm(a, a);
        torch::cuda::synchronize();
    });
    EXPECT_EQ(profile.operator_profiler,
              std::string("LibTorch ") + TORCH_VERSION + " profiler (Kineto, CPU and CUDA events)");
    ASSERT_GE(profile.flame_graphs.size(), 2u);
    EXPECT_EQ(profile.flame_graphs[0].name, "operators");
    const bench::FlameGraph& device = profile.flame_graphs[1];
    EXPECT_EQ(device.name, "device");
    double under_mm = 0;
    for (const auto& stack : device.stacks)
        if (stack.frames.starts_with("forward;block;aten::mm;")) under_mm += stack.value;
    EXPECT_GT(under_mm, 0);
    std::size_t kernels = 0;
    for (const auto& event : profile.trace)
        if (event.category == "kernel") {
            ++kernels;
            EXPECT_LT(event.thread, 0);  // a track of its own
        }
    EXPECT_GE(kernels, static_cast<std::size_t>(profile.calls));
    bool noted = false;
    for (const auto& note : profile.notes)
        noted = noted || (note.starts_with("device: ") && note.find("aten::mm") != std::string::npos);
    EXPECT_TRUE(noted);
    // The module's memory is the device's: at least the product's 1 MiB output.
    const bench::ProfileModule* block = find_module(profile, "block");
    ASSERT_NE(block, nullptr);
    EXPECT_GE(block->allocated_bytes, 512.0 * 512 * 4);
}

}  // namespace
