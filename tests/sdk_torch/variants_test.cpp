// The variants of the LibTorch layer on a small conv net (conv-bn-relu x3 + linear):
// compiled (trace, freeze, optimize), kernelized (folded, prepacked oneDNN
// convolutions) and the model benchmark flow that runs them against eager.
#include <bench/torch/compile.hpp>
#include <bench/torch/cuda_graph.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/flops.hpp>
#include <bench/torch/kernels.hpp>
#include <bench/torch/model_benchmark.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/version.h>

#include "../support/quiet_logger.hpp"

#include <gtest/gtest.h>

namespace {

using namespace bench::libtorch;

using benchtest::quiet_logger;

/// conv(3->32) bn relu, conv(32->64, stride 2) bn relu, conv(64->64) bn relu, global
/// average pool, linear(64->10).
struct SmallConvNet : torch::nn::Module {
    struct Block {
        torch::nn::Conv2d conv{nullptr};
        torch::nn::BatchNorm2d bn{nullptr};
    };
    std::vector<Block> blocks;
    torch::nn::Linear fc{nullptr};

    SmallConvNet() {
        const int64_t channels[][3] = {{3, 32, 1}, {32, 64, 2}, {64, 64, 1}};
        for (int i = 0; i < 3; ++i) {
            const auto [in, out, stride] = std::make_tuple(channels[i][0], channels[i][1], channels[i][2]);
            Block block;
            block.conv = register_module(
                "conv" + std::to_string(i),
                torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
            block.bn = register_module("bn" + std::to_string(i), torch::nn::BatchNorm2d(out));
            blocks.push_back(block);
        }
        fc = register_module("fc", torch::nn::Linear(64, 10));
        // Running statistics that are not the identity, so that folding them matters.
        torch::NoGradGuard no_grad;
        for (auto& block : blocks) {
            block.bn->running_mean.uniform_(-0.5, 0.5);
            block.bn->running_var.uniform_(0.5, 2.0);
            block.bn->weight.uniform_(0.5, 1.5);
            block.bn->bias.uniform_(-0.2, 0.2);
        }
    }

    torch::Tensor head(torch::Tensor x) { return fc(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1)); }

    torch::Tensor forward(torch::Tensor x) {
        for (auto& block : blocks) x = torch::relu(block.bn(block.conv(x)));
        return head(x);
    }

    /// The kernelized forward: each conv-bn-relu as one prepared kernel.
    Forward kernelize(const KernelRegistry& kernels) {
        std::vector<PreparedKernel> prepared;
        for (auto& block : blocks) {
            ConvBnActParams params;
            params.conv_weight = block.conv->weight;
            params.bn_weight = block.bn->weight;
            params.bn_bias = block.bn->bias;
            params.bn_mean = block.bn->running_mean;
            params.bn_var = block.bn->running_var;
            params.bn_eps = block.bn->options.eps();
            params.stride = torch::IntArrayRef(block.conv->options.stride()).vec();
            params.padding = {1, 1};
            params.dilation = {1, 1};
            prepared.push_back(kernels.prepare_conv_bn_act(params));
        }
        return [this, prepared](const torch::Tensor& input) {
            torch::Tensor x = input;
            for (const auto& kernel : prepared) x = kernel(x);
            return head(x);
        };
    }
};

constexpr int64_t small_net_parameters =
    32 * 3 * 9 + 2 * 32 + 64 * 32 * 9 + 2 * 64 + 64 * 64 * 9 + 2 * 64 + 64 * 10 + 10;
// MACs on a [n, 3, 64, 64] input.
constexpr double small_net_macs_per_image =
    32.0 * 64 * 64 * 3 * 9 + 64.0 * 32 * 32 * 32 * 9 + 64.0 * 32 * 32 * 64 * 9 + 64.0 * 10;

std::shared_ptr<SmallConvNet> make_net() {
    torch::manual_seed(0);
    auto net = std::make_shared<SmallConvNet>();
    net->eval();
    for (auto& p : net->parameters()) p.set_requires_grad(false);
    return net;
}

/// The fastest of `runs` calls of each, in ms, alternating between them so that both see
/// the same load on a shared machine.
template <class A, class B>
std::pair<double, double> fastest_ms(A&& a, B&& b, int runs) {
    auto time = [](auto& fn) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };
    a();
    b();
    double best_a = 1e30, best_b = 1e30;
    for (int i = 0; i < runs; ++i) {
        best_a = std::min(best_a, time(a));
        best_b = std::min(best_b, time(b));
    }
    return {best_a, best_b};
}

