// ViT-B/16 (torchvision.models.vit_b_16): the architecture, with seeded random weights,
// run as the three variants benchhost compares.
//
//   eager       the forward pass as torchvision's Python runs it on PyTorch 2.x: each
//               block's attention is nn.MultiheadAttention(need_weights=False). In
//               inference (eval, no gradient wanted) that is its fast path, one call of
//               at::_native_multi_head_attention: packed input projection, attention,
//               output projection, where the attention is the op's own batched products
//               and softmax on the CPU and SDPA's fused kernel on CUDA. With gradients
//               (the `train` benchmark) it is F.multi_head_attention_forward's path:
//               packed projection, at::scaled_dot_product_attention, output projection.
//               The rest is plain ops (linear, layer_norm, gelu);
//   compiled    that forward traced, frozen and optimized by the SDK;
//   kernelized  one of three paths, --param kernel=...:
//               onednn_prepacked (the default on the CPU): the matrix products through
//               oneDNN with weights prepacked once (the linear layers as prepacked 1x1
//               convolutions over a channels-last view), GELU and residual additions in
//               place, and the attention as PyTorch's fused CPU flash-attention kernel
//               (at::_scaled_dot_product_flash_attention_for_cpu) called directly on
//               views of the packed QKV projection;
//               fused_attention (any device): the projections through at::linear, the
//               residual additions fused into the output projections' GEMMs, and the
//               attention as the fused kernel that SDPA's own selection picks for these
//               inputs (at::_fused_sdp_choice: on CUDA flash, memory-efficient or cuDNN
//               attention; on the CPU the flash kernel), called directly;
//               fused_encoder_layer (the default where the prepacked oneDNN ops are
//               missing, as on CUDA): each encoder block as one call of the fused
//               BetterTransformer kernel (at::_transformer_encoder_layer_fwd).
//               info.attention names the attention kernel of each variant.
//
// The module tree and parameter names mirror torchvision's (conv_proj, class_token,
// encoder.pos_embedding, encoder.layers.encoder_layer_<i>.{ln_1, self_attention, ln_2,
// mlp.0, mlp.3}, encoder.ln, heads.head): 86,567,656 parameters.
//
// Two benchmarks: `vit_b_16`, inference (the variants above), and `train`, training
// steps of the eager model (forward, cross-entropy loss on seeded labels, backward, an
// optimizer step: --param optimizer=sgd or adamw, also an axis) timed apart, with the
// memory they take measured (bench/torch/training.hpp).
//
// Inputs are seeded random images, or with --param dataset=DIR the first batch_size
// images of an image folder, preprocessed (bench/torch/image_dataset.hpp).
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/SDPBackend.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/GradMode.h>
#include <torch/nn/module.h>

#include <bench/plugin.hpp>
#include <bench/torch/image_dataset.hpp>
#include <bench/torch/kernels.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/profiling.hpp>
#include <bench/torch/training.hpp>
#include <bench_embedded/vit_b_16_model_py.hpp>

BENCH_PLUGIN("vit_b_16", "1.2.0", .axes = "variant,batch_size,dtype,device,threads,compile_mode,optimizer");

