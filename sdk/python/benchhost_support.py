"""How the worker runs one benchmark of a Python plugin (libbench_python.so carries this
file and runs it in the worker's embedded interpreter; plugins never import it).

run(ctx, path, function) imports the plugin and calls the function:
  - with the Context when it takes one parameter (def run_benchmark(ctx)), or
  - with none, warmup + measurement iterations times, when it takes none: each call's
    own time is the series benchhost.call_time (ms, CALL_TIME), and each number of the
    dict it returns is a series of its own under its key (nested keys joined with ".";
    None returns nothing), in seconds when the key names a time (seconds_key);
  - a function with more parameters is skipped, saying why.
It raises benchhost.SkipScenario (ctx.skip), SystemExit (sys.exit), or Failure, whose
text is the scenario's reason; the traceback of an exception goes to the log first
(once: the worker's output is the run log's). A benchmark that records no figures gets
a warning.

It also makes `benchhost` a package whose submodule benchhost.torch (benchhost_torch.py,
carried in the library too, as EMBEDDED["benchhost.torch"]) is imported when a plugin
imports it, so that a plugin without torch never loads torch.
"""

import importlib.machinery
import importlib.util
import linecache
import numbers
import os
import sys
import threading
import traceback
import types

import benchhost


class Failure(Exception):
    """The benchmark failed; str() is the reason, complete."""


class EmbeddedModules:
    """Finds the submodules of benchhost whose source the library carries (EMBEDDED, set
    by the loader before this file runs: name -> source): a meta path finder and its
    loader, by duck typing (importlib.abc would cost every Python worker 20 ms of
    imports)."""

    def find_spec(self, name, path=None, target=None):
        if name not in EMBEDDED:
            return None
        return importlib.machinery.ModuleSpec(name, self, origin=f"<{name}>")

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__spec__.name
        source = EMBEDDED[name]
        # Tracebacks show the lines of the embedded source.
        linecache.cache[f"<{name}>"] = (len(source), None, source.splitlines(True), f"<{name}>")
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)


benchhost.__path__ = []
sys.meta_path.insert(0, EmbeddedModules())


def load_plugin(path):
    folder = os.path.isdir(path)
    name = os.path.basename(os.path.normpath(path))
    if not folder and name.endswith(".py"):
        name = name[:-3]
    # A name of its own: a plugin called json.py or torch.py must not shadow the modules.
    module_name = "benchhost_plugin_" + name
    if folder:
        spec = importlib.util.spec_from_file_location(module_name, os.path.join(path, "__init__.py"),
                                                      submodule_search_locations=[path])
    else:
        spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    # Its siblings import as a script's do: the plugin's folder first on the path.
    parent = os.path.dirname(os.path.abspath(os.path.normpath(path)))
    if parent not in sys.path:
        sys.path.insert(0, parent)
    spec.loader.exec_module(module)
    return module


# The machine's speed reference of a Python worker (bench/speed_reference.hpp): a loop of
# interpreted code, which the machine's speed states slow as they slow a plugin's
# Python (1.7x to 2.2x on the development VM, where a C++ loop slows 1.1x to 1.4x).
_REFERENCE_WORDS = {f"key{i}": i for i in range(256)}
_reference_steps = []


def _reference_loop(steps):
    state, total = 0x9E3779B97F4A7C15, 0
    mask = (1 << 64) - 1
    for i in range(steps):
        state ^= (state << 13) & mask
        state ^= state >> 7
        state ^= (state << 17) & mask
        total += _REFERENCE_WORDS[f"key{state & 255}"]
    return total