/// Whether `fast` is faster than `slow` (fastest of `runs` each), asked up to three times:
/// a burst of other work on a shared 2-core machine can hide a real 2x for a moment.
template <class Slow, class Fast>
bool is_faster(const char* what, Slow&& slow, Fast&& fast, int runs) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto [slow_ms, fast_ms] = fastest_ms(slow, fast, runs);
        std::printf("%s: eager %.3f ms, variant %.3f ms (%.2fx)\n", what, slow_ms, fast_ms, slow_ms / fast_ms);
        if (fast_ms < slow_ms) return true;
    }
    return false;
}

bool graph_has(const torch::jit::Graph& graph, const char* kind) {
    const auto symbol = c10::Symbol::fromQualString(kind);
    return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                       [&](const torch::jit::Node* n) { return n->kind() == symbol; });
}

// --- compiled ---

TEST(Compile, PassesPerMode) {
    EXPECT_EQ(compile_passes("torchscript"), (std::vector<std::string>{"trace", "freeze", "optimize_for_inference"}));
    EXPECT_EQ(compile_passes("torchscript-freeze"), (std::vector<std::string>{"trace", "freeze"}));
    EXPECT_EQ(compile_passes("torchscript-trace"), (std::vector<std::string>{"trace"}));
    for (const char* mode : {"torchscript", "torchscript-freeze", "torchscript-trace"})
        EXPECT_TRUE(is_torchscript_mode(mode));
    for (const char* mode : {"default", "max-autotune", "reduce-overhead", "optimize"}) {
        EXPECT_FALSE(is_torchscript_mode(mode));
        try {
            compile_passes(mode);
            FAIL() << "expected std::invalid_argument for " << mode;
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(std::string("'") + mode + "'"), std::string::npos) << message;
            EXPECT_NE(message.find("torchscript, torchscript-freeze, torchscript-trace"), std::string::npos) << message;
        }
    }
}

TEST(Compile, OptimizedConvNetMatchesEagerWithOneDnnConvolutionsAndIsFaster) {
    auto net = make_net();
    const torch::NoGradGuard no_grad;
    const torch::Tensor x = torch::randn({1, 3, 64, 64});
    const torch::Tensor eager = net->forward(x);
    CompiledModel compiled = compile_traced([&](const auto& in) { return net->forward(in[0]); }, {x}, "torchscript");
    EXPECT_EQ(compiled.passes, compile_passes("torchscript"));
    EXPECT_GT(compiled.compile_time_ms, 0);
    const torch::Tensor out = compiled.module.forward({x}).toTensor();
    EXPECT_LT((out - eager).abs().max().item<double>(), 1e-5);

    // Batch norm folded into the convolutions, which run through oneDNN.
    const auto graph = compiled.module.get_method("forward").graph();
    EXPECT_TRUE(graph_has(*graph, "prim::mkldnn_convolution")) << *graph;
    EXPECT_FALSE(graph_has(*graph, "aten::batch_norm")) << *graph;
    EXPECT_FALSE(graph_has(*graph, "aten::_convolution")) << *graph;
    // The traced graph is kept, with shapes, for counting.
    ASSERT_TRUE(compiled.traced_graph);
    EXPECT_EQ(count_flops(*compiled.traced_graph).macs, small_net_macs_per_image);

    // Another input of the same shape.
    const torch::Tensor y = torch::randn({1, 3, 64, 64});
    EXPECT_LT((compiled.module.forward({y}).toTensor() - net->forward(y)).abs().max().item<double>(), 1e-5);

    std::printf("compile: %.1f ms\n", compiled.compile_time_ms);
    EXPECT_TRUE(is_faster(
        "small conv net, batch 1", [&] { net->forward(x); }, [&] { compiled.module.forward({x}); }, 20));
}

