"""benchhost.torch: a PyTorch model's scenario in a Python plugin, as the C++ SDK's
LibTorch layer runs it.

    import torch
    from benchhost.torch import model_variant, record_memory, select

    def run_benchmark(ctx):
        device, dtype = select(ctx)
        model = build_model().eval().to(device, dtype)
        x = torch.randn(ctx.config.batch_size, 3, 224, 224).to(device, dtype)
        with torch.inference_mode():
            forward = model_variant(ctx, model, (x,), kernelize=my_kernelize)
            ctx.measure("latency", lambda: forward(x))
        record_memory(ctx, device)

select(ctx) sets the intra-op threads (config.threads, when above 0) and returns the
scenario's torch.device and dtype, skipping the scenario where this machine or this
torch cannot run them (a CUDA device without one, a dtype it does not know); it applies
--param deterministic, matmul_precision (highest, high, medium), cudnn_benchmark and tf32
(0 or 1) as the C++ layer does, and records info torch_version, device_name,
deterministic_algorithms, matmul_precision and, on CUDA, cudnn_benchmark and tf32. record_memory(ctx, device) records, on CUDA,
cuda_max_memory_allocated and cuda_max_memory_reserved (MiB), the timed samples' peaks:
model_variant records the peaks before them as cuda_setup_max_memory_allocated and
_reserved and restarts them. The SDK records the process's setup_peak_rss and
measured_peak_rss, the worker its peak_rss.

model_variant builds the scenario's variant (ctx.config.variant) of an nn.Module as the
C++ SDK's LibTorch layer does, and checks its output against eager's:
  - eager: the module itself;
  - compiled: in the compile modes of torch.compile (default, reduce-overhead,
    max-autotune, max-autotune-no-cudagraphs), torch.compile(model, mode=...) with
    Inductor's freezing on, as the C++ layer's AOTInductor packages are compiled
    (freezing=False: PyTorch's default, off); in
    torchscript, torch.jit.trace, torch.jit.freeze and torch.jit.optimize_for_inference;
    another mode fails the scenario, naming the known ones;
  - kernelized: kernelize(model), a callable of the plugin's own (it gets a deep copy of
    the model); without one the scenario is skipped, saying so.
It records compile_time (torch.compile compiles at the first call, so its compile_time
includes that call's forward pass; TorchScript's is the trace, freeze and passes) or
kernelize_time, first_call (the first call after compiling, ms), info compiler, and
max_abs_diff and max_rel_diff of the variant's output against eager's on the same inputs,
with the C++ layer's tolerances: out of tolerance the scenario fails with the worst
element. On a CUDA device each timed call ends with torch.cuda.synchronize().

torch.compile's cache is the worker's TORCHINDUCTOR_CACHE_DIR: the user's, else
benchhost's cache folder (inductor/ in it; recorded as info compile_cache_dir).
"""

import copy
import os
import sys
import time

import torch

TORCH_COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
TORCHSCRIPT_MODES = ("torchscript",)

# (absolute, relative) per dtype: the C++ layer's tolerance_for.
TOLERANCE = {
    torch.float64: (1e-8, 1e-7),
    torch.float32: (1e-4, 1e-3),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (5e-2, 5e-2),
}


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64}


def select(ctx):
    """(torch.device, torch.dtype) of the scenario, its threads set; skips where they
    cannot run here."""
    config = ctx.config
    if config.threads > 0:
        torch.set_num_threads(config.threads)
    if config.dtype not in DTYPES:
        ctx.skip(f"dtype {config.dtype}: benchhost.torch knows {', '.join(DTYPES)}")
    try:
        device = torch.device(config.device)
    except RuntimeError as error:
        ctx.skip(f"device {config.device}: {error}")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            ctx.skip(f"device {config.device}: torch.cuda.is_available() is False here "
                     f"(torch {torch.__version__}, CUDA {torch.version.cuda or 'not built in'})")
        if device.index is not None and device.index >= torch.cuda.device_count():
            ctx.skip(f"device {config.device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
        ctx.set_info("device_name", torch.cuda.get_device_name(device))
    elif device.type != "cpu":
        ctx.skip(f"device {config.device}: benchhost.torch runs cpu and cuda")
    apply_backend_settings(ctx, device)
    ctx.set_info("torch_version", torch.__version__)
    return device, DTYPES[config.dtype]


def _switch(ctx, name):
    """--param NAME as True or False; None when not given."""
    value = ctx.config.params.get(name)
    if value is None:
        return None
    text = value.lower() if isinstance(value, str) else ""
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"--param {name}={value}: a boolean (true or false) is expected")


def _on_off(on):
    return "on" if on else "off"


