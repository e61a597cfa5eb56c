// gpt2: text generation with a GPT-2 decoder written with torch::nn, in three variants.
//
// The model is HF's GPT2LMHeadModel: token and position embeddings, n_layer pre-norm
// blocks (LayerNorm eps 1e-5; causal self-attention whose q, k and v come from one
// packed [d -> 3d] projection `c_attn`, then `c_proj`; an MLP d -> 4d -> d with
// "gelu_new", the tanh approximation of GELU), a final `ln_f`, and an LM head tied to
// the token embedding. HF's Conv1D keeps its weights as [in, out] where torch::nn's
// Linear keeps [out, in]: the parameter count is the same. Weights are random, seeded.
//
// One generation: a prompt of `prompt_tokens` seeded random ids per sequence is
// prefilled, then `num_tokens_to_generate` tokens are decoded greedily (argmax), one
// step per token. Keys and values live in a static cache preallocated per layer as
// [batch, heads, max_len, head_dim], max_len = prompt_tokens + num_tokens_to_generate - 1
// (every position that is ever fed to the model); each step writes its keys and values
// at its positions. The model returns the logits of the last position only, as HF's
// generate() asks for (logits_to_keep=1); all three variants do so.
//
// Variants (the same weights, the same generation loop):
//   eager       the module's forward pass as written. Attention is HF's "sdpa"
//               attention, at::scaled_dot_product_attention: the prefill attends over its
//               own keys with is_causal and no mask, as HF does; a decode step attends over
//               the whole static cache with a boolean mask built from the position tensor
//               (keys after the query's position are masked), as HF's StaticCache does.
//               Neither has a shape that depends on the step, so it is also what the
//               tracer captures.
//   compiled    two compiled forms of that forward pass, one at the prompt's shape
//               (prefill) and one at one token (decode), by --compile-modes: in an
//               AOTInductor mode (default, max-autotune) two packages of the same model as
//               Python defines it (gpt2_model.py, the C++ weights loaded by name,
//               bench::libtorch::compile_package); in a TorchScript mode (torchscript, ...)
//               two graphs traced with bench::libtorch::compile_traced, then frozen and
//               optimized. Either way the caches are inputs, written in place (index_copy_
//               at the position tensor), so each package or graph has fixed shapes and
//               serves every step.
//   kernelized  a hand-written pass over the same weights (see KernelizedGpt2): single-row
//               activations (decode at batch 1, and the LM head's one row per sequence at
//               batch 1) go through GEMV instead of GEMM (float32: OpenBLAS sgemv reads the
//               weight once, where its GEMM packs it first: 3-5x faster per projection
//               here); in float32 the residual add is fused into the output projections'
//               accumulation (beta = 1, in place); 1/sqrt(head_dim) is folded into the
//               packed QKV weights; keys and values are copied straight from the packed
//               QKV output into the cache; attention reads only the filled prefix of the
//               cache, causal in the prefill and with no mask at all in decode steps, and
//               runs either (--param attention=fused, the default off the CPU) as the
//               fused kernel that SDPA's own selection picks (at::_fused_sdp_choice),
//               called directly on views of the packed QKV output: on CUDA flash,
//               memory-efficient or cuDNN attention, on the CPU the flash-attention
//               kernel; or (attention=bmm, the default on the CPU) as batched products
//               and softmax with the causal mask folded into the score GEMM (baddbmm).
//               On the CPU at GPT-2's sizes (12 heads of 64, a 32-token prompt, one
//               thread) the flash kernel was 1-2% slower a decode step and 3-8% slower
//               a prefill than bmm. GELU is one in-place tanh-GELU kernel instead of
//               HF's eight elementwise ops. info.attention names the attention kernels
//               of every variant.
//
// Accuracy: compiled and kernelized generate once next to eager before they are
// measured. In float32 (and float64) the generated token ids must equal eager's, and
// the first step's logits must match within the dtype's tolerance
// (check_against_reference). In bfloat16 different kernels round differently and a
// greedy choice between near-equal logits may flip, after which the sequences diverge:
// only the first step's logits are checked, against eager's forward pass in float32 on
// the same bf16-rounded weights (see float32_reference below), and the share of tokens
// equal to bf16 eager's is recorded (token_agreement).
//
// Measurements, per measured generation: time_to_first_token (prefill plus the first
// token's argmax, ms), time_per_output_token (mean time of the decode steps after the
// first token, ms), latency (the whole generation, ms), tokens_per_second (see below);
// decode_bandwidth (GB/s: the least a decode step moves, every parameter and the keys and
// values attended, over time_per_output_token) and, on CUDA, fraction_of_peak_decode_bandwidth
// (against the GPU memory's peak: the memory-bandwidth utilization of decoding).
//
// Serving (--load, docs/serving.md): the eager model serves generations (a prompt by the
// query's index, num_tokens_to_generate tokens, greedy) with continuous batching
// (Context::serve_steps) over a KV cache of --max-batch slots, [slots, heads, max_len,
// head_dim] per layer: a query that joins is prefilled alone into its slot, then decodes
// one token a step together with the others, each at its own position of its own slot,
// its attention masked past that position (ContinuousGpt2). Before serving, three
// queries that join one step apart must generate the tokens each generates alone on the
// benchmark's batch-1 path (check_continuous_batching), or the scenario fails. Compiled
// and kernelized do not serve (skipped): their graphs and kernels take one position for
// the whole batch.
//
// Parameters (YAML `params:` or --param):
//   prompt_tokens  prompt length (default 32); for `train`, the length of a sequence
//   seed           seed of the weights and the prompt (default 42)
//   attention      kernelized only: fused (the default off the CPU) or bmm (the
//                  default on the CPU), as above
//   optimizer      train only: sgd (the default) or adamw; also an axis
//
// A second benchmark, `train`: causal language-model training steps of the eager model
// (bench/torch/training.hpp): sequences of prompt_tokens seeded ids, the logits of every
// position against the next id (cross-entropy), backward, an optimizer step; timed apart,
// with the memory they take measured.
#include <bench/plugin.hpp>
#include <bench/torch/accuracy.hpp>
#include <bench/torch/compile.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/flops.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/profiling.hpp>
#include <bench/torch/training.hpp>
#include <bench_embedded/gpt2_model_py.hpp>