TEST(Compile, FreezeAndTraceModesAndInferenceMode) {
    auto net = make_net();
    const c10::InferenceMode inference;
    const torch::Tensor x = torch::randn({2, 3, 32, 32});
    const torch::Tensor eager = net->forward(x);
    for (const char* mode : {"torchscript-trace", "torchscript-freeze", "torchscript"}) {
        CompiledModel compiled = compile_traced([&](const auto& in) { return net->forward(in[0]); }, {x}, mode);
        EXPECT_EQ(compiled.passes, compile_passes(mode));
        EXPECT_LT((compiled.module.forward({x}).toTensor() - eager).abs().max().item<double>(), 1e-5) << mode;
        const auto graph = compiled.module.get_method("forward").graph();
        // Trace only: batch norm is still there; freeze folds it.
        EXPECT_EQ(graph_has(*graph, "aten::batch_norm"), std::string(mode) == "torchscript-trace") << mode << *graph;
    }
}

TEST(Compile, ParametersThatRequireGradAreRefusedWithTheReason) {
    auto net = make_net();
    net->fc->weight.set_requires_grad(true);
    const torch::NoGradGuard no_grad;
    try {
        compile_traced([&](const auto& in) { return net->forward(in[0]); }, {torch::randn({1, 3, 16, 16})},
                       "torchscript-trace");
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("requires_grad(false)"), std::string::npos) << e.what();
    }
}

// --- kernels ---

ConvBnActParams random_conv_bn(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t groups, bool bias) {
    ConvBnActParams p;
    p.conv_weight = torch::randn({out, in / groups, k, k}) * 0.1;
    if (bias) p.conv_bias = torch::randn({out});
    p.bn_weight = torch::rand({out}) + 0.5;
    p.bn_bias = torch::randn({out}) * 0.1;
    p.bn_mean = torch::randn({out}) * 0.2;
    p.bn_var = torch::rand({out}) + 0.5;
    p.bn_eps = 1e-5;
    p.stride = {stride, stride};
    p.padding = {k / 2, k / 2};
    p.dilation = {1, 1};
    p.groups = groups;
    return p;
}

torch::Tensor eager_conv_bn(const ConvBnActParams& p, const torch::Tensor& x, bool relu) {
    torch::Tensor y = torch::conv2d(x, p.conv_weight, p.conv_bias ? *p.conv_bias : torch::Tensor(), p.stride, p.padding,
                                    p.dilation, p.groups);
    y = torch::batch_norm(y, p.bn_weight, p.bn_bias, p.bn_mean, p.bn_var, false, 0.1, p.bn_eps, false);
    return relu ? torch::relu(y) : y;
}

TEST(Kernels, FoldBatchNormIsEquivalent) {
    torch::manual_seed(1);
    const torch::NoGradGuard no_grad;
    for (bool bias : {false, true}) {
        const ConvBnActParams p = random_conv_bn(16, 24, 3, 1, 1, bias);
        const auto [w, b] = fold_batch_norm(p);
        EXPECT_EQ(w.sizes(), p.conv_weight.sizes());
        EXPECT_EQ(b.sizes(), torch::IntArrayRef{24});
        const torch::Tensor x = torch::randn({2, 16, 12, 12});
        const torch::Tensor folded = torch::conv2d(x, w, b, 1, 1);
        EXPECT_LT((folded - eager_conv_bn(p, x, false)).abs().max().item<double>(), 1e-5) << "bias " << bias;
    }
    ConvBnActParams bad = random_conv_bn(4, 8, 3, 1, 1, false);
    bad.bn_var = torch::ones({7});
    EXPECT_THROW(fold_batch_norm(bad), std::invalid_argument);
}

