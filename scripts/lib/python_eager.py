"""Python against C++ on the same LibTorch, eager and compiled (used by scripts/compare_python_eager).

Two roles, run with the project's venv (scripts/lib/requirements.txt: the torch and
torchvision whose LibTorch benchhost is built against):

  python_eager.py measure resnet50 --batch B --warmup W --iterations N [--threads T]
                                   [--variant eager|compiled|inductor] [--compile-mode M]
  python_eager.py measure vit_b_16 --batch B --warmup W --iterations N [--threads T]
  python_eager.py measure gpt2 --model-id ID --batch B --tokens T --warmup W --iterations N
      One side of one round in a fresh process, as benchhost's worker is: builds the
      model, warms up, measures, and prints one JSON line with the samples (ms), the
      first call (ms), the thread count and the torch version. --variant compiled
      (ResNet-50 only) times torch.jit.optimize_for_inference(torch.jit.freeze(
      torch.jit.trace(model, x, check_trace=False))) built under no_grad (compile_time_ms:
      trace, freeze and optimize), checks its output against eager's
      (|compiled - eager| <= 1e-4 + 1e-3 max(|eager|, RMS of eager's), the C++ SDK's float32 tolerance; a
      warning on stderr otherwise), then times it as eager is, under inference_mode.
      --variant inductor times torch.compile(model, mode=M) (default "default") with
      Inductor's freezing on, as the C++ side's AOTInductor package is compiled
      (compile_time_ms: the first call, which compiles), checked and timed the same way.

  python_eager.py compare --benchhost PATH [options]
      The driver (imports no torch): rounds of (Python side, C++ side) per workload,
      the order alternating between rounds; pools each side's samples over the rounds
      and prints the medians and Python/C++ ratios, one row per workload, batch and
      variant. ResNet-50 runs the variants of --resnet-variants (default
      eager,compiled,inductor; inductor is C++'s compiled variant in --compile-mode, an
      AOTInductor package, against Python's torch.compile in the same mode):
      Python runs each in its own process, C++ all of them in one benchhost run (each
      scenario in its own worker). With eager and another variant a second table gives
      each language's speedup over its own eager (pooled medians, and the range of the
      per-round ones), followed by each side's median compile time and first call.
      ViT-B/16 (at the batch sizes of ResNet-50) and GPT-2 are eager only.

The Python models mirror the C++ plugins' eager variants:
  - ResNet-50: torchvision.models.resnet50(), random init; as the C++ plugin does, one
    training-mode pass (batch-norm momentum 1) on a seeded random batch of 2 sets the
    running statistics, then eval(). (Timing of float32 eager does not depend on the
    values; this only keeps activations O(1) on both sides.) The compiled variant is
    traced with TorchScript, frozen and passed through optimize_for_inference, as the
    C++ plugin's compiled variant is (it traces its own model, under InferenceMode).
  - ViT-B/16: torchvision.models.vit_b_16(), its own seeded random init, eval(), run
    under inference_mode: nn.MultiheadAttention then takes its inference fast path
    (torch._native_multi_head_attention), which the C++ plugin's eager variant calls too.
  - GPT-2: the algorithm of plugins/performance/gpt2/gpt2.cpp, eager variant, op for op
    (see Gpt2 below), with the same seeded initialization and prompt: attention through
    F.scaled_dot_product_attention, causal in the prefill, masked over the static cache
    in decode steps.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

# ---------------------------------------------------------------------------------
# Measuring side (imports torch lazily so that the driver stays light)


def _torch_setup(threads):
    import torch

    default_threads = torch.get_num_threads()
    if threads > 0:
        torch.set_num_threads(threads)
    return torch, default_threads


def _freeze_for_inference(model):
    """No gradients, eval mode; returns the parameter count."""
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    return sum(p.numel() for p in model.parameters())


def _first_call(torch, model, args):
    """The seeded input batch, the model's first output on it, and that call's time in ms."""
    torch.manual_seed(args.seed + 1)
    x = torch.randn(args.batch, 3, args.image_size, args.image_size)
    start = time.perf_counter()
    out = model(x)
    return x, out, (time.perf_counter() - start) * 1e3


def _time_calls(run, x, warmup, iterations):
    """Calls run(x) `warmup` times, then `iterations` times timed; returns the times in ms."""
    for _ in range(warmup):
        run(x)
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        out = run(x)
        samples.append((time.perf_counter() - start) * 1e3)
        del out
    return samples


def _image_model_facts(torch, torchvision, samples, variant, default_threads, parameters):
    """What one side of an image model's round reports beside its first call."""
    return {
        "latency": samples,
        "variant": variant,
        "threads": torch.get_num_threads(),
        "default_threads": default_threads,
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "parameters": parameters,
    }