def speed_reference():
    """ns a step of the reference loop: the median of five repetitions of about a
    millisecond (the first call calibrates the steps for the process)."""
    import time
    if not _reference_steps:
        steps = 64
        while True:
            start = time.perf_counter_ns()
            _reference_loop(steps)
            took = time.perf_counter_ns() - start
            if took >= 250_000:
                _reference_steps.append(max(1, steps * 1_000_000 // took))
                break
            steps *= 2
    steps = _reference_steps[0]
    readings = []
    for _ in range(5):
        start = time.perf_counter_ns()
        _reference_loop(steps)
        readings.append((time.perf_counter_ns() - start) / steps)
    return sorted(readings)[2]


# The series of a plain function's own time of each call, timed by the host. Its key
# would have to be {"benchhost": {"call_time": ...}} to clash with a returned figure,
# which fails, naming it.
CALL_TIME = "benchhost.call_time"


def seconds_key(key):
    """Whether a returned figure under `key` (the innermost key) is in seconds, by the
    convention of Python benchmarks (time.perf_counter() differences): time, seconds,
    *_time, *_s, *_seconds; not a rate (tokens_per_s, *_per_second)."""
    key = key.lower()
    if key.startswith("per_") or "_per_" in key:
        return False
    return key in ("time", "seconds") or key.endswith(("_time", "_s", "_seconds"))


def flatten(prefix, value, out, function, key=""):
    """Adds the numbers of `value`, a returned dict, to `out`: name -> (number, unit)."""
    if isinstance(value, dict):
        for inner, item in value.items():
            flatten(f"{prefix}.{inner}" if prefix else str(inner), item, out, function, str(inner))
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        if prefix == CALL_TIME:
            raise Failure(f"{function} returned a figure named '{CALL_TIME}', the name of benchhost's own timing of "
                          f"each call: name it otherwise")
        if prefix in out:
            raise Failure(f"{function} returned two figures named '{prefix}' (nested keys are joined with '.')")
        out[prefix] = (float(value), "s" if seconds_key(key) else "")
    else:
        raise Failure(f"{function} returned {type(value).__name__} for '{prefix}': a benchmark function without "
                      f"parameters returns a dict of numbers (nested dicts allowed), or None")


def run_plain(ctx, fn, function):
    config = ctx.config
    for _ in range(config.warmup_iterations):
        fn()
    ctx.begin_measurement()
    returned = False
    for _ in range(config.measurement_iterations):
        ms, result = ctx._timed_call(fn)
        ctx.add_sample(CALL_TIME, ms, "ms")
        if result is None:
            continue
        if not isinstance(result, dict):
            raise Failure(f"{function} returned {type(result).__name__}: a benchmark function without parameters "
                          f"returns a dict of numbers, or None")
        figures = {}
        flatten("", result, figures, function)
        returned = returned or bool(figures)
        for name, (value, unit) in figures.items():
            ctx.add_sample(name, value, unit)
    ctx.end_measurement(config.measurement_iterations)
    if not returned and config.measurement_iterations > 0:
        ctx.add_warning(f"{function} returned no figures; only its call time was measured ({CALL_TIME})")


def required_parameters(fn):
    """(positional, keyword-only) names of the parameters `fn` needs; None when they
    cannot be read. A plain function is read from its code object: importing `inspect`
    would cost every Python scenario's worker some 6 ms."""
    if isinstance(fn, types.FunctionType):
        code = fn.__code__
        positional = code.co_varnames[:code.co_argcount]
        keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
        given = fn.__kwdefaults__ or {}
        return (list(positional[:len(positional) - len(fn.__defaults__ or ())]),
                [name for name in keyword_only if name not in given])
    import inspect
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    needed = [p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return [p.name for p in needed if p.kind != p.KEYWORD_ONLY], [p.name for p in needed if p.kind == p.KEYWORD_ONLY]


def where_raised(error):
    """file:line in function, of the deepest frame outside benchhost's own code."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith("<benchhost")]
    if not frames:
        return ""
    frame = frames[-1]
    return f" ({frame.filename}:{frame.lineno} in {frame.name})"


def definition(fn, function):
    """(text, where) of the def of `fn`: its line as the file has it ("def f(text)"), and
    "file.py:8"; the signature, and where the function starts, when the line cannot be
    read (or is not the whole def); where is "" when not even that is known."""
    import inspect
    try:
        text = f"def {function}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        text = f"def {function}(...)"
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code is None:
        return text, ""
    # co_firstlineno is a decorator's line when there is one: the def is below it.
    for line in range(code.co_firstlineno, code.co_firstlineno + 50):
        source = linecache.getline(code.co_filename, line).strip()
        if not source:
            break
        if source.startswith(("def ", "async def ")):
            if source.endswith(":"):
                text = source[:-1].rstrip()
            return text, f"{code.co_filename}:{line}"
    return text, f"{code.co_filename}:{code.co_firstlineno}"


def names_a_context(parameter):
    """Whether a parameter's name says it is the Context: ctx, context, c, bench_ctx, ..."""
    name = parameter.lower()
    return name == "c" or "ctx" in name or "context" in name


def stop_torch_compile_workers(ctx):
    """Shuts down torch.compile's compile workers (processes it starts, and shuts down at
    exit, from atexit), where torch.compile ran: a worker's interpreter never exits, and
    the worker server would stop them with a warning the plugin could do nothing about.
    In the host (--isolation none) they serve the next scenario."""
    async_compile = sys.modules.get("torch._inductor.async_compile")
    if async_compile is None or os.environ.get("BENCHHOST_WORKER") != "1":
        return
    shutdown = getattr(async_compile, "shutdown_compile_workers", None)
    if not callable(shutdown):
        return
    try:
        shutdown()
    except Exception as error:  # what is left is stopped all the same, with a warning
        ctx.log("warning", f"torch.compile's compile workers did not shut down: {type(error).__name__}: {error}")


def run(ctx, path, function):
    # torch.compile's cache in benchhost's cache folder, set before the plugin imports
    # torch (which settles Inductor's folder); a TORCHINDUCTOR_CACHE_DIR of the user's stands.
    cache = benchhost.cache_dir()
    if cache is not None:
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(cache, "inductor"))
    threads_before = set(threading.enumerate())
    context_parameter = None  # the name of the parameter that was given the Context
    try:
        module = load_plugin(path)
        fn = getattr(module, function, None)
        if not callable(fn):
            raise Failure(f"{path}: {function} is not a function once the plugin is imported")
        required = required_parameters(fn)
        if required is None:
            raise Failure(f"{function}: its parameters cannot be read (inspect.signature)")
        positional, keyword_only = required
        if len(positional) == 1 and not keyword_only:
            context_parameter = positional[0]
            returned = fn(ctx)
            if not ctx._figures():
                ctx.add_warning(f"{function} recorded no figures: it measured nothing (ctx.measure, ctx.add_sample, "
                                f"ctx.record_series, ctx.record_scalar record them)" +
                                ("; what it returned is not recorded: a function that takes the Context records "
                                 "through it" if returned is not None else ""))
        elif not positional and not keyword_only:
            run_plain(ctx, fn, function)
        else:
            needed = positional + keyword_only
            listed = needed[0] if len(needed) == 1 else ", ".join(needed[:-1]) + " and " + needed[-1]
            import inspect
            where = definition(fn, function)[1]
            ctx.skip(f"{function}{inspect.signature(fn)} needs arguments for {listed}: benchhost passes only the "
                     f"Context (def {function}(ctx)) or nothing; give the other parameters defaults or read them from "
                     f"ctx.config.params{f' ({where})' if where else ''}")
    except (benchhost.SkipScenario, SystemExit, Failure):
        raise
    except BaseException as error:
        ctx.log("error", "".join(traceback.format_exception(error)).rstrip())
        message = str(error)
        hint = context_parameter is not None and not names_a_context(context_parameter)
        if hint and len(message) > 1000:  # the hint fits in the reason (PythonOutcome::reason)
            message = message[:1000] + "..."
        reason = f"raised {type(error).__name__}: {message}{where_raised(error)}"
        if hint:
            text, where = definition(fn, function)
            reason += (f"; benchhost called {function} with the Context (benchhost.Context) as its one parameter, "
                       f"{context_parameter}, in {text}{f' ({where})' if where else ''}. A benchmark function takes "
                       f"the Context (reading its input from ctx.config.params) or no parameters")
        raise Failure(reason) from None
    finally:
        stop_torch_compile_workers(ctx)
    left = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
    if left:
        ctx.add_warning(f"the benchmark left {len(left)} thread(s) running ({', '.join(t.name for t in left)}); "
                        f"they were not waited for")