TEST(Kernels, ConvBnActMatchesEagerConvBnRelu) {
    torch::manual_seed(2);
    const KernelRegistry kernels = KernelRegistry::with_defaults();
    EXPECT_TRUE(kernels.describe().empty());  // nothing prepared yet: it claims nothing
    const c10::InferenceMode inference;
    struct Case {
        int64_t in, out, k, stride, groups, hw;
        bool relu, bias;
    };
    for (const Case c : {Case{16, 32, 3, 1, 1, 14, true, false}, Case{32, 64, 1, 1, 1, 14, true, true},
                         Case{16, 32, 3, 2, 1, 15, false, false}, Case{32, 32, 3, 1, 32, 14, true, false},
                         Case{3, 16, 7, 2, 1, 32, true, false}}) {
        ConvBnActParams p = random_conv_bn(c.in, c.out, c.k, c.stride, c.groups, c.bias);
        p.relu = c.relu;
        const PreparedKernel kernel = kernels.prepare_conv_bn_act(p);
        for (int64_t batch : {1, 3}) {  // two shapes through one prepared kernel
            const torch::Tensor x = torch::randn({batch, c.in, c.hw, c.hw});
            const torch::Tensor expected = eager_conv_bn(p, x, c.relu);
            const torch::Tensor got = kernel(x);
            ASSERT_EQ(got.sizes(), expected.sizes());
            EXPECT_TRUE(got.is_contiguous(at::MemoryFormat::ChannelsLast));
            EXPECT_LT((got - expected).abs().max().item<double>(), 1e-4)
                << "in " << c.in << " out " << c.out << " k " << c.k << " groups " << c.groups;
            if (c.relu) {
                EXPECT_GE(got.min().item<double>(), 0.0);
            }
        }
    }
    EXPECT_EQ(kernels.describe(), std::vector<std::string>{"conv_bn_act=onednn_prepacked_nhwc"});
    // bfloat16: within bfloat16's tolerance of eager in float32.
    ConvBnActParams p = random_conv_bn(16, 32, 3, 1, 1, false);
    const torch::Tensor x = torch::randn({2, 16, 14, 14});
    const torch::Tensor expected = eager_conv_bn(p, x, true);
    for (auto* t : {&p.conv_weight, &p.bn_weight, &p.bn_bias, &p.bn_mean, &p.bn_var}) *t = t->to(torch::kBFloat16);
    const torch::Tensor got = kernels.prepare_conv_bn_act(p)(x.to(torch::kBFloat16));
    EXPECT_EQ(got.scalar_type(), torch::kBFloat16);
    EXPECT_LT((got.to(torch::kFloat) - expected).abs().max().item<double>(), 0.05);
}

TEST(Kernels, LayersAKernelDoesNotTakeGoToTheKernelBefore) {
    torch::manual_seed(3);
    const c10::InferenceMode inference;
    KernelRegistry kernels = KernelRegistry::with_defaults();
    int custom_prepared = 0;
    // A plugin's kernel for 1x1 convolutions only: 3x3 layers stay with the SDK's.
    kernels.set_conv_bn_act(
        "custom_1x1",
        [&custom_prepared](const ConvBnActParams& p) {
            ++custom_prepared;
            const auto [w, b] = fold_batch_norm(p);
            return PreparedKernel([w, b](const torch::Tensor& x) { return torch::conv2d(x, w, b).relu_(); });
        },
        [](const ConvBnActParams& p) { return p.conv_weight.size(-1) == 1; });
    const ConvBnActParams one = random_conv_bn(8, 16, 1, 1, 1, false);
    const ConvBnActParams three = random_conv_bn(8, 16, 3, 1, 1, false);
    const torch::Tensor x = torch::randn({1, 8, 10, 10});
    EXPECT_LT((kernels.prepare_conv_bn_act(three)(x) - eager_conv_bn(three, x, true)).abs().max().item<double>(), 1e-4);
    EXPECT_EQ(custom_prepared, 0);
    EXPECT_LT((kernels.prepare_conv_bn_act(one)(x) - eager_conv_bn(one, x, true)).abs().max().item<double>(), 1e-4);
    EXPECT_EQ(custom_prepared, 1);
    EXPECT_EQ(kernels.describe(), std::vector<std::string>{"conv_bn_act=onednn_prepacked_nhwc+custom_1x1"});

    // float16 on this CPU: the oneDNN kernel does not take it, the folded convolution does
    // (whether LibTorch can then run it is another matter), and the report says so.
    KernelRegistry defaults = KernelRegistry::with_defaults();
    ConvBnActParams half = random_conv_bn(8, 16, 3, 1, 1, false);
    for (auto* t : {&half.conv_weight, &half.bn_weight, &half.bn_bias, &half.bn_mean, &half.bn_var})
        *t = t->to(torch::kHalf);
    defaults.prepare_conv_bn_act(half);
    EXPECT_EQ(defaults.describe(), std::vector<std::string>{"conv_bn_act=folded_conv_nhwc"});

    // Without `applies`, a kernel replaces the chain; an empty chain is a logic error.
    KernelRegistry only = KernelRegistry::with_defaults();
    only.set_conv_bn_act(
        "mine", [](const ConvBnActParams&) { return PreparedKernel([](const torch::Tensor& t) { return t; }); });
    only.prepare_conv_bn_act(three);
    EXPECT_EQ(only.describe(), std::vector<std::string>{"conv_bn_act=mine"});
    // No kernel that applies is a logic error, as no kernel at all is.
    KernelRegistry none;
    none.set_conv_bn_act(
        "never", [](const ConvBnActParams&) { return PreparedKernel(); }, [](const ConvBnActParams&) { return false; });
    EXPECT_THROW(none.prepare_conv_bn_act(three), std::logic_error);
}

