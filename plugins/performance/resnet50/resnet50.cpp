// resnet50: torchvision's ResNet-50 (v1.5) written with torch::nn, benchmarked as
// eager, compiled (TorchScript: trace, freeze, optimize_for_inference) and kernelized
// (every conv + batch norm (+ ReLU) replaced by one prepared kernel).
//
// The architecture is torchvision's resnet50: a 7x7/2 stem, 3x3/2 max pool, Bottleneck
// blocks [3, 4, 6, 3] with the stride on the 3x3 convolution (v1.5), batch norm eps
// 1e-5, global average pool, fc 2048 -> 1000: exactly 25,557,032 parameters (checked).
// Weights are random and seeded (see initialize): torchvision's init for convolutions
// and fc, random batch norm affine parameters, running statistics calibrated on a
// random batch, so that folding them into the convolutions is really exercised.
//
// Two benchmarks: `resnet50`, inference (above), and `train`, training steps of the
// eager model (forward, cross-entropy loss on seeded labels, backward, optimizer step)
// timed apart, with the memory they take measured (bench/torch/training.hpp).
//
// Parameters (`--param KEY=VALUE`):
//   image_size   input height and width (default 224, at least 32; train at batch 1
//                needs 33 or more: its last batch norm sees image_size / 32 a side)
//   seed         weight, input and label seed (default 0)
//   dataset      an image folder (one sub-folder per class, JPEG and PNG files): its
//                first batch_size images, resized, centre-cropped to image_size and
//                normalised, are the input instead of random numbers
//                (bench/torch/image_dataset.hpp)
//   optimizer    train only: sgd (SGD with momentum, the default) or adamw; also an
//                axis (`--axis optimizer=sgd,adamw`)
//
// The kernelized variant runs every conv + batch norm (+ ReLU) through the SDK's
// conv_bn_act kernels (bench/torch/kernels.hpp): oneDNN's prepacked convolution on
// channels-last tensors where LibTorch has it, a folded channels-last convolution
// elsewhere. The report's `kernels` line names the ones used.
#include <bench/plugin.hpp>
#include <bench/torch/image_dataset.hpp>
#include <bench/torch/kernels.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/profiling.hpp>
#include <bench/torch/training.hpp>
#include <bench_embedded/resnet50_model_py.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/randint.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

BENCH_PLUGIN("resnet50", "1.2.0", .axes = "variant,batch_size,dtype,device,threads,compile_mode,optimizer");

namespace {

using bench::libtorch::ConvBnActParams;
using bench::libtorch::Forward;
using bench::libtorch::KernelRegistry;
using bench::libtorch::ModuleScope;
using bench::libtorch::PreparedKernel;

constexpr int64_t resnet50_parameters = 25'557'032;

// ---------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------

/// A bias-free convolution and the batch norm that follows it.
struct ConvBn {
    torch::nn::Conv2d conv{nullptr};
    torch::nn::BatchNorm2d bn{nullptr};
    int64_t stride = 1;
    int64_t padding = 0;

    ConvBn() = default;
    ConvBn(torch::nn::Module& owner, const std::string& name, const std::string& bn_name, int64_t in, int64_t out,
           int64_t kernel, int64_t conv_stride, int64_t conv_padding)
        : stride(conv_stride), padding(conv_padding) {
        conv = owner.register_module(
            name,
            torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(false)));
        bn = owner.register_module(bn_name, torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(out).eps(1e-5)));
    }
    explicit operator bool() const { return !conv.is_empty(); }

    torch::Tensor forward(const torch::Tensor& x) { return bn->forward(conv->forward(x)); }

    /// What the conv_bn_act kernel needs to prepare this pair, with or without ReLU.
    ConvBnActParams kernel_params(bool relu) const {
        ConvBnActParams p;
        p.conv_weight = conv->weight;
        p.bn_weight = bn->weight;
        p.bn_bias = bn->bias;
        p.bn_mean = bn->running_mean;
        p.bn_var = bn->running_var;
        p.bn_eps = bn->options.eps();
        p.stride = {stride, stride};
        p.padding = {padding, padding};
        p.dilation = {1, 1};
        p.groups = 1;
        p.relu = relu;
        return p;
    }
};

/// torchvision's Bottleneck (expansion 4), stride on the 3x3 convolution.
struct BottleneckImpl : torch::nn::Module {
    ConvBn c1, c2, c3, downsample;
    std::string scope_name;  // its name in a profile: "layer1_0"