#include "gpt2_model.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/SDPBackend.h>
#include <ATen/TensorIndexing.h>
#include <ATen/ops/randint.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/types.h>
#include <torch/utils.h>
#include <torch/version.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

BENCH_PLUGIN("gpt2", "1.2.0", .axes = "variant,batch_size,dtype,device,threads,compile_mode,optimizer");

namespace {

namespace lt = bench::libtorch;
using torch::Tensor;

// The model: gpt2_model.hpp.
using namespace gpt2_model;

// ---------------------------------------------------------------------------------
// Work: multiply-accumulates of one generation, counted from the architecture (the
// model's useful work: attention over the keys at or before each query; the decode
// steps of the eager and compiled variants also touch the masked rest of the static
// cache).

lt::FlopCount generation_work(const Gpt2Config& c, int64_t batch, int64_t prompt, int64_t new_tokens) {
    const double d = static_cast<double>(c.n_embd), layers = static_cast<double>(c.n_layer);
    const double b = static_cast<double>(batch), p = static_cast<double>(prompt);
    const double linear_per_token = 12.0 * d * d * layers;  // qkv 3d^2, proj d^2, mlp 8d^2
    double tokens = p, key_pairs = p * (p + 1) / 2;  // prefill
    for (int64_t i = 1; i < new_tokens; ++i) {  // decode steps: one token at position prompt+i-1
        tokens += 1;
        key_pairs += p + static_cast<double>(i);
    }
    lt::FlopCount count;
    count.macs_by_op["linear"] = b * tokens * linear_per_token;
    count.macs_by_op["attention"] = b * 2.0 * d * layers * key_pairs;  // q.k and p.v
    count.macs_by_op["lm_head"] = b * static_cast<double>(new_tokens) * d * static_cast<double>(c.vocab_size);
    for (const auto& [op, macs] : count.macs_by_op) count.macs += macs;
    return count;
}

/// The least memory one decode step moves, averaged over a generation's decode steps:
/// every parameter read once (the batch shares them; the tied LM head is the token
/// embedding, read once) and the keys and values of the positions each token attends to.
/// Activations are left out: at decode they are a few rows, against megabytes of weights.
double decode_bytes_per_step(const Gpt2Config& c, int64_t batch, int64_t prompt, int64_t new_tokens,
                             std::size_t element_bytes) {
    double keys = 0;  // decode step i attends to prompt + i positions
    for (int64_t i = 1; i < new_tokens; ++i) keys += static_cast<double>(prompt + i);
    const double mean_keys = new_tokens > 1 ? keys / static_cast<double>(new_tokens - 1) : 0.0;
    const double cache = 2.0 * static_cast<double>(c.n_layer * batch * c.n_embd) * mean_keys;  // keys and values
    return static_cast<double>(element_bytes) * (static_cast<double>(parameter_count(c)) + cache);
}

// ---------------------------------------------------------------------------------
// Generation

/// One model step: writes the keys and values of `ids` [B, T] into the caches at
/// `positions` [T] (= start ... start+T-1) and returns the last position's logits [B, V].
using StepFn = std::function<Tensor(const Tensor& ids, const Tensor& positions, int64_t start)>;

struct Stepper {
    StepFn prefill;
    StepFn decode;
};

struct GenerationInputs {
    Tensor prompt;  // [B, P] token ids
    Tensor prompt_positions;  // [P]: 0 ... P-1
    std::vector<Tensor> decode_positions;  // [1] each, indexed by position
    int64_t new_tokens = 0;
};

struct Generation {
    Tensor tokens;  // [B, new_tokens]
    Tensor first_logits;  // [B, V]: the logits the first token was chosen from
    double ttft_ms = 0;
    double total_ms = 0;
};

double ms_between(bench::Clock::time_point a, bench::Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

Generation generate(const Stepper& step, const GenerationInputs& in, const torch::Device& device) {
    const int64_t prompt_len = in.prompt.size(1);
    std::vector<Tensor> chosen;
    chosen.reserve(static_cast<std::size_t>(in.new_tokens));
    Generation g;

    lt::synchronize(device);
    const auto start = bench::Clock::now();
    g.first_logits = step.prefill(in.prompt, in.prompt_positions, 0);
    Tensor next = g.first_logits.argmax(-1, /*keepdim=*/true);  // [B, 1]
    chosen.push_back(next);
    lt::synchronize(device);
    const auto first = bench::Clock::now();
    for (int64_t i = 1; i < in.new_tokens; ++i) {
        const int64_t pos = prompt_len + i - 1;  // where the previous token goes
        next = step.decode(next, in.decode_positions[static_cast<std::size_t>(pos)], pos).argmax(-1, true);
        chosen.push_back(next);
    }
    lt::synchronize(device);
    const auto stop = bench::Clock::now();

    g.tokens = torch::cat(chosen, 1);
    g.ttft_ms = ms_between(start, first);
    g.total_ms = ms_between(start, stop);
    return g;
}

// ---------------------------------------------------------------------------------
// Eager

Stepper eager_stepper(const Gpt2& model, std::vector<Tensor> caches) {
    auto shared = std::make_shared<std::vector<Tensor>>(std::move(caches));
    StepFn fn = [impl = model.ptr(), shared](const Tensor& ids, const Tensor& positions, int64_t) {
        return impl->forward(ids, positions, *shared);
    };
    return {fn, fn};
}

// ---------------------------------------------------------------------------------
// Compiled: the eager forward traced at the prefill shape and at the decode shape.

struct CompiledStepper {
    Stepper stepper;
    double compile_time_ms = 0;
    std::vector<std::string> passes;
};

CompiledStepper compiled_stepper(const Gpt2& model, std::vector<Tensor> caches, const GenerationInputs& in,
                                 const std::string& mode) {
    auto shared = std::make_shared<std::vector<Tensor>>(std::move(caches));
    // inputs: ids, positions, then the 2 * n_layer caches (written in place by the graph)
    const auto traced_forward = [impl = model.ptr()](const std::vector<Tensor>& inputs) {
        std::vector<Tensor> layer_caches(inputs.begin() + 2, inputs.end());
        return impl->forward(inputs[0], inputs[1], layer_caches);
    };
    const auto example = [&](const Tensor& ids, const Tensor& positions) {
        std::vector<Tensor> inputs{ids, positions};
        inputs.insert(inputs.end(), shared->begin(), shared->end());
        return inputs;
    };
    auto prefill = std::make_shared<lt::CompiledModel>(
        lt::compile_traced(traced_forward, example(in.prompt, in.prompt_positions), mode));
    auto decode = std::make_shared<lt::CompiledModel>(
        lt::compile_traced(traced_forward,
                           // Any position serves: it is an input of the graph.
                           example(in.prompt.narrow(1, 0, 1).contiguous(), in.decode_positions.back()), mode));

    const auto call = [shared](const std::shared_ptr<lt::CompiledModel>& graph) {
        return [graph, shared](const Tensor& ids, const Tensor& positions, int64_t) {
            std::vector<torch::jit::IValue> inputs;
            inputs.reserve(shared->size() + 2);
            inputs.emplace_back(ids);
            inputs.emplace_back(positions);
            for (const Tensor& cache : *shared) inputs.emplace_back(cache);
            return graph->module.forward(std::move(inputs)).toTensor();
        };
    };
    CompiledStepper out;
    out.stepper = {call(prefill), call(decode)};
    out.compile_time_ms = prefill->compile_time_ms + decode->compile_time_ms;
    out.passes = prefill->passes;
    return out;
}

// ---------------------------------------------------------------------------------
// Compiled in an AOTInductor mode (default, max-autotune): the same forward pass as
// Python defines it (gpt2_model.py), exported and compiled into two packages, a prefill
// at the prompt's shape and a decode step at one token. As with the traced graphs, the
// caches are inputs that each package writes in place, so that both serve one cache.

lt::PythonModel python_model(const Gpt2Config& c, const std::string& step) {
    return {"gpt2-" + step,
            gpt2_model_py,
            {{"n_layer", std::to_string(c.n_layer)},
             {"n_head", std::to_string(c.n_head)},
             {"n_embd", std::to_string(c.n_embd)},
             {"vocab_size", std::to_string(c.vocab_size)},
             {"n_ctx", std::to_string(c.n_ctx)}}};
}

Stepper aot_stepper(bench::Context& ctx, const Gpt2& model, const Gpt2Config& arch, std::vector<Tensor> caches,
                    const GenerationInputs& in, torch::ScalarType dtype) {
    auto shared = std::make_shared<std::vector<Tensor>>(std::move(caches));
    const auto zeros = [&] {
        std::vector<Tensor> fresh;
        for (const Tensor& cache : *shared) fresh.push_back(torch::zeros_like(cache));
        return fresh;
    };
    // inputs: ids, positions, then the 2 * n_layer caches; the reference is the C++
    // step's logits on the same inputs (caches of its own, zero as the inputs' are).
    const auto compile = [&](const std::string& step, const Tensor& ids, const Tensor& positions) {
        std::vector<Tensor> reference_caches = zeros();
        const Tensor reference = model.ptr()->forward(ids, positions, reference_caches);
        std::vector<Tensor> inputs{ids, positions};
        for (Tensor& cache : zeros()) inputs.push_back(std::move(cache));
        return std::make_shared<lt::AotModel>(
            lt::compile_package(ctx, *model, python_model(arch, step), inputs, reference, dtype));
    };
    const auto prefill = compile("prefill", in.prompt, in.prompt_positions);
    // Any position serves: it is an input of the package.
    const auto decode = compile("decode", in.prompt.narrow(1, 0, 1).contiguous(), in.decode_positions.back());
    lt::record_packages(ctx, {prefill.get(), decode.get()});

    const auto call = [shared](const std::shared_ptr<lt::AotModel>& package) {
        return [package, shared](const Tensor& ids, const Tensor& positions, int64_t) {
            std::vector<Tensor> inputs{ids, positions};
            inputs.insert(inputs.end(), shared->begin(), shared->end());
            return (*package)(inputs).at(0);
        };
    };
    return {call(prefill), call(decode)};
}

// ---------------------------------------------------------------------------------
// Kernelized: the same weights, prepared once, run by a hand-written forward pass.

/// The backend at::scaled_dot_product_attention's own selection (at::_fused_sdp_choice)
/// picks for these inputs.
at::SDPBackend sdpa_choice(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                           bool causal, std::optional<double> scale = std::nullopt) {
    return static_cast<at::SDPBackend>(at::_fused_sdp_choice(q, k, v, mask, 0.0, causal, scale));
}

std::string backend_name(at::SDPBackend backend) {
    switch (backend) {
        case at::SDPBackend::flash_attention:
            return "flash_attention";
        case at::SDPBackend::efficient_attention:
            return "efficient_attention";
        case at::SDPBackend::cudnn_attention:
            return "cudnn_attention";
        default:
            return "math";
    }
}

/// For info.attention of eager and compiled: what SDPA runs in a prefill and in a decode
/// step of the eager forward pass, on the scenario's device and dtype.
std::string eager_attention(const Gpt2Config& c, int64_t batch, int64_t prompt, int64_t max_len,
                            const torch::TensorOptions& options) {
    const Tensor q = at::empty({batch, c.n_head, prompt, c.head_dim()}, options);
    const Tensor cache = at::empty({batch, c.n_head, max_len, c.head_dim()}, options);
    const Tensor visible = at::ones({1, max_len}, options.dtype(torch::kBool));
    return "scaled_dot_product_attention: prefill " +
           backend_name(sdpa_choice(q, cache.narrow(2, 0, prompt), cache.narrow(2, 0, prompt), std::nullopt, true)) +
           " (is_causal, no mask), decode " +
           backend_name(sdpa_choice(q.narrow(2, 0, 1), cache, cache, visible, false)) +
           " (boolean mask over the static cache)";
}

/// How the kernelized variant computes attention (--param attention=...).
enum class KernelAttention {
    fused,  // the fused kernel SDPA's selection picks, called directly
    bmm,  // batched products and softmax, the causal mask folded into the score GEMM
};

class KernelizedGpt2 {
public:
    KernelizedGpt2(Gpt2Impl& model, const Gpt2Config& c, std::vector<Tensor> caches, KernelAttention attention)
        : c_(c), caches_(std::move(caches)), attention_(attention) {
        torch::NoGradGuard no_grad;
        const int64_t d = c.n_embd;
        const double q_scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim()));
        for (const Block& block : model.blocks) {
            Layer l;
            l.name = block->scope_name;
            l.ln1_w = block->ln_1->weight;
            l.ln1_b = block->ln_1->bias;
            l.ln2_w = block->ln_2->weight;
            l.ln2_b = block->ln_2->bias;
            // Scaling the query rows of the packed projection scales q, hence the scores.
            l.qkv_w = block->attn->c_attn->weight.clone();
            l.qkv_b = block->attn->c_attn->bias.clone();
            l.qkv_w.narrow(0, 0, d).mul_(q_scale);
            l.qkv_b.narrow(0, 0, d).mul_(q_scale);
            l.proj_w = block->attn->c_proj->weight;
            l.proj_b = block->attn->c_proj->bias;
            l.fc_w = block->mlp->c_fc->weight;
            l.fc_b = block->mlp->c_fc->bias;
            l.fc2_w = block->mlp->c_proj->weight;
            l.fc2_b = block->mlp->c_proj->bias;
            layers_.push_back(std::move(l));
        }
        wte_ = model.wte->weight;
        wpe_ = model.wpe->weight;
        lnf_w_ = model.ln_f->weight;
        lnf_b_ = model.ln_f->bias;
        gemv_ = wte_.scalar_type() == torch::kFloat32 || wte_.scalar_type() == torch::kFloat64;
        if (attention_ == KernelAttention::fused) {
            // SDPA's choice for a prefill (causal, keys as many as queries) and for a decode
            // step (one query), on q, k and v shaped and strided as step() passes them.
            const int64_t heads = c.n_head, hd = c.head_dim();
            const Tensor q = at::empty({1, 2, 3, heads, hd}, wte_.options()).select(2, 0).transpose(1, 2);
            const Tensor kv = at::empty({1, heads, 2, hd}, wte_.options());
            prefill_ = sdpa_choice(q, kv, kv, std::nullopt, /*causal=*/true, 1.0);
            decode_ = sdpa_choice(q.narrow(2, 0, 1), kv, kv, std::nullopt, /*causal=*/false, 1.0);
        }
    }