TEST(Kernels, PrepackedAppliesTo2dConvolutionsOnTheCpuInFloat32AndBFloat16) {
    // This LibTorch has oneDNN's prepacked ops (the tests above prepare that kernel).
    ConvBnActParams p = random_conv_bn(8, 16, 3, 1, 1, false);
    EXPECT_TRUE(prepacked_applies(p));
    const torch::Tensor weight = p.conv_weight;
    p.conv_weight = weight.to(torch::kBFloat16);
    // In bfloat16 where oneDNN runs it: with AVX-512, not on an AVX2-only CPU.
    EXPECT_EQ(prepacked_applies(p), prepacked_runs_bfloat16());
    p.conv_weight = weight.to(torch::kHalf);
    EXPECT_FALSE(prepacked_applies(p));
    p.conv_weight = weight.to(torch::kDouble);
    EXPECT_FALSE(prepacked_applies(p));
    p.conv_weight = weight.select(-1, 0);  // [out, in, k]: a 1-d convolution
    EXPECT_FALSE(prepacked_applies(p));
    p.conv_weight = torch::Tensor();
    EXPECT_FALSE(prepacked_applies(p));
}

TEST(Kernels, ConvBnActIsFasterThanEagerOnResNetShapes) {
    torch::manual_seed(3);
    const KernelRegistry kernels = KernelRegistry::with_defaults();
    const c10::InferenceMode inference;
    const ConvBnActParams p = random_conv_bn(64, 64, 3, 1, 1, false);  // ResNet-50's first stage
    const PreparedKernel kernel = kernels.prepare_conv_bn_act(p);
    const torch::Tensor x = torch::randn({1, 64, 56, 56});
    const torch::Tensor x_nhwc = x.contiguous(at::MemoryFormat::ChannelsLast);  // as the previous kernel leaves it
    EXPECT_TRUE(is_faster(
        "conv_bn_act 64->64 3x3 56x56 batch 1", [&] { eager_conv_bn(p, x, true); }, [&] { kernel(x_nhwc); }, 15));
}

TEST(Kernels, CustomKernelsAndAnEmptyRegistry) {
    KernelRegistry registry;
    EXPECT_TRUE(registry.describe().empty());
    EXPECT_THROW(registry.prepare_conv_bn_act(random_conv_bn(4, 4, 3, 1, 1, false)), std::logic_error);
    registry.set_conv_bn_act(
        "identity", [](const ConvBnActParams&) -> PreparedKernel { return [](const torch::Tensor& x) { return x; }; });
    EXPECT_TRUE(registry.describe().empty());  // registered, not yet used
    const torch::Tensor x = torch::ones({1});
    EXPECT_TRUE(registry.prepare_conv_bn_act(random_conv_bn(4, 4, 3, 1, 1, false))(x).equal(x));
    EXPECT_EQ(registry.describe(), (std::vector<std::string>{"conv_bn_act=identity"}));
}