def measure_resnet50(args):
    torch, default_threads = _torch_setup(args.threads)
    import torchvision

    torch.manual_seed(args.seed)
    model = torchvision.models.resnet50()  # random init, as torchvision initialises an untrained model
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    for bn in norms:
        bn.momentum = 1.0
    model.train()
    with torch.no_grad():
        model(torch.randn(2, 3, args.image_size, args.image_size))
    for bn in norms:
        bn.momentum = 0.1
    parameters = _freeze_for_inference(model)

    result = {}
    with torch.inference_mode():
        # As the C++ side: eager's first call is the cold start of eager, and the
        # reference that the compiled output is checked against.
        x, reference, result["first_call"] = _first_call(torch, model, args)
    run = model
    if args.variant == "inductor":
        # torch.compile with Inductor's freezing (the weights as constants, folded and
        # prepacked), as the C++ side's AOTInductor package is compiled; the first call
        # compiles, under inference_mode as every timed call.
        import torch._inductor.config

        torch._inductor.config.freezing = True
        run = torch.compile(model, mode=args.compile_mode)
        start = time.perf_counter()
        with torch.inference_mode():
            run(x)
        result["compile_time_ms"] = (time.perf_counter() - start) * 1e3
    if args.variant == "compiled":
        # Traced with TorchScript, frozen, optimize_for_inference; built under
        # no_grad (the C++ side compiles under InferenceMode). No check_trace: it would
        # run the model again inside the timed compile, which the C++ tracer does not.
        start = time.perf_counter()
        with torch.no_grad():
            run = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(model, x, check_trace=False)))
        result["compile_time_ms"] = (time.perf_counter() - start) * 1e3
    with torch.inference_mode():  # the frozen, optimized module runs under it (checked)
        if args.variant != "eager":
            start = time.perf_counter()
            out = run(x)  # the graph executor's first run, which does its own optimizations
            result["first_call"] = (time.perf_counter() - start) * 1e3
            result.update(_max_diffs(torch, reference, out))
            if not result["within_tolerance"]:
                print(f"warning: {args.variant} ResNet-50 output differs from eager's beyond 1e-4 + 1e-3 max(|eager|, RMS of "
                      f"eager's): max_abs_diff "
                      f"{result['max_abs_diff']:.3g}, max_rel_diff {result['max_rel_diff']:.3g}", file=sys.stderr)
            del out
        samples = _time_calls(run, x, args.warmup, args.iterations)
    result.update(_image_model_facts(torch, torchvision, samples, args.variant, default_threads, parameters))
    return result


VIT_B_16_PARAMETERS = 86_567_656


def measure_vit_b_16(args):
    torch, default_threads = _torch_setup(args.threads)
    import torchvision

    torch.manual_seed(args.seed)
    model = torchvision.models.vit_b_16()  # random init, as torchvision initialises an untrained model
    parameters = _freeze_for_inference(model)
    if parameters != VIT_B_16_PARAMETERS:
        raise SystemExit(f"vit_b_16: {parameters} parameters, expected {VIT_B_16_PARAMETERS}")

    result = {}
    with torch.inference_mode():
        x, out, result["first_call"] = _first_call(torch, model, args)
        del out
        samples = _time_calls(model, x, args.warmup, args.iterations)
    result.update(_image_model_facts(torch, torchvision, samples, "eager", default_threads, parameters))
    return result


