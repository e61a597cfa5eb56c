// Lower precision beside float32: output_difference, and the difference from float32
// that the model benchmark flow records in every dtype.
#include <bench/torch/accuracy.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/precision.hpp>

#include <cmath>
#include <limits>

#include <spdlog/sinks/null_sink.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/pooling.h>

#include <gtest/gtest.h>

namespace {

using namespace bench::libtorch;

TEST(OutputDifference, IsTheLargestAbsoluteAndRelativeDifference) {
    const torch::Tensor reference = torch::tensor({1.0, -2.0, 0.0, 4.0});
    const torch::Tensor candidate = torch::tensor({1.5, -2.0, 0.01, 3.0});
    const OutputDifference d = output_difference(reference, candidate, 0.1);
    EXPECT_DOUBLE_EQ(d.max_abs, 1.0);
    EXPECT_DOUBLE_EQ(d.max_rel, 0.5);  // 0.5 / 1; the 0.01 at 0 counts against the floor: 0.1
    EXPECT_EQ(output_difference(reference, reference.clone(), 0.1).max_abs, 0.0);

    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(output_difference(torch::tensor({nan, 1.0}), torch::tensor({nan, 1.0}), 1e-4).max_abs, 0.0);
    EXPECT_TRUE(std::isinf(output_difference(torch::tensor({nan}), torch::tensor({1.0}), 1e-4).max_abs));
    EXPECT_THROW(output_difference(torch::zeros({2}), torch::zeros({3}), 1e-4), std::runtime_error);
}

TEST(RecordDifferenceFromFloat32, RecordsBothFiguresUnderThePrefix) {
    bench::Context ctx(bench::ScenarioConfig{},
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    const torch::Tensor float32 = torch::tensor({1.0f, 2.0f});
    record_difference_from_float32(ctx, float32, float32.to(torch::kBFloat16) + 0.25, torch::kBFloat16, "m/");
    EXPECT_DOUBLE_EQ(ctx.result().find_scalar("m/max_abs_diff_vs_float32")->value, 0.25);
    EXPECT_DOUBLE_EQ(ctx.result().find_scalar("m/max_rel_diff_vs_float32")->value, 0.25);
}

/// A small conv net with seeded weights: conv, ReLU, pool, linear.
torch::nn::Sequential small_net() {
    torch::manual_seed(3);
    return torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::ReLU(),
                                 torch::nn::AdaptiveAvgPool2d(4), torch::nn::Flatten(), torch::nn::Linear(8 * 16, 5));
}

double run_in(const std::string& dtype, bench::Variant variant, const char* scalar) {
    bench::ScenarioConfig config;
    config.dtype = dtype;
    config.variant = variant;
    config.compile_mode = "torchscript";
    config.batch_size = 2;
    config.warmup_iterations = 0;
    config.measurement_iterations = 2;
    bench::Context ctx(config,
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    torch::nn::Sequential net = small_net();
    ModelBenchmark spec;
    spec.model = "small";
    spec.throughput_unit = "images/s";
    spec.module = net.ptr();
    spec.forward = [net](const torch::Tensor& x) mutable { return net->forward(x); };
    spec.make_input = [](int64_t batch, torch::Device device, torch::ScalarType type) {
        torch::manual_seed(4);
        return torch::randn({batch, 3, 16, 16}).to(device, type);
    };
    run_model_benchmark(ctx, spec);
    const bench::Scalar* figure = ctx.result().find_scalar(scalar);
    return figure == nullptr ? NAN : figure->value;
}

TEST(RecordDifferenceFromFloat32, TheModelFlowComparesEveryDtypeWithFloat32) {
    // float32 against itself: exactly 0, for eager; compiled (TorchScript) is within
    // float32's tolerance.
    EXPECT_EQ(run_in("float32", bench::Variant::eager, "max_abs_diff_vs_float32"), 0.0);
    EXPECT_EQ(run_in("float32", bench::Variant::eager, "max_rel_diff_vs_float32"), 0.0);
    EXPECT_LT(run_in("float32", bench::Variant::compiled, "max_abs_diff_vs_float32"), 1e-4);
    // bfloat16 (8-bit mantissa) differs, by about its precision.
    const double bf16 = run_in("bfloat16", bench::Variant::eager, "max_abs_diff_vs_float32");
    EXPECT_GT(bf16, 0.0);
    EXPECT_LT(bf16, 0.1);
}

}  // namespace
