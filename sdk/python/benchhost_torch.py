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
    (freezing=False: PyTorch's default, off), and dynamic= from --param dynamic
    (static, dynamic, or automatic, the default: torch.compile's False, True, None); in
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

What torch.compile did, read from TorchDynamo's counters and compilation metrics around
the compiling first call (compiled variant, torch.compile modes):
  - scalars (count) unique_graphs, graph_breaks and compiles (frames compiled), and
    compile_time split by stage where TorchDynamo says: dynamo_compile_time,
    aot_autograd_compile_time, inductor_compile_time, inductor_code_gen_time (ms);
  - info graph_break_reasons (the first three whole, then how many more), fx_graph_cache
    and aot_autograd_cache: hit, miss or bypass, with Inductor's reason for a bypass
    (on the CPU, freezing makes oneDNN weights that Inductor cannot pickle, so the FX
    graph cache is bypassed and every worker compiles again);
  - after model_variant returns, every further compile (a new input shape, a guard that
    failed: in the timed samples unless the plugin calls the model otherwise) counts in
    the scalar recompiles and gets a warning naming the guard that failed.
"""

import copy
import logging
import os
import sys
import time

import torch

TORCH_COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
TORCHSCRIPT_MODES = ("torchscript",)
# --param dynamic: torch.compile's dynamic= (automatic: static shapes first, dynamic ones
# from the first shape that changes).
DYNAMIC = {"static": False, "dynamic": True, "automatic": None}

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
            dynamic_text = str(config.params.get("dynamic", "automatic"))
            if dynamic_text not in DYNAMIC:
                raise ValueError(f"--param dynamic must be {', '.join(DYNAMIC)}, got '{dynamic_text}'")
            forward = torch.compile(model, mode=None if mode == "default" else mode, dynamic=DYNAMIC[dynamic_text])
            # A notice line, which the host shows on the console: the first call compiles,
            # tens of seconds on a CPU, and the run would seem to hang.
            cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "Inductor's default folder")
            print(f"[notice] torch.compile(mode={mode!r}) of {type(model).__name__} at its first call: tens of "
                  f"seconds on a CPU, less when Inductor's cache ({cache}) has it", file=sys.stderr, flush=True)
            watch = _CompileWatch()
            try:
                compile_ms, _ = _timed(device, lambda: forward(*inputs))
            finally:
                watch.stop()  # the loggers as they were, whether the compile worked or not
            watch.record_compile(ctx)
            ctx.set_info("compiler", f"torch.compile(mode={mode!r}) {torch.__version__}, dynamic shapes "
                                     f"{dynamic_text}, Inductor freezing {'on' if freezing else 'off'}")
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
    if config.variant == "compiled" and config.compile_mode in TORCH_COMPILE_MODES:
        _CompileWatch.watch_later_compiles(ctx)
    return forward


_GRAPH_BREAK_LOG = "torch._dynamo.symbolic_convert.__graph_breaks"


class _CompileWatch:
    """What TorchDynamo and Inductor did from its creation to record_compile: the
    counters and compilation metrics of torch._dynamo.utils (one process: a worker runs
    one scenario; under --isolation none the counts are those since this watch began)."""

    _later = None  # the Context whose later compiles are counted (the latest scenario's)
    _registered = False

    def __init__(self):
        from torch._dynamo.utils import counters, get_compilation_metrics
        self._counters = counters
        self._metrics = get_compilation_metrics
        self._seen = {m.compile_id for m in get_compilation_metrics()}
        self._before = self._snapshot()
        self._bypass: dict[str, str] = {}
        handler = _CacheBypassHandler(self._bypass)
        self._handler = handler
        # The caches give a bypass's reason only in an INFO line: while the first call
        # compiles, their loggers pass INFO to the handler alone, which hands on to the
        # parent loggers what they would have had anyway.
        for name in ("torch._inductor.codecache", "torch._functorch._aot_autograd.autograd_cache"):
            logger = logging.getLogger(name)
            handler.saved[name] = (logger.level, logger.propagate, logger.getEffectiveLevel())
            logger.setLevel(min(logging.INFO, logger.getEffectiveLevel()))
            logger.propagate = False
            logger.addHandler(handler)
        # TorchDynamo's graph_breaks log (off unless TORCH_LOGS asks): one line per graph
        # break, the same break again (TorchDynamo traces a frame again after a break)
        # marked as a duplicate. Its counter counts both, so the distinct breaks come
        # from here; the log's own settings stay as they are.
        breaks = logging.getLogger(_GRAPH_BREAK_LOG)
        handler.saved[_GRAPH_BREAK_LOG] = (breaks.level, breaks.propagate, None)
        if not breaks.isEnabledFor(logging.DEBUG):
            breaks.setLevel(logging.DEBUG)
            breaks.propagate = False
            handler.quiet_breaks = True
        breaks.addHandler(handler)

    def _snapshot(self):
        c = self._counters
        return {
            "unique_graphs": c["stats"]["unique_graphs"],
            "graph_breaks": dict(c["graph_break"]),
            "fx_graph_cache": {k: c["inductor"][f"fxgraph_cache_{k}"] for k in ("hit", "miss", "bypass")},
            "aot_autograd_cache": {k: c["aot_autograd"][f"autograd_cache_{k}"] for k in ("hit", "miss", "bypass")},
        }

    def stop(self):
        """Gives the loggers back their own settings."""
        for name, (level, propagate, _) in self._handler.saved.items():
            logger = logging.getLogger(name)
            logger.removeHandler(self._handler)
            if name == _GRAPH_BREAK_LOG and not self._handler.quiet_breaks:
                continue
            logger.setLevel(level)
            logger.propagate = propagate

    def record_compile(self, ctx):
        """Records what was compiled since the watch began (after stop)."""
        after = self._snapshot()
        before = self._before
        ctx.record_scalar("unique_graphs", after["unique_graphs"] - before["unique_graphs"], "count")
        breaks = {reason: n - before["graph_breaks"].get(reason, 0) for reason, n in after["graph_breaks"].items()}
        breaks = {reason: n for reason, n in breaks.items() if n > 0}
        # Distinct breaks as the graph_breaks log saw them; its counter where it saw none.
        ctx.record_scalar("graph_breaks", self._handler.breaks if self._handler.breaks else sum(breaks.values()),
                          "count")
        if breaks:
            reasons = [reason.split("\n")[0].strip() for reason in breaks]
            text = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
            ctx.set_info("graph_break_reasons", text)
        metrics = [m for m in self._metrics() if m.compile_id not in self._seen]
        ctx.record_scalar("compiles", len(metrics), "count")
        for scalar, field in (("dynamo_compile_time", "dynamo_cumulative_compile_time_us"),
                              ("aot_autograd_compile_time", "aot_autograd_cumulative_compile_time_us"),
                              ("inductor_compile_time", "inductor_cumulative_compile_time_us"),
                              ("inductor_code_gen_time", "inductor_code_gen_cumulative_compile_time_us")):
            values: list[float] = [v for v in (getattr(m, field, None) for m in metrics) if v is not None]
            if values:
                ctx.record_scalar(scalar, sum(values) / 1e3, "ms")
        for cache in ("fx_graph_cache", "aot_autograd_cache"):
            counts = {k: after[cache][k] - before[cache][k] for k in ("hit", "miss", "bypass")}
            outcome = ", ".join(f"{k}" + (f" x{n}" if n > 1 else "") for k, n in counts.items() if n > 0)
            if not outcome:
                continue
            if counts["bypass"] and self._bypass.get(cache):
                outcome += f" ({self._bypass[cache]})"
            ctx.set_info(cache, outcome)

    @classmethod
    def watch_later_compiles(cls, ctx):
        """From now on every compile of this process counts in ctx's scalar recompiles,
        with a warning naming the guard that failed."""
        cls._later = {"ctx": ctx, "count": 0}
        ctx.record_scalar("recompiles", 0, "count")
        if cls._registered:
            return
        try:
            from torch._dynamo.callback import on_compile_end
        except ImportError:  # a torch without compile callbacks: nothing is counted
            return
        on_compile_end(cls._compiled)
        cls._registered = True

    @classmethod
    def forget(cls):
        """The scenario has ended: its Context is gone, and later compiles count nowhere
        (benchhost_support.run calls this when each benchmark ends)."""
        cls._later = None

    @classmethod
    def _compiled(cls, args):
        later = cls._later
        if later is None:
            return
        later["count"] += 1
        reason = None
        try:
            from torch._dynamo.utils import get_metrics_context
            reason = get_metrics_context()._metrics.get("recompile_reason")
        except Exception:  # a private detail of TorchDynamo: the warning then says less
            pass
        ctx = later["ctx"]
        ctx.record_scalar("recompiles", later["count"], "count")
        if later["count"] <= 3:
            ctx.add_warning(f"torch.compile compiled again after the first call (compile {args.compile_id}): "
                            f"{reason or 'a new frame (no guard failed)'}; the samples it fell in include the "
                            f"compile")


class _CacheBypassHandler(logging.Handler):
    """Keeps the reason Inductor's FX graph cache or AOT autograd's cache gives for a
    bypass (their INFO log line), and counts TorchDynamo's distinct graph breaks."""

    def __init__(self, reasons):
        super().__init__(logging.DEBUG)
        self.reasons = reasons
        self.saved = {}
        self.breaks = 0  # distinct graph breaks the graph_breaks log reported
        self.quiet_breaks = False

    def emit(self, record):
        level, propagate, effective = self.saved.get(record.name, (0, True, 0))
        if record.name == _GRAPH_BREAK_LOG:
            try:
                if not record.getMessage().startswith("Graph break (user stack suppressed due to duplicate"):
                    self.breaks += 1
            except Exception:
                pass
            return
        if propagate and record.levelno >= effective:
            parent_name = record.name.rpartition(".")[0]
            (logging.getLogger(parent_name) if parent_name else logging.getLogger()).handle(record)
        try:
            message = record.getMessage()
        except Exception:
            return
        if message.startswith("Bypassing FX Graph Cache because"):
            self.reasons["fx_graph_cache"] = message.split("because", 1)[1].strip().strip("'")
        elif message.startswith("Bypassing autograd cache due to:"):
            self.reasons["aot_autograd_cache"] = message.split(":", 1)[1].strip()