namespace {

constexpr int64_t kImageSize = 224;
constexpr int64_t kPatchSize = 16;
constexpr int64_t kGrid = kImageSize / kPatchSize;  // 14
constexpr int64_t kSequence = kGrid * kGrid + 1;  // 196 patches and the class token
constexpr int64_t kHidden = 768;
constexpr int64_t kHeads = 12;
constexpr int64_t kHeadDim = kHidden / kHeads;  // 64
constexpr int64_t kMlp = 3072;
constexpr int64_t kLayers = 12;
constexpr int64_t kClasses = 1000;
constexpr double kLayerNormEps = 1e-6;
constexpr int64_t kParameters = 86'567'656;
constexpr uint64_t kWeightSeed = 16;
constexpr uint64_t kInputSeed = 224;

// A normal draw clamped at two standard deviations: a cheap stand-in for trunc_normal_.
at::Tensor trunc_normal(at::IntArrayRef shape, double std) { return at::randn(shape).clamp_(-2.0, 2.0).mul_(std); }

struct Linear : torch::nn::Module {
    Linear(int64_t in, int64_t out) {
        weight = register_parameter("weight", trunc_normal({out, in}, 0.02), false);
        bias = register_parameter("bias", trunc_normal({out}, 0.02), false);
    }
    at::Tensor forward(const at::Tensor& x) const { return at::linear(x, weight, bias); }
    at::Tensor weight, bias;
};

struct LayerNorm : torch::nn::Module {
    LayerNorm() {
        // Not the identity (ones and zeros), so that a kernel that drops them is caught.
        weight = register_parameter("weight", 1.0 + trunc_normal({kHidden}, 0.1), false);
        bias = register_parameter("bias", trunc_normal({kHidden}, 0.02), false);
    }
    at::Tensor forward(const at::Tensor& x) const { return at::layer_norm(x, {kHidden}, weight, bias, kLayerNormEps); }
    at::Tensor weight, bias;
};

// nn.MultiheadAttention(768, 12, batch_first=True): one packed input projection.
struct SelfAttention : torch::nn::Module {
    SelfAttention() {
        in_proj_weight = register_parameter("in_proj_weight", trunc_normal({3 * kHidden, kHidden}, 0.02), false);
        in_proj_bias = register_parameter("in_proj_bias", trunc_normal({3 * kHidden}, 0.02), false);
        out_proj = register_module("out_proj", std::make_shared<Linear>(kHidden, kHidden));
    }
    // As torchvision calls it, self(x, x, x, need_weights=False)[0].
    at::Tensor forward(const at::Tensor& x) const {
        if (fast_path(x))
            return std::get<0>(at::_native_multi_head_attention(x, x, x, kHidden, kHeads, in_proj_weight, in_proj_bias,
                                                                out_proj->weight, out_proj->bias, /*mask=*/{},
                                                                /*need_weights=*/false));
        // F.multi_head_attention_forward with need_weights=False: the packed projection,
        // SDPA over the heads, the heads merged, the output projection.
        const int64_t batch = x.size(0);
        const int64_t length = x.size(1);
        const at::Tensor qkv = at::linear(x, in_proj_weight, in_proj_bias)
                                   .view({batch, length, 3, kHeads, kHeadDim})
                                   .permute({2, 0, 3, 1, 4});  // [3, batch, heads, length, head_dim]
        const at::Tensor heads = at::scaled_dot_product_attention(qkv.select(0, 0), qkv.select(0, 1), qkv.select(0, 2));
        return out_proj->forward(heads.transpose(1, 2).reshape({batch, length, kHidden}));
    }
    // nn.MultiheadAttention's condition for its fast path, as far as it concerns this
    // model: not training, and no gradient wanted for the input or the weights.
    bool fast_path(const at::Tensor& x) const {
        if (is_training()) return false;
        if (!at::GradMode::is_enabled()) return true;
        return !(x.requires_grad() || in_proj_weight.requires_grad() || in_proj_bias.requires_grad() ||
                 out_proj->weight.requires_grad() || out_proj->bias.requires_grad());
    }
    at::Tensor in_proj_weight, in_proj_bias;
    std::shared_ptr<Linear> out_proj;
};

// torchvision's MLPBlock, a Sequential: 0 Linear, 1 GELU, 2 Dropout, 3 Linear, 4 Dropout.
struct Mlp : torch::nn::Module {
    Mlp()
        : fc1(register_module("0", std::make_shared<Linear>(kHidden, kMlp))),
          fc2(register_module("3", std::make_shared<Linear>(kMlp, kHidden))) {}
    at::Tensor forward(const at::Tensor& x) const { return fc2->forward(at::gelu(fc1->forward(x))); }
    std::shared_ptr<Linear> fc1, fc2;
};

struct EncoderBlock : torch::nn::Module {
    explicit EncoderBlock(std::string name)
        : scope_name(std::move(name)),
          ln_1(register_module("ln_1", std::make_shared<LayerNorm>())),
          self_attention(register_module("self_attention", std::make_shared<SelfAttention>())),
          ln_2(register_module("ln_2", std::make_shared<LayerNorm>())),
          mlp(register_module("mlp", std::make_shared<Mlp>())) {}
    at::Tensor forward(const at::Tensor& input) const {
        const bench::libtorch::ModuleScope scope(scope_name);
        const at::Tensor x = self_attention->forward(ln_1->forward(input)) + input;
        return x + mlp->forward(ln_2->forward(x));
    }
    std::string scope_name;  // its name in a profile: "encoder_layer_0"
    std::shared_ptr<LayerNorm> ln_1;
    std::shared_ptr<SelfAttention> self_attention;
    std::shared_ptr<LayerNorm> ln_2;
    std::shared_ptr<Mlp> mlp;
};

struct Encoder : torch::nn::Module {
    Encoder() {
        pos_embedding = register_parameter("pos_embedding", at::randn({1, kSequence, kHidden}).mul_(0.02), false);
        auto layer_list = register_module("layers", std::make_shared<torch::nn::Module>());
        for (int64_t i = 0; i < kLayers; ++i) {
            const std::string name = "encoder_layer_" + std::to_string(i);
            layers.push_back(layer_list->register_module(name, std::make_shared<EncoderBlock>(name)));
        }
        ln = register_module("ln", std::make_shared<LayerNorm>());
    }
    at::Tensor pos_embedding;
    std::vector<std::shared_ptr<EncoderBlock>> layers;
    std::shared_ptr<LayerNorm> ln;
};

struct VisionTransformer : torch::nn::Module {
    VisionTransformer() {
        // Module construction order fixes the order of the seeded draws.
        conv_proj_weight = trunc_normal({kHidden, 3, kPatchSize, kPatchSize},
                                        std::sqrt(1.0 / static_cast<double>(3 * kPatchSize * kPatchSize)));
        auto conv_proj = register_module("conv_proj", std::make_shared<torch::nn::Module>());
        conv_proj_weight = conv_proj->register_parameter("weight", conv_proj_weight, false);
        conv_proj_bias = conv_proj->register_parameter("bias", trunc_normal({kHidden}, 0.02), false);
        class_token = register_parameter("class_token", trunc_normal({1, 1, kHidden}, 0.02), false);
        encoder = register_module("encoder", std::make_shared<Encoder>());
        auto heads = register_module("heads", std::make_shared<torch::nn::Module>());
        head = heads->register_module("head", std::make_shared<Linear>(kHidden, kClasses));
    }

