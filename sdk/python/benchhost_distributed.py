"""benchhost.distributed: the ranks of a distributed scenario, for Python plugins.

A benchmark declared with @benchhost.benchmark(distributed=True) varies over the
world_size axis (--world-sizes, YAML world_sizes; the values it declares with
axes={"world_size": [...]} where the run gives none). The host runs each of its
scenarios as world_size worker processes, one a rank, with torchrun's environment:

  RANK, LOCAL_RANK, GROUP_RANK (0), ROLE_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
  ROLE_WORLD_SIZE, MASTER_ADDR (127.0.0.1), MASTER_PORT (a free port),
  OMP_NUM_THREADS (the cores of the rank's share, unless the user set it)

so that code written for torchrun runs unchanged (torch.distributed.init_process_group
with its env:// default). This module gives the same, ready:

  rank(), local_rank(), world_size(), local_world_size(): from that environment (0, 0,
      1, 1 outside a distributed scenario);
  backend(device): "nccl" for a CUDA device, else "gloo";
  device(ctx): the rank's torch.device: cuda:LOCAL_RANK on CUDA, else the CPU;
  process_group(ctx): torch.distributed's default group, initialized at the first call
      (backend(config.device); on CUDA the rank's GPU made current first), or the one the
      plugin initialized itself;
  barrier(): every rank meets (on NCCL, on the rank's GPU).

ctx.measure in a distributed scenario calls _before_sample() before each sample, outside
the timed region: a barrier, so that sample i of every rank times the same step. The host
keeps every rank's samples (series <name>.rank<N>) and records, sample by sample, the
slowest rank's as the series itself; it names a rank whose median is slower than the
others' beyond the interval (a straggler). Each rank also writes how far it got
(_progress) into the file the host names in BENCHHOST_RANK_PROGRESS: when a scenario
times out, the host names the rank that was behind the others.

Outside a worker (python -m benchhost.check) the same file runs at world size 1.
"""

import os
from typing import Any, Optional

# How far a rank got, in the order of a scenario (the host reads the number, and says
# the text): a rank's progress file holds "<number> <text>".
_STARTED, _RENDEZVOUS, _READY = 1, 2, 3
_FINISHED = 1_000_000_000

_progress_fd: Optional[int] = None
_samples = 0
_initialized_here = False


def _environment_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, str(default)))
    except ValueError:
        return default


def rank() -> int:
    """This process's rank, 0 to world_size() - 1 (RANK; 0 outside a distributed scenario)."""
    return _environment_int("RANK", 0)


def local_rank() -> int:
    """Its rank on this machine (LOCAL_RANK), which picks its GPU on CUDA."""
    return _environment_int("LOCAL_RANK", 0)


def world_size() -> int:
    """How many ranks the scenario has (WORLD_SIZE; 1 outside a distributed scenario)."""
    return _environment_int("WORLD_SIZE", 1)


def local_world_size() -> int:
    """How many of them run on this machine (LOCAL_WORLD_SIZE)."""
    return _environment_int("LOCAL_WORLD_SIZE", 1)


def backend(device: object = "cpu") -> str:
    """The process group's backend for `device`: NCCL on CUDA, else gloo."""
    return "nccl" if str(device).startswith("cuda") else "gloo"


def device(ctx: Any = None) -> Any:
    """The rank's torch.device: cuda:LOCAL_RANK when the scenario's device is CUDA, else
    the CPU."""
    import torch
    name = ctx.config.device if ctx is not None else "cpu"
    if name.startswith("cuda"):
        return torch.device("cuda", local_rank())
    return torch.device("cpu")


def _progress(number: int, text: str) -> None:
    """Writes how far this rank got into its progress file, when the host gave one; a
    failure to write is no failure of the benchmark."""
    global _progress_fd
    path = os.environ.get("BENCHHOST_RANK_PROGRESS")
    if not path:
        return
    try:
        fd = _progress_fd
        if fd is None:
            fd = _progress_fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        line = f"{number} {text}\n".encode()[:250].ljust(256, b" ")
        os.pwrite(fd, line, 0)
    except OSError:
        pass


def process_group(ctx: Any = None) -> Any:
    """torch.distributed's default process group (group.WORLD), initialized at the first
    call from the environment the host gave the rank (env://): gloo on the CPU, NCCL on
    CUDA, with the rank's GPU (cuda:LOCAL_RANK) made current first. A group the plugin
    initialized itself is used as it is."""
    global _initialized_here
    import torch.distributed as dist
    if not dist.is_available():
        raise RuntimeError("torch.distributed is not available in this build of PyTorch")
    if not dist.is_initialized():
        name = ctx.config.device if ctx is not None else "cpu"
        chosen = backend(name)
        options: dict[str, Any] = {"backend": chosen, "init_method": "env://", "rank": rank(),
                                   "world_size": world_size()}
        if chosen == "nccl":
            import torch
            torch.cuda.set_device(local_rank())
            options["device_id"] = torch.device("cuda", local_rank())
        _progress(_RENDEZVOUS, "in the process group's rendezvous (init_process_group)")
        try:
            dist.init_process_group(**options)
        except TypeError:  # a PyTorch without device_id
            options.pop("device_id", None)
            dist.init_process_group(**options)
        _initialized_here = True
        _progress(_READY, f"the process group ({chosen}) was ready")
    return dist.group.WORLD


def barrier() -> None:
    """Every rank meets here (torch.distributed.barrier of the default group; on NCCL, on
    the rank's GPU)."""
    import torch.distributed as dist
    group = process_group()
    if dist.get_backend(group) == "nccl":
        dist.barrier(device_ids=[local_rank()])
    else:
        dist.barrier()


def _before_sample() -> None:
    """What ctx.measure does before each sample of a distributed scenario, outside the
    timed region: says so in the progress file, and waits at a barrier for every rank."""
    global _samples
    _samples += 1
    _progress(_READY + 2 * _samples - 1, f"waiting at sample {_samples}'s barrier")
    barrier()
    _progress(_READY + 2 * _samples, f"timing sample {_samples} (past its barrier)")


def _started() -> None:
    """The worker's code calls it as a distributed benchmark starts."""
    global _samples
    _samples = 0
    _progress(_STARTED, "running the benchmark (before its process group's rendezvous)")


def _finished(succeeded: bool) -> None:
    """The worker's code calls it as a distributed benchmark ends: says so, and, when it
    succeeded, takes down the process group this module made (a rank that failed leaves
    it to the process's end, so that the others learn of it from the host)."""
    global _initialized_here
    _progress(_FINISHED, "done with the benchmark" if succeeded else "done with the benchmark, which raised an error")
    if not succeeded or not _initialized_here:
        return
    import sys
    dist = sys.modules.get("torch.distributed")
    if dist is not None and dist.is_initialized():
        try:
            dist.destroy_process_group()
        except Exception:  # the process ends next: nothing is left to free
            pass
    _initialized_here = False
