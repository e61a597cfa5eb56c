"""How the worker runs one benchmark of a Python plugin (libbench_python.so carries this
file and runs it in the worker's embedded interpreter; plugins never import it).

run(ctx, path, function) imports the plugin and calls the function, its parameters
given by name the scenario's axes and the run's --param values (arguments):
  - once, with the Context, when one parameter is left for it (def run_benchmark(ctx)), or
  - else warmup + measurement iterations times: each call's
    own time is the series benchhost.call_time (ms, CALL_TIME), and each number of the
    dict it returns is a series of its own under its key (nested keys joined with ".";
    None returns nothing), in seconds when the key names a time (seconds_key);
  - a function needing a parameter that nothing gives fails, saying which.
It raises benchhost.SkipScenario (ctx.skip), SystemExit (sys.exit(0) or sys.exit()),
or Failure, whose text is the scenario's reason (for another sys.exit, with where it was
called); the traceback of an exception goes to the log first
(once: the worker's output is the run log's). A benchmark that records no figures gets
a warning. When it has ended (not skipped), the scenario's info "framework" says what
it ran on (framework_info), unless the plugin set it.

It also makes `benchhost` a package whose submodules benchhost.torch (benchhost_torch.py,
carried in the library too, as EMBEDDED["benchhost.torch"]), benchhost.jax
(benchhost_jax.py) and benchhost.models (benchhost_models.py) are imported when a plugin
imports them, so that a plugin without torch never loads torch, nor one without JAX jax.
"""

import collections
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
    # A distributed scenario's ranks meet before each timed call, outside its time, as
    # ctx.measure's do (benchhost.distributed).
    before_call = None
    if config.world_size > 0:
        import benchhost.distributed as ranks
        ranks.process_group(ctx)
        before_call = ranks._before_sample
    for _ in range(config.warmup_iterations):
        fn()
    ctx.begin_measurement()
    returned = False
    for _ in range(config.measurement_iterations):
        if before_call is not None:
            before_call()
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