    // Patch embedding, class token and position embedding: [batch, 197, 768].
    at::Tensor embed(const at::Tensor& images) const {
        const int64_t batch = images.size(0);
        const at::Tensor patches = at::conv2d(images, conv_proj_weight, conv_proj_bias, {kPatchSize, kPatchSize})
                                       .reshape({batch, kHidden, kGrid * kGrid})
                                       .permute({0, 2, 1});
        return at::cat({class_token.expand({batch, -1, -1}), patches}, 1) + encoder->pos_embedding;
    }
    // Final layer norm, the class token's features, the classifier: [batch, 1000].
    at::Tensor classify(const at::Tensor& x) const { return head->forward(encoder->ln->forward(x).select(1, 0)); }
    at::Tensor forward(const at::Tensor& images) const {
        at::Tensor x = embed(images);
        for (const auto& layer : encoder->layers) x = layer->forward(x);
        return classify(x);
    }

    at::Tensor conv_proj_weight, conv_proj_bias, class_token;
    std::shared_ptr<Encoder> encoder;
    std::shared_ptr<Linear> head;
};

// A linear layer run as oneDNN's prepacked convolution (the op behind TorchScript's
// MKLDNN rewrite): x [rows, in] is, without a copy, a 1 x rows image with `in` channels
// in channels-last layout, and the 1x1 convolution's channels-last output is, again
// without a copy, y [rows, out]. The weight is reordered once into oneDNN's blocked
// layout for the input's shape, instead of being repacked by the BLAS on every call.
class PackedLinear {
public:
    static bool available() {
        auto& dispatcher = c10::Dispatcher::singleton();
        return dispatcher.findSchema({"mkldnn_prepacked::conv2d_prepack", ""}).has_value() &&
               dispatcher.findSchema({"mkldnn_prepacked::conv2d_run", ""}).has_value();
    }

    PackedLinear(const at::Tensor& weight, const at::Tensor& bias)
        : weight_(weight.reshape({weight.size(0), weight.size(1), 1, 1}).contiguous()),
          bias_(bias.defined() ? c10::IValue(bias.contiguous()) : c10::IValue()),
          contexts_(std::make_shared<std::map<int64_t, c10::IValue>>()) {}

