// GPT-2 written with torch::nn, HF's GPT2LMHeadModel (gpt2.cpp's header comment says
// what it is), shared by the plugins that run it: gpt2 (generation, serving, training
// steps) and ddp_training (data-parallel training steps). The architectures (gpt2, and
// gpt2-tiny for quick runs), the module with HF's names, its seeded initialization, and
// what a training step feeds it: seeded sequences and the logits of every position.
#pragma once

#include <bench/torch/profiling.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/randint.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpt2_model {

namespace lt = bench::libtorch;
using torch::Tensor;

// ---------------------------------------------------------------------------------
// Architecture

struct Gpt2Config {
    std::string_view id;
    int64_t n_layer;
    int64_t n_head;
    int64_t n_embd;
    int64_t vocab_size;
    int64_t n_ctx;  // positions of the position embedding

    int64_t head_dim() const { return n_embd / n_head; }
};

/// Parameters of GPT2LMHeadModel with the LM head tied to the token embedding.
constexpr int64_t parameter_count(const Gpt2Config& c) {
    const int64_t d = c.n_embd;
    const int64_t block = 2 * (2 * d)  // ln_1, ln_2 (weight, bias)
                          + (d * 3 * d + 3 * d)  // attn.c_attn
                          + (d * d + d)  // attn.c_proj
                          + (d * 4 * d + 4 * d)  // mlp.c_fc
                          + (4 * d * d + d);  // mlp.c_proj
    return c.vocab_size * d  // wte, also the LM head
           + c.n_ctx * d  // wpe
           + c.n_layer * block  // h.0 ... h.{n_layer-1}
           + 2 * d;  // ln_f
}

constexpr std::array<Gpt2Config, 2> known_models{{
    {"gpt2", 12, 12, 768, 50257, 1024}, {"gpt2-tiny", 2, 4, 128, 1024, 256},  // for quick runs
}};
static_assert(parameter_count(known_models[0]) == 124'439'808, "HF GPT2LMHeadModel has 124,439,808 parameters");
static_assert(parameter_count(known_models[1]) == 560'640);

inline constexpr std::string_view default_model_id = "gpt2-tiny";
inline constexpr double layer_norm_eps = 1e-5;

inline const Gpt2Config& find_model(std::string_view id) {
    if (id.empty()) id = default_model_id;
    std::string valid;
    for (const Gpt2Config& c : known_models) {
        if (c.id == id) return c;
        valid += (valid.empty() ? "" : ", ") + std::string(c.id);
    }
    throw std::invalid_argument("gpt2: unknown model_id '" + std::string(id) + "'; valid ids: " + valid);
}

// ---------------------------------------------------------------------------------
// The model (eager), HF's module names: wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj,
// ln_2, mlp.c_fc, mlp.c_proj}, ln_f.

/// HF's NewGELUActivation ("gelu_new"), written out as HF writes it.
inline Tensor gelu_new(const Tensor& x) {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return 0.5 * x * (1.0 + torch::tanh(k * (x + 0.044715 * torch::pow(x, 3.0))));
}

struct AttentionImpl : torch::nn::Module {
    AttentionImpl(int64_t d, int64_t heads)
        : n_head(heads),
          c_attn(register_module("c_attn", torch::nn::Linear(d, 3 * d))),
          c_proj(register_module("c_proj", torch::nn::Linear(d, d))) {}

    /// x [B, T, D] at `positions` [T]; writes its keys and values into the caches
    /// [B, H, max_len, hd]. Attention as HF's "sdpa" attention computes it: a prefill
    /// (T > 1, from position 0: every multi-token call is one) attends causally over its
    /// own T keys with no mask (is_causal); a decode step (T == 1) attends over the whole
    /// static cache, `visible` [1, max_len] (true where the key's position is at most the
    /// query's) masking the positions not written yet, as HF's StaticCache does. Neither
    /// has a shape that depends on the step, so one traced graph serves every step.
    Tensor forward(const Tensor& x, const Tensor& positions, const Tensor& visible, Tensor& k_cache, Tensor& v_cache) {
        const int64_t batch = x.size(0), tokens = x.size(1), d = x.size(2), hd = d / n_head;
        const Tensor qkv = c_attn(x);
        const auto split_heads = [&](int64_t part) {
            return qkv.narrow(-1, part * d, d).view({batch, tokens, n_head, hd}).transpose(1, 2);
        };
        const Tensor q = split_heads(0);
        k_cache.index_copy_(2, positions, split_heads(1));
        v_cache.index_copy_(2, positions, split_heads(2));
        const Tensor out =
            tokens > 1 ? at::scaled_dot_product_attention(q, k_cache.narrow(2, 0, tokens), v_cache.narrow(2, 0, tokens),
                                                          /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true)
                       : at::scaled_dot_product_attention(q, k_cache, v_cache, visible);
        return c_proj(out.transpose(1, 2).reshape({batch, tokens, d}));
    }

    /// Continuous batching: x [B, 1, D], row b the next token of the query in cache slot
    /// slots[b] at positions[b]; writes each row's key and value there and attends over
    /// that slot alone; `visible` [B, 1, 1, max_len] is true where a key lies at or before
    /// the row's position. The caches are [slots, H, max_len, hd].
    Tensor decode_rows(const Tensor& x, const Tensor& positions, const Tensor& slots, const Tensor& visible,
                       Tensor& k_cache, Tensor& v_cache) {
        using torch::indexing::Slice;
        const int64_t batch = x.size(0), d = x.size(2), hd = d / n_head;
        const Tensor qkv = c_attn(x);
        const auto split_heads = [&](int64_t part) {
            return qkv.narrow(-1, part * d, d).view({batch, 1, n_head, hd}).transpose(1, 2);  // [B, H, 1, hd]
        };
        const Tensor q = split_heads(0);
        k_cache.index_put_({slots, Slice(), positions}, split_heads(1).squeeze(2));
        v_cache.index_put_({slots, Slice(), positions}, split_heads(2).squeeze(2));
        const Tensor keys = k_cache.index_select(0, slots), values = v_cache.index_select(0, slots);
        const Tensor out = at::scaled_dot_product_attention(q, keys, values, visible);
        return c_proj(out.transpose(1, 2).reshape({batch, 1, d}));
    }

    int64_t n_head;
    torch::nn::Linear c_attn, c_proj;
};
TORCH_MODULE(Attention);

struct MlpImpl : torch::nn::Module {
    explicit MlpImpl(int64_t d)
        : c_fc(register_module("c_fc", torch::nn::Linear(d, 4 * d))),
          c_proj(register_module("c_proj", torch::nn::Linear(4 * d, d))) {}

    Tensor forward(const Tensor& x) { return c_proj(gelu_new(c_fc(x))); }

    torch::nn::Linear c_fc, c_proj;
};
TORCH_MODULE(Mlp);

inline torch::nn::LayerNorm make_layer_norm(int64_t d) {
    return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}).eps(layer_norm_eps));
}

