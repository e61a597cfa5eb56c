"""The stand-in of benchhost's compiled module, for Python run outside a worker.

In a worker, `import benchhost` gets the compiled module (sdk/python/src/module.cpp):
Python finds built-in modules before anything on sys.path. Everywhere else it gets this
package, whose Context, Config, Query, SkipScenario, cache_dir and benchmark have the
members of the compiled ones (__init__.pyi; ctest python_stub_members compares them) and
do what can be done without a worker:

  - measure(name, fn) calls fn() warmup_iterations times, then times
    measurement_iterations calls with Python's clock: no stopping rule (--min-time,
    --max-time, --target-ci-width), no cold caches, no CUDA events (on a cuda device,
    torch.cuda.synchronize() after each call when torch is imported, as --timer host);
  - serve, serve_batches and serve_steps serve warmup + measurement queries one after
    another, without the load generator: no --load, no queueing, one query a batch;
  - begin_measurement and end_measurement check their order; no monitor watches;
  - record_bandwidth knows no GPU's peak; log prints the line.

What it cannot do as a worker would is said in the Context's notes, which
`python -m benchhost.check` prints with what the benchmark recorded.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Mapping, NoReturn, Sequence, TextIO, TypeVar

_T = TypeVar("_T")

# What spdlog's level::from_str knows; any other text logs nothing in a worker.
LOG_LEVELS = ("trace", "debug", "info", "warning", "warn", "error", "err", "critical")


class SkipScenario(BaseException):
    """Raised by Context.skip: the scenario ends as skipped, with the reason. A
    BaseException, so that `except Exception` does not swallow it."""


def _clock_ns() -> int:
    """Now on the clock that times the samples, in ns (time.monotonic_ns: the steady
    clock a worker's C++ timer reads too)."""
    return time.monotonic_ns()


def cache_dir() -> str | None:
    """benchhost's cache folder, kept between runs ($BENCHHOST_CACHE_DIR, else
    $XDG_CACHE_HOME/benchhost, else ~/.cache/benchhost; not created), or None when none of
    them is an absolute path."""
    own = os.environ.get("BENCHHOST_CACHE_DIR", "")
    if own.startswith("/"):
        return own
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, "benchhost")
    home = os.environ.get("HOME", "")
    if home.startswith("/"):
        return os.path.join(home, ".cache", "benchhost")
    return None


_F = TypeVar("_F", bound=Callable[..., Any])


def benchmark(*, axes: Sequence[str] | Mapping[str, Sequence[int | float | str] | int | float | str] | None = None,
              variants: Sequence[str] | str | None = None, distributed: bool = False) -> Callable[[_F], _F]:
    """@benchhost.benchmark(axes=..., variants=..., distributed=...): a benchmark
    function's own axes and variants, and whether it is distributed (it varies over
    world_size), which the host (and python -m benchhost.check) read from the file without
    running it. Returns the function unchanged, as a worker's does."""

    def declare(function: _F) -> _F:
        return function

    return declare


def param_values(text: str) -> str | list[str]:
    """A --param value as the host passes it: split at commas, one value a string."""
    values = text.split(",")
    return values[0] if len(values) == 1 else values


