"""benchhost.jax: a JAX model in a Python plugin, beside benchhost.torch.

    from benchhost.jax import model_variant, record_memory, record_work, select

    def run_benchmark(ctx):
        device, dtype = select(ctx)
        params = init(jax.random.key(0), dtype)          # a pytree of arrays
        x = jnp.ones((ctx.config.batch_size, 224, 224, 3), dtype)
        forward = model_variant(ctx, apply, params, (x,))
        latency = ctx.measure("latency", lambda: forward(x))
        record_work(ctx, latency)
        record_memory(ctx, device)

XLA_PYTHON_CLIENT_PREALLOCATE is set to false (unless it is set already) before jax is
imported: on a GPU, XLA would otherwise reserve 75% of its memory at the first
computation, which makes the device's memory figures meaningless and leaves nothing to
a second framework in the same process. The worker sets it too, before it imports the
plugin; select records it as info xla_python_client_preallocate.

select(ctx) skips a variant or compile mode that model_variant would skip (below),
before the plugin builds its model; it returns the scenario's jax.Device and dtype, and
makes that device JAX's default (jax_default_device): cpu; cuda, cuda:N, gpu or gpu:N
where this jaxlib has a GPU backend. It skips the scenario, saying why, where JAX cannot
run it (no GPU backend, no such device, a dtype it does not know); float64 turns on
jax_enable_x64. --threads N (above 0) sizes the XLA CPU client's thread pool
(PJRT_NPROC=N; with 1 also --xla_cpu_multi_thread_eigen=false in XLA_FLAGS), which must
happen before JAX starts its backends: select warns when they had started already.
--param matmul_precision (default, high, highest: JAX's names) sets
jax_default_matmul_precision. It records info jax_version, device_name, jax_platform,
xla_flags, xla_cpu_threads, matmul_precision, xla_python_client_preallocate and
compile_cache_dir, and turns on JAX's persistent compilation cache in jax/ of
benchhost's cache folder (the folder torch.compile's inductor/ is in), unless
jax_compilation_cache_dir is set already.

model_variant(ctx, fn, params, inputs) builds the scenario's variant of fn(params,
*inputs) and returns a callable taking the inputs, with params bound, which returns
only when its results are computed (jax.block_until_ready): JAX dispatches
asynchronously, and a sample must not end before its work.
  - eager: fn op by op, under jax.disable_jit() (each operation dispatched on its own,
    inner jax.jit calls included);
  - compiled (compile mode default): jax.jit(fn), lowered and compiled ahead of the
    first sample (jitted.lower(...).compile()): lowering_s and compile_s are recorded
    apart, compiles counts XLA's compiles in it (jax.monitoring's backend compile spans;
    a persistent cache hit counts, an executable the process compiled already not),
    and info compile_cache says whether the persistent cache had it (hit, miss:
    written, not used). benchhost.torch's other modes (torchscript, reduce-overhead,
    max-autotune, torch-compile...) skip the scenario; another mode fails it, naming the
    known one;
  - kernelized: skipped (benchhost.jax has none).
After model_variant returns (eager or compiled), every XLA compile of the process (a
jitted function called with a new shape, an eager operation met for the first time) is
recorded with when it ran (ctx.record_compile): the worker marks the timed samples it
fell in, with a warning, and --discard-recompiled drops them. In the compiled variant
each such compile also counts in the scalar recompiles (as benchhost.torch's for
torch.compile: a count compare and history check gate) and the first three get a
warning naming the function and what changed, in JAX's words (jax_explain_cache_misses,
switched on from then until the scenario ends: "different input types: at x, now
f32[8,32] and before f32[7,32]"); info recompile_reasons keeps those words (the first
three whole, then how many more).
It records first_call (ms, the first call of the variant), flops_per_forward (XLA's cost
analysis: of the compiled executable, or for eager of the lowered program),
compiled_argument_memory, compiled_output_memory, compiled_temp_memory and, where the
backend says (not the CPU), compiled_code_size (MiB, XLA's memory analysis of the
compiled executable) and max_abs_diff and max_rel_diff of the variant's output against
eager's, with benchhost.torch's tolerances: beyond them the scenario fails, naming the
worst element.

check_against_eager(ctx, reference, candidate, against="eager", prefix="") is that check,
for another framework's output too (resnet50_jax compares its logits with torch's,
recording torch_max_abs_diff and torch_max_rel_diff).

A model converted from PyTorch (resnet50_jax, vit_b_16_jax): converted_benchmark(ctx, ...)
is such a plugin's whole benchmark, as the C++ layer's run_model_benchmark is a LibTorch
plugin's (not named run_...: a plugin imports it, and a module-level name starting so
would be a benchmark of the plugin). After select, it builds the torch model
(benchhost.models has the plugins' seeded ones) and converts its state into the Flax
module's variables (checked against the names and shapes module.init would make, and the
parameter count), takes the torch input, or with --param dataset=DIR the folder's images
(benchhost.models.image_input), transposed from NCHW to NHWC, builds the variant
(model_variant), and with --param check_torch=1 (float32 only) fails where the variant's
output differs from the torch model's beyond float32's tolerance (torch_max_abs_diff,
torch_max_rel_diff); then the latency, the throughput, gflops and the memory. It records
model_load (ms: building, converting and placing the weights) and parameters (count),
and info framework and model. torch_state, conv, dense, layer_norm and batch_norm convert
a torch module's state_dict, layout and all: convolutions from OIHW to HWIO, linear
layers transposed, norms' weight and bias as Flax's scale and bias, batch norm's running
statistics as its batch_stats' mean and var.

record_work(ctx, latency) records the series gflops of each latency sample (ms) from
flops_per_forward, as the C++ LibTorch layer does. record_memory(ctx, device) records
process_peak_rss (MiB, the process's peak resident memory so far; in a worker the SDK
also records setup_peak_rss and measured_peak_rss) and, on a GPU, the device's
peak_bytes_in_use as device_peak_memory (MiB); model_variant records the device's before
the first sample as device_setup_peak_memory (JAX cannot restart the peak).
"""

