// The LibTorch layer's runtime: device, dtype and threads, accuracy checks, FLOP
// counting and the calibrated peak.
#include <bench/torch/accuracy.hpp>
#include <bench/torch/compile.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/flops.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "../support/quiet_logger.hpp"

#include <gtest/gtest.h>

namespace {

using namespace bench::libtorch;

using benchtest::quiet_logger;

bench::Context make_context(std::string device = "cpu", std::string dtype = "float32", int threads = 0) {
    bench::ScenarioConfig config;
    config.device = std::move(device);
    config.dtype = std::move(dtype);
    config.threads = threads;
    return bench::Context(config, quiet_logger());
}

/// The reason a call skipped the scenario with; fails the test when it did not skip.
template <class Fn>
std::string skip_reason(Fn&& fn) {
    try {
        fn();
    } catch (const bench::SkipScenario& skip) {
        return skip.what();
    }
    ADD_FAILURE() << "expected the scenario to be skipped";
    return {};
}

template <class Fn>
std::string error_message(Fn&& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an exception";
    return {};
}

// --- device, dtype, threads ---

TEST(Device, CpuAndAutoSelectTheCpuHere) {
    auto ctx = make_context("cpu");
    EXPECT_TRUE(select_device(ctx).is_cpu());
    EXPECT_EQ(ctx.result().info.at("device"), "cpu");
    if (!torch::cuda::is_available()) {
        auto automatic = make_context("auto");
        EXPECT_TRUE(select_device(automatic).is_cpu());
    }
}

TEST(Device, CudaWithoutCudaSkipsWithTheReason) {
    if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has CUDA";
    for (const char* device : {"cuda", "cuda:1"}) {
        auto ctx = make_context(device);
        const std::string reason = skip_reason([&] { select_device(ctx); });
        EXPECT_NE(reason.find(std::string(device) + " requested, but"), std::string::npos) << reason;
        EXPECT_NE(reason.find("CUDA"), std::string::npos) << reason;
    }
}

TEST(Device, BackendSettingsAreAppliedAndRecorded) {
    // Recorded whether set or not; --param deterministic=1 turns PyTorch's deterministic
    // algorithms on for the process; the CUDA settings given for the CPU are a warning.
    const bool before = at::globalContext().deterministicAlgorithms();
    auto plain = make_context("cpu");
    select_device(plain);
    EXPECT_EQ(plain.result().info.at("deterministic_algorithms"), before ? "on" : "off");
    EXPECT_EQ(plain.result().info.count("cudnn_benchmark"), 0u);  // CUDA only

    bench::ScenarioConfig config;
    config.params.set("deterministic", "1");
    config.params.set("cudnn_benchmark", "true");
    bench::Context ctx(config, quiet_logger());
    select_device(ctx);
    EXPECT_TRUE(at::globalContext().deterministicAlgorithms());
    EXPECT_EQ(ctx.result().info.at("deterministic_algorithms"), "on");
    ASSERT_EQ(ctx.result().warnings.size(), 1u);
    EXPECT_EQ(ctx.result().warnings[0], "--param cudnn_benchmark applies to CUDA devices: not used on cpu");
    at::globalContext().setDeterministicAlgorithms(before, false);

    bench::ScenarioConfig bad;
    bad.params.set("deterministic", "maybe");
    bench::Context wrong(bad, quiet_logger());
    const std::string message = error_message([&] { select_device(wrong); });
    EXPECT_NE(message.find("deterministic"), std::string::npos) << message;
    EXPECT_NE(message.find("maybe"), std::string::npos) << message;
}

TEST(Device, TheMatmulPrecisionIsAppliedAndRecorded) {
    const at::Float32MatmulPrecision before = at::globalContext().float32MatmulPrecision();
    auto plain = make_context("cpu");
    select_device(plain);
    EXPECT_EQ(plain.result().info.at("matmul_precision"), "highest");  // PyTorch's default, recorded unset

    bench::ScenarioConfig config;
    config.params.set("matmul_precision", "medium");  // bfloat16 in oneDNN's CPU matrix products
    bench::Context ctx(config, quiet_logger());
    select_device(ctx);
    EXPECT_EQ(at::globalContext().float32MatmulPrecision(), at::Float32MatmulPrecision::MEDIUM);
    EXPECT_EQ(ctx.result().info.at("matmul_precision"), "medium");
    EXPECT_TRUE(ctx.result().warnings.empty());  // it applies on the CPU too

    bench::ScenarioConfig bad;
    bad.params.set("matmul_precision", "low");
    bench::Context wrong(bad, quiet_logger());
    EXPECT_EQ(error_message([&] { select_device(wrong); }),
              "--param matmul_precision must be highest, high or medium, got 'low'");
    at::globalContext().setFloat32MatmulPrecision(before == at::Float32MatmulPrecision::HIGHEST ? "highest" : "high");
}

TEST(Device, NonsenseIsAnError) {
    auto ctx = make_context("banana");
    EXPECT_NE(error_message([&] { select_device(ctx); }).find("'banana'"), std::string::npos);
}

TEST(Dtype, NamesAndParsing) {
    EXPECT_EQ(dtype_name(torch::kFloat), "float32");
    EXPECT_EQ(dtype_name(torch::kBFloat16), "bfloat16");
    EXPECT_EQ(dtype_name(torch::kHalf), "float16");
    EXPECT_EQ(dtype_name(torch::kDouble), "float64");
    for (const char* name : {"float32", "bfloat16", "float64"}) {
        auto ctx = make_context("cpu", name);
        EXPECT_EQ(dtype_name(select_dtype(ctx, torch::kCPU)), name);
        EXPECT_EQ(ctx.result().info.at("dtype"), name);
    }
    auto ctx = make_context("cpu", "float8");
    const std::string message = error_message([&] { select_dtype(ctx, torch::kCPU); });
    EXPECT_NE(message.find("'float8'"), std::string::npos) << message;
    EXPECT_NE(message.find("bfloat16"), std::string::npos) << message;
}

TEST(Dtype, Float16RunsOnTheCpu) {
    // PyTorch 2.x runs float16 matrix products, convolutions and layer norms on the CPU
    // (LibTorch 1.13 did not, and skipped such scenarios).
    for (const char* name : {"float16", "half", "fp16"}) {
        auto ctx = make_context("cpu", name);
        EXPECT_EQ(select_dtype(ctx, torch::kCPU), torch::kHalf) << name;
        EXPECT_EQ(ctx.result().info.at("dtype"), "float16");
    }
}

TEST(Dtype, ADtypeTheDeviceCannotRunSkipsWithTheLibrarysReason) {
    // The probe runs real operators on the device: without a GPU, LibTorch's own error
    // is the reason.
    if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has CUDA: the probe succeeds there";
    auto ctx = make_context("cpu", "float16");
    const std::string reason = skip_reason([&] { select_dtype(ctx, torch::Device(torch::kCUDA)); });
    EXPECT_NE(reason.find("float16 does not run on cuda"), std::string::npos) << reason;
    EXPECT_GT(reason.size(), std::string("float16 does not run on cuda with this LibTorch build: ").size()) << reason;
    // Probed once: the second answer is the same.
    auto again = make_context("cpu", "half");
    EXPECT_EQ(skip_reason([&] { select_dtype(again, torch::Device(torch::kCUDA)); }), reason);
}

TEST(Threads, ScopeSetsRecordsAndRestores) {
    const int before = at::get_num_threads();
    const int wanted = before == 1 ? 2 : 1;
    {
        auto ctx = make_context("cpu", "float32", wanted);
        const ThreadScope scope(ctx);
        EXPECT_EQ(at::get_num_threads(), wanted);
        EXPECT_EQ(ctx.result().info.at("threads"), std::to_string(wanted));
    }
    EXPECT_EQ(at::get_num_threads(), before);
    auto keep = make_context("cpu", "float32", 0);
    const ThreadScope scope(keep);
    EXPECT_EQ(keep.result().info.at("threads"), std::to_string(before));
}

TEST(Memory, CpuFlushAndRecordAreHarmless) {
    auto ctx = make_context();
    flush_memory(torch::kCPU);
    record_memory(ctx, torch::kCPU);
    synchronize(torch::kCPU);
    EXPECT_TRUE(ctx.result().scalars.empty());
}

// --- accuracy ---

TEST(Accuracy, Tolerances) {
    EXPECT_DOUBLE_EQ(tolerance_for(torch::kFloat).absolute, 1e-4);
    EXPECT_DOUBLE_EQ(tolerance_for(torch::kFloat).relative, 1e-3);
    EXPECT_DOUBLE_EQ(tolerance_for(torch::kDouble).absolute, 1e-8);
    EXPECT_DOUBLE_EQ(tolerance_for(torch::kDouble).relative, 1e-7);
    EXPECT_GT(tolerance_for(torch::kBFloat16).relative, tolerance_for(torch::kHalf).relative);
    EXPECT_GT(tolerance_for(torch::kHalf).relative, tolerance_for(torch::kFloat).relative);
}

TEST(Accuracy, WithinToleranceRecordsTheDifferences) {
    auto ctx = make_context();
    const torch::Tensor reference = torch::tensor({1.0f, -2.0f, 0.0f, 100.0f});
    const torch::Tensor candidate = torch::tensor({1.0f + 5e-5f, -2.0f, 0.0f, 100.05f});
    check_against_reference(ctx, reference, candidate, torch::kFloat);
    ASSERT_NE(ctx.result().find_scalar("max_abs_diff"), nullptr);
    EXPECT_NEAR(ctx.result().find_scalar("max_abs_diff")->value, 0.05, 1e-5);
    EXPECT_NEAR(ctx.result().find_scalar("max_rel_diff")->value, 5e-4, 1e-6);
}

TEST(Accuracy, BeyondToleranceThrowsSayingWhereAndByHowMuch) {
    auto ctx = make_context();
    const torch::Tensor reference = torch::zeros({2, 3});
    torch::Tensor candidate = reference.clone();
    candidate[1][2] = 0.5f;
    candidate[0][1] = 1e-3f;
    const std::string message =
        error_message([&] { check_against_reference(ctx, reference, candidate, torch::kFloat); });
    EXPECT_NE(message.find("float32 tolerance (absolute 0.0001 + relative 0.001 * max(|reference|, the reference's "
                           "RMS 0))"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("at 2 of 6 elements"), std::string::npos) << message;
    EXPECT_NE(message.find("worst at index [1, 2]"), std::string::npos) << message;
    EXPECT_NE(message.find("candidate 0.5"), std::string::npos) << message;
    EXPECT_NE(message.find("max_abs_diff 0.5"), std::string::npos) << message;
    // Recorded before throwing: the failed scenario's report shows them.
    EXPECT_DOUBLE_EQ(ctx.result().find_scalar("max_abs_diff")->value, 0.5);
}

/// [32, 1000] logits of RMS about 3, as ResNet-50's at batch 32, one of them near zero
/// (0.0128 at [5, 7]).
torch::Tensor large_scale_logits() {
    torch::manual_seed(0);
    torch::Tensor r = torch::randn({32, 1000}) * 3;
    r[5][7] = 0.0128f;
    return r;
}

TEST(Accuracy, ElementsNearZeroAreHeldToTheTensorsScale) {
    // The same cases as benchhost.torch's and benchhost.jax's checks
    // (tests/python/torch_check_test.py, jax_helper_test.py).
    const torch::Tensor r = large_scale_logits();
    const double rms = r.square().mean().sqrt().item<double>();
    EXPECT_NEAR(rms, 3.0, 0.05);
    torch::Tensor c = r.clone();
    c[5][7] += 2e-4f;
    // Beyond 1e-4 + 1e-3 * |element| (1.13e-4), within 1e-4 + 1e-3 * max(|element|, RMS).
    EXPECT_GT((c - r).abs()[5][7].item<double>(), 1e-4 + 1e-3 * 0.0128);
    auto ctx = make_context();
    EXPECT_NO_THROW(check_against_reference(ctx, r, c, torch::kFloat));
    EXPECT_NEAR(ctx.result().find_scalar("max_abs_diff")->value, 2e-4, 1e-6);
    // max_rel_diff as before: |c - r| / max(|r|, 1e-4).
    EXPECT_NEAR(ctx.result().find_scalar("max_rel_diff")->value, 2e-4 / 0.0128, 1e-3);
}

TEST(Accuracy, ARealErrorStillFails) {
    const torch::Tensor r = large_scale_logits();
    // One element 0.05 off (1.7% of the RMS).
    torch::Tensor c = r.clone();
    c[3][4] += 0.05f;
    auto ctx = make_context();
    std::string message = error_message([&] { check_against_reference(ctx, r, c, torch::kFloat); });
    EXPECT_NE(message.find("the reference's RMS 3"), std::string::npos) << message;
    EXPECT_NE(message.find("at 1 of 32000 elements; worst at index [3, 4]"), std::string::npos) << message;
    // A product with one weight 10% off: its column moves.
    torch::manual_seed(1);
    const torch::Tensor x = torch::randn({32, 64});
    const torch::Tensor w = torch::randn({64, 10}) / 8;
    torch::Tensor wrong = w.clone();
    wrong[0][0] *= 1.1f;
    message = error_message([&] { check_against_reference(ctx, x.matmul(w), x.matmul(wrong), torch::kFloat); });
    EXPECT_NE(message.find("output differs from eager beyond the float32 tolerance"), std::string::npos) << message;
    EXPECT_NE(message.find(", 0]: candidate"), std::string::npos) << message;
    // A tensor of small scale keeps the absolute floor: 2e-4 off on values of 1e-3.
    const torch::Tensor small = torch::full({8}, 1e-3f);
    message = error_message([&] { check_against_reference(ctx, small, small + 2e-4f, torch::kFloat); });
    EXPECT_NE(message.find("the reference's RMS 0.001"), std::string::npos) << message;
}

TEST(Accuracy, NanShapeAndDtypeLooseness) {
    auto ctx = make_context();
    const torch::Tensor reference = torch::ones({3});
    const torch::Tensor with_nan = torch::tensor({1.0f, std::nanf(""), 1.0f});
    EXPECT_NE(
        error_message([&] { check_against_reference(ctx, reference, with_nan, torch::kFloat); }).find("index [1]"),
        std::string::npos);
    EXPECT_NO_THROW(check_against_reference(ctx, with_nan, with_nan, torch::kFloat));
    EXPECT_NE(error_message([&] {
                  check_against_reference(ctx, reference, torch::ones({4}), torch::kFloat);
              }).find("shape [4] differs from eager's [3]"),
              std::string::npos);
    // The RMS is the reference's finite elements' (1.58 here): 1.5e-3 off on 1.0 is
    // within 1e-4 + 1e-3 * 1.58, 1.8e-3 beyond it; NaN in both and one infinity equal.
    const float inf = std::numeric_limits<float>::infinity();
    const torch::Tensor mixed = torch::tensor({std::nanf(""), 1.0f, 2.0f, inf});
    EXPECT_NO_THROW(
        check_against_reference(ctx, mixed, torch::tensor({std::nanf(""), 1.0015f, 2.0f, inf}), torch::kFloat));
    const std::string beyond = error_message([&] {
        check_against_reference(ctx, mixed, torch::tensor({std::nanf(""), 1.0018f, 2.0f, inf}), torch::kFloat);
    });
    EXPECT_NE(beyond.find("RMS 1.58)) at 1 of 4 elements; worst at index [1]"), std::string::npos) << beyond;
    // 1% off: out of float32's tolerance, within bfloat16's.
    const torch::Tensor off = reference * 1.01;
    EXPECT_THROW(check_against_reference(ctx, reference, off, torch::kFloat), std::runtime_error);
    EXPECT_NO_THROW(
        check_against_reference(ctx, reference.to(torch::kBFloat16), off.to(torch::kBFloat16), torch::kBFloat16));
}

// --- FLOP counting ---

FlopCount count_traced(const TensorForward& forward, const std::vector<torch::Tensor>& inputs) {
    const torch::NoGradGuard no_grad;
    return count_flops(*trace_graph(forward, inputs));
}

TEST(Flops, LinearIsMTimesNTimesK) {
    const torch::Tensor w = torch::randn({512, 512});
    const torch::Tensor b = torch::randn({512});
    const FlopCount with_bias =
        count_traced([&](const auto& in) { return torch::linear(in[0], w, b); }, {torch::randn({64, 512})});
    EXPECT_EQ(with_bias.macs, 64.0 * 512 * 512);
    EXPECT_EQ(with_bias.flops(), 2.0 * 64 * 512 * 512);
    EXPECT_EQ(with_bias.uncounted_nodes, 0);
    const FlopCount no_bias =
        count_traced([&](const auto& in) { return torch::linear(in[0], w); }, {torch::randn({64, 512})});
    EXPECT_EQ(no_bias.macs, 64.0 * 512 * 512);
    // A 3-d input: every row of every batch.
    const torch::Tensor w2 = torch::randn({32, 64});
    const FlopCount batched =
        count_traced([&](const auto& in) { return torch::linear(in[0], w2); }, {torch::randn({4, 10, 64})});
    EXPECT_EQ(batched.macs, 4.0 * 10 * 32 * 64);
}

TEST(Flops, ConvolutionIsNCoutHoutWoutCinOverGroupsKernel) {
    const torch::Tensor w = torch::randn({16, 3, 3, 3});
    const FlopCount conv =
        count_traced([&](const auto& in) { return torch::conv2d(in[0], w, {}, 1, 1); }, {torch::randn({2, 3, 32, 32})});
    EXPECT_EQ(conv.macs, 2.0 * 16 * 32 * 32 * 3 * 3 * 3);
    ASSERT_EQ(conv.macs_by_op.size(), 1u);
    EXPECT_EQ(conv.macs_by_op.begin()->first, "aten::_convolution");
    // Grouped, strided: 8 -> 16 channels in 4 groups, 16x16 out of 32x32.
    const torch::Tensor wg = torch::randn({16, 2, 3, 3});
    const FlopCount grouped = count_traced([&](const auto& in) { return torch::conv2d(in[0], wg, {}, 2, 1, 1, 4); },
                                           {torch::randn({1, 8, 32, 32})});
    EXPECT_EQ(grouped.macs, 1.0 * 16 * 16 * 16 * 2 * 3 * 3);
    // Transposed: every input element feeds Cout/groups * kernel outputs.
    const torch::Tensor wt = torch::randn({8, 4, 2, 2});
    const FlopCount transposed = count_traced([&](const auto& in) { return torch::conv_transpose2d(in[0], wt, {}, 2); },
                                              {torch::randn({1, 8, 5, 5})});
    EXPECT_EQ(transposed.macs, 1.0 * 8 * 5 * 5 * 4 * 2 * 2);
}

TEST(Flops, BatchedProductsAndSums) {
    const FlopCount bmm = count_traced([](const auto& in) { return torch::matmul(in[0], in[1]); },
                                       {torch::randn({4, 8, 16}), torch::randn({4, 16, 32})});
    EXPECT_EQ(bmm.macs, 4.0 * 8 * 32 * 16);
    const FlopCount broadcast = count_traced([](const auto& in) { return torch::matmul(in[0], in[1]); },
                                             {torch::randn({2, 3, 8, 16}), torch::randn({16, 5})});
    EXPECT_EQ(broadcast.macs, 2.0 * 3 * 8 * 5 * 16);
    const FlopCount two =
        count_traced([](const auto& in) { return torch::baddbmm(in[2], in[0], in[1]) + torch::mm(in[0][0], in[1][0]); },
                     {torch::randn({4, 8, 16}), torch::randn({4, 16, 32}), torch::randn({4, 8, 32})});
    EXPECT_EQ(two.macs, 4.0 * 8 * 32 * 16 + 8.0 * 32 * 16);
    EXPECT_EQ(two.macs_by_op.at("aten::baddbmm"), 4.0 * 8 * 32 * 16);
    EXPECT_EQ(two.macs_by_op.at("aten::mm"), 8.0 * 32 * 16);
}

TEST(Flops, ScaledDotProductAttentionIsBothProducts) {
    // [batch 2, heads 3, Lq 5, E 8] against 7 keys, values of 4: q k^T and weights x v.
    const FlopCount attention =
        count_traced([](const auto& in) { return at::scaled_dot_product_attention(in[0], in[1], in[2]); },
                     {torch::randn({2, 3, 5, 8}), torch::randn({2, 3, 7, 8}), torch::randn({2, 3, 7, 4})});
    EXPECT_EQ(attention.macs, 2.0 * 3 * 5 * 7 * (8 + 4));
    EXPECT_EQ(attention.macs_by_op.at("aten::scaled_dot_product_attention"), attention.macs);
    EXPECT_EQ(attention.uncounted_nodes, 0);
    // Causal: counted in full, as the unfused products would be.
    const FlopCount causal = count_traced(
        [](const auto& in) { return at::scaled_dot_product_attention(in[0], in[1], in[2], {}, 0.0, true); },
        {torch::randn({1, 2, 6, 8}), torch::randn({1, 2, 6, 8}), torch::randn({1, 2, 6, 8})});
    EXPECT_EQ(causal.macs, 1.0 * 2 * 6 * 6 * 16);
}

TEST(Flops, GraphsWithoutShapesAreReportedNotGuessed) {
    auto graph = std::make_shared<torch::jit::Graph>();
    torch::jit::parseIR(R"IR(
graph(%x : Tensor, %w : Tensor, %a : Float(8, 16, strides=[16, 1], device=cpu), %b : Float(16, 4, strides=[4, 1], device=cpu)):
  %none : NoneType = prim::Constant()
  %one : int[] = prim::Constant[value=[1, 1]]()
  %g : int = prim::Constant[value=1]()
  %y : Tensor = prim::mkldnn_convolution(%x, %w, %none, %one, %one, %one, %g)
  %z : Float(8, 4, strides=[4, 1], device=cpu) = aten::mm(%a, %b)
  %r : Float(8, 4, strides=[4, 1], device=cpu) = aten::relu(%z)
  return (%y, %r)
)IR",
                        graph.get());
    const FlopCount count = count_flops(*graph);
    EXPECT_EQ(count.macs, 8.0 * 4 * 16);
    EXPECT_EQ(count.uncounted_nodes, 1);
}

TEST(Flops, RecordWork) {
    auto ctx = make_context();
    FlopCount count;
    count.macs = 5e8;  // 1 GFLOP
    count.macs_by_op["aten::mm"] = 5e8;
    bench::Series latency{"latency", "ms", {10.0, 20.0, 40.0}, 1};
    record_work(ctx, count, latency, 200.0);
    const auto& result = ctx.result();
    EXPECT_DOUBLE_EQ(result.find_scalar("flops_per_forward")->value, 1e9);
    ASSERT_NE(result.find_series("gflops"), nullptr);
    EXPECT_EQ(result.find_series("gflops")->samples, (std::vector<double>{100.0, 50.0, 25.0}));
    EXPECT_EQ(result.find_series("gflops")->unit, "GFLOP/s");
    EXPECT_DOUBLE_EQ(result.find_scalar("peak_gflops")->value, 200.0);
    EXPECT_DOUBLE_EQ(result.find_scalar("fraction_of_peak")->value, 0.25);
    EXPECT_NE(result.info.at("macs_by_op").find("aten::mm=5e+08"), std::string::npos);

    auto no_peak = make_context();
    record_work(no_peak, count, latency, 0.0);
    EXPECT_EQ(no_peak.result().find_scalar("fraction_of_peak"), nullptr);
    auto nothing = make_context();
    record_work(nothing, FlopCount{}, latency, 100.0);
    EXPECT_TRUE(nothing.result().scalars.empty());
}

// --- calibrated peak ---

class Calibration : public ::testing::Test {
protected:
    void SetUp() override {
        const char* old = std::getenv("XDG_CACHE_HOME");
        if (old) saved_ = old;
        dir_ =
            std::filesystem::temp_directory_path() / ("sdk_torch_calibration_" + std::to_string(::getpid()) + "_" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        ::setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    }
    void TearDown() override {
        if (saved_) ::setenv("XDG_CACHE_HOME", saved_->c_str(), 1);
        else ::unsetenv("XDG_CACHE_HOME");
        std::filesystem::remove_all(dir_);
    }
    std::filesystem::path file() const { return dir_ / "benchhost" / "calibration.json"; }
    /// The CPU model as the cache keys it: /proc/cpuinfo's "model name".
    static std::string cpu_model() {
        std::ifstream cpuinfo("/proc/cpuinfo");
        std::string line;
        while (std::getline(cpuinfo, line))
            if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
        return "unknown";
    }
    std::string read_file() const {
        std::ifstream in(file());
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    std::filesystem::path dir_;
    std::optional<std::string> saved_;
};

TEST_F(Calibration, MeasuresOnceAndCaches) {
    const double peak = calibrated_peak_gflops(torch::kFloat);
    EXPECT_GT(peak, 0.5);
    ASSERT_TRUE(std::filesystem::exists(file()));
    const std::string text = read_file();
    EXPECT_NE(text.find("|float32|threads=" + std::to_string(at::get_num_threads())), std::string::npos) << text;
    EXPECT_NE(text.find("\"gflops\""), std::string::npos) << text;
    EXPECT_EQ(calibrated_peak_gflops(torch::kFloat), peak);
    // No temporary file left beside it.
    int files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(file().parent_path())) ++files;
    EXPECT_EQ(files, 1);
    // float16 runs GEMMs on the CPU in PyTorch 2.x (1.13 ran none), and is calibrated too.
    EXPECT_GT(calibrated_peak_gflops(torch::kHalf), 0.0);
}

TEST_F(Calibration, ACorruptCacheIsMeasuredAgainAndReplaced) {
    std::filesystem::create_directories(file().parent_path());
    std::ofstream(file()) << "{\"entries\": {\"half a file";
    EXPECT_GT(calibrated_peak_gflops(torch::kFloat), 0.5);
    const std::string text = read_file();
    EXPECT_EQ(text.find("half a file"), std::string::npos) << text;
    EXPECT_NE(text.find("\"version\":1"), std::string::npos) << text;
}

TEST_F(Calibration, ACachedValueIsUsed) {
    // A cache written by an earlier run: its figure is returned without measuring.
    std::filesystem::create_directories(file().parent_path());
    const std::string model = cpu_model();
    const std::string threads = "|threads=" + std::to_string(at::get_num_threads());
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const auto entry = [&](double gflops, int method, const std::string& torch, long long at) {
        return R"({"gflops": )" + std::to_string(gflops) + R"(, "calibration": )" + std::to_string(method) +
               R"(, "torch_version": ")" + torch + R"(", "measured_at_unix": )" + std::to_string(at) + "}";
    };
    const std::string day = std::to_string(24 * 3600);
    std::ofstream(file()) << R"({"version": 1, "entries": {")" << model << "|bfloat16" << threads << R"(": )"
                          << entry(1234.5, 2, TORCH_VERSION, now - 3600) << R"(, ")" << model << "|float32" << threads
                          << R"(": )" << entry(999, 1, TORCH_VERSION, now - 3600) << "}}";
    EXPECT_EQ(calibrated_peak_gflops(torch::kBFloat16), 1234.5);
    // An entry of an earlier measuring method is measured again.
    EXPECT_NE(calibrated_peak_gflops(torch::kFloat), 999);
    EXPECT_NE(read_file().find("1234.5"), std::string::npos);  // the other entry is kept
}