// --- model benchmark ---

TEST(ModelBenchmark, CountParameters) {
    auto net = make_net();
    EXPECT_EQ(count_parameters(*net), small_net_parameters);
    // A tied weight counts once.
    struct Tied : torch::nn::Module {
        Tied() {
            auto shared = register_parameter("embedding", torch::ones({10, 4}));
            register_parameter("head", shared);
            register_parameter("bias", torch::ones({10}));
        }
    };
    EXPECT_EQ(count_parameters(Tied()), 50);
}

TEST(ModelBenchmark, LoadModelRecordsTheTimeToBuild) {
    const bench::ScenarioConfig config;
    bench::Context ctx(config, quiet_logger());
    const auto net = load_model(ctx, [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return make_net();
    });
    EXPECT_EQ(count_parameters(*net), small_net_parameters);
    const bench::ScenarioResult r = ctx.take_result();
    ASSERT_NE(r.find_scalar("model_load"), nullptr);
    EXPECT_GE(r.find_scalar("model_load")->value, 5);
    EXPECT_EQ(r.find_scalar("model_load")->unit, "ms");
}

class RunModelBenchmark : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        // One calibration for all of these tests (and later runs of them).
        ::setenv("XDG_CACHE_HOME", BENCH_TEST_BUILD_DIR "/sdk_torch_test_cache", 1);
    }

    static ModelBenchmark spec(std::shared_ptr<SmallConvNet> net) {
        ModelBenchmark s;
        s.model = "small_conv_net";
        s.throughput_unit = "images/s";
        s.module = net;
        s.forward = [net](const torch::Tensor& x) { return net->forward(x); };
        s.make_input = [](int64_t batch, torch::Device device, torch::ScalarType dtype) {
            torch::manual_seed(7);
            return torch::randn({batch, 3, 64, 64}).to(device, dtype);
        };
        s.kernelize = [net](const KernelRegistry& kernels) { return net->kernelize(kernels); };
        s.expected_parameters = small_net_parameters;
        return s;
    }

    static bench::ScenarioResult run(bench::Variant variant, int batch = 2, std::string dtype = "float32",
                                     ModelBenchmark* custom = nullptr, std::string compile_mode = "torchscript") {
        bench::ScenarioConfig config;
        config.variant = variant;
        config.compile_mode = std::move(compile_mode);
        config.batch_size = batch;
        config.dtype = std::move(dtype);
        config.warmup_iterations = 1;
        config.measurement_iterations = 3;
        bench::Context ctx(config, quiet_logger());
        ModelBenchmark s = spec(make_net());
        run_model_benchmark(ctx, custom ? *custom : s);
        return ctx.take_result();
    }
};

TEST_F(RunModelBenchmark, EagerRecordsLatencyThroughputWorkAndFacts) {
    const bench::ScenarioResult r = run(bench::Variant::eager);
    ASSERT_NE(r.find_series("latency"), nullptr);
    EXPECT_EQ(r.find_series("latency")->samples.size(), 3u);
    EXPECT_EQ(r.find_series("throughput")->unit, "images/s");
    EXPECT_EQ(r.find_scalar("parameters")->value, small_net_parameters);
    EXPECT_GT(r.find_scalar("first_call")->value, 0);
    EXPECT_EQ(r.find_scalar("flops_per_forward")->value, 2 * 2 * small_net_macs_per_image);
    EXPECT_EQ(r.find_series("gflops")->samples.size(), 3u);
    EXPECT_GT(r.find_scalar("peak_gflops")->value, 0);
    EXPECT_GT(r.find_scalar("fraction_of_peak")->value, 0);
    EXPECT_EQ(r.info.at("model"), "small_conv_net");
    EXPECT_EQ(r.info.at("framework"), "libtorch");
    EXPECT_EQ(r.info.at("torch_version"), TORCH_VERSION);  // the LibTorch the plugin was built with
    EXPECT_EQ(r.info.at("torch_version").substr(0, 2), "2.");
    EXPECT_EQ(r.info.at("dtype"), "float32");
    EXPECT_EQ(r.info.at("device"), "cpu");
    EXPECT_EQ(r.find_scalar("max_abs_diff"), nullptr);
    const bool user_set_allocator = std::getenv("GLIBC_TUNABLES") || std::getenv("MALLOC_TRIM_THRESHOLD_") ||
                                    std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_CONF") ||
                                    std::getenv("LD_PRELOAD");
    EXPECT_EQ(
        r.info.at("malloc").rfind(user_set_allocator ? "as the environment sets it" : "glibc, freed memory kept", 0),
        0u)
        << r.info.at("malloc");
}