    /// The kernels, for info.kernels.
    std::string description() const {
        std::string attention;
        if (attention_ == KernelAttention::fused)
            attention = "attention=filled_prefix_only," + backend_name(prefill_) + "(prefill,causal)," +
                        backend_name(decode_) + "(decode,unmasked)";
        else
            attention = "attention=filled_prefix_only,bmm_softmax_bmm,causal_mask_in_baddbmm(prefill),unmasked(decode)";
        return "qkv=packed_c_attn_with_folded_1/sqrt(hd); single_row_linear=gemv(float32); "
               "residual_add=fused_into_proj_gemm_accumulation(float32); kv_cache=in_place_copy_from_packed_qkv; " +
               attention + "; gelu=in_place_tanh_gelu";
    }

    /// The attention kernels, for info.attention.
    std::string attention_kernels() const {
        if (attention_ == KernelAttention::bmm) return "bmm, _softmax, bmm (prefill: baddbmm with the causal mask)";
        return "prefill " + backend_name(prefill_) + " (causal), decode " + backend_name(decode_) + " (no mask)";
    }

    /// ids [B, T] at positions start ... start+T-1; returns the last position's logits.
    Tensor step(const Tensor& ids, int64_t start) {
        const int64_t batch = ids.size(0), tokens = ids.size(1), rows = batch * tokens;
        const int64_t d = c_.n_embd, heads = c_.n_head, hd = c_.head_dim(), end = start + tokens;

        // Residual stream [B*T, D]: token embedding plus the positions' rows of wpe.
        Tensor x = at::embedding(wte_, ids.reshape({rows}));
        x.view({batch, tokens, d}).add_(wpe_.narrow(0, start, tokens));

        // A prefill after position 0 (never asked for by generate()) is not causal in
        // SDPA's sense (query i sees keys up to start + i): the bmm path takes it.
        const bool fused = attention_ == KernelAttention::fused && (tokens == 1 || start == 0);
        // Prefill: key j is visible to query i iff j <= start + i; folded into the score GEMM.
        Tensor mask_bias;
        if (tokens > 1 && !fused)
            mask_bias = at::full({tokens, end}, -std::numeric_limits<double>::infinity(), x.options()).triu_(start + 1);

        for (std::size_t i = 0; i < layers_.size(); ++i) {
            const Layer& l = layers_[i];
            const lt::ModuleScope scope(l.name);  // as eager's, for a profile
            Tensor& k_cache = caches_[2 * i];
            Tensor& v_cache = caches_[2 * i + 1];

            const Tensor a = at::layer_norm(x, {d}, l.ln1_w, l.ln1_b, layer_norm_eps);
            const Tensor qkv = linear(a, l.qkv_w, l.qkv_b).view({batch, tokens, 3, heads, hd});
            k_cache.narrow(2, start, tokens).copy_(qkv.select(2, 1).transpose(1, 2));
            v_cache.narrow(2, start, tokens).copy_(qkv.select(2, 2).transpose(1, 2));
            Tensor attn;
            if (fused) {
                // q [B, H, T, hd] a view of the packed projection; the output laid out as
                // [B, T, H, hd] by the flash kernels, so merging the heads is a view too.
                attn = attend(tokens > 1 ? prefill_ : decode_, qkv.select(2, 0).transpose(1, 2),
                              k_cache.narrow(2, 0, end), v_cache.narrow(2, 0, end), tokens > 1)
                           .transpose(1, 2)
                           .reshape({rows, d});
            } else {
                const Tensor q = qkv.select(2, 0).transpose(1, 2).reshape({batch * heads, tokens, hd});
                const Tensor keys = k_cache.narrow(2, 0, end).view({batch * heads, end, hd});
                const Tensor values = v_cache.narrow(2, 0, end).view({batch * heads, end, hd});
                Tensor scores =
                    tokens > 1 ? at::baddbmm(mask_bias, q, keys.transpose(1, 2)) : at::bmm(q, keys.transpose(1, 2));
                scores = at::_softmax(scores, -1, false);
                attn = at::bmm(scores, values);  // [B*H, T, hd]
                attn = tokens > 1 ? attn.view({batch, heads, tokens, hd}).transpose(1, 2).reshape({rows, d})
                                  : attn.view({rows, d});  // one token: [B, H, hd] is [B, D]
            }
            accumulate_linear(x, attn, l.proj_w, l.proj_b);

            Tensor f = linear(at::layer_norm(x, {d}, l.ln2_w, l.ln2_b, layer_norm_eps), l.fc_w, l.fc_b);
            at::gelu_(f, "tanh");
            accumulate_linear(x, f, l.fc2_w, l.fc2_b);
        }

        Tensor last = x.view({batch, tokens, d}).select(1, tokens - 1);
        last = at::layer_norm(last, {d}, lnf_w_, lnf_b_, layer_norm_eps);
        return linear(last, wte_, Tensor());
    }

private:
    struct Layer {
        std::string name;
        Tensor ln1_w, ln1_b, ln2_w, ln2_b, qkv_w, qkv_b, proj_w, proj_b, fc_w, fc_b, fc2_w, fc2_b;
    };