def apply_backend_settings(ctx, device):
    """--param deterministic, matmul_precision (highest, high, medium), cudnn_benchmark,
    tf32 (0 or 1), as the C++ layer's select_device applies them, recorded as info
    whether set or not."""
    deterministic = _switch(ctx, "deterministic")
    if deterministic is not None:
        torch.use_deterministic_algorithms(deterministic)
    ctx.set_info("deterministic_algorithms", _on_off(torch.are_deterministic_algorithms_enabled()))
    precision = ctx.config.params.get("matmul_precision")
    if precision is not None:
        if precision not in ("highest", "high", "medium"):
            raise ValueError(f"--param matmul_precision must be highest, high or medium, got '{precision}'")
        torch.set_float32_matmul_precision(precision)
    ctx.set_info("matmul_precision", torch.get_float32_matmul_precision())
    if device.type != "cuda":
        for name in ("cudnn_benchmark", "tf32"):
            if _switch(ctx, name) is not None:
                ctx.add_warning(f"--param {name} applies to CUDA devices: not used on {device}")
        return
    benchmark = _switch(ctx, "cudnn_benchmark")
    if benchmark is not None:
        torch.backends.cudnn.benchmark = benchmark
    tf32 = _switch(ctx, "tf32")
    if tf32 is not None:
        torch.backends.cuda.matmul.fp32_precision = "tf32" if tf32 else "ieee"
        torch.backends.cudnn.conv.fp32_precision = "tf32" if tf32 else "ieee"
    ctx.set_info("cudnn_benchmark", _on_off(torch.backends.cudnn.benchmark))
    ctx.set_info("tf32", f"cudnn {_on_off(torch.backends.cudnn.conv.fp32_precision == 'tf32')}, "
                         f"cublas {_on_off(torch.backends.cuda.matmul.fp32_precision == 'tf32')}")


def record_memory(ctx, device):
    """On CUDA, the device's peak memory (MiB) since the timed samples began (after
    model_variant, which restarts the peaks), else since the process started."""
    if device.type == "cuda":
        ctx.record_scalar("cuda_max_memory_allocated", torch.cuda.max_memory_allocated(device) / 2**20, "MiB")
        ctx.record_scalar("cuda_max_memory_reserved", torch.cuda.max_memory_reserved(device) / 2**20, "MiB")


def restart_memory_peaks(ctx, device):
    """Right before the timed samples, on CUDA: the allocator's peaks so far (the
    reference pass, compiling) as cuda_setup_max_memory_allocated and _reserved (MiB),
    then restarted, so that record_memory's peaks are the timed samples' own. The SDK
    does the same for the process's resident memory (setup_peak_rss)."""
    if device.type == "cuda":
        ctx.record_scalar("cuda_setup_max_memory_allocated", torch.cuda.max_memory_allocated(device) / 2**20, "MiB")
        ctx.record_scalar("cuda_setup_max_memory_reserved", torch.cuda.max_memory_reserved(device) / 2**20, "MiB")
        torch.cuda.reset_peak_memory_stats(device)


def _timed(device, fn):
    """(ms, result) of fn(), synchronizing a CUDA device before the clock stops."""
    start = time.perf_counter()
    result = fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return (time.perf_counter() - start) * 1e3, result


def _tensors(output):
    """The tensors of an output (a tensor, or a tuple, list or dict of them), in order."""
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, dict):
        return [t for value in output.values() for t in _tensors(value)]
    if isinstance(output, (tuple, list)):
        return [t for value in output for t in _tensors(value)]
    return []


