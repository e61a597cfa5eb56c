# Types of the `benchhost` module that a worker gives Python plugins: the compiled module
# of sdk/python/src/module.cpp (pybind11), for editors and type checkers. Outside a
# worker, `import benchhost` runs __init__.py beside this file instead: a stand-in with
# the same members (benchhost._standin). The e2e test
# TheCompiledModuleComesFirstAndMatchesItsStubs (tests/e2e/python_plugins_test.cpp) fails
# when this file and module.cpp differ in a name, a parameter or a default, and ctest
# python_stub_members when this file and the stand-in do; a helper of the worker's own
# code (a member whose name begins with `_`, such as Context._figures) may be left out.
#
# Names beginning with an underscore at module level (_Axes, _LogLevel, _T, ...) exist
# only for the type checker.
from typing import Any, Callable, Literal, Mapping, NoReturn, Sequence, TypedDict, TypeVar

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

_Variant = Literal["eager", "compiled", "kernelized"]
_AxisValue = int | float | str

# What spdlog reads as a level; any other text (or "off") logs nothing.
_LogLevel = Literal["trace", "debug", "info", "warning", "warn", "error", "err", "critical"]

class _Axes(TypedDict):
    variant: str
    compile_mode: str
    batch_size: int
    dtype: str
    device: str

class SkipScenario(BaseException):
    """Raised by Context.skip: the scenario ends as skipped, with the reason. A
    BaseException, so that `except Exception` does not swallow it."""

def _clock_ns() -> int:
    """Now on the clock that times the samples (bench::Clock, steady), in ns: what
    Context.record_compile takes."""

def cache_dir() -> str | None:
    """benchhost's cache folder, kept between runs ($BENCHHOST_CACHE_DIR, else
    $XDG_CACHE_HOME/benchhost, else ~/.cache/benchhost; not created), or None when none of
    them is an absolute path."""

def benchmark(*, axes: Sequence[str] | Mapping[str, Sequence[_AxisValue] | _AxisValue] | None = None,
              variants: Sequence[_Variant] | str | None = None, distributed: bool = False) -> Callable[[_F], _F]:
    """Declares a benchmark function's own axes and variants, in place of the module's
    BENCHHOST_PLUGIN axes, and whether it is distributed:

        @benchhost.benchmark(axes={"batch_size": [1, 8]}, variants=["eager"])
        def benchmark_matmul(batch_size=1): ...

    axes: a list of axis names (their values the run's), or a dict of axis names to the
    values it runs with where the run does not set them; {} or []: it runs once.
    variants: those it implements (variant becomes one of its axes). distributed: True
    makes world_size one of its axes (--world-sizes): each scenario runs as that many
    rank processes, with torchrun's environment (benchhost.distributed). Literals only:
    the host reads them from the file without running it. Returns the function unchanged."""

class Config:
    """The scenario's settings (read-only)."""

    @property
    def category(self) -> str:
        """unit, integration or performance"""
    @property
    def plugin(self) -> str: ...
    @property
    def benchmark(self) -> str: ...
    @property
    def scenario_name(self) -> str:
        """The benchmark's name and its axis values."""
    @property
    def variant(self) -> str:
        """eager, compiled or kernelized"""
    @property
    def compile_mode(self) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> str:
        """cpu, cuda, cuda:1, ..."""
    @property
    def timer(self) -> str:
        """--timer: auto, host or cuda-events"""
    @property
    def cache(self) -> str:
        """--cache: warm or cold"""
    @property
    def compile_cache(self) -> str:
        """--compile-cache: warm, or cold (the worker's compile caches are fresh, empty folders)"""
    @property
    def discard_recompiled(self) -> bool:
        """--discard-recompiled: the samples a compile ran in are dropped"""
    @property
    def threads(self) -> int:
        """Intra-op threads; 0 keeps the library's default."""
    @property
    def world_size(self) -> int:
        """A distributed scenario's ranks (the world_size axis); 0: not distributed."""
    @property
    def warmup_iterations(self) -> int: ...
    @property
    def measurement_iterations(self) -> int: ...
    @property
    def num_tokens_to_generate(self) -> int: ...
    @property
    def model_id(self) -> str: ...
    @property
    def params(self) -> dict[str, Any]:
        """--param and YAML params: name -> a string, or a list of strings (a value with
        commas, a YAML list). Typed Any so that int(params["size"]) checks; a new dict at
        each access."""
    @property
    def axes(self) -> _Axes:
        """The scenario's values of the standard axes: variant, compile_mode, batch_size,
        dtype, device (a custom axis's value is in params)."""

