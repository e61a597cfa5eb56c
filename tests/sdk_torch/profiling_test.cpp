// The LibTorch layer's operator profiler, driven directly: what it puts in the operator
// and module tables and the flame graph.
#include <bench/torch/profiling.hpp>

#include <torch/torch.h>

#include <gtest/gtest.h>

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

TEST(TorchOperatorProfiler, TablesTheOperatorsAndModulesOfEachCall) {
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
    EXPECT_NE(find_operator(profile, "aten::relu"), nullptr);
    ASSERT_EQ(profile.modules.size(), 1u);
    EXPECT_EQ(profile.modules[0].name, "block");
    EXPECT_EQ(profile.modules[0].parameters, 4096);
    EXPECT_GE(profile.modules[0].total_ms, self_sum(profile) * 0.99);  // the operators ran inside it
    ASSERT_FALSE(profile.flame_graphs.empty());
    bool nested = false;
    for (const auto& stack : profile.flame_graphs[0].stacks) nested = nested || stack.frames == "forward;block;aten::mm";
    EXPECT_TRUE(nested);
}

}  // namespace