import logging
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import resource  # noqa: E402
import time  # noqa: E402

import benchhost  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

COMPILE_MODES = ("default",)
# benchhost.torch's other modes: a JAX plugin skips them (a run that asks for them asks
# them of its torch plugins).
TORCH_COMPILE_MODES = ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs", "torchscript", "torch-compile",
                       "torch-compile-max-autotune")

DTYPES = {"float32": jnp.float32, "float16": jnp.float16, "bfloat16": jnp.bfloat16, "float64": jnp.float64}

# (absolute, relative) per dtype: benchhost.torch's (the C++ layer's tolerance_for), and
# its rule: |c - r| <= absolute + relative * max(|r|, RMS of the reference's finite
# elements).
TOLERANCE = {
    "float64": (1e-8, 1e-7),
    "float32": (1e-4, 1e-3),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}

MATMUL_PRECISIONS = ("default", "high", "highest")

# What model_variant found, for record_work: FLOP per call of the variant.
_state = {"flops": 0.0}


def _backends_started():
    started = getattr(getattr(jax._src, "xla_bridge", None), "backends_are_initialized", None)
    return bool(started()) if callable(started) else False


def _set_threads(ctx, threads):
    """Sizes XLA's CPU thread pool for `threads` (above 0) before the backends start;
    returns what info xla_cpu_threads says."""
    wanted = str(threads)
    flag = "--xla_cpu_multi_thread_eigen=false"
    if _backends_started():
        if os.environ.get("PJRT_NPROC") != wanted:
            ctx.add_warning(f"--threads {threads}: JAX's backends had started before benchhost.jax.select, so its "
                            f"CPU thread pool keeps the size it was given (PJRT_NPROC="
                            f"{os.environ.get('PJRT_NPROC', 'unset')}); call select before any JAX computation")
        return f"{os.environ.get('PJRT_NPROC', 'default')} (PJRT_NPROC, fixed before select)"
    os.environ["PJRT_NPROC"] = wanted
    flags = os.environ.get("XLA_FLAGS", "").split()
    if threads == 1 and flag not in flags:
        flags.append(flag)
    elif threads > 1 and flag in flags:
        flags.remove(flag)
    if flags:
        os.environ["XLA_FLAGS"] = " ".join(flags)
    else:
        os.environ.pop("XLA_FLAGS", None)
    return f"{threads} (PJRT_NPROC={wanted}" + (f", {flag}" if threads == 1 else "") + ")"