    /// The chosen fused kernel, called directly (q already carries 1/sqrt(hd): scale 1).
    static Tensor attend(at::SDPBackend backend, const Tensor& q, const Tensor& k, const Tensor& v, bool causal) {
        switch (backend) {
            case at::SDPBackend::flash_attention:
                if (q.is_cpu())
                    return std::get<0>(at::_scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, {}, 1.0));
                return std::get<0>(at::_scaled_dot_product_flash_attention(q, k, v, 0.0, causal, false, 1.0));
            case at::SDPBackend::efficient_attention:
                return std::get<0>(at::_scaled_dot_product_efficient_attention(q, k, v, {}, false, 0.0, causal, 1.0));
            case at::SDPBackend::cudnn_attention:
                return std::get<0>(
                    at::_scaled_dot_product_cudnn_attention(q, k, v, {}, false, 0.0, causal, false, 1.0));
            default:
                return at::scaled_dot_product_attention(q, k, v, {}, 0.0, causal, 1.0);
        }
    }

    /// a [M, K] times w [N, K]^T plus b: one GEMV when M is 1 (OpenBLAS sgemv reads the
    /// weight once; ATen's GEMM path for one row is several times slower here).
    Tensor linear(const Tensor& a, const Tensor& w, const Tensor& b) const {
        if (gemv_ && a.size(0) == 1) {
            const Tensor row = a.reshape({a.size(1)});
            return (b.defined() ? at::addmv(b, w, row) : at::mv(w, row)).view({1, w.size(0)});
        }
        return at::linear(a, w, b);
    }

    /// x += a w^T + b in place. In float32 and float64 the GEMM (or GEMV) accumulates
    /// into the residual stream (beta = 1). In bfloat16 that would round the residual
    /// stream twice per projection where eager rounds it once, which moves the logits
    /// measurably further from a float64 computation than eager's are: there the
    /// projection is computed apart and added, rounded as eager rounds it.
    void accumulate_linear(Tensor& x, const Tensor& a, const Tensor& w, const Tensor& b) const {
        if (!gemv_) {
            x.add_(at::linear(a, w, b));
            return;
        }
        if (a.size(0) == 1) {
            Tensor row = x.view({x.size(1)});
            row.addmv_(w, a.reshape({a.size(1)}));
        } else {
            x.addmm_(a, w.t());
        }
        x.add_(b);
    }

    Gpt2Config c_;
    std::vector<Tensor> caches_;
    KernelAttention attention_;
    at::SDPBackend prefill_ = at::SDPBackend::math, decode_ = at::SDPBackend::math;  // fused: SDPA's choices
    std::vector<Layer> layers_;
    Tensor wte_, wpe_, lnf_w_, lnf_b_;
    bool gemv_ = false;
};

