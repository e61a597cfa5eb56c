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
    apart, and info compile_cache says whether the persistent cache had it (hit, miss:
    written, not used). benchhost.torch's other modes (torchscript, reduce-overhead,
    max-autotune...) skip the scenario; another mode fails it, naming the known one;
  - kernelized: skipped (benchhost.jax has none).
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

record_work(ctx, latency) records the series gflops of each latency sample (ms) from
flops_per_forward, as the C++ LibTorch layer does. record_memory(ctx, device) records
process_peak_rss (MiB, the process's peak resident memory so far; in a worker the SDK
also records setup_peak_rss and measured_peak_rss) and, on a GPU, the device's
peak_bytes_in_use as device_peak_memory (MiB); model_variant records the device's before
the first sample as device_setup_peak_memory (JAX cannot restart the peak).
"""

import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import resource  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

COMPILE_MODES = ("default",)
# benchhost.torch's other modes: a JAX plugin skips them (a run that asks for them asks
# them of its torch plugins).
TORCH_COMPILE_MODES = ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs", "torchscript")

DTYPES = {"float32": jnp.float32, "float16": jnp.float16, "bfloat16": jnp.bfloat16, "float64": jnp.float64}

# (absolute, relative) per dtype: benchhost.torch's (the C++ layer's tolerance_for).
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
    reference dtype's tolerance, naming the worst element and what the reference is
    (`against`: eager, or another framework's output)."""
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
        excess = diff - (atol + rtol * magnitude)
        bad = int((excess > 0).sum())
        if bad and failure is None:
            worst = int(np.argmax(excess))
            index = [int(k) for k in np.unravel_index(worst, r.shape)] if r.ndim else []
            failure = (f"output {i} differs from {against} beyond the {dtype} tolerance (absolute {atol:g} "
                       f"+ relative {rtol:g} * |reference|) at {bad} of {diff.size} elements; worst at index "
                       f"{index}: candidate {c.flat[worst]:.9g}, reference {r.flat[worst]:.9g}")
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
        return eager

    with _CacheEvents() as events:
        start = time.perf_counter()
        compiled = lowered.compile()
        compile_s = time.perf_counter() - start
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
    return forward