    BottleneckImpl(std::string name, int64_t in, int64_t width, int64_t stride) : scope_name(std::move(name)) {
        c1 = ConvBn(*this, "conv1", "bn1", in, width, 1, 1, 0);
        c2 = ConvBn(*this, "conv2", "bn2", width, width, 3, stride, 1);
        c3 = ConvBn(*this, "conv3", "bn3", width, width * 4, 1, 1, 0);
        if (stride != 1 || in != width * 4)
            downsample = ConvBn(*this, "downsample_conv", "downsample_bn", in, width * 4, 1, stride, 0);
    }

    torch::Tensor forward(const torch::Tensor& x) {
        const ModuleScope scope(scope_name);
        torch::Tensor y = c1.forward(x).relu_();
        y = c2.forward(y).relu_();
        y = c3.forward(y);
        y += downsample ? downsample.forward(x) : x;
        return y.relu_();
    }
};
TORCH_MODULE(Bottleneck);

/// The four stages' names in a profile (ModuleScope): each groups its blocks, whose
/// modules are layer1_0, layer1_1, ...
const std::string stage_names[4] = {"layer1", "layer2", "layer3", "layer4"};

struct ResNet50Impl : torch::nn::Module {
    ConvBn stem;
    std::vector<Bottleneck> blocks;
    std::vector<int> block_stage;  // the stage of each block, 0-3
    torch::nn::Linear fc{nullptr};

    ResNet50Impl() {
        // "stem_": the profile's "stem" scope (conv, batch norm, ReLU, max pool) groups them.
        stem = ConvBn(*this, "stem_conv", "stem_bn", 3, 64, 7, 2, 3);
        const int64_t depths[4] = {3, 4, 6, 3};
        int64_t in = 64;
        for (int64_t stage = 0; stage < 4; ++stage) {
            const int64_t width = int64_t{64} << stage;
            for (int64_t i = 0; i < depths[stage]; ++i) {
                const int64_t stride = (i == 0 && stage > 0) ? 2 : 1;
                const std::string name = stage_names[stage] + "_" + std::to_string(i);
                blocks.push_back(register_module(name, Bottleneck(name, in, width, stride)));
                block_stage.push_back(static_cast<int>(stage));
                in = width * 4;
            }
        }
        fc = register_module("fc", torch::nn::Linear(2048, 1000));
    }

    torch::Tensor forward(const torch::Tensor& x) {
        torch::Tensor y;
        {
            const ModuleScope scope("stem");
            y = stem.forward(x).relu_();
            y = at::max_pool2d(y, {3, 3}, {2, 2}, {1, 1});
        }
        for (int stage = 0; stage < 4; ++stage) {
            const ModuleScope scope(stage_names[stage]);
            for (std::size_t i = 0; i < blocks.size(); ++i)
                if (block_stage[i] == stage) y = blocks[i]->forward(y);
        }
        const ModuleScope scope("fc");  // with the global average pool before it
        y = at::adaptive_avg_pool2d(y, {1, 1}).flatten(1);
        return fc->forward(y);
    }
};
TORCH_MODULE(ResNet50);