KernelAttention parse_kernel_attention(const std::string& name) {
    if (name == "fused") return KernelAttention::fused;
    if (name == "bmm") return KernelAttention::bmm;
    throw std::invalid_argument("gpt2: parameter 'attention': '" + name + "' is neither 'fused' nor 'bmm'");
}

Stepper kernelized_stepper(const std::shared_ptr<KernelizedGpt2>& kernels) {
    StepFn fn = [kernels](const Tensor& ids, const Tensor&, int64_t start) { return kernels->step(ids, start); };
    return {fn, fn};
}

// ---------------------------------------------------------------------------------
// Serving (--load): continuous batching over a KV cache of --max-batch slots.

/// A query that joins is prefilled alone into its slot (the eager forward pass on the
/// slot's rows of the caches); the queries already in the batch then decode one token
/// each, together, each at its own position of its own slot (Gpt2Impl::decode_rows).
class ContinuousGpt2 {
public:
    ContinuousGpt2(Gpt2 model, const Gpt2Config& c, int64_t slots, int64_t max_len, const torch::TensorOptions& cache,
                   const Tensor& prompt_positions)
        : model_(std::move(model)),
          caches_(make_caches(c, slots, max_len, cache)),
          position_(static_cast<std::size_t>(slots), 0),
          last_(static_cast<std::size_t>(slots), 0),
          prompt_positions_(prompt_positions) {}

    /// Prefills `prompt` [1, P] into `slot`; returns the query's first token.
    int64_t join(int64_t slot, const Tensor& prompt) {
        std::vector<Tensor> rows;
        for (const Tensor& cache : caches_) rows.push_back(cache.narrow(0, slot, 1));  // written in place
        const int64_t token = model_->forward(prompt, prompt_positions_, rows).argmax(-1).item<int64_t>();
        const auto at = static_cast<std::size_t>(slot);
        position_[at] = prompt.size(1);
        last_[at] = token;
        return token;
    }

    /// The next token of the query in each of `slots`, together.
    std::vector<int64_t> decode(const std::vector<int64_t>& slots) {
        std::vector<int64_t> ids, positions;
        for (const int64_t slot : slots) {
            ids.push_back(last_[static_cast<std::size_t>(slot)]);
            positions.push_back(position_[static_cast<std::size_t>(slot)]);
        }
        const auto index = torch::TensorOptions().dtype(torch::kInt64).device(prompt_positions_.device());
        const Tensor logits = model_->decode_rows(torch::tensor(ids, index), torch::tensor(positions, index),
                                                  torch::tensor(slots, index), caches_);
        const Tensor chosen = logits.argmax(-1).to(torch::kCPU);
        std::vector<int64_t> tokens;
        for (std::size_t i = 0; i < slots.size(); ++i) {
            const auto at = static_cast<std::size_t>(slots[i]);
            tokens.push_back(chosen[static_cast<int64_t>(i)].item<int64_t>());
            last_[at] = tokens.back();
            ++position_[at];
        }
        return tokens;
    }

private:
    Gpt2 model_;
    std::vector<Tensor> caches_;
    std::vector<int64_t> position_, last_;  // per slot: where its next token goes, and its last token
    Tensor prompt_positions_;
};