TEST_F(RunModelBenchmark, CompiledChecksAgainstEagerAndRecordsTheCompile) {
    const bench::ScenarioResult r = run(bench::Variant::compiled);
    EXPECT_GT(r.find_scalar("compile_time")->value, 0);
    EXPECT_EQ(r.info.at("variant_passes"), "trace,freeze,optimize_for_inference");
    ASSERT_NE(r.find_scalar("max_abs_diff"), nullptr);
    EXPECT_LT(r.find_scalar("max_abs_diff")->value, 1e-4);
    EXPECT_EQ(r.find_scalar("flops_per_forward")->value, 2 * 2 * small_net_macs_per_image);
    EXPECT_GT(r.find_scalar("first_call")->value, 0);
}

TEST_F(RunModelBenchmark, CompileModesItCannotDoAreSkippedWithTheReasonUnknownOnesFail) {
    // No Python definition: the AOTInductor modes skip, naming what would compile it.
    for (const char* mode : {"default", "max-autotune"}) {
        try {
            run(bench::Variant::compiled, 1, "float32", nullptr, mode);
            ADD_FAILURE() << mode << " ran";
        } catch (const bench::SkipScenario& e) {
            EXPECT_EQ(std::string(e.what()),
                      "small_conv_net has no Python definition for the AOTInductor compile "
                      "(--compile-modes torchscript compiles it with TorchScript)");
        }
    }
    // CUDA graphs on the CPU: skipped, never run as another mode.
    try {
        bench::ScenarioConfig config;
        config.variant = bench::Variant::compiled;
        config.compile_mode = "reduce-overhead";
        bench::Context ctx(config, quiet_logger());
        ModelBenchmark s = spec(make_net());
        run_model_benchmark(ctx, s, {"small_conv_net", "def build():\n    raise RuntimeError('not called')\n", {}});
        ADD_FAILURE() << "reduce-overhead ran on the CPU";
    } catch (const bench::SkipScenario& e) {
        EXPECT_EQ(std::string(e.what()),
                  "compile mode reduce-overhead is CUDA graphs, which the CPU has no equivalent of");
    }
    // torch.compile's modes are Python plugins': skipped, saying so, where one run gives both.
    try {
        run(bench::Variant::compiled, 1, "float32", nullptr, "torch-compile");
        ADD_FAILURE() << "torch-compile ran in C++";
    } catch (const bench::SkipScenario& e) {
        EXPECT_EQ(std::string(e.what()),
                  "small_conv_net: compile mode 'torch-compile' is torch.compile's, which Python plugins run "
                  "(benchhost.torch); the C++ layer compiles AOTInductor packages (default, max-autotune) and "
                  "TorchScript");
    }
    // As does a plugin that compiles its packages itself (compile_package), before any compile.
    try {
        bench::ScenarioConfig config;
        config.variant = bench::Variant::compiled;
        config.compile_mode = "torch-compile";
        bench::Context ctx(config, quiet_logger());
        auto net = make_net();
        const torch::Tensor x = torch::randn({1, 3, 64, 64});
        compile_package(ctx, *net, PythonModel{"small_conv_net", "def build(): pass\n", {}}, {x}, net->forward(x),
                        torch::kFloat);
        ADD_FAILURE() << "torch-compile ran in compile_package";
    } catch (const bench::SkipScenario& e) {
        EXPECT_EQ(std::string(e.what()),
                  "small_conv_net: compile mode 'torch-compile' is torch.compile's, which Python plugins run "
                  "(benchhost.torch); the C++ layer compiles AOTInductor packages (default, max-autotune) and "
                  "TorchScript");
    }
    try {
        run(bench::Variant::compiled, 1, "float32", nullptr, "fastest");
        ADD_FAILURE() << "an unknown mode ran";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "unknown compile mode 'fastest': one of " + known_compile_modes());
    }
    // The other variants do not look at the mode.
    EXPECT_NE(run(bench::Variant::eager, 1, "float32", nullptr, "fastest").find_series("latency"), nullptr);
}