class Query:
    """One query being served: valid during the handler's call only."""

    @property
    def index(self) -> int:
        """Which query, from 0: pick the input by it."""
    @property
    def samples(self) -> int:
        """Samples in the query: 1, or --samples-per-query."""
    @property
    def slot(self) -> int:
        """serve_steps: the query's slot, 0 to --max-batch - 1; serve_batches: its place in
        the batch; serve: 0."""
    @property
    def steps(self) -> int:
        """serve_steps: the steps it was in before this one."""
    @property
    def tokens(self) -> int:
        """Tokens reported so far."""
    @property
    def finished(self) -> bool: ...
    def token(self) -> None:
        """A token is ready (time to first token, time per output token)."""
    def finish(self) -> None:
        """serve_steps: the query is complete; it leaves the batch after this step."""

class Context:
    """The scenario being run: handed to run_benchmark(ctx) and benchmark_<name>(ctx)."""

    @property
    def config(self) -> Config: ...
    def measure(self, name: str, fn: Callable[[], object]) -> list[float]:
        """Times fn() as the C++ SDK does (warmup, then samples until the stopping rule
        ends: --measurement-iterations, --min-time, --max-time, --target-ci-width) and
        records the samples, in ms, as series `name`. On a CUDA device it times the
        device's work (CUDA events, or with --timer host the host's clock and a
        synchronization). Returns the samples."""
    def _timed_call(self, fn: Callable[[], _T], /) -> tuple[float, _T]:
        """(ms, result) of one call of fn(), timed by the C++ clock."""
    def add_sample(self, name: str, value: float, unit: str = "") -> None:
        """Appends one sample to series `name`."""
    def record_series(self, name: str, samples: Sequence[float], unit: str = "") -> None:
        """Records samples as series `name`."""
    def record_throughput(self, name: str, latency_ms: Sequence[float], items_per_call: float, unit: str) -> None:
        """Records items_per_call / latency for each latency sample (ms) as series `name`,
        in `unit`."""
    def record_bandwidth(self, name: str, latency_ms: Sequence[float], bytes_per_call: float,
                         device: int = -1) -> None:
        """Records bytes_per_call / latency for each latency sample (ms) as series `name` in
        GB/s; on a CUDA scenario also peak_memory_bandwidth and fraction_of_peak_<name>."""
    def record_scalar(self, name: str, value: float, unit: str = "") -> None:
        """Records a single figure; recording a name again replaces it."""
    def set_info(self, key: str, value: str) -> None:
        """Records a text fact shown in the report."""
    def add_warning(self, warning: str) -> None:
        """Adds a warning about the scenario's figures, shown in the report and the log."""
    def record_compile(self, start_ns: int, end_ns: int, what: str) -> None:
        """A compile ran from start_ns to end_ns (benchhost._clock_ns()); what: what was
        compiled and why. The timed samples it overlaps are marked, with a warning naming
        `what`, and dropped with --discard-recompiled."""
    def skip(self, reason: str) -> NoReturn:
        """Ends the scenario as skipped, with the reason (raises SkipScenario)."""
    def serve(self, handler: Callable[[Query], object]) -> None:
        """Serves queries under the run's load (--load; single-stream without it):
        handler(query) serves one query and returns when it is complete, calling
        query.token() as each token is ready. Once per scenario."""
    def serve_batches(self, handler: Callable[[list[Query]], object]) -> None:
        """serve() with dynamic batching: handler(queries) serves a list of 1 to
        --max-batch queries together; each completes when it returns."""
    def serve_steps(self, handler: Callable[[list[Query]], object]) -> None:
        """serve() with continuous batching: handler(active) runs one step of the active
        queries, calling token() for each and finish() on those that are complete."""
    @property
    def served(self) -> bool:
        """Whether serve, serve_batches or serve_steps ran."""
    def begin_measurement(self) -> None:
        """Opens a measurement window: the monitors count what they see until
        end_measurement()."""
    def end_measurement(self, iterations: int = -1) -> None: ...
    def log(self, level: _LogLevel, message: str) -> None:
        """Writes a line to the scenario's log: level is trace, debug, info, warning,
        error (or critical)."""