/// Seeded random weights, drawn from a generator of our own (the global one is left
/// alone), then batch norm statistics calibrated on a seeded random batch.
///
/// Convolutions are Kaiming-normal (fan_out, ReLU gain) and fc U(-1/sqrt(2048), ..), as
/// torchvision initialises an untrained model. Batch norm scales are U(0.5, 1.5) and
/// shifts N(0, 0.1), except the last batch norm of each residual branch (bn3), whose
/// scale is U(0.15, 0.3). Then one forward pass in training mode (momentum 1) on a
/// random batch of 2 sets every running mean and variance to the real statistics of
/// its channel: folding them into the convolutions is exercised with non-trivial,
/// per-channel values, and activations are O(1), as in a trained network.
///
/// Why not random running statistics (mean N(0, 0.1), variance U(0.5, 1.5)): they do
/// not match what the convolutions produce, activations grow through the blocks, and
/// the logits come out in the hundreds (mean |logit| ~95); bfloat16's ~0.6% error on
/// those (up to 2-4) is far beyond the accuracy check's absolute tolerance (0.05) for
/// the logits near zero. Why the small bn3 scale: with
/// calibrated statistics and full-size residual branches a random ResNet-50 is chaotic:
/// the relative difference between its float32 and bfloat16 outputs grows block by
/// block to ~50% (measured); with bn3 in [0.15, 0.3] (trained ResNets have small ones
/// there, cf. torchvision's zero_init_residual) it stays about 1%.
void initialize(ResNet50Impl& model, uint64_t seed, int64_t image_size) {
    at::NoGradGuard no_grad;
    at::Generator gen = at::detail::createCPUGenerator(seed);
    for (const auto& module : model.modules(/*include_self=*/false)) {
        if (auto* conv = module->as<torch::nn::Conv2dImpl>()) {
            const auto& w = conv->weight;
            const double fan_out = static_cast<double>(w.size(0) * w.size(2) * w.size(3));
            w.normal_(0.0, std::sqrt(2.0 / fan_out), gen);
        } else if (auto* bn = module->as<torch::nn::BatchNorm2dImpl>()) {
            bn->weight.uniform_(0.5, 1.5, gen);
            bn->bias.normal_(0.0, 0.1, gen);
        } else if (auto* linear = module->as<torch::nn::LinearImpl>()) {
            const double bound = 1.0 / std::sqrt(static_cast<double>(linear->weight.size(1)));
            linear->weight.uniform_(-bound, bound, gen);
            linear->bias.uniform_(-bound, bound, gen);
        }
    }
    for (auto& block : model.blocks) block->c3.bn->weight.uniform_(0.15, 0.3, gen);

    std::vector<torch::nn::BatchNorm2dImpl*> norms;
    for (const auto& module : model.modules(/*include_self=*/false))
        if (auto* bn = module->as<torch::nn::BatchNorm2dImpl>()) norms.push_back(bn);
    for (auto* bn : norms) bn->options.momentum(1.0);
    model.train();
    model.forward(at::randn({2, 3, image_size, image_size}, gen, at::TensorOptions().dtype(at::kFloat)));
    for (auto* bn : norms) bn->options.momentum(0.1);

    for (auto& p : model.parameters()) p.set_requires_grad(false);
    model.eval();
}

// ---------------------------------------------------------------------------------
// The kernelized forward pass
// ---------------------------------------------------------------------------------

/// The kernelized ResNet-50: every conv + bn (+ relu) is one prepared kernel, the
/// activations stay channels-last from the stem to the pooling, the residual add and
/// its ReLU are one fused pass, then global average pool and fc.
Forward kernelize(const ResNet50& model, const KernelRegistry& kernels) {
    struct Block {
        PreparedKernel c1, c2, c3, downsample;
        std::string name;
        int stage;
    };
    const PreparedKernel stem = kernels.prepare_conv_bn_act(model->stem.kernel_params(true));
    std::vector<Block> blocks;
    for (const auto& b : model->blocks) {
        blocks.push_back(
            {kernels.prepare_conv_bn_act(b->c1.kernel_params(true)),
             kernels.prepare_conv_bn_act(b->c2.kernel_params(true)),
             kernels.prepare_conv_bn_act(b->c3.kernel_params(false)),
             b->downsample ? kernels.prepare_conv_bn_act(b->downsample.kernel_params(false)) : PreparedKernel{},
             b->scope_name, 0});
    }
    for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i].stage = model->block_stage[i];
    const torch::Tensor fc_weight = model->fc->weight;
    const torch::Tensor fc_bias = model->fc->bias;
    return [stem, blocks = std::move(blocks), fc_weight, fc_bias](const torch::Tensor& input) {
        // The same ModuleScope names as the eager model's: a profile compares them.
        torch::Tensor y;
        {
            const ModuleScope scope("stem");
            y = stem(input.contiguous(at::MemoryFormat::ChannelsLast));
            y = at::max_pool2d(y, {3, 3}, {2, 2}, {1, 1});
        }
        for (int stage = 0; stage < 4; ++stage) {
            const ModuleScope stage_scope(stage_names[stage]);
            for (const auto& block : blocks) {
                if (block.stage != stage) continue;
                const ModuleScope scope(block.name);
                const torch::Tensor identity = block.downsample ? block.downsample(y) : y;
                torch::Tensor out = block.c3(block.c2(block.c1(y)));
                // at::_add_relu_ is one vectorized pass, CPU and float32 only.
                if (out.is_cpu() && out.scalar_type() == at::kFloat) at::_add_relu_(out, identity);
                else out.add_(identity).relu_();
                y = std::move(out);
            }
        }
        const ModuleScope scope("fc");
        const torch::Tensor features = y.mean({2, 3});
        // One image: a matrix-vector product. at::linear goes to OpenBLAS's sgemm,
        // which for a single row is 4x slower than its gemv here (1.6 vs 0.4 ms).
        if (features.size(0) == 1) return at::addmv(fc_bias, fc_weight, features[0]).unsqueeze(0);
        return at::linear(features, fc_weight, fc_bias);
    };
}

