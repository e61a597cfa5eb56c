"""A Python plugin with type errors, each marked on its line, for ctest
python_type_check_finds_errors: mypy, reading the benchhost stubs, must report exactly
these (tests/python/type_check.py --expect-errors). It runs; it is wrong."""

import benchhost


def run_benchmark(ctx):
    ctx.record_scalar("calls", "many")  # type error: Argument 2 to "record_scalar" of "Context" has incompatible type "str"
    ctx.config.batch_size.upper()  # type error: "int" has no attribute "upper"
    ctx.mesure("latency", lambda: None)  # type error: "Context" has no attribute "mesure"
    samples = ctx.measure("latency", lambda: None)
    samples.keys()  # type error: has no attribute "keys"
    ctx.log("warnning", "a typo logs nothing")  # type error: Argument 1 to "log" of "Context" has incompatible type
    ctx.serve(lambda query, other: None)  # type error: Argument 1 to "serve" of "Context" has incompatible type
    ctx.config.batch_size = 8  # type error: Property "batch_size" defined in "Config" is read-only
    ctx.config.axes["batch_size"].lower()  # type error: "int" has no attribute "lower"
    ctx.add_sample("latency", 1.0, unit="ms")


def benchmark_named_otherwise(context):
    context.skip(3)  # type error: Argument 1 to "skip" of "Context" has incompatible type "int"


def benchmark_after_skip(ctx):
    reason = benchhost.cache_dir()
    ctx.skip(reason)  # type error: Argument 1 to "skip" of "Context" has incompatible type


def handle(query: benchhost.Query) -> None:
    query.token(1)  # type error: Too many arguments for "token" of "Query"


@benchhost.benchmark(variants=["eagre"])  # type error: List item 0 has incompatible type "Literal['eagre']"
def benchmark_misspelt_variant(batch_size=1):
    return {"batch_size": batch_size}