struct BlockImpl : torch::nn::Module {
    BlockImpl(int64_t d, int64_t heads)
        : ln_1(register_module("ln_1", make_layer_norm(d))),
          attn(register_module("attn", Attention(d, heads))),
          ln_2(register_module("ln_2", make_layer_norm(d))),
          mlp(register_module("mlp", Mlp(d))) {}

    Tensor forward(const Tensor& x, const Tensor& positions, const Tensor& visible, Tensor& k_cache, Tensor& v_cache) {
        const lt::ModuleScope scope(scope_name);
        const Tensor h = x + attn->forward(ln_1(x), positions, visible, k_cache, v_cache);
        return h + mlp->forward(ln_2(h));
    }

    Tensor decode_rows(const Tensor& x, const Tensor& positions, const Tensor& slots, const Tensor& visible,
                       Tensor& k_cache, Tensor& v_cache) {
        const Tensor h = x + attn->decode_rows(ln_1(x), positions, slots, visible, k_cache, v_cache);
        return h + mlp->forward(ln_2(h));
    }

    std::string scope_name;  // its name in a profile, its module's: "h.0"
    torch::nn::LayerNorm ln_1;
    Attention attn;
    torch::nn::LayerNorm ln_2;
    Mlp mlp;
};
TORCH_MODULE(Block);

/// A decode step's mask over the static cache: [1, max_len], true where the key's
/// position is at most the query's (`positions` [1]). Undefined for a prefill (more than
/// one position), which attends causally over its own keys instead.
inline Tensor decode_mask(const Tensor& positions, int64_t max_len) {
    if (positions.size(0) > 1) return {};
    return torch::arange(max_len, positions.options()).unsqueeze(0) <= positions.unsqueeze(1);
}

struct Gpt2Impl : torch::nn::Module {
    explicit Gpt2Impl(const Gpt2Config& c)
        : wte(register_module("wte", torch::nn::Embedding(c.vocab_size, c.n_embd))),
          wpe(register_module("wpe", torch::nn::Embedding(c.n_ctx, c.n_embd))),
          h(register_module("h", torch::nn::ModuleList())),
          ln_f(register_module("ln_f", make_layer_norm(c.n_embd))) {
        for (int64_t i = 0; i < c.n_layer; ++i) {
            blocks.emplace_back(c.n_embd, c.n_head);
            blocks.back()->scope_name = "h." + std::to_string(i);
            h->push_back(blocks.back());
        }
    }