NO_DEFAULT = object()  # a parameter without a default
# The scenario's axes that a parameter of the same name gets (ctx.config's value).
AXIS_PARAMETERS = ("variant", "compile_mode", "batch_size", "dtype", "device", "threads")
TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def parameters(fn):
    """[(name, positional, default, annotation)] of the parameters of `fn` (not *args or
    **kwargs), default NO_DEFAULT where it has none; None when they cannot be read. A plain
    function is read from its code object: importing `inspect` would cost every Python
    scenario's worker some 6 ms."""
    if isinstance(fn, types.FunctionType) and not hasattr(fn, "__wrapped__"):
        code = fn.__code__
        positional = code.co_varnames[:code.co_argcount]
        keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
        defaults, given = fn.__defaults__ or (), fn.__kwdefaults__ or {}
        annotations = fn.__annotations__
        first = len(positional) - len(defaults)
        return ([(name, True, defaults[i - first] if i >= first else NO_DEFAULT, annotations.get(name))
                 for i, name in enumerate(positional)] +
                [(name, False, given.get(name, NO_DEFAULT), annotations.get(name)) for name in keyword_only])
    import inspect
    try:
        listed = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    return [(p.name, p.kind != p.KEYWORD_ONLY, NO_DEFAULT if p.default is p.empty else p.default,
             None if p.annotation is p.empty else p.annotation)
            for p in listed if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def converted(function, name, value, default, annotation):
    """A --param value (a string, or a list of strings) as parameter `name` takes it: of
    its default's type (int, float or bool; each item of a list or tuple default), else
    of its annotation's (int, float or bool), else as given."""
    if isinstance(default, (list, tuple)):
        items = value if isinstance(value, list) else [value]
        kind = type(default[0]) if default and default[0] is not None else str
        return type(default)(converted(function, name, item, kind(), None) for item in items)
    kind = type(default) if default is not NO_DEFAULT and default is not None else \
        {int: int, float: float, bool: bool, "int": int, "float": float, "bool": bool}.get(annotation, str)
    if kind not in (int, float, bool):
        return value
    if isinstance(value, list):
        raise Failure(f"--param {name}={','.join(value)}: {function}'s parameter {name} takes one {kind.__name__}, "
                      f"not a list")
    if kind is bool and value.strip().lower() in TRUE_WORDS + FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    try:
        if kind is not bool:
            return kind(value)
    except ValueError:
        pass
    raise Failure(f"--param {name}={value}: {function}'s parameter {name} takes {'an' if kind is int else 'a'} "
                  f"{kind.__name__}" + (f" (its default is {default!r})" if default is not NO_DEFAULT else ""))


def arguments(ctx, fn, function):
    """(args, kwargs, context): what `fn` is called with, and the name of the parameter
    given the Context (None: it is called warmup + measurement times). A parameter gets,
    by its name, the scenario's value of an axis (AXIS_PARAMETERS), else the run's --param
    (or custom axis) value; the Context goes to the one required parameter left (or the
    first of those left, when its name says Context: ctx, context, ...). A required
    parameter left without a value fails the scenario, naming it."""
    listed = parameters(fn)
    if listed is None:
        raise Failure(f"{function}: its parameters cannot be read (inspect.signature)")
    config = ctx.config
    params = config.params if any(entry[0] not in AXIS_PARAMETERS for entry in listed) else {}
    values, missing = {}, []
    for name, positional, default, annotation in listed:
        if name in AXIS_PARAMETERS:
            values[name] = getattr(config, name)
        elif name in params:
            try:
                values[name] = converted(function, name, params[name], default, annotation)
            except Failure as error:  # said with where the parameter is declared
                where = definition(fn, function)[1]
                raise Failure(f"{error}{f' ({where})' if where else ''}") from None
        elif default is NO_DEFAULT:
            missing.append((name, positional))
    context = None
    if missing and (missing[0][1] and len(missing) == 1 or names_a_context(missing[0][0])):
        context = missing.pop(0)[0]
        values[context] = ctx
    if missing:
        import inspect
        names = [name for name, _ in missing]
        listed_names = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        where = definition(fn, function)[1]
        raise Failure(f"{function}{inspect.signature(fn)} needs {'a value' if len(names) == 1 else 'values'} for "
                      f"{listed_names}, which the run does not give: pass --param {names[0]}=..., or give "
                      f"{'it a default' if len(names) == 1 else 'them defaults'} (a parameter gets by its name a "
                      f"--param or --axis value, or the scenario's {', '.join(AXIS_PARAMETERS[:-1])} or "
                      f"{AXIS_PARAMETERS[-1]}; the Context goes to one parameter: def {function}(ctx))"
                      f"{f' ({where})' if where else ''}")
    positional = [entry for entry in listed if entry[1]]
    last = max((i for i, entry in enumerate(positional) if entry[0] in values), default=-1)
    args = [values[name] if name in values else default for name, _, default, _ in positional[:last + 1]]
    kwargs = {entry[0]: values[entry[0]] for entry in listed if not entry[1] and entry[0] in values}
    return args, kwargs, context


def raised_frames(error):
    """The frames of `error`'s traceback outside benchhost's own code; for pdb's BdbQuit
    (a breakpoint() that quit), outside the debugger's too: down to the line it stopped at."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith("<benchhost")]
    if type(error).__name__ == "BdbQuit":
        frames = [f for f in frames if os.path.basename(f.filename) not in ("bdb.py", "pdb.py", "cmd.py")] or frames
    return frames


def where_raised(error):
    """file:line in function, of the deepest of raised_frames."""
    frames = raised_frames(error)
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


def framework_info():
    """What a benchmark ran on, by what was imported when it ended: "PyTorch 2.14.1"
    (torch), "JAX 0.10.2" (jax), both joined by ", " when both were, else the Python
    version ("Python 3.11.2"). The reports' framework, as a C++ plugin's "libtorch"."""
    frameworks = []
    for module_name, label in (("torch", "PyTorch"), ("jax", "JAX")):
        module = sys.modules.get(module_name)
        if module is not None:
            version = getattr(module, "__version__", None)
            frameworks.append(f"{label} {version}" if isinstance(version, str) else label)
    return ", ".join(frameworks) or "Python {}.{}.{}".format(*sys.version_info[:3])


# Whether torch.compile's compile workers outlive a benchmark: in the host (--isolation
# none) they serve the next scenario; a worker stops them, and so does benchhost.check,
# which sets this False.
KEEP_COMPILE_WORKERS = os.environ.get("BENCHHOST_WORKER") != "1"


def stop_torch_compile_workers(ctx):
    """Shuts down torch.compile's compile workers (processes it starts, and shuts down at
    exit, from atexit, with the threads that wait on them), where torch.compile ran: a
    worker's interpreter never exits, and the worker server would stop them with a warning
    the plugin could do nothing about; benchhost.check would warn of their threads as
    left running. In the host (--isolation none) they serve the next scenario."""
    async_compile = sys.modules.get("torch._inductor.async_compile")
    if async_compile is None or KEEP_COMPILE_WORKERS:
        return
    shutdown = getattr(async_compile, "shutdown_compile_workers", None)
    if not callable(shutdown):
        return
    try:
        shutdown()
        # The thread pool that submits kernels to them (AsyncCompile.pool, made at the
        # first compile that misses the cache) is not in what shutdown_compile_workers
        # stops: its threads would outlive the benchmark.
        pool = getattr(getattr(async_compile, "AsyncCompile", None), "pool", None)
        cache_info = getattr(pool, "cache_info", None)
        if callable(cache_info) and cache_info().currsize:
            pool().shutdown(wait=True)
            pool.cache_clear()
    except Exception as error:  # what is left is stopped all the same, with a warning
        ctx.log("warning", f"torch.compile's compile workers did not shut down: {type(error).__name__}: {error}")


def prepare_environment():
    """What the frameworks read from the environment, set before a plugin, or the parent
    a worker is forked from, imports them: torch.compile's and AOTInductor's cache in
    benchhost's cache folder (importing torch sets TORCHINDUCTOR_CACHE_DIR to Inductor's
    default, /tmp/torchinductor_<user>, when it is unset); a TORCHINDUCTOR_CACHE_DIR of the
    user's stands. JAX on a GPU would reserve 75% of its memory at its first computation
    (benchhost.jax)."""
    cache = benchhost.cache_dir()
    if cache is not None:
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(cache, "inductor"))
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def run(ctx, path, function):
    prepare_environment()
    threads_before = set(threading.enumerate())
    context_parameter = None  # the name of the parameter that was given the Context
    skipped = False
    succeeded = False
    distributed = None
    if ctx.config.world_size > 0:  # one rank of a distributed scenario: how far it gets
        import benchhost.distributed as distributed
        distributed._started()
    try:
        module = load_plugin(path)
        fn = getattr(module, function, None)
        if not callable(fn):
            raise Failure(f"{path}: {function} is not a function once the plugin is imported")
        args, kwargs, context_parameter = arguments(ctx, fn, function)
        if context_parameter is not None:
            returned = fn(*args, **kwargs)
            if not ctx._figures():
                ctx.add_warning(f"{function} recorded no figures: it measured nothing (ctx.measure, ctx.add_sample, "
                                f"ctx.record_series, ctx.record_scalar record them)" +
                                ("; what it returned is not recorded: a function that takes the Context records "
                                 "through it" if returned is not None else ""))
        else:
            run_plain(ctx, (lambda: fn(*args, **kwargs)) if args or kwargs else fn, function)
        succeeded = True
    except benchhost.SkipScenario:
        skipped = True
        raise
    except SystemExit as ended:
        if ended.code is None or ended.code == 0:  # the loader ends the scenario as a success
            called = "sys.exit()" if ended.code is None else f"sys.exit({ended.code!r})"
            ctx.add_warning(f"{function} called {called}{where_raised(ended)}: the scenario succeeds with what was "
                            f"recorded before the call")
            raise
        raise Failure(f"called sys.exit({ended.code!r}){where_raised(ended)}") from None
    except Failure:
        raise
    except BaseException as error:
        ctx.log("error", "".join(traceback.format_exception(error)).rstrip())
        message = str(error)
        hint = context_parameter is not None and not names_a_context(context_parameter)
        if hint and len(message) > 1000:  # the hint fits in the reason (PythonOutcome::reason)
            message = message[:1000] + "..."
        if type(error).__name__ == "BdbQuit" and not message and os.environ.get("BENCHHOST_WORKER") == "1":
            # A breakpoint() in a worker: pdb read end-of-file and quit.
            message = ("pdb has no terminal to read in a worker process: to step through a plugin, run it with "
                       "--isolation none --timeout 0, or with python -m benchhost.check")
        reason = f"raised {type(error).__name__}{f': {message}' if message else ''}{where_raised(error)}"
        if hint:
            text, where = definition(fn, function)
            reason += (f"; benchhost called {function} with the Context (benchhost.Context) as its parameter "
                       f"{context_parameter}, in {text}{f' ({where})' if where else ''}. A benchmark function's "
                       f"parameters get, by name, the Context (ctx), the scenario's axes (batch_size, dtype, ...) and "
                       f"the run's --param values")
        raise Failure(reason) from None
    finally:
        if distributed is not None:
            distributed._finished(succeeded)
        if not skipped and "framework" not in ctx._info():
            ctx.set_info("framework", framework_info())
        stop_torch_compile_workers(ctx)
        # benchhost.torch and benchhost.jax record compiles after model_variant into the
        # scenario's Context, which ends here (under --isolation none the next scenario
        # runs in this process).
        for module, watcher in (("benchhost.torch", "_CompileWatch"), ("benchhost.jax", "_CompileSpans")):
            watch = getattr(sys.modules.get(module), watcher, None)
            if watch is not None:
                watch.forget()
    left = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
    if left:
        # Each name once, with how many (a function called each sample may start one a call).
        named = collections.Counter(thread.name for thread in left)
        names = ", ".join(name if n == 1 else f"{name} x{n}" for name, n in named.items())
        ctx.add_warning(f"the benchmark left {len(left)} thread(s) running ({names}); they were not waited for")