def _configure_cache(ctx):
    """JAX's persistent compilation cache in benchhost's cache folder (jax/), every
    compilation kept, unless one was chosen already; recorded as compile_cache_dir."""
    import benchhost
    if jax.config.jax_compilation_cache_dir is None:
        cache = benchhost.cache_dir()
        if cache is not None:
            jax.config.update("jax_compilation_cache_dir", os.path.join(cache, "jax"))
            # By default JAX keeps only what took a second or more to compile.
            if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
                jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    ctx.set_info("compile_cache_dir", jax.config.jax_compilation_cache_dir or "none (no cache folder)")


def _device(ctx, name):
    kind, _, index_text = name.partition(":")
    if index_text and not index_text.isdigit():
        ctx.skip(f"device {name}: a device is cpu, cuda or gpu, with :N for one of several")
    index = int(index_text) if index_text else 0
    if kind == "cpu":
        devices = jax.devices("cpu")
    elif kind in ("cuda", "gpu"):
        try:
            devices = jax.devices("gpu")
        except RuntimeError:
            import jaxlib
            ctx.skip(f"device {name}: JAX has no GPU backend here (jax {jax.__version__}, jaxlib "
                     f"{jaxlib.__version__}, backends: {', '.join(sorted(_platforms()))}); the CUDA plugin "
                     f"(jax-cuda13-plugin, installed by scripts/bench where nvidia-smi works) gives it one")
    else:
        ctx.skip(f"device {name}: benchhost.jax runs cpu and cuda (gpu)")
    if index >= len(devices):
        ctx.skip(f"device {name}: JAX sees {len(devices)} {kind} device(s) here")
    return devices[index]


def _platforms():
    try:
        return {d.platform for d in jax.devices()}
    except RuntimeError:
        return set()


def select(ctx):
    """(jax.Device, dtype) of the scenario, made JAX's default device, its threads set;
    skips where JAX cannot run them."""
    config = ctx.config
    _check_variant(ctx)  # before the plugin builds its model
    ctx.set_info("xla_python_client_preallocate", os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "unset"))
    threads = _set_threads(ctx, config.threads) if config.threads > 0 else "default (the machine's cores)"
    if config.dtype not in DTYPES:
        ctx.skip(f"dtype {config.dtype}: benchhost.jax knows {', '.join(DTYPES)}")
    if config.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    device = _device(ctx, config.device)
    jax.config.update("jax_default_device", device)
    precision = config.params.get("matmul_precision")
    if precision is not None:
        if precision not in MATMUL_PRECISIONS:
            raise ValueError(f"--param matmul_precision must be {', '.join(MATMUL_PRECISIONS)} (JAX's names), "
                             f"got '{precision}'")
        jax.config.update("jax_default_matmul_precision", precision)
    import jaxlib
    ctx.set_info("jax_version", f"jax {jax.__version__}, jaxlib {jaxlib.__version__}")
    ctx.set_info("jax_platform", f"{device.platform} ({device.client.platform_version})")
    ctx.set_info("device_name", str(device.device_kind))
    ctx.set_info("xla_flags", os.environ.get("XLA_FLAGS", "") or "none")
    ctx.set_info("xla_cpu_threads", threads)
    ctx.set_info("matmul_precision", jax.config.jax_default_matmul_precision or "default")
    _configure_cache(ctx)
    return device, DTYPES[config.dtype]


def _mib(value):
    return value / 2**20