    // Packs the weight for inputs of `rows` rows (a context holds one input shape).
    const c10::IValue& prepare(int64_t rows) const {
        auto found = contexts_->find(rows);
        if (found != contexts_->end()) return found->second;
        static const c10::OperatorHandle prepack =
            c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn_prepacked::conv2d_prepack", "");
        torch::jit::Stack stack{weight_,
                                bias_,
                                std::vector<int64_t>{1, 1},
                                std::vector<int64_t>{0, 0},
                                std::vector<int64_t>{1, 1},
                                int64_t{1},
                                std::vector<int64_t>{1, weight_.size(1), 1, rows},
                                std::string("none")};
        prepack.callBoxed(&stack);
        return contexts_->emplace(rows, std::move(stack.at(0))).first->second;
    }

    at::Tensor operator()(const at::Tensor& x) const {
        static const c10::OperatorHandle run =
            c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn_prepacked::conv2d_run", "");
        const at::Tensor input = x.contiguous();
        const int64_t rows = input.size(0);
        torch::jit::Stack stack{input.view({1, 1, rows, input.size(1)}).permute({0, 3, 1, 2}), prepare(rows)};
        run.callBoxed(&stack);
        return stack.at(0).toTensor().permute({0, 2, 3, 1}).reshape({rows, weight_.size(0)});
    }

private:
    at::Tensor weight_;  // [out, in, 1, 1]
    c10::IValue bias_;  // a tensor, or None
    std::shared_ptr<std::map<int64_t, c10::IValue>> contexts_;  // packed weights by rows
};

// One of SDPA's fused attention kernels, called directly: the backend that
// at::scaled_dot_product_attention's own selection (at::_fused_sdp_choice) picks for
// inputs like these, chosen once, so that a call skips the selection and SDPA's
// wrapping. q, k, v: [batch, heads, length, head_dim], any strides with the last
// dimension contiguous (views of a packed projection). Returns [batch, heads, length,
// head_dim]; the flash kernels write it laid out as [batch, length, heads, head_dim], so
// that merging the heads back (transpose(1, 2) then reshape) needs no copy.
class FusedAttention {
public:
    FusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v)
        : backend_(static_cast<at::SDPBackend>(at::_fused_sdp_choice(q, k, v))), cpu_(q.is_cpu()) {}

    at::Tensor operator()(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) const {
        switch (backend_) {
            case at::SDPBackend::flash_attention:
                if (cpu_) return std::get<0>(at::_scaled_dot_product_flash_attention_for_cpu(q, k, v));
                return std::get<0>(at::_scaled_dot_product_flash_attention(q, k, v));
            case at::SDPBackend::efficient_attention:
                return std::get<0>(at::_scaled_dot_product_efficient_attention(q, k, v, /*attn_bias=*/{},
                                                                               /*compute_log_sumexp=*/false));
            case at::SDPBackend::cudnn_attention:
                return std::get<0>(at::_scaled_dot_product_cudnn_attention(q, k, v, /*attn_bias=*/{},
                                                                           /*compute_log_sumexp=*/false));
            default:  // no fused kernel takes these inputs: SDPA itself (its math path)
                return at::scaled_dot_product_attention(q, k, v);
        }
    }

    // The kernel, as info.attention names it.
    std::string name() const {
        switch (backend_) {
            case at::SDPBackend::flash_attention:
                return cpu_ ? "_scaled_dot_product_flash_attention_for_cpu" : "_scaled_dot_product_flash_attention";
            case at::SDPBackend::efficient_attention:
                return "_scaled_dot_product_efficient_attention";
            case at::SDPBackend::cudnn_attention:
                return "_scaled_dot_product_cudnn_attention";
            default:
                return "scaled_dot_product_attention (math: no fused kernel takes these inputs)";
        }
    }

private:
    at::SDPBackend backend_;
    bool cpu_;
};

enum class KernelPath {
    onednn_prepacked,  // prepacked oneDNN matrix products, the CPU flash-attention kernel
    fused_attention,  // at::linear products, the fused attention kernel SDPA would pick
    fused_encoder_layer,  // at::_transformer_encoder_layer_fwd per block
};

