"""compile_probe: a small model made to show what torch.compile does, and how benchhost
reports it: graph breaks, recompiles inside the timed samples, the caches' outcomes.

The model is three linear layers with ReLUs (seeded weights), written out one after
the other. Its compiled variant in compile mode torch-compile (--compile-modes
torch-compile: the run's default mode, default, is an AOTInductor package, which has
no graph breaks) is benchhost.torch.model_variant's torch.compile, whose counts
(unique_graphs, graph_breaks, compiles, recompiles) and cache outcomes are in each
scenario's report.

Parameters (--param KEY=VALUE):
  graph_breaks  how many deliberate graph breaks the forward has (default 0): each
                reads a tensor's value into Python (.item()), which TorchDynamo cannot
                trace, so the model runs as graph_breaks + 1 graphs
  sizes         the input widths the timed calls go through in turn, e.g. 64,96
                (default 64): a width the compile did not see is a new shape, compiled
                again inside the samples (see --param dynamic)
  change_at     the call of the timed function (counted from 0: warm-up, calibration
                and samples alike) that first takes the second width (default 0): the
                calls before it take the first, those from it on go through the widths
                in turn. With --cache cold (one call a sample) and W warm-up calls, the
                new shape's compile falls in sample change_at - W + 1: a recompile
                inside the timed samples, which the worker marks (--discard-recompiled
                drops it)
  dynamic       static, dynamic or automatic (default): torch.compile's dynamic=False,
                True or None (automatic: static first, dynamic from the first new shape);
                also an axis: --axis dynamic=static,dynamic,automatic with
                --param sizes=16,24,32 shows what each setting costs in compiles
  freezing      Inductor's freezing, 1 (the default, as benchhost.torch compiles) or 0:
                with it on the CPU both of Inductor's caches are bypassed (oneDNN weights
                cannot be pickled); without it a second compile of the same model is a
                hit in the FX graph cache
  hidden        the layers' width (default 256)
  seed          weight and input seed (default 0)
"""

import torch

from benchhost.torch import model_variant, select

BENCHHOST_PLUGIN = {
    "name": "compile_probe",
    "version": "1.0.0",
    # dynamic: an axis when the run gives it values (--axis dynamic=static,dynamic,automatic:
    # a scenario each), else --param dynamic or its default.
    "axes": ["variant", "batch_size", "dtype", "device", "threads", "compile_mode", "dynamic"],
    "variants": ["eager", "compiled"],
}


class Probe(torch.nn.Module):
    def __init__(self, hidden, graph_breaks):
        super().__init__()
        self.hidden = hidden
        self.graph_breaks = graph_breaks
        self.first = torch.nn.Linear(hidden, hidden)
        self.second = torch.nn.Linear(hidden, hidden)
        self.third = torch.nn.Linear(hidden, hidden)

    def forward(self, x):
        # Each graph break reads a Python float out of a tensor (.item()), which
        # TorchDynamo does not trace; each is a line of its own (TorchDynamo counts a
        # break once per line), and the layers are not a loop (a break inside a loop
        # makes TorchDynamo skip the whole frame). Any input width: padded or cut to the
        # layers' width.
        if x.shape[-1] < self.hidden:
            x = torch.nn.functional.pad(x, (0, self.hidden - x.shape[-1]))
        x = torch.relu(self.first(x[..., :self.hidden]))
        if self.graph_breaks >= 1:
            x = x * (1.0 + 0.0 * float(x[0, 0].item()))
        x = torch.relu(self.second(x))
        if self.graph_breaks >= 2:
            x = x * (1.0 + 0.0 * float(x[0, 0].item()))
        x = torch.relu(self.third(x))
        if self.graph_breaks >= 3:
            x = x * (1.0 + 0.0 * float(x[0, 0].item()))
        return x


def run_benchmark(ctx):
    config = ctx.config
    device, dtype = select(ctx)
    params = config.params
    graph_breaks = int(params.get("graph_breaks", "0"))
    if not 0 <= graph_breaks <= 3:
        raise ValueError(f"--param graph_breaks must be 0 to 3 (the model has 3 layers), got {graph_breaks}")
    hidden = int(params.get("hidden", "256"))
    sizes_param = params.get("sizes", "64")  # "64", or a list when given with commas
    sizes = [int(s) for s in (sizes_param if isinstance(sizes_param, list) else str(sizes_param).split(","))]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"--param sizes must be positive widths separated by commas, got '{params.get('sizes')}'")
    seed = int(params.get("seed", "0"))
    freezing_text = str(params.get("freezing", "1"))
    if freezing_text not in ("0", "1"):
        raise ValueError(f"--param freezing must be 1 or 0, got '{freezing_text}'")
    change_at = int(params.get("change_at", "0"))
    if change_at < 0:
        raise ValueError(f"--param change_at must be 0 or more (a call's number), got {change_at}")
    ctx.set_info("framework", f"PyTorch {torch.__version__} (Python)")
    ctx.set_info("model", "compile_probe")

    torch.manual_seed(seed)
    model = Probe(hidden, graph_breaks).eval().to(device, dtype)
    for p in model.parameters():
        p.requires_grad_(False)
    generator = torch.Generator().manual_seed(seed + 1)
    inputs = [torch.randn(config.batch_size, size, generator=generator).to(device, dtype) for size in sizes]
    with torch.inference_mode():
        forward = model_variant(ctx, model, (inputs[0],), freezing=freezing_text == "1")
        turn = [0]

        def call():
            x = inputs[0 if turn[0] < change_at else (turn[0] - change_at + 1) % len(inputs)]
            turn[0] += 1
            return forward(x)

        ctx.measure("latency", call)
