"""Python eager against C++ eager on the same LibTorch (used by scripts/compare_python_eager).

Two roles, run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision):

  python_eager.py measure resnet50 --batch B --warmup W --iterations N [--threads T]
  python_eager.py measure gpt2 --model-id ID --batch B --tokens T --warmup W --iterations N
      One side of one round in a fresh process, as benchhost's worker is: builds the
      model, warms up, measures, and prints one JSON line with the samples (ms), the
      thread count and the torch version.

  python_eager.py compare --benchhost PATH [options]
      The driver (imports no torch): rounds of (Python side, C++ side) per workload,
      the order alternating between rounds; pools each side's samples over the rounds
      and prints the medians and Python/C++ ratios.

The Python models mirror the C++ plugins' eager variants:
  - ResNet-50: torchvision.models.resnet50(), random init; as the C++ plugin does, one
    training-mode pass (batch-norm momentum 1) on a seeded random batch of 2 sets the
    running statistics, then eval(). (Timing of float32 eager does not depend on the
    values; this only keeps activations O(1) on both sides.)
  - GPT-2: the algorithm of plugins/performance/gpt2/gpt2.cpp, eager variant, op for op
    (see Gpt2 below), with the same seeded initialization and prompt.
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
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    parameters = sum(p.numel() for p in model.parameters())

    samples = []
    with torch.inference_mode():
        torch.manual_seed(args.seed + 1)
        x = torch.randn(args.batch, 3, args.image_size, args.image_size)
        model(x)  # as the C++ side's first call (its accuracy reference), before its warmup
        for _ in range(args.warmup):
            model(x)
        for _ in range(args.iterations):
            start = time.perf_counter()
            out = model(x)
            samples.append((time.perf_counter() - start) * 1e3)
            del out
    return {
        "latency": samples,
        "threads": torch.get_num_threads(),
        "default_threads": default_threads,
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "parameters": parameters,
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

        def forward(self, x, positions, masked, k_cache, v_cache):
            batch, tokens, d = x.shape
            hd = d // self.n_head
            qkv = self.c_attn(x)

            def split_heads(part):
                return qkv.narrow(-1, part * d, d).view(batch, tokens, self.n_head, hd).transpose(1, 2)

            q = split_heads(0)
            k_cache.index_copy_(2, positions, split_heads(1))
            v_cache.index_copy_(2, positions, split_heads(2))
            scores = torch.matmul(q, k_cache.transpose(-1, -2)) / math.sqrt(hd)
            scores = scores.masked_fill(masked, -math.inf)
            out = torch.matmul(torch.softmax(scores, -1), v_cache)
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

        def forward(self, x, positions, masked, k_cache, v_cache):
            h = x + self.attn(self.ln_1(x), positions, masked, k_cache, v_cache)
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
            masked = torch.arange(max_len, dtype=positions.dtype, device=positions.device).unsqueeze(0) > positions.unsqueeze(1)
            x = self.wte(ids) + self.wpe(positions)
            for i, block in enumerate(self.h):
                x = block(x, positions, masked, caches[2 * i], caches[2 * i + 1])
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


def run_python_side(args, workload, model_id, batch, warmup, iterations):
    cmd = [sys.executable, os.path.abspath(__file__), "measure", workload, "--batch", str(batch),
           "--warmup", str(warmup), "--iterations", str(iterations), "--threads", str(args.threads)]
    if workload == "gpt2":
        cmd += ["--model-id", model_id, "--tokens", str(args.tokens), "--prompt-tokens", str(args.prompt_tokens)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_cpp_side(args, workload, model_id, batch, warmup, iterations, series):
    with tempfile.TemporaryDirectory(prefix="compare_python_eager_") as out_dir:
        cmd = [args.benchhost, "run", "--include", workload, "--variants", "eager", "--batch-sizes", str(batch),
               "--warmup-iterations", str(warmup), "--measurement-iterations", str(iterations),
               "--threads", str(args.threads), "--output-dir", out_dir, "--log-level", "warn"]
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
    scenarios = [s for s in report["benchmark_scenarios"] if s["status"] == "success"]
    if len(scenarios) != 1:
        raise SystemExit(f"compare_python_eager: expected one successful {workload} scenario, got "
                         f"{[(s['scenario_id'], s['status']) for s in report['benchmark_scenarios']]}")
    s = scenarios[0]
    result = {name: s["measurements"][name]["measurements"] for name in series}
    result["threads"] = int(s["info"].get("threads", "0"))
    result["torch_version"] = s["info"].get("torch_version", "?")
    result["loaded"] = bool(s.get("cpu_metrics", {}).get("flags", {}).get("loaded", False))
    return result


def fmt_ms(v):
    return f"{v:.3g} ms" if v < 1000 else f"{v / 1000:.3g} s"


def compare(args):
    # (workload, model id, batch, warmup, iterations, [(series, row label)])
    plan = []
    for b in args.batch_sizes:
        iterations = args.resnet_iterations if args.resnet_iterations > 0 else max(3, math.ceil(8 / b))
        plan.append(("resnet50", "", b, 1 if b > 1 else 2, iterations, [("latency", "ResNet-50 latency")]))
    for model_id in args.gpt2_model if args.gpt2_iterations != 0 else []:
        iterations = args.gpt2_iterations if args.gpt2_iterations > 0 else (3 if model_id == "gpt2" else 20)
        series = [("time_to_first_token", f"{model_id} time to first token")]
        if args.tokens > 1:
            series.append(("time_per_output_token", f"{model_id} time per output token"))
        plan.append(("gpt2", model_id, args.gpt2_batch, 1, iterations, series))

    samples = {}  # (workload, batch, series) -> {"py": [...], "cpp": [...], "rounds": [ratio, ...]}
    info = {"py": {}, "cpp": {}}
    loaded_runs = 0
    started = time.monotonic()
    for r in range(args.rounds):
        for workload, model_id, batch, warmup, iterations, series in plan:
            order = ["py", "cpp"] if (r % 2 == 0) else ["cpp", "py"]
            got = {}
            for side in order:
                t0 = time.monotonic()
                if side == "py":
                    got[side] = run_python_side(args, workload, model_id, batch, warmup, iterations)
                    info["py"].setdefault("threads", set()).add(got[side]["threads"])
                    info["py"].setdefault("default_threads", set()).add(got[side]["default_threads"])
                    info["py"]["torch_version"] = got[side]["torch_version"]
                    if "torchvision_version" in got[side]:
                        info["py"]["torchvision_version"] = got[side]["torchvision_version"]
                else:
                    got[side] = run_cpp_side(args, workload, model_id, batch, warmup, iterations,
                                             [s for s, _ in series])
                    info["cpp"].setdefault("threads", set()).add(got[side]["threads"])
                    info["cpp"]["torch_version"] = got[side]["torch_version"]
                    loaded_runs += got[side]["loaded"]
                print(f"  round {r + 1}/{args.rounds} {model_id or workload} batch {batch} {'Python' if side == 'py' else 'C++'}: "
                      + ", ".join(f"{name} median {fmt_ms(statistics.median(got[side][name]))}" for name, _ in series)
                      + f" ({time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
            for name, _ in series:
                entry = samples.setdefault((workload, model_id, batch, name), {"py": [], "cpp": [], "rounds": []})
                entry["py"] += got["py"][name]
                entry["cpp"] += got["cpp"][name]
                entry["rounds"].append(statistics.median(got["py"][name]) / statistics.median(got["cpp"][name]))

    rows = []
    for workload, model_id, batch, _, _, series in plan:
        for name, label in series:
            e = samples[(workload, model_id, batch, name)]
            py, cpp = statistics.median(e["py"]), statistics.median(e["cpp"])
            rows.append((label, batch, py, cpp, py / cpp, min(e["rounds"]), max(e["rounds"]), len(e["py"]), len(e["cpp"])))

    print()
    print("| workload | batch | Python eager (median) | C++ eager (median) | Python/C++ | per-round ratios | samples Py/C++ |")
    print("|---|---|---|---|---|---|---|")
    for label, batch, py, cpp, ratio, lo, hi, n_py, n_cpp in rows:
        print(f"| {label} | {batch} | {fmt_ms(py)} | {fmt_ms(cpp)} | {ratio:.2f}x | {lo:.2f}-{hi:.2f} | {n_py}/{n_cpp} |")
    print()
    threads = lambda s: ",".join(str(t) for t in sorted(s))
    tv = info["py"].get("torchvision_version")
    print(f"Python: torch {info['py']['torch_version']}" + (f", torchvision {tv}" if tv else "")
          + f" (/usr/bin/python3), intra-op threads {threads(info['py']['threads'])}"
          f" (default here {threads(info['py']['default_threads'])})")
    print(f"C++:    LibTorch {info['cpp']['torch_version']} (benchhost eager variant), intra-op threads "
          f"{threads(info['cpp']['threads'])}")
    print(f"{args.rounds} rounds, Python and C++ alternating (Python first in odd rounds); ratio > 1: C++ faster; "
          f"{loaded_runs} of {args.rounds * len(plan)} C++ runs flagged the machine as loaded; "
          f"{time.monotonic() - started:.0f} s")
    if info["py"]["threads"] != info["cpp"]["threads"]:
        print("warning: the two sides ran with different intra-op thread counts", file=sys.stderr)

    if args.check:
        worst = min(rows, key=lambda row: row[4])
        if worst[4] < 1 / 1.05:
            print(f"check failed: C++ eager is {1 / worst[4]:.2f}x slower than Python eager on {worst[0]}, "
                  f"batch {worst[1]} (more than 5%)")
            return 1
        print("check passed: C++ eager is nowhere more than 5% slower than Python eager")
    return 0


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
    m.add_argument("workload", choices=["resnet50", "gpt2"])
    m.add_argument("--batch", type=int, default=1)
    m.add_argument("--warmup", type=int, default=1)
    m.add_argument("--iterations", type=int, default=5)
    m.add_argument("--threads", type=int, default=1, help="intra-op threads (0: library default)")
    m.add_argument("--image-size", type=int, default=224)
    m.add_argument("--model-id", default="gpt2", choices=sorted(GPT2_CONFIGS))
    m.add_argument("--tokens", type=int, default=16)
    m.add_argument("--prompt-tokens", type=int, default=32)
    m.add_argument("--seed", type=int, default=None, help="default: the C++ plugin's (resnet50 0, gpt2 42)")

    c = sub.add_parser("compare")
    c.add_argument("--benchhost", required=True)
    c.add_argument("--rounds", type=int, default=4)
    c.add_argument("--batch-sizes", type=lambda s: [int(b) for b in s.split(",") if b], default=[1, 8])
    c.add_argument("--resnet-iterations", type=int, default=0,
                   help="measured calls per side per round (0: ceil(8 / batch), at least 3)")
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
            args.seed = 0 if args.workload == "resnet50" else 42
        result = measure_resnet50(args) if args.workload == "resnet50" else measure_gpt2(args)
        print(json.dumps(result))
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