KernelPath parse_kernel_path(const std::string& name) {
    if (name == "onednn_prepacked") return KernelPath::onednn_prepacked;
    if (name == "fused_attention") return KernelPath::fused_attention;
    if (name == "fused_encoder_layer") return KernelPath::fused_encoder_layer;
    throw std::invalid_argument("parameter 'kernel': '" + name +
                                "' is none of 'onednn_prepacked', 'fused_attention', 'fused_encoder_layer'");
}

const char* kernel_path_name(KernelPath path) {
    switch (path) {
        case KernelPath::onednn_prepacked:
            return "onednn_prepacked";
        case KernelPath::fused_attention:
            return "fused_attention";
        case KernelPath::fused_encoder_layer:
            return "fused_encoder_layer";
    }
    return "?";
}

// The kernelized forward, built once from the model's current parameters (on the
// scenario's device, in its dtype). Every path computes the patch embedding as one
// matrix product over the unfolded 16x16 patches (the convolution's stride is its kernel
// size), with the convolution's bias and the position embedding folded into one addend
// and the class token's row precomputed, and applies the final layer norm to the class
// token only (it normalizes each token on its own). In between, each encoder block is
//   onednn_prepacked:    layer norm, prepacked QKV projection, the CPU flash-attention
//                        kernel on its q, k and v views, prepacked output projection
//                        added in place to the residual, layer norm, prepacked fc1 with
//                        GELU in place, prepacked fc2 added in place to the residual;
//   fused_attention:     the same steps with at::linear for the QKV projection and fc1,
//                        the output projection and fc2 accumulated into the residual by
//                        their GEMMs (addmm, beta 1), and the fused attention kernel
//                        SDPA's selection picks (FusedAttention);
//   fused_encoder_layer: one call of the fused BetterTransformer kernel.
// `attention_kernel` is set to the attention kernel's name.
bench::libtorch::Forward kernelize(const std::shared_ptr<VisionTransformer>& model, KernelPath path, int64_t batch_size,
                                   std::string& attention_kernel) {
    struct Block {
        const EncoderBlock* layer;
        std::optional<PackedLinear> qkv, out, fc1, fc2;
    };
    struct Prepared {
        at::Tensor patch_weight;  // [3*16*16, 768], rows in the order (channel, row, column)
        std::optional<PackedLinear> patch;
        at::Tensor patch_addend;  // [196, 768]: the convolution's bias plus the position embedding
        at::Tensor class_row;  // [1, 1, 768]: the class token plus its position embedding
        std::vector<Block> blocks;
        std::optional<FusedAttention> attention;  // onednn_prepacked, fused_attention
    };
    auto prepared = std::make_shared<Prepared>();
    const at::Tensor& pos = model->encoder->pos_embedding;
    const at::Tensor patch_weight = model->conv_proj_weight.reshape({kHidden, -1});
    prepared->patch_addend = (pos.select(0, 0).slice(0, 1) + model->conv_proj_bias).contiguous();
    prepared->class_row = (model->class_token + pos.slice(1, 0, 1)).contiguous();
    const bool packed = path == KernelPath::onednn_prepacked;
    if (packed) {
        prepared->patch.emplace(patch_weight, at::Tensor());
        prepared->patch->prepare(batch_size * kGrid * kGrid);
    } else {
        prepared->patch_weight = patch_weight.t().contiguous();
    }
    for (const auto& layer : model->encoder->layers) {
        Block& block = prepared->blocks.emplace_back(Block{layer.get(), {}, {}, {}, {}});
        if (!packed) continue;
        const SelfAttention& attention = *layer->self_attention;
        block.qkv.emplace(attention.in_proj_weight, attention.in_proj_bias);
        block.out.emplace(attention.out_proj->weight, attention.out_proj->bias);
        block.fc1.emplace(layer->mlp->fc1->weight, layer->mlp->fc1->bias);
        block.fc2.emplace(layer->mlp->fc2->weight, layer->mlp->fc2->bias);
        for (const auto* linear : {&block.qkv, &block.out, &block.fc1, &block.fc2})
            (*linear)->prepare(batch_size * kSequence);
    }
    if (path == KernelPath::fused_encoder_layer) {
        attention_kernel = "_transformer_encoder_layer_fwd (its _native_multi_head_attention)";
    } else {
        // Chosen for views like the forward's: q, k and v of a packed [rows, 3 * 768] projection.
        const at::Tensor qkv = at::empty({batch_size, kSequence, 3, kHeads, kHeadDim}, pos.options());
        const auto part = [&](int64_t i) { return qkv.select(2, i).transpose(1, 2); };
        prepared->attention.emplace(part(0), part(1), part(2));
        attention_kernel = prepared->attention->name();
    }

    // q, k and v of the packed projection [rows, 3 * 768] attended, the heads merged: [rows, 768].
    const auto attend = [prepared](const at::Tensor& qkv, int64_t batch) {
        const at::Tensor parts = qkv.view({batch, kSequence, 3, kHeads, kHeadDim});
        const auto part = [&](int64_t i) { return parts.select(2, i).transpose(1, 2); };
        return (*prepared->attention)(part(0), part(1), part(2)).transpose(1, 2).reshape({batch * kSequence, kHidden});
    };
    const auto packed_block = [attend](const Block& b, const at::Tensor& input) {
        const int64_t batch = input.size(0);
        const int64_t rows = batch * kSequence;
        const at::Tensor residual = input.reshape({rows, kHidden});
        const at::Tensor x = (*b.out)(attend((*b.qkv)(b.layer->ln_1->forward(residual)), batch)).add_(residual);
        at::Tensor hidden = (*b.fc1)(b.layer->ln_2->forward(x));
        at::gelu_(hidden);
        return (*b.fc2)(hidden).add_(x).view({batch, kSequence, kHidden});
    };
    const auto fused_attention_block = [attend](const Block& b, const at::Tensor& input) {
        const EncoderBlock& l = *b.layer;
        const SelfAttention& a = *l.self_attention;
        const int64_t batch = input.size(0);
        const int64_t rows = batch * kSequence;
        const at::Tensor residual = input.reshape({rows, kHidden});
        const at::Tensor heads = attend(at::linear(l.ln_1->forward(residual), a.in_proj_weight, a.in_proj_bias), batch);
        // x = residual + heads W_out^T + b_out, the sum accumulated by the GEMM.
        const at::Tensor x = at::addmm(residual, heads, a.out_proj->weight.t()).add_(a.out_proj->bias);
        at::Tensor hidden = at::linear(l.ln_2->forward(x), l.mlp->fc1->weight, l.mlp->fc1->bias);
        at::gelu_(hidden);
        return at::addmm(x, hidden, l.mlp->fc2->weight.t()).add_(l.mlp->fc2->bias).view({batch, kSequence, kHidden});
    };
    const auto fused_block = [](const Block& b, const at::Tensor& input) {
        const EncoderBlock& l = *b.layer;
        const SelfAttention& a = *l.self_attention;
        return at::_transformer_encoder_layer_fwd(
            input, kHidden, kHeads, a.in_proj_weight, a.in_proj_bias, a.out_proj->weight, a.out_proj->bias,
            /*use_gelu=*/true, /*norm_first=*/true, kLayerNormEps, l.ln_1->weight, l.ln_1->bias, l.ln_2->weight,
            l.ln_2->bias, l.mlp->fc1->weight, l.mlp->fc1->bias, l.mlp->fc2->weight, l.mlp->fc2->bias);
    };

    return [model, prepared, path, packed_block, fused_attention_block, fused_block](const at::Tensor& images) {
        const int64_t batch = images.size(0);
        const at::Tensor patches = images.reshape({batch, 3, kGrid, kPatchSize, kGrid, kPatchSize})
                                       .permute({0, 2, 4, 1, 3, 5})
                                       .reshape({batch * kGrid * kGrid, 3 * kPatchSize * kPatchSize});
        const at::Tensor embedded = path == KernelPath::onednn_prepacked ? (*prepared->patch)(patches)
                                                                         : at::mm(patches, prepared->patch_weight);
        at::Tensor x = at::cat({prepared->class_row.expand({batch, -1, -1}),
                                embedded.view({batch, kGrid * kGrid, kHidden}).add_(prepared->patch_addend)},
                               1);
        for (const Block& block : prepared->blocks) {
            const bench::libtorch::ModuleScope scope(block.layer->scope_name);  // as eager's, for a profile
            switch (path) {
                case KernelPath::onednn_prepacked:
                    x = packed_block(block, x);
                    break;
                case KernelPath::fused_attention:
                    x = fused_attention_block(block, x);
                    break;
                case KernelPath::fused_encoder_layer:
                    x = fused_block(block, x);
                    break;
            }
        }
        return model->head->forward(model->encoder->ln->forward(x.select(1, 0)));
    };
}