    /// ids [B, T] at positions [T]; caches: k and v of each layer, [B, H, max_len, hd].
    /// Returns the logits [B, vocab] of the last position.
    Tensor forward(const Tensor& ids, const Tensor& positions, std::vector<Tensor>& caches) {
        const Tensor visible = decode_mask(positions, caches.at(0).size(2));
        Tensor x = wte(ids) + wpe(positions);
        for (std::size_t i = 0; i < blocks.size(); ++i)
            x = blocks[i]->forward(x, positions, visible, caches.at(2 * i), caches.at(2 * i + 1));
        // Only the last position's logits are needed (HF generate: logits_to_keep=1);
        // layer norm is per position, so normalizing that row alone is the same.
        const Tensor last = ln_f(x.select(1, x.size(1) - 1));
        return torch::nn::functional::linear(last, wte->weight);  // tied LM head, no bias
    }

    /// Continuous batching: the next token of B queries, query b (ids[b]) at
    /// positions[b] of cache slot slots[b] (ids, positions, slots: [B]; caches [slots,
    /// H, max_len, hd] per layer), each attending over its own slot. Returns the logits
    /// [B, vocab].
    Tensor decode_rows(const Tensor& ids, const Tensor& positions, const Tensor& slots, std::vector<Tensor>& caches) {
        const int64_t batch = ids.size(0), max_len = caches.at(0).size(2);
        const Tensor visible = (torch::arange(max_len, positions.options()).unsqueeze(0) <= positions.unsqueeze(1))
                                   .view({batch, 1, 1, max_len});
        Tensor x = (wte(ids) + wpe(positions)).unsqueeze(1);
        for (std::size_t i = 0; i < blocks.size(); ++i)
            x = blocks[i]->decode_rows(x, positions, slots, visible, caches.at(2 * i), caches.at(2 * i + 1));
        return torch::nn::functional::linear(ln_f(x.select(1, 0)), wte->weight);
    }

    torch::nn::Embedding wte, wpe;
    torch::nn::ModuleList h;
    std::vector<Block> blocks;  // the same modules as h, typed
    torch::nn::LayerNorm ln_f;
};
TORCH_MODULE(Gpt2);

/// HF's initialization (normal(0, 0.02); the residual projections scaled by
/// 1/sqrt(2 n_layer)), except that biases and layer-norm affines are random too (not
/// zeros and ones), so that a variant which drops or misplaces one fails its check.
inline void init_weights(Gpt2Impl& model, const Gpt2Config& c, uint64_t seed) {
    torch::NoGradGuard no_grad;
    torch::manual_seed(seed);
    const double std_dev = 0.02, residual_std = std_dev / std::sqrt(2.0 * static_cast<double>(c.n_layer));
    for (auto& item : model.named_parameters()) {
        const std::string& name = item.key();
        Tensor& p = item.value();
        const bool is_layer_norm = name.find("ln_") != std::string::npos;
        const bool is_weight = name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0;
        if (is_layer_norm && is_weight) p.normal_(1.0, std_dev);
        else if (is_weight && name.find("c_proj") != std::string::npos) p.normal_(0.0, residual_std);
        else p.normal_(0.0, std_dev);
        p.set_requires_grad(false);
    }
}

inline std::vector<Tensor> make_caches(const Gpt2Config& c, int64_t batch, int64_t max_len,
                                       const torch::TensorOptions& opts) {
    std::vector<Tensor> caches;
    for (int64_t i = 0; i < 2 * c.n_layer; ++i)
        caches.push_back(torch::zeros({batch, c.n_head, max_len, c.head_dim()}, opts));
    return caches;
}

// ---------------------------------------------------------------------------------
// Training: the logits of every position, and seeded sequences

/// The logits of every position of `ids` [B, T], [B * T, vocab]: the eager blocks over
/// caches of T positions made for this call, so that nothing carries from one training
/// step to the next.
inline Tensor logits_of_every_position(Gpt2Impl& model, const Gpt2Config& arch, const Tensor& ids) {
    const int64_t batch = ids.size(0), tokens = ids.size(1);
    const Tensor positions = torch::arange(tokens, ids.options());
    std::vector<Tensor> caches = make_caches(arch, batch, tokens, model.wte->weight.options());
    const Tensor visible = decode_mask(positions, tokens);
    Tensor x = model.wte(ids) + model.wpe(positions);
    for (std::size_t i = 0; i < model.blocks.size(); ++i)
        x = model.blocks[i]->forward(x, positions, visible, caches.at(2 * i), caches.at(2 * i + 1));
    return torch::nn::functional::linear(model.ln_f(x), model.wte->weight).reshape({batch * tokens, -1});
}

/// Seeded ids [batch, tokens + 1]: a sequence is the first `tokens`, its targets the last.
inline Tensor training_ids(const Gpt2Config& arch, int64_t batch, int64_t tokens, uint64_t seed) {
    at::Generator gen = at::detail::createCPUGenerator(seed + 1);
    return at::randint(arch.vocab_size, {batch, tokens + 1}, gen, at::TensorOptions().dtype(at::kLong));
}

}  // namespace gpt2_model