def _peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _device_peak(device):
    """The device's peak bytes in use, where its client keeps the figure (GPUs), else None."""
    try:
        stats = device.memory_stats()
    except Exception:
        return None
    if not stats or "peak_bytes_in_use" not in stats:
        return None
    return stats["peak_bytes_in_use"]


def _device_of(tree):
    for leaf in jax.tree_util.tree_leaves(tree):
        devices = getattr(leaf, "devices", None)
        if callable(devices):
            return next(iter(devices()))
    return jax.config.jax_default_device or jax.devices()[0]


def record_memory(ctx, device):
    """process_peak_rss (MiB) and, on a GPU, device_peak_memory (MiB): the peaks so far."""
    ctx.record_scalar("process_peak_rss", _peak_rss_mib(), "MiB")
    peak = _device_peak(device)
    if peak is not None:
        ctx.record_scalar("device_peak_memory", _mib(peak), "MiB")


def record_work(ctx, latency_ms):
    """The series gflops: flops_per_forward (from model_variant) over each latency sample."""
    flops = _state["flops"]
    if flops <= 0:
        return
    ctx.record_series("gflops", [flops / (ms / 1e3) / 1e9 if ms > 0 else 0.0 for ms in latency_ms], "GFLOP/s")


def _timed(fn):
    """(ms, result) of fn(), its results computed before the clock stops."""
    start = time.perf_counter()
    result = jax.block_until_ready(fn())
    return (time.perf_counter() - start) * 1e3, result


def _flops(analysis):
    """FLOPs of a cost analysis (a dict, or a list of one per computation in older JAX)."""
    if isinstance(analysis, (list, tuple)):
        return sum(_flops(a) for a in analysis)
    if not analysis:
        return 0.0
    return float(analysis.get("flops", 0.0))


def _dtype_name(array):
    return np.dtype(array.dtype).name


def check_against_eager(ctx, reference, candidate, *, against="eager", prefix=""):
    """Records max_abs_diff and max_rel_diff (each after `prefix`) of `candidate` against
    `reference` (pytrees of arrays, numpy's too); raises AssertionError beyond the
    reference dtype's tolerance (TOLERANCE's rule, each array's RMS its own), naming the
    worst element and what the reference is (`against`: eager, or another framework's
    output)."""
    refs, cands = jax.tree_util.tree_leaves(reference), jax.tree_util.tree_leaves(candidate)
    if len(refs) != len(cands):
        raise AssertionError(f"the variant returned {len(cands)} array(s), {against} {len(refs)}")
    max_abs = max_rel = 0.0
    failure = None
    for i, (ref, cand) in enumerate(zip(refs, cands)):
        r, c = np.asarray(ref), np.asarray(cand)
        if r.shape != c.shape:
            raise AssertionError(f"output {i}: shape {list(c.shape)} differs from {against}'s {list(r.shape)}")
        if r.size == 0:
            continue
        dtype = _dtype_name(r)
        atol, rtol = TOLERANCE.get(dtype, (0.0, 0.0))
        r, c = r.astype(np.float64), c.astype(np.float64)
        with np.errstate(invalid="ignore"):
            diff = np.abs(c - r)
        diff[c == r] = 0.0
        diff[np.isnan(c) & np.isnan(r)] = 0.0
        diff[np.isnan(c) ^ np.isnan(r)] = np.inf
        magnitude = np.nan_to_num(np.abs(r), nan=0.0, posinf=0.0, neginf=0.0)
        max_abs = max(max_abs, float(diff.max()))
        max_rel = max(max_rel, float((diff / np.maximum(magnitude, max(atol, 1e-300))).max()))
        finite = r[np.isfinite(r)]
        scale = float(np.sqrt(np.mean(np.square(finite)))) if finite.size else 0.0
        excess = diff - (atol + rtol * np.maximum(magnitude, scale))
        bad = int((excess > 0).sum())
        if bad and failure is None:
            worst = int(np.argmax(excess))
            index = [int(k) for k in np.unravel_index(worst, r.shape)] if r.ndim else []
            failure = (f"output {i} differs from {against} beyond the {dtype} tolerance (absolute {atol:g} "
                       f"+ relative {rtol:g} * max(|reference|, the reference's RMS {scale:.3g})) at {bad} of "
                       f"{diff.size} elements; worst at index {index}: candidate {c.flat[worst]:.9g}, reference "
                       f"{r.flat[worst]:.9g}")
    ctx.record_scalar(prefix + "max_abs_diff", max_abs, "abs")
    ctx.record_scalar(prefix + "max_rel_diff", max_rel, "ratio")
    if failure:
        raise AssertionError(f"{failure} (max_abs_diff {max_abs:g}, max_rel_diff {max_rel:g})")