std::shared_ptr<VisionTransformer> make_model() {
    at::manual_seed(kWeightSeed);
    return std::make_shared<VisionTransformer>();
}

}  // namespace

// Parameter `kernel` (onednn_prepacked, the default, fused_attention or
// fused_encoder_layer) picks the kernelized path; where the prepacked oneDNN ops are
// missing (a LibTorch built without oneDNN, or a GPU), the fused encoder layer is used.
BENCH_RUN_BENCHMARK(ctx) {
    const std::shared_ptr<VisionTransformer> model = bench::libtorch::load_model(ctx, make_model);
    bench::libtorch::ModelBenchmark spec;
    spec.model = "vit_b_16";
    spec.throughput_unit = "images/s";
    spec.module = model;
    spec.expected_parameters = kParameters;
    spec.forward = [model](const at::Tensor& images) { return model->forward(images); };
    spec.make_input = [](int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
        at::manual_seed(kInputSeed);
        return at::randn({batch_size, 3, kImageSize, kImageSize}).to(device, dtype);
    };
    bench::libtorch::use_image_dataset(ctx, spec);  // --param dataset=DIR: real images instead
    if (ctx.config().variant != bench::Variant::kernelized)  // the eager forward, traced or not
        ctx.set_info("attention",
                     "_native_multi_head_attention (nn.MultiheadAttention's inference fast path: batched products "
                     "and softmax on the CPU, SDPA's fused kernel on CUDA)");
    spec.kernelize = [model, &ctx](const bench::libtorch::KernelRegistry&) {
        KernelPath path = parse_kernel_path(ctx.params().get_string("kernel", "onednn_prepacked"));
        if (path == KernelPath::onednn_prepacked && !(model->conv_proj_weight.is_cpu() && PackedLinear::available()))
            path = KernelPath::fused_encoder_layer;
        ctx.set_info("kernel_path", kernel_path_name(path));
        std::string attention;
        bench::libtorch::Forward forward = kernelize(model, path, ctx.config().batch_size, attention);
        ctx.set_info("attention", attention);
        return forward;
    };
    // The model as Python defines it (vit_b_16_model.py), for the AOTInductor compile.
    bench::libtorch::run_model_benchmark(ctx, spec, {"vit_b_16", vit_b_16_model_py, {}});
}

