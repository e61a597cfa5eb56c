"""collectives: the collectives of torch.distributed timed across ranks, as nccl-tests
times NCCL's: latency, algorithm bandwidth and bus bandwidth per message size.

Each benchmark is one collective and distributed (@benchhost.benchmark(distributed=True)):
its scenarios run at each world size (--world-sizes; 2 ranks when the run gives none),
one process a rank, with the process group benchhost.distributed makes (gloo on the CPU,
NCCL on CUDA). For each message size it checks the collective's result once before the
timed calls and once after them (a wrong result fails the scenario, saying which rank,
size and element), then times it with ctx.measure, which meets the ranks at a barrier
before each sample, outside the timed region. The host keeps each rank's samples and
takes the slowest rank's, sample by sample.

A message size S is what nccl-tests calls the size: the bytes of each rank's whole
buffer (float32 elements, S / 4 rounded down to a multiple of the world size, at least
one per rank):
  all_reduce      S in, S out (in place, sum)
  all_gather      each rank gives S / n, gets S
  reduce_scatter  each rank gives S, gets its S / n of the sum
  broadcast       S from rank 0 to every rank
  all_to_all      each rank sends S / n to each rank, gets S
Algorithm bandwidth is S / latency; bus bandwidth is the algorithm bandwidth times
nccl-tests' factor (bus_bandwidth_factor): 2(n-1)/n for all_reduce, (n-1)/n for
all_gather, reduce_scatter and all_to_all, 1 for broadcast. Series per size, named by
the size ("1MiB"): latency.<size> (ms), algbw.<size> and busbw.<size> (GB/s), and the
scalar bytes.<size> (the bytes actually moved).

Where a backend lacks a collective (gloo's reduce_scatter in some PyTorch builds), the
scenario is skipped, with PyTorch's words.

Parameters (--param KEY=VALUE):
  collective  the collectives to run, comma-separated (default: all five); the others'
              scenarios are skipped
  sizes       message sizes in bytes, comma-separated (default 8,65536,1048576), or
              "all": 8 B, then the powers of 4 from 16 B to 256 MiB (14 sizes)
"""

import benchhost
import benchhost.distributed as bd

BENCHHOST_PLUGIN = {"name": "collectives", "version": "1.0.0"}

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all")
DEFAULT_SIZES = (8, 65536, 1048576)
ALL_SIZES = (8,) + tuple(4 ** k for k in range(2, 15))  # 8 B, 16 B ... 256 MiB
ELEMENT_BYTES = 4  # float32


def bus_bandwidth_factor(collective, ranks):
    """nccl-tests' factor from algorithm bandwidth to bus bandwidth, for `ranks` ranks
    (doc/PERFORMANCE.md of nccl-tests): what each rank's link carries, relative to the
    data size, in the algorithm that is optimal for that collective."""
    n = ranks
    if collective == "all_reduce":
        return 2 * (n - 1) / n
    if collective in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    if collective == "broadcast":
        return 1.0
    raise ValueError(f"unknown collective {collective!r} (known: {', '.join(COLLECTIVES)})")


