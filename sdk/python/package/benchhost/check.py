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
as the host's do; each benchmark runs once per combination of the values given.
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
import traceback
import types
from typing import Any, Callable, Sequence

from benchhost._standin import Config, Context, Recorded, SkipScenario, param_values

CATEGORIES = ("unit", "integration", "performance")
AXES = (("variant", "variants"), ("batch_size", "batch-sizes"), ("dtype", "dtypes"), ("device", "devices"),
        ("threads", "threads"), ("compile_mode", "compile-modes"))
INT_AXES = ("batch_size", "threads")


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


def find_benchmarks(source_file: str, plugin: str) -> list[tuple[str, str]]:
    """(benchmark, function) of the file, run_benchmark first, as the host lists them."""
    with open(source_file, "rb") as f:
        tree = ast.parse(f.read(), filename=source_file)
    functions: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions.append(node.name)
        elif isinstance(node, ast.ImportFrom):
            functions.extend(alias.asname or alias.name for alias in node.names if alias.name != "*")
    found: list[tuple[str, str]] = []
    for function in functions:
        name = benchmark_name(function, plugin)
        if name and all(f != function for _, f in found):
            if any(n == name for n, _ in found):
                raise Failure(f"declares benchmark '{name}' twice (benchmark_{name} and run_{name}): keep one")
            found.append((name, function))
    found.sort(key=lambda entry: entry[1] != "run_benchmark")
    return found


def worker_support() -> types.ModuleType:
    """sdk/python/benchhost_support.py, the code with which a worker runs a benchmark,
    loaded here once: run(ctx, path, function) imports the plugin afresh and calls the
    function as a worker does, with the stand-in Context. What it does to the `benchhost`
    module as it loads (a package of embedded submodules only) is undone."""
    import benchhost
    here = os.path.dirname(os.path.realpath(__file__))
    path = os.path.normpath(os.path.join(here, "..", "..", "benchhost_support.py"))
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
    support_where_raised: Callable[[BaseException], str] = module.where_raised

    def where_raised(error: BaseException) -> str:
        # In a worker benchhost.torch's frames are "<benchhost.torch>", left out too;
        # here they are this package's (benchhost/torch.py).
        frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith("<benchhost")
                  and os.path.dirname(os.path.realpath(f.filename)) not in (here, os.path.dirname(path))]
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
        if debug and isinstance(error.__context__, BaseException):
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
    points: list[list[tuple[str, Any]]] = []
    for axis, option in AXES:
        text = getattr(args, axis)
        if text is None:
            continue
        values: list[Any] = [v.strip() for v in text.split(",") if v.strip()]
        if axis in INT_AXES:
            try:
                values = [int(v) for v in values]
            except ValueError:
                parser.error(f"option --{option}: '{text}' is not a list of integers")
        if not values:
            parser.error(f"option --{option}: no value")
        points.append([(axis, v) for v in values])
    args.points = [dict(p) for p in itertools.product(*points)]
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
    except (OSError, SyntaxError, ValueError, Failure) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 1
    if args.benchmark:
        unknown = [b for b in args.benchmark if all(b != name for name, _ in benchmarks)]
        if unknown:
            print(f"{path}: no benchmark {', '.join(unknown)} (it has {', '.join(n for n, _ in benchmarks)})",
                  file=sys.stderr)
            return 2
        benchmarks = [entry for entry in benchmarks if entry[0] in args.benchmark]
    if not benchmarks:
        print(f"{path}: not a plugin: defines no run_benchmark, benchmark_* or run_* function at module level",
              file=sys.stderr)
        return 1
    support = worker_support()
    category = category_of(path)
    counts = {"success": 0, "failed": 0, "skipped": 0}
    for (name, function), point in itertools.product(benchmarks, args.points):
        scenario = name + ("[" + ",".join(f"{k}={v}" for k, v in point.items()) + "]" if point else "")
        config = Config(category=category, plugin=plugin, benchmark=name, scenario_name=scenario,
                        warmup_iterations=args.warmup_iterations, measurement_iterations=args.measurement_iterations,
                        num_tokens_to_generate=args.num_tokens_to_generate, model_id=args.model_id,
                        timer=args.timer, cache=args.cache, params=args.params, **point)
        print(f"== {category}/{plugin}/{scenario} ({function})", flush=True)
        ctx = Context(config)
        start = time.perf_counter()
        status, reason = run_scenario(support, path, function, ctx, args.pdb)
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