TEST_F(RunModelBenchmark, KernelizedChecksAgainstEagerAndNamesItsKernels) {
    const bench::ScenarioResult r = run(bench::Variant::kernelized, 1);
    EXPECT_EQ(r.info.at("kernels"), "conv_bn_act=onednn_prepacked_nhwc");
    EXPECT_LT(r.find_scalar("max_abs_diff")->value, 1e-4);
    EXPECT_EQ(r.find_scalar("flops_per_forward")->value, 2 * small_net_macs_per_image);
}

TEST_F(RunModelBenchmark, Bfloat16RunsAndIsChecked) {
    const bench::ScenarioResult r = run(bench::Variant::kernelized, 1, "bfloat16");
    EXPECT_EQ(r.info.at("dtype"), "bfloat16");
    EXPECT_LT(r.find_scalar("max_abs_diff")->value, 0.5);
}

TEST_F(RunModelBenchmark, SkipsAndFailures) {
    if (!torch::cuda::is_available()) {  // a device this machine lacks: skipped, not failed
        bench::ScenarioConfig config;
        config.device = "cuda";
        config.warmup_iterations = 1;
        config.measurement_iterations = 3;
        bench::Context ctx(config, quiet_logger());
        ModelBenchmark s = spec(make_net());
        EXPECT_THROW(run_model_benchmark(ctx, s), bench::SkipScenario);
    }

    ModelBenchmark no_kernels = spec(make_net());
    no_kernels.kernelize = nullptr;
    EXPECT_THROW(run(bench::Variant::kernelized, 1, "float32", &no_kernels), bench::SkipScenario);

    ModelBenchmark wrong_count = spec(make_net());
    wrong_count.expected_parameters = 25'557'032;
    try {
        run(bench::Variant::eager, 1, "float32", &wrong_count);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("has " + std::to_string(small_net_parameters) +
                                             " parameters, its architecture has 25557032"),
                  std::string::npos)
            << e.what();
    }

    // A kernelized forward that computes something else fails the scenario.
    ModelBenchmark wrong_kernels = spec(make_net());
    auto net = std::static_pointer_cast<SmallConvNet>(wrong_kernels.module);
    wrong_kernels.kernelize = [net](const KernelRegistry&) -> Forward {
        return [net](const torch::Tensor& x) { return net->forward(x) * 1.1; };
    };
    try {
        run(bench::Variant::kernelized, 1, "float32", &wrong_kernels);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("differs from eager"), std::string::npos) << e.what();
    }
}

// A CUDA graph replays work on a CUDA device: on the CPU it is refused, saying so. (On a
// GPU, tools/gpu_check runs ResNet-50 in compile mode reduce-overhead through it.)
TEST(CudaGraphed, ACpuInputIsRefusedSayingGraphsNeedACudaDevice) {
    const auto forward = [](const torch::Tensor& x) { return x * 2; };
    try {
        (void)cuda_graphed(forward, torch::ones({2, 2}));
        ADD_FAILURE() << "captured a graph of CPU work";
    } catch (const std::runtime_error& e) {
        const std::string message = e.what();
        EXPECT_TRUE(message == "cuda_graphed: the example input is on cpu: CUDA graphs replay work on a CUDA device" ||
                    message == "cuda_graphed: this LibTorch build has no CUDA")
            << message;
    }
}

}  // namespace