/// The serving path's tokens against a generation alone: `prompts` [Q, P] join a batch
/// one step apart (so that they decode at other positions, in other slots, beside
/// each other), and each query's tokens must equal those the batch-1 generation (the
/// non-serving benchmark's eager path) chooses for its prompt alone.
void check_continuous_batching(bench::Context& ctx, const Gpt2& model, const Gpt2Config& c, const Tensor& prompts,
                               int64_t new_tokens, int64_t max_len, const torch::TensorOptions& cache,
                               const torch::Device& device) {
    const int64_t queries = prompts.size(0), prompt_len = prompts.size(1);
    GenerationInputs alone;
    alone.prompt_positions = torch::arange(prompt_len, torch::TensorOptions().dtype(torch::kInt64).device(device));
    for (int64_t p = 0; p < max_len; ++p)
        alone.decode_positions.push_back(torch::full({1}, p, alone.prompt_positions.options()));
    alone.new_tokens = new_tokens;
    ContinuousGpt2 batch(model, c, queries, max_len, cache, alone.prompt_positions);
    std::vector<std::vector<int64_t>> batched(static_cast<std::size_t>(queries));
    for (int64_t step = 0;; ++step) {
        std::vector<int64_t> decoding;
        for (int64_t q = 0; q < queries; ++q) {
            const auto at = static_cast<std::size_t>(q);
            if (q == step) batched[at].push_back(batch.join(q, prompts.narrow(0, q, 1)));
            else if (q < step && static_cast<int64_t>(batched[at].size()) < new_tokens) decoding.push_back(q);
        }
        if (!decoding.empty()) {
            const std::vector<int64_t> tokens = batch.decode(decoding);
            for (std::size_t i = 0; i < decoding.size(); ++i)
                batched[static_cast<std::size_t>(decoding[i])].push_back(tokens[i]);
        }
        if (step >= queries && decoding.empty()) break;
    }
    for (int64_t q = 0; q < queries; ++q) {
        alone.prompt = prompts.narrow(0, q, 1);
        const Tensor tokens =
            generate(eager_stepper(model, make_caches(c, 1, max_len, cache)), alone, device).tokens.to(torch::kCPU);
        for (int64_t t = 0; t < new_tokens; ++t) {
            const int64_t expected = tokens[0][t].item<int64_t>();
            const int64_t got = batched[static_cast<std::size_t>(q)][static_cast<std::size_t>(t)];
            if (got != expected)
                throw std::runtime_error("gpt2: continuous batching generated other tokens than a query alone: query " +
                                         std::to_string(q) + " of " + std::to_string(queries) + ", token " +
                                         std::to_string(t) + ": " + std::to_string(got) + " instead of " +
                                         std::to_string(expected));
        }
    }
    ctx.set_info("batching_check", "the tokens of " + std::to_string(queries) +
                                       " queries joining a batch one step apart equal those each generates alone");
}

/// Serves generations (--load): each query a prompt of `prompts`, by its index, and
/// num_tokens_to_generate tokens, greedily, with continuous batching (Context::serve_steps).
void serve_generations(bench::Context& ctx, const Gpt2& model, const Gpt2Config& c, const Tensor& prompts,
                       int64_t new_tokens, int64_t max_len, const torch::TensorOptions& cache,
                       const Tensor& prompt_positions) {
    const int64_t slots = std::max(ctx.config().load.max_batch, 1);
    ContinuousGpt2 server(model, c, slots, max_len, cache, prompt_positions);
    ctx.set_info("serving", "continuous batching over a KV cache of " + std::to_string(slots) +
                                " slots ([slots, heads, " + std::to_string(max_len) +
                                ", head_dim] per layer): a query is prefilled alone into its slot as it joins, then "
                                "decodes one token a step beside the others, each at its own position");
    ctx.serve_steps([&](bench::QueryBatch active) {
        std::vector<bench::Query*> decoding;
        std::vector<int64_t> decoding_slots;
        for (bench::Query* query : active) {
            if (query->steps() > 0) {
                decoding.push_back(query);
                decoding_slots.push_back(query->slot());
                continue;
            }
            server.join(query->slot(), prompts.narrow(0, query->index() % prompts.size(0), 1));
            query->token();
            if (query->tokens() == new_tokens) query->finish();
        }
        if (decoding.empty()) return;
        server.decode(decoding_slots);
        for (bench::Query* query : decoding) {
            query->token();
            if (query->tokens() == new_tokens) query->finish();
        }
    });
}

// ---------------------------------------------------------------------------------
// Checks against eager

bool is_reduced_precision(torch::ScalarType dtype) { return dtype != torch::kFloat32 && dtype != torch::kFloat64; }

/// Checks a variant's generation against eager's. `reference_logits` is what its first
/// step's logits must match: eager's own in float32 and float64; in bfloat16, eager's
/// forward pass computed in float32 from the same bf16-rounded weights (see
/// float32_reference in the benchmark).
void check_variant(bench::Context& ctx, const Generation& eager, const Generation& candidate,
                   const Tensor& reference_logits, torch::ScalarType dtype) {
    const bool reduced = is_reduced_precision(dtype);
    const Tensor equal = eager.tokens.eq(candidate.tokens);
    const double agreement = equal.to(torch::kFloat64).mean().item<double>();
    ctx.record_scalar("token_agreement", agreement, "fraction");
    if (reduced) {
        // For scale: how far eager's own bf16 logits are from the float32 reference.
        const double eager_diff =
            (eager.first_logits.to(torch::kFloat64) - reference_logits.to(torch::kFloat64)).abs().max().item<double>();
        ctx.record_scalar("eager_max_abs_diff", eager_diff, "abs");
    }
    lt::check_against_reference(ctx, reference_logits, candidate.first_logits, dtype);
    if (!reduced && agreement < 1.0) {
        // The first (sequence, step) where the variant chose another token than eager.
        const Tensor where = equal.logical_not().nonzero()[0];
        const int64_t seq = where[0].item<int64_t>(), step = where[1].item<int64_t>();
        throw std::runtime_error("gpt2: " + std::string(bench::to_string(ctx.config().variant)) +
                                 " generated other tokens than eager (" + lt::dtype_name(dtype) +
                                 ", greedy): sequence " + std::to_string(seq) + ", token " + std::to_string(step) +
                                 ": " + std::to_string(candidate.tokens[seq][step].item<int64_t>()) + " instead of " +
                                 std::to_string(eager.tokens[seq][step].item<int64_t>()));
    }
    ctx.set_info("accuracy_check",
                 reduced ? "first-step logits within the " + lt::dtype_name(dtype) +
                               " tolerance of eager's forward pass in float32 on the same " + lt::dtype_name(dtype) +
                               "-rounded weights (eager_max_abs_diff: eager's own distance); token ids may diverge "
                               "from eager's (token_agreement)"
                         : "generated token ids equal eager's; first-step logits within tolerance of eager's");
}

}  // namespace