class Config:
    """The scenario's settings (read-only); the host's defaults, but for the iterations
    (1 warmup, 3 measured)."""

    def __init__(self, *, category: str = "performance", plugin: str = "", benchmark: str = "",
                 scenario_name: str = "", variant: str = "eager", compile_mode: str = "default",
                 batch_size: int = 1, dtype: str = "float32", device: str = "cpu", timer: str = "auto",
                 cache: str = "warm", threads: int = 0, warmup_iterations: int = 1, measurement_iterations: int = 3,
                 num_tokens_to_generate: int = 20, model_id: str = "",
                 params: dict[str, str | list[str]] | None = None, world_size: int = 0,
                 compile_cache: str = "warm", discard_recompiled: bool = False) -> None:
        self._category, self._plugin, self._benchmark = category, plugin, benchmark
        self._scenario_name = scenario_name or benchmark
        self._variant, self._compile_mode, self._batch_size = variant, compile_mode, batch_size
        self._dtype, self._device, self._timer, self._cache = dtype, device, timer, cache
        self._threads, self._warmup, self._measurement = threads, warmup_iterations, measurement_iterations
        self._tokens, self._model_id = num_tokens_to_generate, model_id
        self._params = dict(params or {})
        self._world_size = world_size
        self._compile_cache, self._discard_recompiled = compile_cache, discard_recompiled

    @property
    def category(self) -> str:
        return self._category

    @property
    def plugin(self) -> str:
        return self._plugin

    @property
    def benchmark(self) -> str:
        return self._benchmark

    @property
    def scenario_name(self) -> str:
        return self._scenario_name

    @property
    def variant(self) -> str:
        return self._variant

    @property
    def compile_mode(self) -> str:
        return self._compile_mode

    @property
    def batch_size(self) -> int:
        return self._batch_size

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def device(self) -> str:
        return self._device

    @property
    def timer(self) -> str:
        return self._timer

    @property
    def cache(self) -> str:
        return self._cache

    @property
    def compile_cache(self) -> str:
        return self._compile_cache

    @property
    def discard_recompiled(self) -> bool:
        return self._discard_recompiled

    @property
    def threads(self) -> int:
        return self._threads

    @property
    def world_size(self) -> int:
        return self._world_size

    @property
    def warmup_iterations(self) -> int:
        return self._warmup

    @property
    def measurement_iterations(self) -> int:
        return self._measurement

    @property
    def num_tokens_to_generate(self) -> int:
        return self._tokens

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def params(self) -> dict[str, Any]:
        """name -> a string, or a list of strings; a new dict at each access."""
        return {key: list(value) if isinstance(value, list) else value for key, value in self._params.items()}

    @property
    def axes(self) -> dict[str, Any]:
        return {"variant": self._variant, "compile_mode": self._compile_mode, "batch_size": self._batch_size,
                "dtype": self._dtype, "device": self._device}

    def _scenario_id(self) -> str:
        return f"{self._category}/{self._plugin}/{self._scenario_name}"

    def __repr__(self) -> str:
        return f"<benchhost.Config {self._scenario_id()} (stand-in)>"


class Query:
    """One query being served (the stand-in serves them one at a time)."""

    def __init__(self, index: int, slot: int = 0, samples: int = 1) -> None:
        self._index, self._slot, self._samples = index, slot, samples
        self._steps = 0
        self._finished = False
        self._token_times: list[float] = []

    @property
    def index(self) -> int:
        return self._index

    @property
    def samples(self) -> int:
        return self._samples

    @property
    def slot(self) -> int:
        return self._slot

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def tokens(self) -> int:
        return len(self._token_times)

    @property
    def finished(self) -> bool:
        return self._finished

    def token(self) -> None:
        self._token_times.append(time.perf_counter())

    def finish(self) -> None:
        self._finished = True

    def __repr__(self) -> str:
        return f"<benchhost.Query {self._index} (stand-in)>"


class Recorded:
    """What a benchmark recorded through a stand-in Context, in the order it came."""

    def __init__(self) -> None:
        self.series: dict[str, tuple[str, list[float]]] = {}  # name -> (unit, samples)
        self.scalars: dict[str, tuple[float, str]] = {}  # name -> (value, unit)
        self.info: dict[str, str] = {}
        self.warnings: list[str] = []
        self.notes: list[str] = []  # what the stand-in did not do as a worker would
        self.compiles: list[tuple[int, int, str]] = []  # record_compile's (start_ns, end_ns, what)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


# Steps a serve_steps query may take before the stand-in gives up on its finishing.
MAX_STEPS = 100_000