struct Settings {
    int64_t image_size;
    uint64_t seed;
};

Settings read_settings(const bench::Context& ctx) {
    const auto& params = ctx.params();
    const int64_t image_size = params.get_int("image_size", 224);
    if (image_size < 32)
        throw std::invalid_argument("image_size must be at least 32, got " + std::to_string(image_size));
    return {image_size, static_cast<uint64_t>(params.get_int("seed", 0))};
}

/// The input batch: seeded, the same for every variant and for training.
torch::Tensor make_images(const Settings& settings, int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
    at::Generator gen = at::detail::createCPUGenerator(settings.seed + 1);
    return at::randn({batch_size, 3, settings.image_size, settings.image_size}, gen,
                     at::TensorOptions().dtype(at::kFloat))
        .to(device, dtype);
}

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    const Settings settings = read_settings(ctx);
    ResNet50 model = bench::libtorch::load_model(ctx, [&] {
        ResNet50 built;
        initialize(*built, settings.seed, settings.image_size);
        return built;
    });

    bench::libtorch::ModelBenchmark spec;
    spec.model = "resnet50";
    spec.throughput_unit = "images/s";
    spec.module = model.ptr();
    spec.expected_parameters = resnet50_parameters;
    spec.forward = [net = model.ptr()](const torch::Tensor& x) { return net->forward(x); };
    spec.make_input = [settings](int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
        return make_images(settings, batch_size, device, dtype);
    };
    // Crop to image_size; resize the shorter side in the usual proportion (256 for 224).
    bench::libtorch::use_image_dataset(ctx, spec,
                                       {.resize = settings.image_size * 256 / 224, .crop = settings.image_size});
    std::string kernel_description;
    spec.kernelize = [model, &kernel_description](const KernelRegistry& kernels) {
        Forward forward = kernelize(model, kernels);  // prepares every layer's kernel
        for (const auto& name : kernels.describe())
            kernel_description += (kernel_description.empty() ? "" : ", ") + name;
        return forward;
    };

    // The model as Python defines it (resnet50_model.py), for the AOTInductor compile.
    bench::libtorch::run_model_benchmark(ctx, spec, {"resnet50", resnet50_model_py, {}});
    if (!kernel_description.empty()) ctx.set_info("kernels", kernel_description);
}

// Training steps: the same model, weights and input, labels drawn from the seed, the
// optimizer from --param optimizer (or --axis optimizer=sgd,adamw). Eager only.
// Training steps run in eager only: compiled and kernelized are inference variants.
BENCH_BENCHMARK_VARIANTS(train, bench::eager_bit);

BENCH_BENCHMARK(train, ctx) {
    const Settings settings = read_settings(ctx);
    bench::libtorch::TrainingBenchmark spec;
    spec.model = "resnet50";
    spec.throughput_unit = "images/s";
    spec.expected_parameters = resnet50_parameters;
    spec.build = [settings] {
        ResNet50 built;
        initialize(*built, settings.seed, settings.image_size);
        return bench::libtorch::TrainableModel{built.ptr(),
                                               [net = built.ptr()](const torch::Tensor& x) { return net->forward(x); }};
    };
    spec.make_input = [settings](int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
        // The last stage's feature maps are image_size / 32 (rounded up) a side, and batch
        // norm in training needs more than one value per channel.
        const int64_t side = (settings.image_size + 31) / 32;
        if (batch_size * side * side < 2)
            throw std::invalid_argument("train: batch_size " + std::to_string(batch_size) + " at image_size " +
                                        std::to_string(settings.image_size) +
                                        " leaves the last stage's batch norm one value per channel, and it cannot "
                                        "train on one: use batch_size 2 or more, or image_size 33 or more");
        return make_images(settings, batch_size, device, dtype);
    };
    spec.make_targets = [settings](int64_t batch_size, torch::Device device) {
        at::Generator gen = at::detail::createCPUGenerator(settings.seed + 2);
        return at::randint(1000, {batch_size}, gen, at::TensorOptions().dtype(at::kLong)).to(device);
    };
    bench::libtorch::run_training_benchmark(ctx, spec);
}