// The generation benchmark. tokens_per_second is aggregated over the batch: the tokens
// generated by all sequences (batch_size x num_tokens_to_generate, the prompt not
// counted) divided by the whole generation's time, prefill included.
BENCH_RUN_BENCHMARK(ctx) {
    const bench::ScenarioConfig& cfg = ctx.config();
    const Gpt2Config& arch = find_model(cfg.model_id);
    const int64_t new_tokens = cfg.num_tokens_to_generate;
    if (new_tokens < 1) ctx.skip("num_tokens_to_generate must be at least 1");
    const int64_t prompt_len = ctx.params().get_int("prompt_tokens", 32);
    if (prompt_len < 1) throw std::invalid_argument("gpt2: prompt_tokens must be at least 1");
    const int64_t max_len = prompt_len + new_tokens - 1;  // positions ever fed to the model
    if (max_len > arch.n_ctx)
        throw std::invalid_argument("gpt2: prompt_tokens + num_tokens_to_generate - 1 = " + std::to_string(max_len) +
                                    " exceeds " + std::string(arch.id) + "'s context of " + std::to_string(arch.n_ctx) +
                                    " positions");
    const int64_t batch = cfg.batch_size;
    const auto seed = static_cast<uint64_t>(ctx.params().get_int("seed", 42));
    const bool serving = cfg.load.mode != bench::LoadMode::none;
    if (serving && cfg.variant != bench::Variant::eager)
        ctx.skip("--load: gpt2 serves (continuous batching) in the eager variant only");
    const bool torchscript = lt::is_torchscript_mode(cfg.compile_mode);

    const torch::Device device = lt::select_device(ctx);
    lt::retain_freed_memory(ctx);
    const torch::ScalarType dtype = lt::select_dtype(ctx, device);
    const lt::ThreadScope threads(ctx);

    ctx.set_info("framework", "libtorch");
    ctx.set_info("torch_version", TORCH_VERSION);
    ctx.set_info("model", "GPT2LMHeadModel");
    ctx.set_info("model_id", std::string(arch.id));
    ctx.set_info("prompt_tokens", std::to_string(prompt_len));
    if (serving)
        ctx.set_info("kv_cache", "a slot per query in the batch, [" + std::to_string(std::max(cfg.load.max_batch, 1)) +
                                     ", heads, " + std::to_string(max_len) + ", head_dim] per layer");
    else ctx.set_info("kv_cache", "static, [batch, heads, " + std::to_string(max_len) + ", head_dim] per layer");
    ctx.set_info("tokens_per_second",
                 "batch_size x num_tokens_to_generate generated tokens / whole generation time (prefill included)");

    // The model: built and initialized in float32 on the CPU, then moved.
    Gpt2 model = lt::load_model(ctx, [&] {
        Gpt2 built(arch);
        init_weights(*built, arch, seed);
        return built;
    });
    lt::record_parameters(ctx, *model, "gpt2 " + std::string(arch.id), parameter_count(arch));

    // In bfloat16 a variant is checked against eager's forward pass in float32 on the
    // same bf16-rounded weights. Two bf16 paths through 12 layers round independently:
    // compared with each other they differ by about twice what either differs from the
    // float32 result (gpt2, batch 4: 0.039 against a tolerance of 0.05), so comparing
    // with bf16 eager would fail correct kernels at larger batches.
    Gpt2 float32_reference{nullptr};
    if (cfg.variant != bench::Variant::eager && is_reduced_precision(dtype)) {
        float32_reference = Gpt2(arch);
        init_weights(*float32_reference, arch, seed);
        float32_reference->to(device, dtype);  // round as the benchmarked weights are
        float32_reference->to(device, torch::kFloat32);
    }
    model->to(device, dtype);
    model->eval();

    // Inference only, from here on: no autograd bookkeeping (the tracer works under it).
    const c10::InferenceMode inference;

    GenerationInputs in;
    torch::manual_seed(seed + 1);
    in.prompt = torch::randint(arch.vocab_size, {batch, prompt_len}, torch::kInt64).to(device);
    const auto index_options = torch::TensorOptions().dtype(torch::kInt64).device(device);
    in.prompt_positions = torch::arange(prompt_len, index_options);
    for (int64_t p = 0; p < max_len; ++p) in.decode_positions.push_back(torch::full({1}, p, index_options));
    in.new_tokens = new_tokens;
    const auto cache_options = torch::TensorOptions().dtype(dtype).device(device);
    if (cfg.variant == bench::Variant::eager || (cfg.variant == bench::Variant::compiled && torchscript))
        ctx.set_info("attention", eager_attention(arch, batch, prompt_len, max_len, cache_options));  // traced or not

    if (serving) {
        // Prompts of the queries, by index; the first three also check the batched path
        // against generations alone before anything is served.
        torch::manual_seed(seed + 2);
        const Tensor prompts = torch::randint(arch.vocab_size, {16, prompt_len}, torch::kInt64).to(device);
        check_continuous_batching(ctx, model, arch, prompts.narrow(0, 0, 3), new_tokens, max_len, cache_options,
                                  device);
        serve_generations(ctx, model, arch, prompts, new_tokens, max_len, cache_options, in.prompt_positions);
        lt::record_memory(ctx, device);
        return;
    }

    Stepper stepper;
    switch (cfg.variant) {
        case bench::Variant::eager:
            stepper = eager_stepper(model, make_caches(arch, batch, max_len, cache_options));
            break;
        case bench::Variant::compiled: {
            if (!torchscript) {
                stepper = aot_stepper(ctx, model, arch, make_caches(arch, batch, max_len, cache_options), in, dtype);
                break;
            }
            CompiledStepper compiled =
                compiled_stepper(model, make_caches(arch, batch, max_len, cache_options), in, cfg.compile_mode);
            stepper = std::move(compiled.stepper);
            ctx.record_scalar("compile_time", compiled.compile_time_ms, "ms");
            std::string passes;
            for (const std::string& p : compiled.passes) passes += (passes.empty() ? "" : ",") + p;
            ctx.set_info("variant_passes", passes + " (prefill and decode graphs)");
            break;
        }
        case bench::Variant::kernelized: {
            const auto kernels = std::make_shared<KernelizedGpt2>(
                *model, arch, make_caches(arch, batch, max_len, cache_options),
                parse_kernel_attention(ctx.params().get_string("attention", device.is_cpu() ? "bmm" : "fused")));
            stepper = kernelized_stepper(kernels);
            ctx.set_info("kernels", kernels->description());
            ctx.set_info("attention", kernels->attention_kernels());
            break;
        }
    }

    if (cfg.variant != bench::Variant::eager) {
        const Generation eager =
            generate(eager_stepper(model, make_caches(arch, batch, max_len, cache_options)), in, device);
        const Generation candidate = generate(stepper, in, device);
        Tensor reference_logits = eager.first_logits;
        if (float32_reference) {
            const Stepper reference = eager_stepper(
                float32_reference, make_caches(arch, batch, max_len, cache_options.dtype(torch::kFloat32)));
            reference_logits = reference.prefill(in.prompt, in.prompt_positions, 0);
            float32_reference = nullptr;  // its memory back before measuring
        }
        check_variant(ctx, eager, candidate, reference_logits, dtype);
    }

    bench::Series latency{"latency", "ms", {}, 1};
    bench::Series per_token{"time_per_output_token", "ms", {}, 1};
    for (int i = 0; i < cfg.warmup_iterations; ++i) generate(stepper, in, device);
    // Monitors attribute energy to these generations; the window ends with them.
    std::optional<bench::MeasurementScope> measuring(std::in_place, ctx);
    bench::StoppingRule rule(ctx.timing_options());  // --measurement-iterations, or --min-time and friends
    rule.start();
    while (!rule.should_stop(latency.samples)) {
        const Generation g = generate(stepper, in, device);
        ctx.add_sample("time_to_first_token", g.ttft_ms, "ms");
        if (new_tokens > 1) {
            per_token.samples.push_back((g.total_ms - g.ttft_ms) / static_cast<double>(new_tokens - 1));
            ctx.add_sample("time_per_output_token", per_token.samples.back(), "ms");
        }
        ctx.add_sample("latency", g.total_ms, "ms");
        ctx.add_sample("tokens_per_second", static_cast<double>(batch * new_tokens) / (g.total_ms / 1000.0),
                       "tokens/s");
        latency.samples.push_back(g.total_ms);
    }
    ctx.record_sampling("latency", rule.report(latency.samples));
    measuring->set_iterations(static_cast<long long>(latency.samples.size()));
    measuring.reset();

    const lt::FlopCount work = generation_work(arch, batch, prompt_len, new_tokens);
    lt::record_work(ctx, work, latency, lt::calibrated_peak_gflops(dtype, device));
    ctx.set_info("flops_per_forward", "one whole generation (prefill and every decode step)");
    // Decoding is bound by memory: its bandwidth (weights and attended cache over the
    // time per token), against the GPU memory's peak on CUDA.
    if (!per_token.samples.empty())
        ctx.record_bandwidth("decode_bandwidth", per_token,
                             decode_bytes_per_step(arch, batch, prompt_len, new_tokens, c10::elementSize(dtype)),
                             device.is_cuda() && device.has_index() ? device.index() : -1);
    lt::record_memory(ctx, device);

    // --profile: one whole generation, profiled apart from everything measured.
    lt::profile(
        ctx, "generation", [&] { generate(stepper, in, device); }, lt::module_parameters(*model));
}