// Training steps: the same model and weights, the same seeded input, labels drawn from
// their own seed, the optimizer from --param optimizer (or --axis optimizer=sgd,adamw).
// Eager only.
// Training steps run in eager only: compiled and kernelized are inference variants.
BENCH_BENCHMARK_VARIANTS(train, bench::eager_bit);

BENCH_BENCHMARK(train, ctx) {
    bench::libtorch::TrainingBenchmark spec;
    spec.model = "vit_b_16";
    spec.throughput_unit = "images/s";
    spec.expected_parameters = kParameters;
    spec.build = [] {
        const std::shared_ptr<VisionTransformer> model = make_model();
        return bench::libtorch::TrainableModel{model,
                                               [model](const at::Tensor& images) { return model->forward(images); }};
    };
    spec.make_input = [](int64_t batch_size, torch::Device device, torch::ScalarType dtype) {
        at::manual_seed(kInputSeed);
        return at::randn({batch_size, 3, kImageSize, kImageSize}).to(device, dtype);
    };
    spec.make_targets = [](int64_t batch_size, torch::Device device) {
        at::Generator gen = at::detail::createCPUGenerator(kInputSeed + 1);
        return at::randint(kClasses, {batch_size}, gen, at::TensorOptions().dtype(at::kLong)).to(device);
    };
    bench::libtorch::run_training_benchmark(ctx, spec);
}