def _record_setup_memory(ctx, device):
    """On a GPU, the device's peak before the first sample (JAX cannot restart it). The
    process's is the SDK's setup_peak_rss in a worker."""
    peak = _device_peak(device)
    if peak is not None:
        ctx.record_scalar("device_setup_peak_memory", _mib(peak), "MiB")


class _CacheEvents:
    """Counts JAX's persistent compilation cache events while it is open (jax.monitoring)."""

    NAMES = {"/jax/compilation_cache/cache_hits": "hits", "/jax/compilation_cache/cache_misses": "misses",
             "/jax/compilation_cache/compile_requests_use_cache": "requests"}

    def __init__(self):
        self.counts = {"hits": 0, "misses": 0, "requests": 0}

    def __call__(self, event, **kwargs):
        name = self.NAMES.get(event)
        if name:
            self.counts[name] += 1

    def __enter__(self):
        jax.monitoring.register_event_listener(self)
        return self

    def __exit__(self, *error):
        jax.monitoring.unregister_event_listener(self)

    def verdict(self):
        c = self.counts
        if c["hits"]:
            return "hit"
        if c["misses"]:
            return "miss: written"
        if c["requests"]:
            return "miss: not written (below jax_persistent_cache_min_entry_size_bytes)"
        return "not used (no jax_compilation_cache_dir, or this backend has no persistent cache)"


BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class _CompileSpans:
    """XLA's compiles, from jax.monitoring's time spans of the backend compile (a
    persistent cache hit included): counted while model_variant compiles, and after it
    returns each one is recorded with when it ran (ctx.record_compile), so that the
    worker marks the timed samples it fell in, with a warning. A jitted function the
    plugin calls with a new shape in its timed loop is such a compile (the compiled
    variant itself is compiled ahead for its inputs' shapes); compiles outside the
    samples (eager operations of a check after them) mark nothing."""

    _later = None  # the Context whose later compiles are recorded
    _recompiles = None  # the compiled variant's: {"count": n}, counted in its scalar recompiles
    _recompile_reasons: list[str] = []  # what changed at each of them (info recompile_reasons)
    _counting = None  # while model_variant compiles: {"compiles": n}
    _registered = False
    _misses = None  # _CacheMissLog while recompiles are counted

    @classmethod
    def _register(cls):
        if not cls._registered:
            jax.monitoring.register_event_time_span_listener(cls._span)
            cls._registered = True

    @classmethod
    def counting(cls):
        cls._register()
        spans = cls

        class Counting:
            def __enter__(self):
                spans._counting = {"compiles": 0}
                return spans._counting

            def __exit__(self, *error):
                spans._counting = None

        return Counting()

    @classmethod
    def watch_later_compiles(cls, ctx, count=False):
        """From now on every XLA compile is recorded into ctx (ctx.record_compile); with
        `count` (the compiled variant), it counts in ctx's scalar recompiles too, the
        first three with a warning saying what changed."""
        cls._register()
        cls._later = ctx
        if count:
            cls._recompiles = {"count": 0}
            cls._recompile_reasons = []
            ctx.record_scalar("recompiles", 0, "count")
            if cls._misses is None:
                cls._misses = _CacheMissLog()

    @classmethod
    def forget(cls):
        """The scenario has ended (benchhost_support.run calls this)."""
        cls._later = None
        cls._recompiles = None
        if cls._misses is not None:
            cls._misses.close()
            cls._misses = None

    @classmethod
    def _span(cls, event, start_time, end_time, **kwargs):
        if event != BACKEND_COMPILE_EVENT:
            return
        if cls._counting is not None:
            cls._counting["compiles"] += 1
            return
        ctx = cls._later
        if ctx is None:
            return
        # The span's times are the wall clock's; its end is now.
        end = benchhost._clock_ns()
        start = end - max(int((end_time - start_time) * 1e9), 0)
        what = f"XLA compile of {kwargs.get('fun_name', 'a function')} ({(end_time - start_time) * 1e3:.0f} ms)"
        ctx.record_compile(start, end, what)
        recompiles = cls._recompiles
        if recompiles is None:
            return
        recompiles["count"] += 1
        ctx.record_scalar("recompiles", recompiles["count"], "count")
        why = cls._misses.take() if cls._misses is not None else ""
        why = why or "JAX did not say why (an operation or a function met for the first time)"
        reasons = cls._recompile_reasons
        reasons.append(why)
        # As benchhost.torch names the guards: the first three whole, then how many more.
        ctx.set_info("recompile_reasons",
                     "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else ""))
        if recompiles["count"] <= 3:
            ctx.add_warning(f"an XLA compile after model_variant returned ({what}): {why}")


class _CacheMissLog(logging.Filter):
    """JAX's explanations of its tracing cache misses (jax_explain_cache_misses, on while
    it is open), kept for the compile that follows instead of logged: the latest is what
    changed ("for f defined at plugin.py:12: different input types: at x, now f32[8]
    and before f32[7]"). What the option raises to warnings besides (the persistent
    cache's misses and writes: compile_cache says what that cache did) is left out of
    the log too; JAX's other warnings pass."""

    LOGGERS = ("jax._src.interpreters.partial_eval", "jax._src.pjit", "jax._src.compiler",
               "jax._src.compilation_cache")
    RAISED = ("TRACING CACHE MISS", "PERSISTENT COMPILATION CACHE MISS", "Writing ", "Not writing persistent cache",
              "_get_cache: Unsupported runtime")

    def __init__(self):
        super().__init__()
        self._latest = ""
        try:
            self._explained = jax.config.jax_explain_cache_misses
            jax.config.update("jax_explain_cache_misses", True)
        except AttributeError:  # a JAX without the option: the warnings say less
            self._explained = None
        for name in self.LOGGERS:
            logging.getLogger(name).addFilter(self)

    def filter(self, record):
        text = record.getMessage()
        if text.startswith("TRACING CACHE MISS"):
            said = ""
            for line in text.split("\n")[1:]:
                line = line.strip()
                if not line or line.startswith("all previously seen cache keys differ"):
                    continue
                if line.startswith("* "):  # one difference of several
                    said += ("; " if said.endswith(("]", ")")) else ": ") + line[2:]
                else:
                    said += (": " if said else "") + line.rstrip(":")
            self._latest = said
        return not (record.levelno == logging.WARNING and text.startswith(self.RAISED))

    def take(self):
        latest, self._latest = self._latest, ""
        return latest

    def close(self):
        for name in self.LOGGERS:
            logging.getLogger(name).removeFilter(self)
        if self._explained is not None:
            jax.config.update("jax_explain_cache_misses", self._explained)


def _check_variant(ctx):
    """Skips a variant or compile mode that benchhost.jax does not build (kernelized,
    PyTorch's modes); fails on one nobody knows."""
    config = ctx.config
    if config.variant == "kernelized":
        ctx.skip("no kernelized variant: benchhost.jax.model_variant builds eager and compiled")
    if config.variant not in ("eager", "compiled"):
        raise ValueError(f"unknown variant '{config.variant}'")
    if config.variant == "compiled" and config.compile_mode in TORCH_COMPILE_MODES:
        ctx.skip(f"compile mode {config.compile_mode} is PyTorch's: benchhost.jax compiles with jax.jit "
                 f"(compile mode default)")
    if config.variant == "compiled" and config.compile_mode not in COMPILE_MODES:
        raise ValueError(f"compile mode '{config.compile_mode}' is not one that benchhost.jax.model_variant knows: "
                         f"{', '.join(COMPILE_MODES)} (jax.jit)")


def model_variant(ctx, fn, params, inputs):
    """The scenario's variant of fn(params, *inputs) (fn: pure JAX, params: a pytree of
    arrays), as a callable taking the inputs that returns when its results are
    computed; checked against eager on `inputs` (a tuple)."""
    config = ctx.config
    inputs = tuple(inputs)
    device = _device_of((params, inputs))

    def eager(*xs):
        with jax.disable_jit():
            return jax.block_until_ready(fn(params, *xs))

    _check_variant(ctx)

    first_ms, reference = _timed(lambda: eager(*inputs))
    jitted = jax.jit(fn)
    start = time.perf_counter()
    lowered = jitted.lower(params, *inputs)
    lowering_s = time.perf_counter() - start
    if config.variant == "eager":
        _state["flops"] = _flops(lowered.cost_analysis())
        ctx.record_scalar("first_call", first_ms, "ms")
        ctx.set_info("compiler", f"none: op by op under jax.disable_jit() (jax {jax.__version__})")
        if _state["flops"] > 0:
            ctx.record_scalar("flops_per_forward", _state["flops"], "FLOP")
        _record_setup_memory(ctx, device)
        _CompileSpans.watch_later_compiles(ctx)
        return eager

    with _CacheEvents() as events, _CompileSpans.counting() as spans:
        start = time.perf_counter()
        compiled = lowered.compile()
        compile_s = time.perf_counter() - start
    ctx.record_scalar("compiles", spans["compiles"], "count")
    ctx.record_scalar("lowering_s", lowering_s, "s")
    ctx.record_scalar("compile_s", compile_s, "s")
    ctx.set_info("compile_cache", events.verdict())
    ctx.set_info("compiler", f"jax.jit, lowered and compiled ahead of the first call (jax {jax.__version__}, "
                             f"XLA on {device.platform})")
    _state["flops"] = _flops(compiled.cost_analysis())
    if _state["flops"] > 0:
        ctx.record_scalar("flops_per_forward", _state["flops"], "FLOP")
    memory = compiled.memory_analysis()
    if memory is not None:
        for name, field in (("compiled_argument_memory", "argument_size_in_bytes"),
                            ("compiled_output_memory", "output_size_in_bytes"),
                            ("compiled_temp_memory", "temp_size_in_bytes"),
                            ("compiled_code_size", "generated_code_size_in_bytes")):
            value = getattr(memory, field, None)
            # The CPU client does not say how large its code is (0).
            if value is not None and (value > 0 or name != "compiled_code_size"):
                ctx.record_scalar(name, _mib(value), "MiB")

    def forward(*xs):
        return jax.block_until_ready(compiled(params, *xs))

    first_ms, output = _timed(lambda: compiled(params, *inputs))
    ctx.record_scalar("first_call", first_ms, "ms")
    check_against_eager(ctx, reference, output)
    _record_setup_memory(ctx, device)
    _CompileSpans.watch_later_compiles(ctx, count=True)
    return forward


# Models converted from PyTorch.

def torch_state(module):
    """A torch module's state_dict, as numpy arrays on the CPU, by name."""
    return {name: tensor.detach().cpu().numpy() for name, tensor in module.state_dict().items()}


def conv(state, name):
    """Flax nn.Conv's params of the torch convolution `name`: its weight from OIHW to
    HWIO, and its bias where it has one."""
    out = {"kernel": state[f"{name}.weight"].transpose(2, 3, 1, 0)}
    if f"{name}.bias" in state:
        out["bias"] = state[f"{name}.bias"]
    return out


def dense(state, name, weight="weight", bias="bias"):
    """Flax nn.Dense's params of the torch linear layer `name` ([out, in] transposed)."""
    return {"kernel": state[f"{name}.{weight}"].T, "bias": state[f"{name}.{bias}"]}


def layer_norm(state, name):
    """Flax nn.LayerNorm's params of the torch layer norm `name`."""
    return {"scale": state[f"{name}.weight"], "bias": state[f"{name}.bias"]}


def batch_norm(state, name):
    """(params, batch_stats) of Flax nn.BatchNorm for the torch batch norm `name`."""
    return ({"scale": state[f"{name}.weight"], "bias": state[f"{name}.bias"]},
            {"mean": state[f"{name}.running_mean"], "var": state[f"{name}.running_var"]})


def _flag(ctx, name):
    value = ctx.config.params.get(name, "0")
    if value not in ("0", "1"):
        raise ValueError(f"--param {name} must be 0 or 1, got '{value}'")
    return value == "1"


def converted_benchmark(ctx, *, model, module, parameters, torch_model, convert, torch_input, against,
                        image_size=224):
    """The benchmark of a Flax `module` with a torch model's weights: torch_model() builds
    the torch model, convert(it) gives the module's variables (numpy), torch_input(batch)
    the input (NCHW float32, a torch tensor); `parameters` is the count to check,
    `model` the name (info model), `against` what the torch model is, in a failure's
    words, image_size the crop of --param dataset's images."""
    config = ctx.config
    device, dtype = select(ctx)
    check_torch = _flag(ctx, "check_torch")
    if check_torch and dtype != jnp.float32:
        ctx.skip("--param check_torch=1 compares float32 logits: run it with --dtypes float32")
    ctx.set_info("framework", f"JAX {jax.__version__}, Flax (Python)")
    ctx.set_info("model", model)

    import benchhost.models
    import torch
    x_torch = benchhost.models.image_input(ctx, config.batch_size, image_size)
    if x_torch is None:
        x_torch = torch_input(config.batch_size)
    x_nhwc = x_torch.numpy().transpose(0, 2, 3, 1)
    start = time.perf_counter()
    reference_model = torch_model()
    variables = convert(reference_model)
    one = jax.ShapeDtypeStruct((1,) + x_nhwc.shape[1:], jnp.float32)
    expected = jax.eval_shape(module.init, jax.random.key(0), one)
    shapes = jax.tree_util.tree_map(lambda a: tuple(a.shape), dict(expected))
    converted = jax.tree_util.tree_map(lambda a: tuple(a.shape), variables)
    if shapes != converted:
        raise AssertionError(f"the weights converted from {against} do not have the Flax model's names and shapes: "
                             f"{_first_difference(shapes, converted)}")
    variables = jax.device_put(jax.tree_util.tree_map(lambda a: jnp.asarray(a, dtype), variables), device)
    ctx.record_scalar("model_load", (time.perf_counter() - start) * 1e3, "ms")
    count = sum(int(np.prod(a.shape)) for a in jax.tree_util.tree_leaves(variables["params"]))
    ctx.record_scalar("parameters", count, "count")
    if count != parameters:
        raise AssertionError(f"{model} has {parameters} parameters; this model {count}")

    x = jax.device_put(jnp.asarray(x_nhwc, dtype), device)
    forward = model_variant(ctx, module.apply, variables, (x,))
    if check_torch:
        with torch.inference_mode():
            reference = reference_model(x_torch).numpy()
        check_against_eager(ctx, reference, forward(x), against=against, prefix="torch_")
    del reference_model
    latency = ctx.measure("latency", lambda: forward(x))
    ctx.record_throughput("throughput", latency, config.batch_size, "images/s")
    record_work(ctx, latency)
    record_memory(ctx, device)


def _first_difference(expected, got, path=""):
    """Where two trees of shapes first differ, in words."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in sorted(set(expected) | set(got)):
            where = f"{path}/{key}"
            if key not in got:
                return f"{where} missing"
            if key not in expected:
                return f"{where} not in the model"
            found = _first_difference(expected[key], got[key], where)
            if found:
                return found
        return ""
    if expected != got:
        return f"{path}: the model's {expected}, converted {got}"
    return ""