def _max_diffs(torch, reference, candidate, absolute=1e-4, relative=1e-3):
    """The C++ SDK's check_against_reference for float32: |c - r| <= 1e-4 + 1e-3 max(|r|, RMS of r)
    everywhere (the RMS of r's finite elements); max_rel_diff is |c - r| / max(|r|, 1e-4)."""
    ref = reference.double()
    cand = (candidate.to_dense() if candidate.is_mkldnn else candidate).double()
    if ref.shape != cand.shape:
        return {"max_abs_diff": math.inf, "max_rel_diff": math.inf, "within_tolerance": False}
    diff = (cand - ref).abs().nan_to_num(math.inf, math.inf, math.inf)
    ref_abs = ref.abs()
    finite = ref[ref.isfinite()]
    scale = finite.square().mean().sqrt().item() if finite.numel() else 0.0
    return {
        "max_abs_diff": diff.max().item(),
        "max_rel_diff": (diff / ref_abs.clamp_min(absolute)).max().item(),
        "within_tolerance": bool((diff <= absolute + relative * ref_abs.clamp_min(scale)).all().item()),
    }


# GPT-2: a line-by-line mirror of gpt2.cpp's eager model (HF GPT2LMHeadModel).
GPT2_CONFIGS = {
    # id: (n_layer, n_head, n_embd, vocab_size, n_ctx)
    "gpt2": (12, 12, 768, 50257, 1024),
    "gpt2-tiny": (2, 4, 128, 1024, 256),
}
GPT2_PARAMETERS = {"gpt2": 124_439_808, "gpt2-tiny": 560_640}
LAYER_NORM_EPS = 1e-5


def build_gpt2_classes(torch):
    nn = torch.nn
    F = torch.nn.functional

    def gelu_new(x):
        # HF's NewGELUActivation, written out as HF (and gpt2.cpp) write it.
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1.0 + torch.tanh(k * (x + 0.044715 * torch.pow(x, 3.0))))

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
            if tokens > 1:  # a prefill, from position 0: causal over its own keys, no mask
                out = F.scaled_dot_product_attention(q, k_cache.narrow(2, 0, tokens), v_cache.narrow(2, 0, tokens),
                                                     is_causal=True)
            else:  # a decode step: the whole static cache, the positions not written yet masked
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
            self.ln_1 = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
            self.attn = Attention(d, heads)
            self.ln_2 = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
            self.mlp = Mlp(d)

        def forward(self, x, positions, visible, k_cache, v_cache):
            h = x + self.attn(self.ln_1(x), positions, visible, k_cache, v_cache)
            return h + self.mlp(self.ln_2(h))

    class Gpt2(nn.Module):
        def __init__(self, n_layer, n_head, n_embd, vocab_size, n_ctx):
            super().__init__()
            self.wte = nn.Embedding(vocab_size, n_embd)
            self.wpe = nn.Embedding(n_ctx, n_embd)
            self.h = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd, eps=LAYER_NORM_EPS)

        def forward(self, ids, positions, caches):
            """ids [B, T] at positions [T]; returns the logits [B, vocab] of the last position."""
            max_len = caches[0].size(2)
            visible = None  # a decode step's mask: keys at or before the query's position
            if positions.size(0) == 1:
                visible = torch.arange(max_len, dtype=positions.dtype, device=positions.device).unsqueeze(0) <= positions.unsqueeze(1)
            x = self.wte(ids) + self.wpe(positions)
            for i, block in enumerate(self.h):
                x = block(x, positions, visible, caches[2 * i], caches[2 * i + 1])
            last = self.ln_f(x.select(1, x.size(1) - 1))
            return torch.nn.functional.linear(last, self.wte.weight)  # tied LM head, no bias

    return Gpt2