class Context:
    """A stand-in for the Context a worker hands a benchmark: the same members, recording
    into `_recorded` (benchhost._standin.Recorded); see this module's docstring for what
    it does differently."""

    def __init__(self, config: Config | None = None, out: TextIO | None = None) -> None:
        self._config = config if config is not None else Config()
        self._out = out
        self._recorded = Recorded()
        self._served = False
        self._window_open = False

    # The scenario's settings.
    @property
    def config(self) -> Config:
        return self._config

    # Timing.
    def _synchronizer(self) -> Callable[[], None]:
        device = self._config.device
        if not device.startswith("cuda"):
            return lambda: None
        torch = sys.modules.get("torch")
        if torch is None:
            self._recorded.note(f"measure on {device}: torch is not imported, so the device's work is not waited "
                                "for; a worker times it with CUDA events")
            return lambda: None
        self._recorded.note(f"measure on {device}: the host's clock and torch.cuda.synchronize() after each call "
                            "(as --timer host); a worker times it with CUDA events")
        index = int(device[5:]) if device.startswith("cuda:") else None
        synchronize: Callable[[Any], None] = torch.cuda.synchronize
        return lambda: synchronize(index)

    def measure(self, name: str, fn: Callable[[], object]) -> list[float]:
        config = self._config
        synchronize = self._synchronizer()
        for _ in range(config.warmup_iterations):
            fn()
            synchronize()
        samples = []
        before_sample = None
        if config.world_size > 0:  # as a worker's: the ranks meet before each sample
            import benchhost.distributed as ranks
            ranks.process_group(self)
            before_sample = ranks._before_sample
        for _ in range(config.measurement_iterations):
            if before_sample is not None:
                before_sample()
            start = time.perf_counter_ns()
            fn()
            synchronize()
            samples.append((time.perf_counter_ns() - start) / 1e6)
        self.record_series(name, samples, "ms")
        self._recorded.note(f"measure: {config.warmup_iterations} warmup and {config.measurement_iterations} timed "
                            "calls by Python's clock; a worker's stopping rule (--min-time, --max-time, "
                            "--target-ci-width), --cache cold and monitors are not there")
        return samples

    def _timed_call(self, fn: Callable[[], _T], /) -> tuple[float, _T]:
        start = time.perf_counter_ns()
        result = fn()
        return (time.perf_counter_ns() - start) / 1e6, result

    def _figures(self) -> list[str]:
        """Names of the figures recorded so far: series with samples, scalars."""
        recorded = self._recorded
        return [name for name, (_, samples) in recorded.series.items() if samples] + list(recorded.scalars)

    def _info(self) -> dict[str, str]:
        """The text facts recorded so far (set_info), key -> value."""
        return dict(self._recorded.info)

    # Recording.
    def _series_named(self, name: str, unit: str) -> list[float]:
        found = self._recorded.series.get(name)
        if found is None:
            samples: list[float] = []
            self._recorded.series[name] = (unit, samples)
            return samples
        if found[0] != unit:
            raise ValueError(f"series '{name}' is recorded in '{found[0]}', cannot add samples in '{unit}'")
        return found[1]

    def add_sample(self, name: str, value: float, unit: str = "") -> None:
        self._series_named(name, unit).append(float(value))

    def record_series(self, name: str, samples: Sequence[float], unit: str = "") -> None:
        if not name:
            raise ValueError("a series needs a name")
        values = [float(v) for v in samples]
        self._series_named(name, unit).extend(values)

    def record_throughput(self, name: str, latency_ms: Sequence[float], items_per_call: float, unit: str) -> None:
        rates = [items_per_call / (ms / 1000.0) if ms > 0 else 0.0 for ms in (float(v) for v in latency_ms)]
        self.record_series(name, rates, unit)

    def record_bandwidth(self, name: str, latency_ms: Sequence[float], bytes_per_call: float,
                         device: int = -1) -> None:
        self.record_throughput(name, latency_ms, bytes_per_call / 1e9, "GB/s")
        if self._config.device.startswith("cuda"):
            self.set_info("peak_memory_bandwidth", "unknown: the stand-in Context knows no GPU's peak")
            self._recorded.note(f"record_bandwidth: no peak_memory_bandwidth nor fraction_of_peak_{name} outside "
                                "a worker")

    def record_scalar(self, name: str, value: float, unit: str = "") -> None:
        self._recorded.scalars[name] = (float(value), unit)

    def set_info(self, key: str, value: str) -> None:
        self._recorded.info[key] = str(value)

    def add_warning(self, warning: str) -> None:
        self._recorded.warnings.append(str(warning))

    def record_compile(self, start_ns: int, end_ns: int, what: str) -> None:
        self._recorded.compiles.append((int(start_ns), int(end_ns), str(what)))
        self._recorded.note("record_compile: a worker marks the timed samples a compile ran in (and drops them "
                            "with --discard-recompiled); the stand-in only keeps the compiles")

    def skip(self, reason: str) -> NoReturn:
        raise SkipScenario(reason)

    # Serving, one query at a time.
    def _start_serving(self, method: str) -> int:
        if self._served:
            raise RuntimeError(f"Context::{method}: a scenario serves once")
        self._served = True
        config = self._config
        self._recorded.note(f"{method}: {config.warmup_iterations} warmup and {config.measurement_iterations} "
                            "measured queries one after another, one a batch, without the load generator (no "
                            "--load, no queueing): latency is the handler's time")
        return config.warmup_iterations + config.measurement_iterations

    def _record_query(self, query: Query, start: float, stop: float) -> None:
        if query.index < self._config.warmup_iterations:
            return
        self.add_sample("latency", (stop - start) * 1e3, "ms")
        times = query._token_times
        if times:
            self.add_sample("time_to_first_token", (times[0] - start) * 1e3, "ms")
        if len(times) > 1:
            self.add_sample("time_per_output_token", (times[-1] - times[0]) * 1e3 / (len(times) - 1), "ms")

    def serve(self, handler: Callable[[Query], object]) -> None:
        for index in range(self._start_serving("serve")):
            query = Query(index)
            start = time.perf_counter()
            handler(query)
            self._record_query(query, start, time.perf_counter())

    def serve_batches(self, handler: Callable[[list[Query]], object]) -> None:
        for index in range(self._start_serving("serve_batches")):
            query = Query(index)
            start = time.perf_counter()
            handler([query])
            self._record_query(query, start, time.perf_counter())

    def serve_steps(self, handler: Callable[[list[Query]], object]) -> None:
        for index in range(self._start_serving("serve_steps")):
            query = Query(index)
            start = time.perf_counter()
            while not query.finished:
                if query.steps >= MAX_STEPS:
                    raise RuntimeError(f"serve_steps: query {index} did not finish in {MAX_STEPS} steps (a step "
                                       "handler calls query.finish() when the query is complete)")
                handler([query])
                if not query.finished:
                    query._steps += 1
            self._record_query(query, start, time.perf_counter())

    @property
    def served(self) -> bool:
        return self._served

    # Measurement windows.
    def begin_measurement(self) -> None:
        if self._window_open:
            raise RuntimeError("begin_measurement: a measurement window is already open")
        self._window_open = True
        self._recorded.note("begin_measurement/end_measurement: no monitors outside a worker")

    def end_measurement(self, iterations: int = -1) -> None:
        if not self._window_open:
            raise RuntimeError("end_measurement: no measurement window is open")
        self._window_open = False

    def log(self, level: str, message: str) -> None:
        if level not in LOG_LEVELS:
            self._recorded.note(f"log: level '{level}' is not one a worker knows ({', '.join(LOG_LEVELS)}): there it "
                                "would log nothing")
        out = self._out if self._out is not None else sys.stdout
        lines = str(message).splitlines() or [""]
        print("\n".join([f"  log [{level}] {lines[0]}"] + ["    " + line for line in lines[1:]]), file=out, flush=True)

    def __repr__(self) -> str:
        return f"<benchhost.Context {self._config._scenario_id()} (stand-in)>"