def check_against_eager(ctx, reference, candidate):
    """Records max_abs_diff and max_rel_diff of `candidate` against `reference` (outputs:
    tensors, or tuples, lists or dicts of them); raises AssertionError beyond the
    reference dtype's tolerance, naming the worst element."""
    refs, cands = _tensors(reference), _tensors(candidate)
    if len(refs) != len(cands):
        raise AssertionError(f"the variant returned {len(cands)} tensor(s), eager {len(refs)}")
    max_abs = max_rel = 0.0
    failure = None
    for i, (ref, cand) in enumerate(zip(refs, cands)):
        if ref.shape != cand.shape:
            raise AssertionError(f"output {i}: shape {list(cand.shape)} differs from eager's {list(ref.shape)}")
        atol, rtol = TOLERANCE.get(ref.dtype, (0.0, 0.0))
        r = (ref.to_dense() if ref.is_mkldnn else ref).detach().to("cpu", torch.float64)
        c = (cand.to_dense() if cand.is_mkldnn else cand).detach().to("cpu", torch.float64)
        diff = (c - r).abs()
        diff[c == r] = 0.0
        diff[c.isnan() & r.isnan()] = 0.0
        diff[c.isnan() ^ r.isnan()] = float("inf")
        magnitude = r.abs().nan_to_num(0.0, 0.0, 0.0)
        if diff.numel() == 0:
            continue
        max_abs = max(max_abs, diff.max().item())
        max_rel = max(max_rel, (diff / magnitude.clamp_min(max(atol, 1e-300))).max().item())
        excess = diff - (atol + rtol * magnitude)
        bad = int((excess > 0).sum().item())
        if bad and failure is None:
            worst = int(excess.flatten().argmax().item())
            index = list(torch.unravel_index(torch.tensor(worst), r.shape)) if r.dim() else []
            failure = (f"output {i} differs from eager beyond the {str(ref.dtype).replace('torch.', '')} tolerance "
                       f"(absolute {atol:g} + relative {rtol:g} * |reference|) at {bad} of {diff.numel()} elements; "
                       f"worst at index {[int(k) for k in index]}: candidate {c.flatten()[worst].item():.9g}, "
                       f"reference {r.flatten()[worst].item():.9g}")
    ctx.record_scalar("max_abs_diff", max_abs, "abs")
    ctx.record_scalar("max_rel_diff", max_rel, "ratio")
    if failure:
        raise AssertionError(f"{failure} (max_abs_diff {max_abs:g}, max_rel_diff {max_rel:g})")


def model_variant(ctx, model, inputs, *, kernelize=None, freezing=True):
    """The scenario's variant of `model` (an nn.Module in eval mode, on the device and in
    the dtype of the run), as a callable taking the model's inputs, checked against eager
    on `inputs` (a tuple). Call it, and the callable, under torch.inference_mode().
    `freezing`: Inductor's freezing for torch.compile (weights as constants, batch norm
    folded, oneDNN weights prepacked on the CPU), as the C++ layer's AOTInductor packages
    have it; False compiles with PyTorch's default (off)."""
    config = ctx.config
    inputs = tuple(inputs)
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    first_ms, reference = _timed(device, lambda: model(*inputs))
    if config.variant == "eager":
        ctx.record_scalar("first_call", first_ms, "ms")
        restart_memory_peaks(ctx, device)
        return model

    if config.variant == "compiled":
        mode = config.compile_mode
        if mode in TORCH_COMPILE_MODES:
            import torch._inductor.config as inductor_config
            # For the whole process (a worker runs one scenario): Inductor reads it when
            # it compiles, at the first call and at any recompilation.
            inductor_config.freezing = freezing
            forward = torch.compile(model, mode=None if mode == "default" else mode)
            # A notice line, which the host shows on the console: the first call compiles,
            # tens of seconds on a CPU, and the run would seem to hang.
            cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "Inductor's default folder")
            print(f"[notice] torch.compile(mode={mode!r}) of {type(model).__name__} at its first call: tens of "
                  f"seconds on a CPU, less when Inductor's cache ({cache}) has it", file=sys.stderr, flush=True)
            compile_ms, _ = _timed(device, lambda: forward(*inputs))
            ctx.set_info("compiler", f"torch.compile(mode={mode!r}) {torch.__version__}, Inductor freezing "
                                     f"{'on' if freezing else 'off'}")
            ctx.set_info("compile_cache_dir", os.environ.get("TORCHINDUCTOR_CACHE_DIR", "Inductor's default"))
        elif mode in TORCHSCRIPT_MODES:
            def script():
                traced = torch.jit.trace(model, inputs, check_trace=False)
                return torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
            compile_ms, forward = _timed(device, script)
            ctx.set_info("compiler", f"torch.jit.trace + freeze + optimize_for_inference {torch.__version__}")
        else:
            raise ValueError(f"compile mode '{mode}' is not one that benchhost.torch.model_variant knows: "
                             f"{', '.join(TORCH_COMPILE_MODES + TORCHSCRIPT_MODES)}")
        ctx.record_scalar("compile_time", compile_ms, "ms")
    elif config.variant == "kernelized":
        if kernelize is None:
            ctx.skip("no kernelized variant: the plugin gives model_variant no kernelize function")
        kernelize_ms, forward = _timed(device, lambda: kernelize(copy.deepcopy(model)))
        if forward is None:
            ctx.skip("no kernelized variant: kernelize returned None")
        ctx.record_scalar("kernelize_time", kernelize_ms, "ms")
    else:
        raise ValueError(f"unknown variant '{config.variant}'")

    first_ms, output = _timed(device, lambda: forward(*inputs))
    ctx.record_scalar("first_call", first_ms, "ms")
    check_against_eager(ctx, reference, output)
    restart_memory_peaks(ctx, device)
    return forward
