"""The plugin's GPT-2 as Python defines it, for the AOTInductor compile.

The same model as gpt2.cpp, written out with torch.nn under the C++ module's names
(wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, ln_f; Linear
weights [out, in]), so that the C++ weights load into it as they are (strict). Its
forward is one model step over the static KV cache, as the C++ forward is:

  forward(ids [B, T], positions [T], k_0, v_0, ..., k_{L-1}, v_{L-1}) -> logits [B, vocab]

The caches ([B, heads, max_len, head_dim] each) are inputs that the step writes its keys
and values into, in place, at `positions`: torch.export records the writes and the
package makes them into the caller's tensors, so that the C++ side keeps one cache for
two packages (a prefill at the prompt's length, a decode step at one token) as it does
for its TorchScript graphs. A prefill (T > 1) attends causally over its own keys; a
decode step (T == 1) over the whole cache, masked after its position. The exporter
checks this model's eager logits against the C++ ones before compiling.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.n_head = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x, positions, visible, k_cache, v_cache):
        batch, tokens, d = x.shape
        hd = d // self.n_head
        qkv = self.c_attn(x)

        def split_heads(part):
            return qkv.narrow(-1, part * d, d).view(batch, tokens, self.n_head, hd).transpose(1, 2)

        q = split_heads(0)
        k_cache.index_copy_(2, positions, split_heads(1))
        v_cache.index_copy_(2, positions, split_heads(2))
        if tokens > 1:
            out = F.scaled_dot_product_attention(q, k_cache.narrow(2, 0, tokens), v_cache.narrow(2, 0, tokens),
                                                 is_causal=True)
        else:
            out = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=visible)
        return self.c_proj(out.transpose(1, 2).reshape(batch, tokens, d))


class Mlp(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(gelu_new(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.attn = Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.mlp = Mlp(d)

    def forward(self, x, positions, visible, k_cache, v_cache):
        h = x + self.attn(self.ln_1(x), positions, visible, k_cache, v_cache)
        return h + self.mlp(self.ln_2(h))


class Gpt2(nn.Module):
    def __init__(self, n_layer, n_head, n_embd, vocab_size, n_ctx):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(n_ctx, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd, eps=1e-5)

    def forward(self, ids, positions, *caches):
        max_len = caches[0].shape[2]
        visible = None
        if positions.shape[0] == 1:  # a decode step: the keys at or before its position
            visible = torch.arange(max_len, device=positions.device).unsqueeze(0) <= positions.unsqueeze(1)
        x = self.wte(ids) + self.wpe(positions)
        for i, block in enumerate(self.h):
            x = block(x, positions, visible, caches[2 * i], caches[2 * i + 1])
        last = self.ln_f(x.select(1, x.shape[1] - 1))  # the last position's logits only
        return F.linear(last, self.wte.weight)  # the LM head, tied to the token embedding


def build(n_layer, n_head, n_embd, vocab_size, n_ctx):
    return Gpt2(int(n_layer), int(n_head), int(n_embd), int(vocab_size), int(n_ctx))
