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
  - compiled, in the compile modes default and max-autotune: an AOTInductor package, as
    the C++ layer's modes of those names are (torch.export, then
    torch._inductor.aoti_compile_and_package with Inductor's freezing; max-autotune adds
    max_autotune and coordinate_descent_tuning), compiled once into benchhost's package
    cache (aot-inductor/ in benchhost.cache_dir(), beside the C++ layer's packages, keyed
    the same way) and loaded by every later worker (torch._inductor.aoti_load_package);
    a model torch.export cannot export fails the scenario, naming the model and
    torch.export's reason (nothing else is run in its place);
  - compiled, in torch.compile's modes: torch-compile (torch.compile's default),
    torch-compile-max-autotune, reduce-overhead and max-autotune-no-cudagraphs,
    torch.compile(model, mode=...) with Inductor's freezing on, as the packages are
    compiled (freezing=False: PyTorch's default, off), and dynamic= from --param dynamic
    (static, dynamic, or automatic, the default: torch.compile's False, True, None),
    compiled at the first call in every worker;
  - compiled, in torchscript: torch.jit.trace, torch.jit.freeze and
    torch.jit.optimize_for_inference;
    another mode fails the scenario, naming the known ones;
  - kernelized: kernelize(model), a callable of the plugin's own (it gets a deep copy of
    the model); without one the scenario is skipped, saying so.
It records compile_time (torch.compile compiles at the first call, so its compile_time
includes that call's forward pass; TorchScript's is the trace, freeze and passes; an
AOTInductor package's, on a cache miss only, export, compile and packaging, of which
export_time is torch.export's) or kernelize_time, package_load_time (a package, hit or
miss), first_call (the first call after compiling, ms), info compiler, compile_cache
(a package: "miss: PATH" or "hit: PATH"), and max_abs_diff and max_rel_diff of the
variant's output against eager's on the same inputs, with the C++ layer's tolerances: out
of tolerance the scenario fails with the worst element. On a CUDA device each timed call
ends with torch.cuda.synchronize().

An AOTInductor package's cache entry is the C++ layer's: a folder
<cache>/aot-inductor/<name>-<mode>-<key>/ with model.pt2, key.txt (what the key was made
of) and compile.json, made in a temporary folder and renamed into place whole. The key
(16 hex digits, FNV-1a of key.txt, as the C++ layer's) covers the model's name
(model_variant's name=, else its class's), the source files of its modules' classes and
their repr, the exporter's code, a digest of the weights (parameters and buffers), the
inputs' dtypes and shapes, the intra-op thread count (Inductor writes it into the CPU
code), the device (a GPU's name and compute capability), float32 matmul precision,
deterministic algorithms and TF32, the mode, Inductor's options and the torch version.
An entry that does not load is deleted, with a warning, and compiled again. Before a
compile the console says what it compiles and that it is cached for later runs.

torch.compile's cache is the worker's TORCHINDUCTOR_CACHE_DIR: the user's, else
benchhost's cache folder (inductor/ in it; recorded as info compile_cache_dir).

What torch.compile did, read from TorchDynamo's counters and compilation metrics around
the compiling first call (compiled variant, torch.compile's modes; an AOTInductor
package has no graph breaks, since torch.export fails where torch.compile would break,
and is compiled for one set of shapes, so these are not recorded for it):
  - scalars (count) unique_graphs, graph_breaks and compiles (frames compiled), and
    compile_time split by stage where TorchDynamo says: dynamo_compile_time,
    aot_autograd_compile_time, inductor_compile_time, inductor_code_gen_time (ms);
  - info graph_break_reasons (the first three whole, then how many more), fx_graph_cache
    and aot_autograd_cache: hit, miss or bypass, with Inductor's reason for a bypass
    (on the CPU, freezing makes oneDNN weights that Inductor cannot pickle, so the FX
    graph cache is bypassed and every worker compiles again);
  - after model_variant returns, every further compile (a new input shape, a guard that
    failed: in the timed samples unless the plugin calls the model otherwise) counts in
    the scalar recompiles, gets a warning naming the guard that failed, and is recorded
    with when it ran (TorchDynamo's compile callbacks, ctx.record_compile): the worker
    marks the timed samples it fell in (warning, scalar recompiled_samples) and
    --discard-recompiled drops them; info recompile_reasons names the guards (the first
    three whole, then how many more).
"""

import copy
import hashlib
import inspect
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import zipfile
from typing import Any, Callable

import torch

import benchhost

# The compiled variant's compile modes. AOTInductor packages, by the C++ layer's names
# for them: exported, compiled once into benchhost's package cache, loaded afterwards.
AOT_INDUCTOR_MODES = ("default", "max-autotune")
# torch.compile, compiled at the first call in every worker: benchhost's name -> the
# mode torch.compile is given.
TORCH_COMPILE_MODES = {
    "torch-compile": "default",
    "torch-compile-max-autotune": "max-autotune",
    "reduce-overhead": "reduce-overhead",
    "max-autotune-no-cudagraphs": "max-autotune-no-cudagraphs",
}
TORCHSCRIPT_MODES = ("torchscript",)
COMPILE_MODES = AOT_INDUCTOR_MODES + tuple(TORCH_COMPILE_MODES) + TORCHSCRIPT_MODES
# --param dynamic: torch.compile's dynamic= (automatic: static shapes first, dynamic ones
# from the first shape that changes).
DYNAMIC = {"static": False, "dynamic": True, "automatic": None}

# (absolute, relative) per dtype: the C++ layer's tolerance_for. An element passes when
# |c - r| <= absolute + relative * max(|r|, RMS of the reference's finite elements): held
# to the relative tolerance of its own magnitude or of the tensor's scale, whichever is
# larger, since summation-order error grows with the terms summed, not with their sum
# (docs/plugin-guide.md, "A PyTorch model").
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
    reference dtype's tolerance (TOLERANCE's rule, each tensor's RMS its own), naming the
    worst element."""
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
        finite = r[r.isfinite()]
        scale = finite.square().mean().sqrt().item() if finite.numel() else 0.0
        excess = diff - (atol + rtol * magnitude.clamp_min(scale))
        bad = int((excess > 0).sum().item())
        if bad and failure is None:
            worst = int(excess.flatten().argmax().item())
            index = list(torch.unravel_index(torch.tensor(worst), r.shape)) if r.dim() else []
            failure = (f"output {i} differs from eager beyond the {str(ref.dtype).replace('torch.', '')} tolerance "
                       f"(absolute {atol:g} + relative {rtol:g} * max(|reference|, the reference's RMS {scale:.3g})) "
                       f"at {bad} of {diff.numel()} elements; worst at index {[int(k) for k in index]}: candidate "
                       f"{c.flatten()[worst].item():.9g}, reference {r.flatten()[worst].item():.9g}")
    ctx.record_scalar("max_abs_diff", max_abs, "abs")
    ctx.record_scalar("max_rel_diff", max_rel, "ratio")
    if failure:
        raise AssertionError(f"{failure} (max_abs_diff {max_abs:g}, max_rel_diff {max_rel:g})")


# The AOTInductor packages: the C++ layer's cache (sdk/torch/src/aot_inductor.cpp), its
# entries and keys made the same way, the export and compile in the worker itself.

_DTYPE_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
                torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
                torch.uint8: "Byte", torch.bool: "Bool"}


def _fnv_hex(text):
    """FNV-1a, 64 bits, as 16 hex digits: the C++ layer's digest of a key."""
    h = 1469598103934665603
    for byte in text.encode():
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def _shape_text(value):
    """An input as the key and the notice name it: Float[1, 3, 224, 224], as LibTorch
    prints a tensor's scalar type and sizes."""
    if isinstance(value, torch.Tensor):
        return f"{_DTYPE_NAMES.get(value.dtype, str(value.dtype))}[{', '.join(str(n) for n in value.shape)}]"
    return repr(value)


def _device_text(device):
    """The device as a package depends on it: the type, and for CUDA the GPU's name and
    compute capability (kernels are compiled for it)."""
    if device.type != "cuda":
        return device.type
    properties = torch.cuda.get_device_properties(device)
    return f"cuda {properties.name} sm_{properties.major}{properties.minor}"


def _tensor_bytes(tensor):
    """The bytes of a tensor's values, on the CPU, in order."""
    t = tensor.detach()
    if t.is_mkldnn:
        t = t.to_dense()
    t = t.to("cpu").contiguous().reshape(-1)
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    try:
        return memoryview(t.view(torch.uint8).numpy())
    except (RuntimeError, TypeError, ImportError):  # no numpy, or a dtype that views no bytes
        import io
        buffer = io.BytesIO()
        torch.save(t, buffer)
        return buffer.getvalue()


def _weights_digest(model):
    """A digest of every parameter and buffer: name, dtype, shape and bytes, in the
    module's order (the C++ layer's weights_digest)."""
    digest = hashlib.blake2b(digest_size=8)
    for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
        digest.update(f"{name} {tensor.dtype} {tuple(tensor.shape)}\n".encode())
        digest.update(_tensor_bytes(tensor))
    return digest.hexdigest()


def _source_digest(model):
    """A digest of what defines the model's code: the source files of the classes of
    its modules and their bases (torchvision's resnet.py, the plugin's file, torch's own
    modules), a class without a file by its name, and the model's repr (its layers and
    their settings)."""
    classes = {cls for module in model.modules() for cls in type(module).__mro__ if cls is not object}
    files: set[str] = set()
    unfiled: set[str] = set()
    for cls in classes:
        try:
            path = inspect.getsourcefile(cls)
        except (TypeError, OSError):
            path = None
        if path and os.path.isfile(path):
            files.add(path)
        else:
            unfiled.add(f"{cls.__module__}.{cls.__qualname__}")
    parts: list[str] = []
    for path in files:
        with open(path, "rb") as f:
            parts.append(hashlib.blake2b(f.read(), digest_size=8).hexdigest())
    digest = hashlib.blake2b(digest_size=8)
    for part in sorted(parts) + sorted(unfiled) + [repr(model)]:
        digest.update(part.encode() + b"\n")
    return digest.hexdigest()


def _exporter_digest():
    """A digest of the code that exports and compiles a package (as the C++ layer's key
    holds its exporter's source): another exporter compiles anew."""
    digest = hashlib.blake2b(digest_size=8)
    functions: list[Callable[..., Any]] = [_inductor_options, _export_and_package]
    for function in functions:
        try:
            digest.update(inspect.getsource(function).encode())
        except (OSError, TypeError):  # no source to read: its bytecode
            digest.update(function.__code__.co_code)
    return digest.hexdigest()


def _inductor_options(mode, freezing):
    """Inductor's options for an AOTInductor mode, the C++ layer's (inductor_options in
    aot_inductor.cpp): freezing, and for max-autotune the autotuning of torch.compile's
    mode without CUDA graphs."""
    options = {"freezing": bool(freezing)}
    if mode == "max-autotune":
        options.update(max_autotune=True, coordinate_descent_tuning=True)
    return options


def _package_key(model, inputs, name, mode, options, device):
    """(key, key text): what the package depends on, one item a line, and its digest."""
    lines = [f"model {name}", f"source {_source_digest(model)}", f"exporter {_exporter_digest()}",
             f"weights {_weights_digest(model)}"]
    lines += [f"input {_shape_text(value)}" for value in inputs]
    settings = [f"matmul_precision {torch.get_float32_matmul_precision()}",
                f"deterministic {_on_off(torch.are_deterministic_algorithms_enabled())}"]
    if device.type == "cuda":
        settings.append(f"tf32 cudnn {torch.backends.cudnn.conv.fp32_precision}, "
                        f"cublas {torch.backends.cuda.matmul.fp32_precision}")
    lines += [f"threads {torch.get_num_threads()}", f"device {_device_text(device)}", f"settings {', '.join(settings)}",
              f"mode {mode}", f"options {json.dumps(options, sort_keys=True)}", f"torch {torch.__version__}"]
    text = "\n".join(lines) + "\n"
    return _fnv_hex(text), text


class _ExportFailed(Exception):
    """torch.export could not export the model."""


def _export_and_package(model, inputs, package, options, metadata):
    """Exports `model` on `inputs` and compiles it into the package file `package`:
    (export_ms, compile_ms). Outside inference mode (torch.export traces with fake
    tensors, which inference tensors are not made into), without gradients."""
    import torch._inductor
    import torch.export
    with torch.inference_mode(False), torch.no_grad():
        example = tuple(v.detach().clone() if isinstance(v, torch.Tensor) else v for v in inputs)
        start = time.perf_counter()
        try:
            exported = torch.export.export(model, example)
        except Exception as error:
            raise _ExportFailed(error) from error
        export_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        torch._inductor.aoti_compile_and_package(
            exported, package_path=package, inductor_configs=dict(options, **{"aot_inductor.metadata": metadata}))
        compile_ms = (time.perf_counter() - start) * 1e3
    from torch._inductor.runtime.cache_dir_utils import cache_dir
    _drop_model_libraries(cache_dir(), package)
    return export_ms, compile_ms


# The same as the C++ layer's exporter's (sdk/torch/python/aoti_compile.py), which compiles
# its packages in a child process: each file runs where the other cannot be imported.
def _drop_model_libraries(root, package):
    """Removes from Inductor's cache folder `root` what it built the package file `package`
    from: Inductor builds a package's model library, weights and all (100 MB for
    ResNet-50), in a folder of its cache and keeps it after packaging, though the package
    holds all of it and no later compile reads it. The package names those files
    (data/aotinductor/<model>/<hash>.wrapper.so, ...): every file and folder of the cache
    whose name begins with one of those hashes goes, nothing another compile wrote.
    Left: Inductor's probes of the CPU's vector instruction sets and its kernels, which
    later compiles reuse. Never raises: what cannot be read or removed stays."""
    try:
        with zipfile.ZipFile(package) as archive:
            names = archive.namelist()
        walk = list(os.walk(root))
    except (OSError, zipfile.BadZipFile):
        return
    hashes = tuple({os.path.basename(name).split(".")[0] for name in names
                    if "/data/aotinductor/" in name and not name.endswith("/")} - {""})
    if not hashes:
        return
    for folder, subfolders, files in walk:
        for name in files:
            if name.startswith(hashes):
                try:
                    os.remove(os.path.join(folder, name))
                except OSError:
                    pass
        for name in subfolders:
            if name.startswith(hashes):
                shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


class _Package:
    """A loaded package, called as its model: the inputs' tensors in order to the
    package's runner, its outputs in the model's structure (what
    AOTICompiledModel.__call__ does, without reading the package's call spec again at
    every call)."""

    def __init__(self, compiled):
        self.compiled = compiled
        self._run = None
        try:
            import torch.utils._pytree as pytree
            loader = compiled.loader
            out_spec = pytree.treespec_loads(loader.get_call_spec()[1])
            self._run, self._out_spec, self._pytree = loader.boxed_run, out_spec, pytree
        except Exception:  # another torch's runner: called as torch gives it
            self._run = None

    def __call__(self, *args):
        if self._run is None:
            return self.compiled(*args)
        flat = [x for x in self._pytree.tree_leaves(args) if isinstance(x, torch.Tensor)]
        return self._pytree.tree_unflatten(self._run(flat), self._out_spec)


def _short(error):
    """An exception's first lines, for a reason: its type and what it says, cut."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = "; ".join(lines[:3]) if lines else "no message"
    return f"{type(error).__name__}: {text[:500]}{'...' if len(text) > 500 else ''}"


def _load_package(package, device, key):
    """(the package's model, load ms), its key checked against the entry's."""
    import torch._inductor
    start = time.perf_counter()
    compiled = torch._inductor.aoti_load_package(
        package, device_index=device.index if device.type == "cuda" and device.index is not None else -1)
    if device.type == "cuda":
        torch.cuda.synchronize(device)  # the weights' copies to the GPU are part of the load
    load_ms = (time.perf_counter() - start) * 1e3
    metadata = compiled.get_metadata()
    if metadata.get("benchhost_key") != key:
        raise RuntimeError(f"its key ({metadata.get('benchhost_key', 'none')}) is not the cache entry's ({key})")
    return _Package(compiled), load_ms


def _aot_inductor_package(ctx, model, inputs, mode, freezing, name, device):
    """The compiled variant in an AOTInductor mode: the package from benchhost's cache,
    or exported, compiled and put there; its costs and the cache's outcome recorded."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "model"
    root = benchhost.cache_dir()
    cache = os.path.join(root, "aot-inductor") if root is not None else ctx.skip(
        "no cache folder for AOTInductor packages: neither BENCHHOST_CACHE_DIR, XDG_CACHE_HOME nor HOME is an "
        "absolute path")
    options = _inductor_options(mode, freezing)
    key, key_text = _package_key(model, inputs, name, mode, options, device)
    entry = os.path.join(cache, f"{name}-{mode}-{key}")
    package = os.path.join(entry, "model.pt2")
    passes = f"torch.export,aot_inductor({mode},{'freezing' if freezing else 'no freezing'})"
    ctx.set_info("compiler", f"torch.export + AOTInductor package (mode '{mode}') {torch.__version__}, Inductor "
                             f"freezing {'on' if freezing else 'off'}, loaded by torch._inductor.aoti_load_package")
    ctx.set_info("variant_passes", passes)
    if os.path.isfile(package):
        try:
            forward, load_ms = _load_package(package, device, key)
            ctx.record_scalar("package_load_time", load_ms, "ms")
            ctx.set_info("compile_cache", f"hit: {package}")
            return forward
        except Exception as error:  # never loaded twice: compiled again
            ctx.add_warning(f"cache entry deleted and compiled again: {package}: {_short(error)}")
            shutil.rmtree(entry, ignore_errors=True)

    # A miss: export and compile in a folder of its own, renamed into place whole.
    os.makedirs(cache, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=cache)
    what = f"the AOTInductor package of {name} (mode {mode})"
    try:
        shapes = ", ".join(_shape_text(value) for value in inputs)
        print(f"[notice] compiling the AOTInductor package of {name} (mode {mode}, input {shapes}, "
              f"{torch.get_num_threads()} threads, {_device_text(device)}): a minute or more on a CPU; cached for "
              f"later runs in {cache}", file=sys.stderr, flush=True)
        metadata = {"benchhost_key": key, "benchhost_torch_version": torch.__version__}
        start = time.perf_counter()
        try:
            export_ms, _ = _export_and_package(model, inputs, os.path.join(work, "model.pt2"), options, metadata)
        except Exception as error:
            log = os.path.join(cache, f"{name}-{mode}-{key}.failed.log")
            try:
                with open(log, "w") as f:
                    f.write(key_text + "\n" + "".join(traceback.format_exception(error)))
                where = f" (log: {log})"
            except OSError:
                where = ""
            if isinstance(error, _ExportFailed):
                cause = error.__cause__ or error
                raise RuntimeError(
                    f"torch.export cannot export {name} for compile mode {mode} (an AOTInductor package): "
                    f"{_short(cause)}{where}. A package needs the whole forward as one graph; compile mode "
                    f"torch-compile compiles the model with torch.compile, which runs what it cannot trace in Python "
                    f"(graph breaks)") from cause
            raise RuntimeError(f"compiling {what} failed: {_short(error)}{where}") from error
        compile_ms = (time.perf_counter() - start) * 1e3
        staged = os.path.join(work, "entry")
        os.makedirs(staged)
        os.rename(os.path.join(work, "model.pt2"), os.path.join(staged, "model.pt2"))
        with open(os.path.join(staged, "key.txt"), "w") as f:
            f.write(key_text)
        with open(os.path.join(staged, "compile.json"), "w") as f:
            json.dump({"compile_ms": compile_ms, "export_ms": export_ms, "torch_version": torch.__version__,
                       "compiled_by": "benchhost.torch"}, f)
            f.write("\n")
        try:
            os.rename(staged, entry)
        except OSError as error:  # another worker's entry may have won
            if not os.path.isfile(package):
                raise RuntimeError(f"cannot move the package into {entry}: {error}") from error
    finally:
        shutil.rmtree(work, ignore_errors=True)
    try:
        forward, load_ms = _load_package(package, device, key)
    except Exception:
        shutil.rmtree(entry, ignore_errors=True)  # never loaded twice
        raise
    ctx.record_scalar("compile_time", compile_ms, "ms")
    ctx.record_scalar("export_time", export_ms, "ms")
    ctx.record_scalar("package_load_time", load_ms, "ms")
    ctx.set_info("compile_cache", f"miss: {package}")
    return forward


def model_variant(ctx, model, inputs, *, kernelize=None, freezing=True, name=None):
    """The scenario's variant of `model` (an nn.Module in eval mode, on the device and in
    the dtype of the run), as a callable taking the model's inputs, checked against eager
    on `inputs` (a tuple). Call it, and the callable, under torch.inference_mode().
    `freezing`: Inductor's freezing for the AOTInductor packages and torch.compile
    (weights as constants, batch norm folded, oneDNN weights prepacked on the CPU), as the
    C++ layer's packages have it; False compiles with PyTorch's default (off). `name`:
    the model's name in the package cache (default: its class's name)."""
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
        if mode in AOT_INDUCTOR_MODES:
            if "dynamic" in config.params:
                ctx.add_warning(f"--param dynamic applies to torch.compile's modes "
                                f"({', '.join(TORCH_COMPILE_MODES)}): compile mode '{mode}' is an AOTInductor "
                                f"package, compiled for the inputs' shapes")
            forward = _aot_inductor_package(ctx, model, inputs, mode, freezing, name or type(model).__name__,
                                            device)
        elif mode in TORCH_COMPILE_MODES:
            import torch._inductor.config as inductor_config
            # For the whole process (a worker runs one scenario): Inductor reads it when
            # it compiles, at the first call and at any recompilation.
            inductor_config.freezing = freezing
            dynamic_text = str(config.params.get("dynamic", "automatic"))
            if dynamic_text not in DYNAMIC:
                raise ValueError(f"dynamic (--param dynamic=V, or an axis: --axis dynamic=V1,V2) must be "
                                 f"{', '.join(DYNAMIC)}, got '{dynamic_text}'")
            torch_mode = TORCH_COMPILE_MODES[mode]
            forward = torch.compile(model, mode=None if torch_mode == "default" else torch_mode,
                                    dynamic=DYNAMIC[dynamic_text])
            # A notice line, which the host shows on the console: the first call compiles,
            # tens of seconds on a CPU, and the run would seem to hang.
            cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "Inductor's default folder")
            print(f"[notice] torch.compile(mode={torch_mode!r}) of {type(model).__name__} at its first call: tens "
                  f"of seconds on a CPU, in every worker that runs it (Inductor's cache, {cache}, keeps part of the "
                  f"work; compile mode default's AOTInductor package is compiled once)", file=sys.stderr, flush=True)
            watch = _CompileWatch()
            try:
                compile_ms, _ = _timed(device, lambda: forward(*inputs))
            finally:
                watch.stop()  # the loggers as they were, whether the compile worked or not
            watch.record_compile(ctx)
            ctx.set_info("compiler", f"torch.compile(mode={torch_mode!r}) {torch.__version__}, dynamic shapes "
                                     f"{dynamic_text}, Inductor freezing {'on' if freezing else 'off'}")
            ctx.set_info("compile_cache_dir", os.environ.get("TORCHINDUCTOR_CACHE_DIR", "Inductor's default"))
            ctx.record_scalar("compile_time", compile_ms, "ms")
        elif mode in TORCHSCRIPT_MODES:
            def script():
                traced = torch.jit.trace(model, inputs, check_trace=False)
                return torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
            compile_ms, forward = _timed(device, script)
            ctx.set_info("compiler", f"torch.jit.trace + freeze + optimize_for_inference {torch.__version__}")
            ctx.record_scalar("compile_time", compile_ms, "ms")
        else:
            raise ValueError(f"compile mode '{mode}' is not one that benchhost.torch.model_variant knows: "
                             f"{', '.join(COMPILE_MODES)}")
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


def _first_reasons(reasons):
    """The first three reasons whole, then how many more: info graph_break_reasons and
    recompile_reasons."""
    return "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")


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
            ctx.set_info("graph_break_reasons", _first_reasons([reason.split("\n")[0].strip() for reason in breaks]))
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
        with a warning naming the guard that failed, and is recorded with when it ran
        (ctx.record_compile: the worker marks the timed samples it fell in)."""
        cls._later = {"ctx": ctx, "count": 0, "start": None, "guards": []}
        ctx.record_scalar("recompiles", 0, "count")
        if cls._registered:
            return
        try:
            from torch._dynamo.callback import on_compile_end, on_compile_start
        except ImportError:  # a torch without compile callbacks: nothing is counted
            return
        on_compile_start(cls._starting)
        on_compile_end(cls._compiled)
        cls._registered = True

    @classmethod
    def _starting(cls, args):
        later = cls._later
        if later is not None:
            later["start"] = benchhost._clock_ns()

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
        guard = reason or "a new frame (no guard failed)"
        later["guards"].append(guard)
        ctx.set_info("recompile_reasons", _first_reasons(later["guards"]))
        what = f"torch.compile compile {args.compile_id}: {guard}"
        end = benchhost._clock_ns()
        start = later["start"] if later["start"] is not None else end
        later["start"] = None
        ctx.record_compile(start, end, what)
        if later["count"] <= 3:
            ctx.add_warning(f"torch.compile compiled again after the first call (compile {args.compile_id}, "
                            f"{(end - start) / 1e6:.0f} ms): {guard}")


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