def size_label(size):
    """8 -> "8B", 65536 -> "64KiB", 1048576 -> "1MiB"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return f"{size}B"


def selected_sizes(params):
    """The message sizes --param sizes asks for, in bytes."""
    given = params.get("sizes")
    if given is None:
        return list(DEFAULT_SIZES)
    items = given if isinstance(given, list) else [given]
    if items == ["all"]:
        return list(ALL_SIZES)
    sizes = []
    for item in items:
        try:
            size = int(item)
        except ValueError:
            raise ValueError(f"--param sizes: '{item}' is not a number of bytes (or 'all')") from None
        if size < 1:
            raise ValueError(f"--param sizes: {size} is not a positive number of bytes")
        sizes.append(size)
    return sizes


def selected(collective, params):
    """Whether --param collective leaves `collective` in; ValueError for a name it does not know."""
    given = params.get("collective")
    if given is None:
        return True
    names = given if isinstance(given, list) else [given]
    for name in names:
        if name not in COLLECTIVES:
            raise ValueError(f"--param collective: unknown collective {name!r} (known: {', '.join(COLLECTIVES)})")
    return collective in names


def unsupported(error):
    """Whether `error` says that the backend lacks the collective (rather than that it failed)."""
    text = str(error).lower()
    return isinstance(error, NotImplementedError) or any(
        words in text for words in ("not support", "unsupported", "not implement"))


class Collective:
    """One collective at one size on this rank: its buffers, a call, and its check."""

    def __init__(self, name, size, ranks, rank, device):
        import torch
        import torch.distributed as dist
        self.name, self.ranks, self.rank = name, ranks, rank
        elements = max(size // ELEMENT_BYTES // ranks, 1) * ranks
        self.bytes = elements * ELEMENT_BYTES
        chunk = elements // ranks
        self.dist, self.torch = dist, torch
        options = {"dtype": torch.float32, "device": device}
        if name == "all_reduce":
            self.buffer = torch.zeros(elements, **options)
            self.call = lambda: dist.all_reduce(self.buffer)
        elif name == "all_gather":
            self.input = torch.zeros(chunk, **options)
            self.outputs = [torch.zeros(chunk, **options) for _ in range(ranks)]
            self.call = lambda: dist.all_gather(self.outputs, self.input)
        elif name == "reduce_scatter":
            self.input = torch.zeros(elements, **options)
            self.output = torch.zeros(chunk, **options)
            # reduce_scatter_single where PyTorch has it (reduce_scatter_tensor's new name).
            reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
            self.call = lambda: reduce_scatter(self.output, self.input)
        elif name == "broadcast":
            self.buffer = torch.zeros(elements, **options)
            self.call = lambda: dist.broadcast(self.buffer, src=0)
        elif name == "all_to_all":
            self.input = torch.zeros(elements, **options)
            self.output = torch.zeros(elements, **options)
            self.call = lambda: dist.all_to_all_single(self.output, self.input)
        else:
            raise ValueError(f"unknown collective {name!r}")
        self.chunk, self.elements = chunk, elements

    def checked_call(self):
        """Fills the inputs with known values, runs the collective once, and raises
        ValueError when a rank's result is not what the collective must give."""
        torch, n, r = self.torch, self.ranks, self.rank
        if self.name == "all_reduce":
            self.buffer.fill_(r + 1)
            self.call()
            self.expect(self.buffer, torch.full_like(self.buffer, n * (n + 1) / 2))
            self.buffer.zero_()  # timed calls add zeros: the values never grow
        elif self.name == "all_gather":
            self.input.fill_(r + 1)
            for output in self.outputs:
                output.zero_()
            self.call()
            for j, output in enumerate(self.outputs):
                self.expect(output, torch.full_like(output, j + 1), f"rank {j}'s part")
        elif self.name == "reduce_scatter":
            # Small whole numbers, which float32 sums exactly at any size.
            self.input.copy_(torch.arange(self.elements) % 1024 + r)
            self.output.zero_()
            self.call()
            base = torch.arange(r * self.chunk, (r + 1) * self.chunk) % 1024
            self.expect(self.output, (base * n + n * (n - 1) // 2).to(torch.float32))
        elif self.name == "broadcast":
            self.buffer.fill_(7.0 if r == 0 else -1.0)
            self.call()
            self.expect(self.buffer, torch.full_like(self.buffer, 7.0))
        elif self.name == "all_to_all":
            # Rank r's chunk j holds r * n + j; after the exchange its chunk j holds j * n + r.
            self.input.copy_(torch.arange(n, dtype=torch.float32).repeat_interleave(self.chunk) + r * n)
            self.output.zero_()
            self.call()
            expected = torch.arange(n, dtype=torch.float32).repeat_interleave(self.chunk) * n + r
            self.expect(self.output, expected)

    def expect(self, got, want, what="the result"):
        want = want.to(got.device)
        if not self.torch.equal(got, want):
            wrong = (got != want).nonzero()[0].item()
            raise ValueError(f"{self.name} of {self.bytes} bytes on rank {self.rank} of {self.ranks}: {what} is wrong "
                             f"at element {wrong}: {got[wrong].item()}, expected {want[wrong].item()}")


def time_collective(ctx, name):
    params = ctx.config.params
    if not selected(name, params):
        given = params["collective"]
        ctx.skip(f"--param collective={','.join(given) if isinstance(given, list) else given} leaves out {name}")
    sizes = selected_sizes(params)
    bd.process_group(ctx)
    import torch.distributed as dist
    ranks, rank = bd.world_size(), bd.rank()
    device = bd.device(ctx)
    ctx.set_info("backend", dist.get_backend())
    ctx.set_info("collective", name)
    factor = bus_bandwidth_factor(name, ranks)
    for size in sizes:
        collective = Collective(name, size, ranks, rank, device)
        try:
            collective.checked_call()
        except (RuntimeError, NotImplementedError) as error:
            if unsupported(error):
                text = str(error).strip()
                ctx.skip(f"{name} on {dist.get_backend()}: {text.splitlines()[0] if text else type(error).__name__}")
            raise
        label = size_label(size)
        latency = ctx.measure(f"latency.{label}", collective.call)
        collective.checked_call()  # still right after the timed calls
        algbw = [collective.bytes / (ms / 1e3) / 1e9 if ms > 0 else float("nan") for ms in latency]
        ctx.record_series(f"algbw.{label}", algbw, "GB/s")
        ctx.record_series(f"busbw.{label}", [value * factor for value in algbw], "GB/s")
        ctx.record_scalar(f"bytes.{label}", collective.bytes, "B")


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_all_reduce(ctx):
    time_collective(ctx, "all_reduce")


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_all_gather(ctx):
    time_collective(ctx, "all_gather")


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_reduce_scatter(ctx):
    time_collective(ctx, "reduce_scatter")


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_broadcast(ctx):
    time_collective(ctx, "broadcast")


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_all_to_all(ctx):
    time_collective(ctx, "all_to_all")