def measure_gpt2(args):
    torch, default_threads = _torch_setup(args.threads)
    n_layer, n_head, n_embd, vocab_size, n_ctx = GPT2_CONFIGS[args.model_id]
    prompt_len, new_tokens, batch = args.prompt_tokens, args.tokens, args.batch
    max_len = prompt_len + new_tokens - 1
    if max_len > n_ctx:
        raise SystemExit(f"prompt_tokens + tokens - 1 = {max_len} exceeds the context of {n_ctx}")

    Gpt2 = build_gpt2_classes(torch)
    model = Gpt2(n_layer, n_head, n_embd, vocab_size, n_ctx)
    # gpt2.cpp's init_weights, parameter for parameter in the same order.
    with torch.no_grad():
        torch.manual_seed(args.seed)
        std = 0.02
        residual_std = std / math.sqrt(2.0 * n_layer)
        for name, p in model.named_parameters():
            is_layer_norm = "ln_" in name
            is_weight = name.endswith("weight")
            if is_layer_norm and is_weight:
                p.normal_(1.0, std)
            elif is_weight and "c_proj" in name:
                p.normal_(0.0, residual_std)
            else:
                p.normal_(0.0, std)
            p.requires_grad_(False)
    parameters = sum(p.numel() for p in model.parameters())
    if parameters != GPT2_PARAMETERS[args.model_id]:
        raise SystemExit(f"{args.model_id}: {parameters} parameters, expected {GPT2_PARAMETERS[args.model_id]}")
    model.eval()

    ttft, tpot, total = [], [], []
    with torch.inference_mode():
        torch.manual_seed(args.seed + 1)
        prompt = torch.randint(vocab_size, (batch, prompt_len), dtype=torch.int64)
        prompt_positions = torch.arange(prompt_len, dtype=torch.int64)
        decode_positions = [torch.full((1,), p, dtype=torch.int64) for p in range(max_len)]
        caches = [torch.zeros(batch, n_head, max_len, n_embd // n_head) for _ in range(2 * n_layer)]

        def generate():
            chosen = []
            start = time.perf_counter()
            first_logits = model(prompt, prompt_positions, caches)
            nxt = first_logits.argmax(-1, keepdim=True)  # [B, 1]
            chosen.append(nxt)
            first = time.perf_counter()
            for i in range(1, new_tokens):
                pos = prompt_len + i - 1  # where the previous token goes
                nxt = model(nxt, decode_positions[pos], caches).argmax(-1, keepdim=True)
                chosen.append(nxt)
            stop = time.perf_counter()
            return torch.cat(chosen, 1), (first - start) * 1e3, (stop - start) * 1e3

        for _ in range(args.warmup):
            generate()
        tokens = None
        for _ in range(args.iterations):
            tokens, first_ms, total_ms = generate()
            ttft.append(first_ms)
            if new_tokens > 1:
                tpot.append((total_ms - first_ms) / (new_tokens - 1))
            total.append(total_ms)
    return {
        "time_to_first_token": ttft,
        "time_per_output_token": tpot,
        "latency": total,
        "threads": torch.get_num_threads(),
        "default_threads": default_threads,
        "torch_version": torch.__version__,
        "parameters": parameters,
        "tokens": tokens[0].tolist() if tokens is not None else [],
    }


# ---------------------------------------------------------------------------------
# Driver


def run_python_side(args, workload, model_id, batch, variant, warmup, iterations):
    cmd = [sys.executable, os.path.abspath(__file__), "measure", workload, "--batch", str(batch),
           "--warmup", str(warmup), "--iterations", str(iterations), "--threads", str(args.threads)]
    if workload == "resnet50":
        cmd += ["--variant", variant, "--compile-mode", args.compile_mode]
    if workload == "gpt2":
        cmd += ["--model-id", model_id, "--tokens", str(args.tokens), "--prompt-tokens", str(args.prompt_tokens)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=python_environment()).stdout
    return json.loads(out.strip().splitlines()[-1])


# What benchhost's LibTorch layer sets with mallopt (retain_freed_memory): glibc keeps
# the memory a forward pass frees for the next one. Python gets the same through
# glibc's tunables, so that neither side pays page faults the other does not. A
# GLIBC_TUNABLES of the user's reaches both sides instead (the C++ side then leaves
# the allocator alone).
RETAIN_FREED_MEMORY = "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432"


def python_environment():
    env = dict(os.environ)
    env.setdefault("GLIBC_TUNABLES", RETAIN_FREED_MEMORY)
    return env


def run_cpp_side(args, workload, model_id, batch, variants, warmup, iterations, series):
    """One host run for all the variants (each scenario in its own worker); returns variant -> result."""
    with tempfile.TemporaryDirectory(prefix="compare_python_eager_") as out_dir:
        # The inference benchmark alone: "resnet50" would also match resnet50/train.
        # compiled: TorchScript, as Python's compiled variant here; inductor: the compiled
        # variant in --compile-mode, an AOTInductor package.
        modes = (["torchscript"] if "compiled" in variants else []) + ([args.compile_mode] if "inductor" in variants else [])
        cpp_variants = [v for v in ("eager", "kernelized") if v in variants] + (["compiled"] if modes else [])
        cmd = [args.benchhost, "run", "--include", f"{workload}/{workload}", "--variants", ",".join(cpp_variants),
               "--compile-modes", ",".join(modes or ["torchscript"]),
               "--batch-sizes", str(batch), "--warmup-iterations", str(warmup),
               "--measurement-iterations", str(iterations), "--threads", str(args.threads),
               "--output-dir", out_dir, "--log-level", "warn"]
        if workload == "gpt2":
            cmd += ["--model-id", model_id, "--num-tokens-to-generate", str(args.tokens),
                    "--param", f"prompt_tokens={args.prompt_tokens}"]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        report_dir = os.path.join(out_dir, workload)
        reports = sorted(os.listdir(report_dir)) if os.path.isdir(report_dir) else []
        if proc.returncode != 0 or not reports:
            sys.stderr.write(proc.stdout)
            raise SystemExit(f"compare_python_eager: benchhost failed (exit {proc.returncode}): {' '.join(cmd)}")
        with open(os.path.join(report_dir, reports[-1])) as f:
            report = json.load(f)
    by_variant = {}
    for s in report["benchmark_scenarios"]:
        if s["status"] == "success":
            config = s["metadata"]["config"]
            variant = config["variant"]
            if variant == "compiled" and config.get("compile_mode") != "torchscript":
                variant = "inductor"
            by_variant.setdefault(variant, []).append(s)
    if sorted(by_variant) != sorted(variants) or any(len(found) != 1 for found in by_variant.values()):
        raise SystemExit(f"compare_python_eager: expected one successful {workload} scenario per variant "
                         f"({','.join(variants)}), got "
                         f"{[(s['scenario_id'], s['status']) for s in report['benchmark_scenarios']]}")
    results = {}
    for variant, (s,) in by_variant.items():
        m = s["measurements"]
        result = {name: m[name]["measurements"] for name in series}
        for name, key in (("compile_time", "compile_time_ms"), ("first_call", "first_call"),
                          ("max_abs_diff", "max_abs_diff")):
            if name in m:
                result[key] = m[name]["value"]
        result["threads"] = int(s["info"].get("threads", "0"))
        result["torch_version"] = s["info"].get("torch_version", "?")
        result["loaded"] = bool(s.get("cpu_metrics", {}).get("flags", {}).get("loaded", False))
        results[variant] = result
    return results


def fmt_ms(v):
    return f"{v:.3g} ms" if v < 1000 else f"{v / 1000:.3g} s"


def note_info(info, side, result):
    info[side].setdefault("threads", set()).add(result["threads"])
    info[side]["torch_version"] = result["torch_version"]
    if "default_threads" in result:
        info[side].setdefault("default_threads", set()).add(result["default_threads"])
    if "torchvision_version" in result:
        info[side]["torchvision_version"] = result["torchvision_version"]


def describe(result, series):
    text = ", ".join(f"{name} median {fmt_ms(statistics.median(result[name]))}" for name, _ in series)
    if "compile_time_ms" in result:
        text += f", compile {fmt_ms(result['compile_time_ms'])}"
    return text


def compare(args):
    # (workload, model id, batch, warmup, iterations, variants, [(series, row label)])
    plan = []
    for b in args.batch_sizes:
        iterations = args.resnet_iterations if args.resnet_iterations > 0 else max(3, math.ceil(8 / b))
        plan.append(("resnet50", "", b, 1 if b > 1 else 2, iterations, args.resnet_variants,
                     [("latency", "ResNet-50 latency")]))
    for b in args.batch_sizes if args.vit_iterations != 0 else []:
        iterations = args.vit_iterations if args.vit_iterations > 0 else max(3, math.ceil(8 / b))
        plan.append(("vit_b_16", "", b, 1 if b > 1 else 2, iterations, ["eager"], [("latency", "ViT-B/16 latency")]))
    for model_id in args.gpt2_model if args.gpt2_iterations != 0 else []:
        iterations = args.gpt2_iterations if args.gpt2_iterations > 0 else (3 if model_id == "gpt2" else 20)
        series = [("time_to_first_token", f"{model_id} time to first token")]
        if args.tokens > 1:
            series.append(("time_per_output_token", f"{model_id} time per output token"))
        plan.append(("gpt2", model_id, args.gpt2_batch, 1, iterations, ["eager"], series))

    samples = {}  # (workload, model id, batch, variant, series) -> {"py": [...], "cpp": [...], "rounds": [ratio, ...]}
    speedups = {}  # (workload, model id, batch, series) -> {"py": [eager / compiled per round], "cpp": [...]}
    compiled = {}  # (workload, model id, batch) -> {"py": {"compile_time_ms": [...], ...}, "cpp": {...}}
    info = {"py": {}, "cpp": {}}
    loaded_runs = cpp_runs = 0
    started = time.monotonic()
    for r in range(args.rounds):
        for workload, model_id, batch, warmup, iterations, variants, series in plan:
            order = ["py", "cpp"] if (r % 2 == 0) else ["cpp", "py"]
            prefix = f"  round {r + 1}/{args.rounds} {model_id or workload} batch {batch}"
            got = {"py": {}, "cpp": {}}  # side -> variant -> result
            for side in order:
                if side == "py":
                    for variant in variants:  # each in a fresh process, as C++'s scenarios are
                        t0 = time.monotonic()
                        got["py"][variant] = run_python_side(args, workload, model_id, batch, variant, warmup, iterations)
                        note_info(info, "py", got["py"][variant])
                        print(f"{prefix} Python {variant}: {describe(got['py'][variant], series)}"
                              f" ({time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
                else:
                    t0 = time.monotonic()
                    got["cpp"] = run_cpp_side(args, workload, model_id, batch, variants, warmup, iterations,
                                              [s for s, _ in series])
                    for result in got["cpp"].values():
                        note_info(info, "cpp", result)
                        loaded_runs += result["loaded"]
                        cpp_runs += 1
                    print(f"{prefix} C++ " + "; ".join(f"{v}: {describe(got['cpp'][v], series)}" for v in variants)
                          + f" ({time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
            for variant in variants:
                for name, _ in series:
                    entry = samples.setdefault((workload, model_id, batch, variant, name), {"py": [], "cpp": [], "rounds": []})
                    entry["py"] += got["py"][variant][name]
                    entry["cpp"] += got["cpp"][variant][name]
                    entry["rounds"].append(statistics.median(got["py"][variant][name])
                                           / statistics.median(got["cpp"][variant][name]))
            for other in [v for v in variants if v != "eager"]:
                if "eager" in variants:
                    for name, _ in series:
                        entry = speedups.setdefault((workload, model_id, batch, name, other), {"py": [], "cpp": []})
                        for side in ("py", "cpp"):
                            entry[side].append(statistics.median(got[side]["eager"][name])
                                               / statistics.median(got[side][other][name]))
                entry = compiled.setdefault((workload, model_id, batch, other), {"py": {}, "cpp": {}})
                for side in ("py", "cpp"):
                    for key in ("compile_time_ms", "first_call", "max_abs_diff"):
                        if key in got[side][other]:
                            entry[side].setdefault(key, []).append(got[side][other][key])

    rows = []
    for workload, model_id, batch, _, _, variants, series in plan:
        for variant in variants:
            for name, label in series:
                e = samples[(workload, model_id, batch, variant, name)]
                py, cpp = statistics.median(e["py"]), statistics.median(e["cpp"])
                rows.append((f"{label}, {variant}", batch, variant, py, cpp, py / cpp, min(e["rounds"]), max(e["rounds"]),
                             len(e["py"]), len(e["cpp"])))

    print()
    print("| workload | batch | Python (median) | C++ (median) | Python/C++ | per-round ratios | samples Py/C++ |")
    print("|---|---|---|---|---|---|---|")
    for label, batch, _, py, cpp, ratio, lo, hi, n_py, n_cpp in rows:
        print(f"| {label} | {batch} | {fmt_ms(py)} | {fmt_ms(cpp)} | {ratio:.2f}x | {lo:.2f}-{hi:.2f} | {n_py}/{n_cpp} |")
    if speedups:
        print()
        print("ResNet-50, each variant's speedup over eager in each language (pooled eager median / the variant's "
              "median; > 1: the variant is faster):")
        print()
        print("| batch | variant | Python: eager / variant | C++: eager / variant | per-round Python | per-round C++ |")
        print("|---|---|---|---|---|---|")
        for (workload, model_id, batch, name, other), e in speedups.items():
            pooled = {side: statistics.median(samples[(workload, model_id, batch, "eager", name)][side])
                      / statistics.median(samples[(workload, model_id, batch, other, name)][side])
                      for side in ("py", "cpp")}
            print(f"| {batch} | {other} | {pooled['py']:.2f}x | {pooled['cpp']:.2f}x | "
                  f"{min(e['py']):.2f}-{max(e['py']):.2f} | {min(e['cpp']):.2f}-{max(e['cpp']):.2f} |")
    print()
    for (workload, model_id, batch, other), e in compiled.items():
        median = lambda side, key: fmt_ms(statistics.median(e[side][key])) if key in e[side] else "?"
        largest = lambda side: f"{max(e[side]['max_abs_diff']):.2g}" if "max_abs_diff" in e[side] else "?"
        how = ("trace, freeze, optimize_for_inference" if other == "compiled" else
               "Python: the first call of torch.compile; C++: the AOTInductor compile, in the rounds that "
               "compiled: the others loaded the package from the cache")
        print(f"{model_id or workload} batch {batch} {other}, medians over the rounds: compile ({how}) "
              f"Python {median('py', 'compile_time_ms')}, C++ {median('cpp', 'compile_time_ms')}; "
              f"first call Python {median('py', 'first_call')}, C++ {median('cpp', 'first_call')}; "
              f"largest |compiled - eager| Python {largest('py')}, C++ {largest('cpp')} (tolerance 1e-4 + 1e-3 max(|eager|, RMS of eager's))")
    threads = lambda s: ",".join(str(t) for t in sorted(s))
    tv = info["py"].get("torchvision_version")
    all_variants = sorted({v for entry in plan for v in entry[5]}, key=list(RESNET_VARIANTS).index)
    print(f"Python: torch {info['py']['torch_version']}" + (f", torchvision {tv}" if tv else "")
          + f" ({sys.executable}), intra-op threads {threads(info['py']['threads'])}"
          f" (default here {threads(info['py']['default_threads'])})"
          + ("; compiled: torch.jit.trace, freeze, optimize_for_inference under no_grad, run under inference_mode"
             if "compiled" in all_variants else "")
          + (f"; inductor: torch.compile(mode='{args.compile_mode}') with freezing, run under inference_mode"
             if "inductor" in all_variants else ""))
    print(f"C++:    LibTorch {info['cpp']['torch_version']} (benchhost {' and '.join(all_variants)} "
          f"variant{'s' if len(all_variants) > 1 else ''}; compiled: --compile-modes torchscript"
          + (f"; inductor: the compiled variant, --compile-modes {args.compile_mode}" if "inductor" in all_variants else "")
          + f"), intra-op threads {threads(info['cpp']['threads'])}")
    print(f"{args.rounds} rounds, Python and C++ alternating (Python first in odd rounds); ratio > 1: C++ faster; "
          f"{loaded_runs} of {cpp_runs} C++ scenarios flagged the machine as loaded; "
          f"{time.monotonic() - started:.0f} s")
    if info["py"]["threads"] != info["cpp"]["threads"]:
        print("warning: the two sides ran with different intra-op thread counts", file=sys.stderr)

    if args.check:
        worst = min(rows, key=lambda row: row[5])
        if worst[5] < 1 / 1.05:
            print(f"check failed: C++ {worst[2]} is {1 / worst[5]:.2f}x slower than Python {worst[2]} on {worst[0]}, "
                  f"batch {worst[1]} (more than 5%)")
            return 1
        print("check passed: C++ is nowhere more than 5% slower than Python, variant for variant")
    return 0


RESNET_VARIANTS = ("eager", "compiled", "inductor")


def resnet_variants(text):
    chosen = [v for v in text.split(",") if v]
    for v in chosen:
        if v not in RESNET_VARIANTS:
            raise argparse.ArgumentTypeError(f"unknown ResNet-50 variant '{v}': {', '.join(RESNET_VARIANTS)}")
    if not chosen:
        raise argparse.ArgumentTypeError("no ResNet-50 variant (use --batch-sizes '' for no ResNet-50)")
    return [v for v in RESNET_VARIANTS if v in chosen]


def gpt2_models(text):
    ids = [m for m in text.split(",") if m]
    for m in ids:
        if m not in GPT2_CONFIGS:
            raise argparse.ArgumentTypeError(f"unknown GPT-2 model '{m}': {', '.join(sorted(GPT2_CONFIGS))}")
    return ids


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    m = sub.add_parser("measure")
    m.add_argument("workload", choices=["resnet50", "vit_b_16", "gpt2"])
    m.add_argument("--variant", choices=list(RESNET_VARIANTS), default="eager", help="resnet50 only")
    m.add_argument("--compile-mode", default="default", help="torch.compile's mode for --variant inductor")
    m.add_argument("--batch", type=int, default=1)
    m.add_argument("--warmup", type=int, default=1)
    m.add_argument("--iterations", type=int, default=5)
    m.add_argument("--threads", type=int, default=1, help="intra-op threads (0: library default)")
    m.add_argument("--image-size", type=int, default=224)
    m.add_argument("--model-id", default="gpt2", choices=sorted(GPT2_CONFIGS))
    m.add_argument("--tokens", type=int, default=16)
    m.add_argument("--prompt-tokens", type=int, default=32)
    m.add_argument("--seed", type=int, default=None, help="default: the C++ plugin's (resnet50 0, vit_b_16 16, gpt2 42)")

    c = sub.add_parser("compare")
    c.add_argument("--benchhost", required=True)
    c.add_argument("--rounds", type=int, default=4)
    c.add_argument("--batch-sizes", type=lambda s: [int(b) for b in s.split(",") if b], default=[1, 8],
                   help="ResNet-50 and ViT-B/16 batch sizes (default 1,8; '' for neither)")
    c.add_argument("--resnet-iterations", type=int, default=0,
                   help="measured calls per side, variant and round (0: ceil(8 / batch), at least 3)")
    c.add_argument("--resnet-variants", type=resnet_variants, default=list(RESNET_VARIANTS),
                   help="ResNet-50 variants on both sides: eager, compiled (TorchScript), inductor (Python's "
                        "torch.compile against C++'s AOTInductor package), comma-separated (default all three)")
    c.add_argument("--compile-mode", default="default", choices=["default", "max-autotune"],
                   help="the inductor variant's mode on both sides (default: default)")
    c.add_argument("--vit-iterations", type=int, default=-1,
                   help="ViT-B/16 (eager) measured calls per side and round (default: ceil(8 / batch), at least 3; "
                        "0: no ViT-B/16)")
    c.add_argument("--gpt2-model", type=gpt2_models, default=["gpt2"], help="gpt2, gpt2-tiny or both (comma-separated)")
    c.add_argument("--gpt2-batch", type=int, default=1)
    c.add_argument("--gpt2-iterations", type=int, default=-1,
                   help="measured generations per side per round (default: 3 for gpt2, 20 for gpt2-tiny; 0: no GPT-2)")
    c.add_argument("--tokens", type=int, default=16)
    c.add_argument("--prompt-tokens", type=int, default=32)
    c.add_argument("--threads", type=int, default=1, help="intra-op threads on both sides (0: each library's default)")
    c.add_argument("--check", action="store_true")

    args = parser.parse_args()
    if args.command == "measure":
        if args.seed is None:
            args.seed = {"resnet50": 0, "vit_b_16": 16, "gpt2": 42}[args.workload]
        if args.workload != "resnet50" and args.variant != "eager":
            parser.error(f"{args.workload} has only the eager variant here")
        measure = {"resnet50": measure_resnet50, "vit_b_16": measure_vit_b_16, "gpt2": measure_gpt2}[args.workload]
        result = measure(args)
        print(json.dumps(result))
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
