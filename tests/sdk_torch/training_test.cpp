// The training flow of the LibTorch layer on a small MLP of known size: timed steps,
// and the measured memory breakdown, exact to the byte where the sizes are known.
#include <bench/torch/training.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <spdlog/sinks/null_sink.h>

#include <gtest/gtest.h>

namespace {

using namespace bench::libtorch;

constexpr double mib = 1024.0 * 1024.0;

// 16 -> 32 -> 10: 16 x 32 + 32 + 32 x 10 + 10 parameters, float32.
constexpr int64_t mlp_parameters = 16 * 32 + 32 + 32 * 10 + 10;
constexpr int64_t mlp_bytes = mlp_parameters * 4;

struct MlpImpl : torch::nn::Module {
    MlpImpl()
        : fc1(register_module("fc1", torch::nn::Linear(16, 32))),
          fc2(register_module("fc2", torch::nn::Linear(32, 10))) {}
    torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
    torch::nn::Linear fc1, fc2;
};

TrainingBenchmark mlp_spec(int64_t extra_buffer_floats = 0) {
    TrainingBenchmark spec;
    spec.model = "mlp";
    spec.throughput_unit = "samples/s";
    spec.expected_parameters = mlp_parameters;
    spec.build = [extra_buffer_floats] {
        torch::manual_seed(3);
        auto net = std::make_shared<MlpImpl>();
        // A model that keeps more than its parameters (a buffer) is measured as such.
        if (extra_buffer_floats > 0) net->register_buffer("extra", at::zeros({extra_buffer_floats}));
        return TrainableModel{net, [net](const torch::Tensor& x) { return net->forward(x); }};
    };
    spec.make_input = [](int64_t batch, torch::Device device, torch::ScalarType dtype) {
        torch::manual_seed(4);
        return at::randn({batch, 16}).to(device, dtype);
    };
    spec.make_targets = [](int64_t batch, torch::Device device) {
        torch::manual_seed(5);
        return at::randint(10, {batch}, at::TensorOptions().dtype(at::kLong)).to(device);
    };
    return spec;
}

bench::ScenarioResult run(const std::string& optimizer, TrainingBenchmark spec = mlp_spec(),
                          bench::Variant variant = bench::Variant::eager) {
    bench::ScenarioConfig config;
    config.variant = variant;
    config.batch_size = 4;
    config.warmup_iterations = 1;
    config.measurement_iterations = 3;
    config.params.set("optimizer", optimizer);
    bench::Context ctx(config,
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    run_training_benchmark(ctx, spec);
    return ctx.take_result();
}

double bytes(const bench::ScenarioResult& r, const char* name) {
    const bench::Scalar* s = r.find_scalar(name);
    EXPECT_NE(s, nullptr) << name;
    if (s == nullptr) return std::nan("");
    EXPECT_EQ(s->unit, "MiB") << name;
    return s->value * mib;
}

TEST(Training, SgdBreakdownIsExactOnAModelOfKnownSize) {
    const bench::ScenarioResult r = run("sgd");
    EXPECT_EQ(bytes(r, "memory_parameters"), mlp_bytes);
    EXPECT_EQ(bytes(r, "memory_gradients"), mlp_bytes);
    EXPECT_EQ(bytes(r, "memory_optimizer_state"), mlp_bytes);  // one momentum buffer per parameter
    // Kept for backward at batch 4: the hidden layer's output and its ReLU's, the logits.
    EXPECT_GT(bytes(r, "memory_activations"), 4 * 32 * 4);
    const double breakdown = bytes(r, "memory_parameters") + bytes(r, "memory_gradients") +
                             bytes(r, "memory_optimizer_state") + bytes(r, "memory_activations");
    EXPECT_GE(bytes(r, "memory_peak"), breakdown);
    EXPECT_NEAR(r.find_scalar("memory_breakdown_over_peak")->value, breakdown / bytes(r, "memory_peak"), 1e-12);
    // Inference holds the parameters, the input and a layer's output or two, far less than training.
    EXPECT_GE(bytes(r, "memory_inference_peak"), mlp_bytes);
    EXPECT_GT(r.find_scalar("memory_training_over_inference")->value, 2.0);
    EXPECT_EQ(r.find_scalar("parameters")->value, mlp_parameters);
    EXPECT_EQ(r.info.at("optimizer").rfind("sgd", 0), 0u);
    EXPECT_EQ(r.info.at("model"), "mlp");
}

TEST(Training, AdamWKeepsTwoMomentsPerParameter) {
    const bench::ScenarioResult r = run("adamw");
    EXPECT_EQ(bytes(r, "memory_parameters"), mlp_bytes);
    EXPECT_EQ(bytes(r, "memory_gradients"), mlp_bytes);
    EXPECT_EQ(bytes(r, "memory_optimizer_state"), 2 * mlp_bytes);  // exp_avg and exp_avg_sq
}

TEST(Training, StepsAreTimedPhaseByPhase) {
    const bench::ScenarioResult r = run("sgd");
    for (const char* name : {"step", "forward", "backward", "optimizer_step", "throughput"}) {
        ASSERT_NE(r.find_series(name), nullptr) << name;
        EXPECT_EQ(r.find_series(name)->samples.size(), 3u) << name;
    }
    EXPECT_EQ(r.find_series("throughput")->unit, "samples/s");
    const auto& step = r.find_series("step")->samples;
    for (std::size_t i = 0; i < step.size(); ++i) {
        const double phases = r.find_series("forward")->samples[i] + r.find_series("backward")->samples[i] +
                              r.find_series("optimizer_step")->samples[i];
        EXPECT_NEAR(step[i], phases, 1e-6) << i;  // the step is its three phases, end to end
        EXPECT_NEAR(r.find_series("throughput")->samples[i], 4 / (step[i] / 1000),
                    1e-6 * r.find_series("throughput")->samples[i]);
    }
    EXPECT_GT(r.find_scalar("first_call")->value, 0);
    EXPECT_TRUE(std::isfinite(r.find_scalar("loss")->value));
    EXPECT_EQ(r.sampling.count("step"), 1u);
}

TEST(Training, MemoryBeyondTheParametersIsAWarning) {
    // A buffer as large as the parameters: the model's memory is twice its parameters'.
    const bench::ScenarioResult r = run("sgd", mlp_spec(mlp_parameters));
    EXPECT_EQ(bytes(r, "memory_parameters"), 2 * mlp_bytes);
    bool warned = false;
    for (const std::string& warning : r.warnings)
        warned = warned || warning.rfind("memory_parameters: measured", 0) == 0;
    EXPECT_TRUE(warned);
}

TEST(Training, SkipsAndFailures) {
    EXPECT_THROW(run("sgd", mlp_spec(), bench::Variant::compiled), bench::SkipScenario);
    EXPECT_THROW(run("sgd", mlp_spec(), bench::Variant::kernelized), bench::SkipScenario);
    EXPECT_THROW(run("adam"), std::invalid_argument);
    TrainingBenchmark wrong = mlp_spec();
    wrong.expected_parameters = 25'557'032;
    EXPECT_THROW(run("sgd", wrong), std::runtime_error);
    EXPECT_THROW(make_optimizer("rmsprop", {}), std::invalid_argument);
}

}  // namespace
