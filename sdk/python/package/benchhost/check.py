"""python -m benchhost.check FILE [options]: runs a Python plugin's benchmarks once,
outside benchhost, with a stand-in Context, and prints what each recorded.

A smoke test for a plugin being written, not a measurement. The benchmarks are found as
the host finds them (module-level run_benchmark, benchmark_<name>, run_<name>, names a
`from ... import` binds included; host/src/discover/inspect_python.py and
discovery.cpp), and each is run by the worker's own code (sdk/python/benchhost_support.py,
loaded from the source tree): the file imported afresh, its folder first on sys.path,
the function called with the Context when it takes one parameter, else warmup +
measured times with none, each number of the dict it returns a series; a reason in the
worker's words when it fails or is skipped. The Context is the stand-in
(benchhost._standin), which records instead of a worker: each scenario prints its
series, scalars, info, warnings and log lines (a traceback is logged at level error, as
in a run's log), then what the stand-in did not do as a worker would.

The exit status is 1 when a scenario failed (skipped ones do not count) or the file is
no plugin, 2 for a usage error. Axis options take one value or a comma-separated list,
as the host's do. Each benchmark runs over its axes as the host plans it (the module's
BENCHHOST_PLUGIN axes, or the function's own @benchhost.benchmark, read by the host's
own inspect_python.py): once per combination of the values given for them, else of the
values it declares; an axis with neither keeps the stand-in's default.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import math
import os
import statistics
import sys
import time
import types
from typing import Any, Callable, NamedTuple, Sequence

from benchhost._standin import Config, Context, Recorded, SkipScenario, param_values

CATEGORIES = ("unit", "integration", "performance")
VARIANTS = ["eager", "compiled", "kernelized"]
AXES = (("variant", "variants"), ("batch_size", "batch-sizes"), ("dtype", "dtypes"), ("device", "devices"),
        ("threads", "threads"), ("compile_mode", "compile-modes"), ("world_size", "world-sizes"))
INT_AXES = ("batch_size", "threads", "world_size")
BUILTIN_AXES = tuple(axis for axis, _ in AXES)


class Failure(Exception):
    """The benchmark failed; str() is the reason (the host's words)."""


def benchmark_name(function: str, plugin: str) -> str:
    """The benchmark a module-level function declares, as the host names it; "" for others."""
    if function == "run_benchmark":
        return plugin
    for prefix in ("benchmark_", "run_"):
        if len(function) > len(prefix) and function.startswith(prefix):
            return function[len(prefix):]
    return ""


class Benchmark(NamedTuple):
    """A benchmark of the file, with the axes and variants the host plans it with."""
    name: str
    function: str
    axes: list[str]  # its own (@benchhost.benchmark), else the module's BENCHHOST_PLUGIN axes
    values: dict[str, list[str]]  # the values it declares for its axes (axes={...: [...]})
    variants: list[str]  # those it implements; empty when it has no variant axis


def _companion(installed: str, *in_tree: str) -> str:
    """A file this module reads: `installed` beside it in an installed package
    (<prefix>/share/benchhost/python/benchhost/), else its place in the source tree,
    `in_tree` from sdk/python/package/benchhost/."""
    here = os.path.dirname(os.path.realpath(__file__))
    beside = os.path.join(here, installed)
    return beside if os.path.isfile(beside) else os.path.normpath(os.path.join(here, *in_tree))


def source_inspector() -> types.ModuleType:
    """host/src/discover/inspect_python.py, with which the host reads a plugin file (ast,
    without importing it), loaded from the source tree or the installed package."""
    path = _companion("_inspect_python.py", "..", "..", "..", "..", "host", "src", "discover", "inspect_python.py")
    with open(path) as f:
        source = f.read()
    module = types.ModuleType("benchhost_inspect_python")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def find_benchmarks(source_file: str, plugin: str) -> list[Benchmark]:
    """The benchmarks of the file, run_benchmark first, as the host lists and plans them;
    raises Failure, saying where, where the host would reject the file."""
    entry: dict[str, Any] = source_inspector().inspect(source_file)
    for key in ("error", "handshake_error", "declaration_error"):
        if entry.get(key):
            raise Failure(entry[key])
    handshake: dict[str, Any] = entry["handshake"] or {}
    declarations = {d["function"]: d for d in entry["declarations"]}
    found: list[Benchmark] = []
    for function in entry["functions"]:
        name = benchmark_name(function, plugin)
        if not name or any(b.function == function for b in found):
            continue
        if any(b.name == name for b in found):
            raise Failure(f"{source_file}: declares benchmark '{name}' twice (benchmark_{name} and run_{name}): "
                          f"keep one")
        declared = declarations.pop(function, {})
        axes: list[str] = declared.get("axes", handshake.get("axes", []))
        variants = [v for v in handshake.get("variants") or VARIANTS
                    if v in handshake.get("benchmark_variants", {}).get(name, VARIANTS)]
        if "variants" in declared:
            if name in handshake.get("benchmark_variants", {}):
                raise Failure(f"{source_file}:{declared['line']}: @benchhost.benchmark on {function}: its variants "
                              f"are declared twice, here and in BENCHHOST_PLUGIN['benchmark_variants'] ('{name}'): "
                              f"keep one")
            variants = declared["variants"]
        found.append(Benchmark(name, function, axes, declared.get("axis_values", {}),
                               variants if "variant" in axes else []))
    for function, declared in declarations.items():
        raise Failure(f"{source_file}:{declared['line']}: @benchhost.benchmark on {function}: not a benchmark "
                      f"function (a benchmark is named run_benchmark, benchmark_<name> or run_<name>)")
    found.sort(key=lambda b: b.function != "run_benchmark")
    return found


def typed(axis: str, values: Sequence[str]) -> list[Any]:
    """An axis's values as Config takes them: batch_size and threads as integers."""
    if axis not in INT_AXES:
        return list(values)
    try:
        return [int(v) for v in values]
    except ValueError:
        raise Failure(f"{axis}: '{','.join(values)}' is not a list of integers") from None


def scenarios(benchmark: Benchmark, given: dict[str, list[Any]]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """([(scenario name, axis values)], notes): the scenarios of `benchmark` as the host
    expands it: over each of its axes that has values, those given on the command line,
    else those it declares (an axis with neither keeps the stand-in's default); only
    the variants it implements; compile_mode only for the compiled variant. An axis it does
    not vary over gets the first value given; its variant, without --variants, the first
    it implements."""
    notes: list[str] = []
    expanded: list[tuple[str, list[Any]]] = []
    for axis in benchmark.axes:
        if axis in given:
            values = given[axis]
        elif axis == "world_size":  # a distributed benchmark: one rank, whatever it declares
            values = [1]
        elif axis in benchmark.values:
            values = typed(axis, benchmark.values[axis])
        else:
            continue
        if axis == "variant":
            kept = [v for v in values if v in benchmark.variants]
            dropped = [v for v in values if v not in benchmark.variants]
            if dropped:
                notes.append(f"{benchmark.name}: {','.join(dropped)} not run (it declares "
                             f"{','.join(benchmark.variants)})")
            if not kept:
                return [], notes
            values = kept
        expanded.append((axis, values))
    fixed: dict[str, Any] = {}
    for axis, values in given.items():
        if axis in benchmark.axes or axis == "world_size":  # not distributed: no ranks
            continue
        if axis not in BUILTIN_AXES:
            notes.append(f"{benchmark.name} does not vary over {axis}: its values are not used")
            continue
        fixed[axis] = values[0]
        if len(values) > 1:
            notes.append(f"{benchmark.name} does not vary over {axis}: of {','.join(str(v) for v in values)} only "
                         f"the first ({values[0]}) is used")
    if benchmark.variants and all(axis != "variant" for axis, _ in expanded):
        fixed["variant"] = benchmark.variants[0]
    out: list[tuple[str, dict[str, Any]]] = []
    for combination in itertools.product(*[[(axis, v) for v in values] for axis, values in expanded]):
        point = dict(combination)
        if point.get("variant", "compiled") != "compiled":
            point.pop("compile_mode", None)
        name = benchmark.name + ("[" + ",".join(f"{k}={v}" for k, v in point.items()) + "]" if point else "")
        if all(name != n for n, _ in out):
            out.append((name, {**fixed, **point}))
    return out, notes


def rendezvous_alone() -> None:
    """torchrun's environment of a single rank, where it is not set: what a distributed
    benchmark's process group (benchhost.distributed) rendezvouses with."""
    import socket
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(probe.getsockname()[1])
    for name, value in (("MASTER_ADDR", "127.0.0.1"), ("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1"),
                        ("LOCAL_WORLD_SIZE", "1")):
        os.environ.setdefault(name, value)


def worker_support() -> types.ModuleType:
    """sdk/python/benchhost_support.py, the code with which a worker runs a benchmark,
    loaded here once: run(ctx, path, function) imports the plugin afresh and calls the
    function as a worker does, with the stand-in Context. What it does to the `benchhost`
    module as it loads (a package of embedded submodules only) is undone."""
    import benchhost
    here = os.path.dirname(os.path.realpath(__file__))
    path = _companion("_worker_support.py", "..", "..", "benchhost_support.py")
    with open(path) as f:
        source = f.read()
    module = types.ModuleType("benchhost_support")
    module.__file__ = "<benchhost>"
    module.EMBEDDED = {}  # type: ignore[attr-defined]
    package_path, meta_path = benchhost.__path__, list(sys.meta_path)
    try:
        # As the loader compiles it: its frames are "<benchhost>", left out of where
        # an exception was raised.
        exec(compile(source, "<benchhost>", "exec"), module.__dict__)
    finally:
        benchhost.__path__ = package_path
        sys.meta_path[:] = meta_path
    # As in a worker: torch.compile's compile workers stopped after each benchmark, not
    # left (with their threads) for the next as in the host.
    module.KEEP_COMPILE_WORKERS = False  # type: ignore[attr-defined]
    support_where_raised: Callable[[BaseException], str] = module.where_raised

    def where_raised(error: BaseException) -> str:
        # In a worker benchhost.torch's frames are "<benchhost.torch>" (benchhost.jax's
        # "<benchhost.jax>"), left out too; here they are this package's
        # (benchhost/torch.py, benchhost/jax.py).
        frames = [f for f in module.raised_frames(error)
                  if os.path.dirname(os.path.realpath(f.filename)) not in (here, os.path.dirname(path))]
        if not frames:
            return support_where_raised(error)
        frame = frames[-1]
        return f" ({frame.filename}:{frame.lineno} in {frame.name})"

    module.where_raised = where_raised  # type: ignore[attr-defined]
    return module


def post_mortem(error: BaseException) -> None:
    """pdb at the frame that raised `error` (the worker's code turns an exception into a
    Failure, whose context it is)."""
    import pdb
    raised = error.__context__ if isinstance(error.__context__, BaseException) else error
    print(f"  pdb: post-mortem of {type(raised).__name__}: {raised}", flush=True)
    pdb.post_mortem(raised.__traceback__)


def run_scenario(support: types.ModuleType, path: str, function: str, ctx: Context,
                 debug: bool = False) -> tuple[str, str]:
    """(status, reason) of one benchmark run by the worker's code with `ctx`, ended as
    the loader ends it (sdk/python/src/loader.cpp); with `debug`, pdb's post-mortem of an
    exception first."""
    try:
        support.run(ctx, path, function)
    except SkipScenario as skip:
        return "skipped", str(skip)
    except SystemExit as ended:
        if ended.code is None or ended.code == 0:
            return "success", ""
        return "failed", f"called sys.exit({ended.code!r})"
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        if debug and isinstance(error.__context__, BaseException) and not isinstance(error.__context__, SystemExit):
            post_mortem(error)
        if isinstance(error, support.Failure):
            return "failed", str(error)
        return "failed", f"Python: {type(error).__name__}: {error}"
    return "success", ""


def number(value: float) -> str:
    if math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def print_recorded(recorded: Recorded) -> None:
    for name, (unit, samples) in recorded.series.items():
        shown = " ".join(number(v) for v in samples[:10]) + (" ..." if len(samples) > 10 else "")
        median = statistics.median(samples) if samples else math.nan
        print(f"  series {name} ({unit or 'no unit'}): {len(samples)} samples, median {number(median)}: {shown}")
    for name, (value, unit) in recorded.scalars.items():
        print(f"  scalar {name}: {number(value)} {unit}".rstrip())
    for key, text in recorded.info.items():
        print(f"  info {key}: {text}")
    for warning in recorded.warnings:
        print(f"  warning: {warning}")
    for note in recorded.notes:
        print(f"  stand-in: {note}")


def category_of(path: str) -> str:
    for part in reversed(os.path.abspath(path).split(os.sep)[:-1]):
        if part in CATEGORIES:
            return part
    return "performance"


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchhost.check",
        description="Runs a Python plugin's benchmarks once, outside benchhost, with a stand-in Context, and prints "
                    "what each recorded. Exit status 1 when one failed.")
    parser.add_argument("file", help="the plugin: a .py file, or a package folder with __init__.py")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a plugin parameter, as the host's --param (a comma-separated VALUE is a list)")
    parser.add_argument("--benchmark", action="append", default=[], metavar="NAME",
                        help="run only this benchmark (repeatable); default: all")
    for axis, option in AXES:
        parser.add_argument(f"--{option}", dest=axis, default=None, metavar="V1,V2",
                            help=f"the {axis} axis (one scenario per value)")
    parser.add_argument("--axis", action="append", default=[], metavar="NAME=V1,V2",
                        help="a custom axis's values, as the host's --axis (one scenario per value)")
    parser.add_argument("--warmup-iterations", type=int, default=1, metavar="N",
                        help="untimed calls before the timed ones (default 1)")
    parser.add_argument("--measurement-iterations", type=int, default=3, metavar="N",
                        help="timed calls, or queries served (default 3)")
    parser.add_argument("--num-tokens-to-generate", type=int, default=20, metavar="N", help="default 20")
    parser.add_argument("--model-id", default="", metavar="ID")
    parser.add_argument("--pdb", action="store_true",
                        help="on an exception in a benchmark, pdb's post-mortem where it was raised")
    parser.add_argument("--timer", default="auto", choices=("auto", "host", "cuda-events"),
                        help="config.timer only: the stand-in times with Python's clock")
    parser.add_argument("--cache", default="warm", choices=("warm", "cold"),
                        help="config.cache only: the stand-in flushes no cache")
    args = parser.parse_args(argv)
    if args.warmup_iterations < 0 or args.measurement_iterations < 1:
        parser.error("--warmup-iterations must be 0 or more, --measurement-iterations 1 or more")
    params: dict[str, str | list[str]] = {}
    for param in args.param:
        key, equals, value = param.partition("=")
        if not equals or not key:
            parser.error(f"option --param: '{param}' is not KEY=VALUE")
        params[key] = param_values(value)
    args.params = params
    given: dict[str, list[Any]] = {}
    for axis, option in AXES:
        text = getattr(args, axis)
        if text is None:
            continue
        values = [v.strip() for v in text.split(",") if v.strip()]
        if not values:
            parser.error(f"option --{option}: no value")
        try:
            given[axis] = typed(axis, values)
        except Failure:
            parser.error(f"option --{option}: '{text}' is not a list of integers")
    for axis_option in args.axis:
        name, equals, text = axis_option.partition("=")
        values = [v.strip() for v in text.split(",") if v.strip()]
        if not equals or not name or not values or name in BUILTIN_AXES:
            parser.error(f"option --axis: '{axis_option}' is not NAME=V1,V2 of a custom axis")
        given[name] = values
    args.given = given
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    path = args.file
    folder = os.path.isdir(path)
    source = os.path.join(path, "__init__.py") if folder else path
    plugin = os.path.basename(os.path.normpath(path))
    if not folder and plugin.endswith(".py"):
        plugin = plugin[:-3]
    try:
        benchmarks = find_benchmarks(source, plugin)
    except Failure as error:
        print(error, file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 1
    if args.benchmark:
        unknown = [b for b in args.benchmark if all(b != benchmark.name for benchmark in benchmarks)]
        if unknown:
            print(f"{path}: no benchmark {', '.join(unknown)} (it has {', '.join(b.name for b in benchmarks)})",
                  file=sys.stderr)
            return 2
        benchmarks = [benchmark for benchmark in benchmarks if benchmark.name in args.benchmark]
    if not benchmarks:
        print(f"{path}: not a plugin: defines no run_benchmark, benchmark_* or run_* function at module level",
              file=sys.stderr)
        return 1
    support = worker_support()
    category = category_of(path)
    counts = {"success": 0, "failed": 0, "skipped": 0}
    for benchmark in benchmarks:
        try:
            planned, notes = scenarios(benchmark, args.given)
        except Failure as error:
            print(f"{source}: {benchmark.function}: {error}", file=sys.stderr)
            return 1
        for note in notes:
            print(f"note: {note}")
        for scenario, point in planned:
            params = dict(args.params)
            params.update({axis: str(value) for axis, value in point.items() if axis not in BUILTIN_AXES})
            config = Config(category=category, plugin=plugin, benchmark=benchmark.name, scenario_name=scenario,
                            warmup_iterations=args.warmup_iterations,
                            measurement_iterations=args.measurement_iterations,
                            num_tokens_to_generate=args.num_tokens_to_generate, model_id=args.model_id,
                            timer=args.timer, cache=args.cache, params=params,
                            **{axis: value for axis, value in point.items() if axis in BUILTIN_AXES})
            if point.get("world_size", 1) > 1:
                print(f"note: {scenario}: world size {point['world_size']} needs that many processes, which "
                      f"benchhost run starts (--world-sizes); benchhost.check runs a distributed benchmark as one "
                      f"rank (--world-sizes 1)")
                continue
            if "world_size" in point:
                rendezvous_alone()
            print(f"== {category}/{plugin}/{scenario} ({benchmark.function})", flush=True)
            ctx = Context(config)
            start = time.perf_counter()
            status, reason = run_scenario(support, path, benchmark.function, ctx, args.pdb)
            print_recorded(ctx._recorded)
            seconds = time.perf_counter() - start
            print(f"  {status}{': ' + reason if reason else ''} ({seconds:.2f} s)", flush=True)
            counts[status] += 1
    total = sum(counts.values())
    print(f"{total} scenario{'s' if total != 1 else ''}: {counts['success']} succeeded, {counts['failed']} failed, "
          f"{counts['skipped']} skipped (a stand-in Context: a smoke test, not a measurement)")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