TEST_F(Calibration, AnOldEntryOrOneOfAnotherLibTorchIsMeasuredAgain) {
    std::filesystem::create_directories(file().parent_path());
    const std::string model = cpu_model();
    const std::string key = model + "|float32|threads=" + std::to_string(at::get_num_threads());
    const long long now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const auto& [torch_version, measured_at] :
         std::vector<std::pair<std::string, long long>>{{TORCH_VERSION, now - 31LL * 24 * 3600},  // 31 days old
                                                        {"0.0.1", now - 60},  // another LibTorch
                                                        {TORCH_VERSION, now + 3600}}) {  // from the future
        // A folder each: the process remembers a peak by file and key.
        const auto cache_home = dir_ / std::to_string(measured_at) / torch_version;
        const auto cache_file = cache_home / "benchhost" / "calibration.json";
        std::filesystem::create_directories(cache_file.parent_path());
        ::setenv("XDG_CACHE_HOME", cache_home.c_str(), 1);
        std::ofstream(cache_file) << R"({"entries": {")" << key << R"(": {"gflops": 4321, "calibration": 2, )"
                                  << R"("torch_version": ")" << torch_version << R"(", "measured_at_unix": )"
                                  << measured_at << "}}}";
        EXPECT_NE(calibrated_peak_gflops(torch::kFloat), 4321) << torch_version << " " << measured_at;
        std::ifstream in(cache_file);
        std::stringstream text;
        text << in.rdbuf();
        EXPECT_EQ(text.str().find("4321"), std::string::npos) << text.str();  // replaced by the new measurement
    }
}

}  // namespace