// Training steps: causal language modelling on seeded sequences (--param prompt_tokens,
// the sequence length), the optimizer from --param optimizer (or --axis
// optimizer=sgd,adamw). Eager only. Throughput is in sequences a second.
// Training steps run in eager only: compiled and kernelized are inference variants.
BENCH_BENCHMARK_VARIANTS(train, bench::eager_bit);

BENCH_BENCHMARK(train, ctx) {
    const Gpt2Config& arch = find_model(ctx.config().model_id);
    const int64_t tokens = ctx.params().get_int("prompt_tokens", 32);
    if (tokens < 1 || tokens > arch.n_ctx)
        throw std::invalid_argument("gpt2: prompt_tokens must be 1 to " + std::to_string(arch.n_ctx) + " (" +
                                    std::string(arch.id) + "'s context) for train, not " + std::to_string(tokens));
    const auto seed = static_cast<uint64_t>(ctx.params().get_int("seed", 42));
    ctx.set_info("model_id", std::string(arch.id));
    ctx.set_info("sequence_tokens", std::to_string(tokens));
    bench::libtorch::TrainingBenchmark spec;
    spec.model = "gpt2 " + std::string(arch.id);
    spec.throughput_unit = "sequences/s";
    spec.expected_parameters = parameter_count(arch);
    spec.build = [&arch, seed] {
        Gpt2 built(arch);
        init_weights(*built, arch, seed);
        return bench::libtorch::TrainableModel{built.ptr(), [model = built.ptr(), &arch](const Tensor& ids) {
                                                   return logits_of_every_position(*model, arch, ids);
                                               }};
    };
    spec.make_input = [&arch, tokens, seed](int64_t batch, torch::Device device, torch::ScalarType) {
        return training_ids(arch, batch, tokens, seed).narrow(1, 0, tokens).contiguous().to(device);
    };
    spec.make_targets = [&arch, tokens, seed](int64_t batch, torch::Device device) {
        return training_ids(arch, batch, tokens, seed).narrow(1, 1, tokens).reshape({-1}).to(device);
    };
    bench::libtorch::run_training_benchmark(ctx, spec);
}
