"""Benchmarking the benchmark: benchhost's ctx.measure against Google Benchmark.

Run by scripts/compare_gbench (see its header for the options). Both tools time the
same four workloads (tools/gbench_peer/calibrated_work.hpp: empty, and dependent
xorshift chains of about 20 ns, 1 us and 1 ms), in alternating rounds of one run: odd
rounds run Google Benchmark first, even rounds benchhost first. Each round gives one
median per tool and workload:

- Google Benchmark: `--benchmark_repetitions=N`; the median of the N repetitions'
  real_time (each repetition's mean time per iteration, converted from its time_unit
  to ns), and the same of their cpu_time;
- benchhost: `--measurement-iterations N`; the series' `median` in the plugin report
  (ms per call, converted to ns).

Printed: per workload the median over the rounds of each tool's round medians, their
ratios (benchhost / Google Benchmark's real time, and / its CPU time), the range of
the per-round ratios, and each tool's run-to-run spread: the coefficient of variation
of its round medians. Then the three claims, each PASS or FAIL: the medians and the
overhead judged against both of Google Benchmark's figures (its real time counts the
time its process was preempted, its CPU time does not: a claim that holds against
only one is not established), the spread against its real time, which is wall-clock
time as ours is (its CPU-time spread is printed beside it); exit status 1 when one
fails.

With --from DIR, nothing runs: the rounds kept in DIR by an earlier --keep DIR are
read again.

Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOADS = ["empty", "work_20ns", "work_1us", "work_1ms"]
TIMED = ["work_20ns", "work_1us", "work_1ms"]  # the workloads whose medians must agree
MEDIAN_TOLERANCE = 0.02
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_gbench(exe: str, samples: int, min_time: str, out_json: str) -> dict:
    """One Google Benchmark run: per workload, the median real and CPU time in ns."""
    cmd = [exe, "--benchmark_format=json", f"--benchmark_repetitions={samples}",
           f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    if min_time:
        cmd.append(f"--benchmark_min_time={min_time}")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return read_gbench(out_json, samples)


def read_gbench(out_json: str, samples: int) -> dict:
    with open(out_json, encoding="utf-8") as f:
        report = json.load(f)
    real: dict[str, list[float]] = {w: [] for w in WORKLOADS}
    cpu: dict[str, list[float]] = {w: [] for w in WORKLOADS}
    iterations: dict[str, int] = {}
    for entry in report["benchmarks"]:
        if entry.get("run_type") != "iteration" or entry["name"] not in real:
            continue
        scale = UNIT_NS[entry["time_unit"]]
        real[entry["name"]].append(entry["real_time"] * scale)
        cpu[entry["name"]].append(entry["cpu_time"] * scale)
        iterations[entry["name"]] = int(entry["iterations"])
    result = {}
    for w in WORKLOADS:
        if len(real[w]) != samples:
            raise SystemExit(f"compare_gbench: {out_json}: {len(real[w])} repetitions of {w}, expected {samples}")
        result[w] = {"median": statistics.median(real[w]), "cpu_median": statistics.median(cpu[w]),
                     "per_sample": iterations[w], "samples": len(real[w])}
    return result


def run_benchhost(exe: str, plugins_dir: str, samples: int, monitor_interval: str, extra: list[str],
                  out_dir: str) -> dict:
    """One benchhost run of the peer plugin: per workload, the median in ns."""
    cmd = [exe, "run", "--plugins-dir", plugins_dir, "--output-dir", out_dir,
           "--measurement-iterations", str(samples), "--log-level", "error", "--quiet"]
    if monitor_interval:
        cmd += ["--monitor-interval", monitor_interval]
    cmd += extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return read_benchhost(out_dir, samples)


def read_benchhost(out_dir: str, samples: int | None = None) -> dict:
    reports = glob.glob(os.path.join(out_dir, "gbench_peer_plugin", "gbench_peer_plugin_*.json"))
    if len(reports) != 1:
        raise SystemExit(f"compare_gbench: expected one report of gbench_peer_plugin in {out_dir}, found {reports}")
    with open(reports[0], encoding="utf-8") as f:
        report = json.load(f)
    result = {}
    for scenario in report["benchmark_scenarios"]:
        name = scenario["scenario_name"]
        if scenario["status"] != "success":
            raise SystemExit(f"compare_gbench: {reports[0]}: {name} ended {scenario['status']}: {scenario.get('reason')}")
        series = scenario["measurements"][name]
        if series["unit"] != "ms":
            raise SystemExit(f"compare_gbench: {reports[0]}: {name} is in {series['unit']}, expected ms")
        result[name] = {"median": series["median"] * 1e6, "per_sample": int(series.get("inner_iterations", 1)),
                        "samples": int(series["count"])}
    missing = [w for w in WORKLOADS if w not in result]
    if missing:
        raise SystemExit(f"compare_gbench: {reports[0]}: no scenario for {', '.join(missing)}")
    if samples is not None:
        for w in WORKLOADS:
            if result[w]["samples"] < samples:
                log(f"compare_gbench: warning: {reports[0]}: {w} has {result[w]['samples']} samples, "
                    f"--measurement-iterations was {samples}")
    return result


def cv(values: list[float]) -> float:
    """Coefficient of variation (sample standard deviation / mean)."""
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else math.nan


def cv_ratio_interval(ours: list[float], theirs: list[float], resamples: int = 4000) -> tuple[float, float]:
    """95% interval of cv(ours) / cv(theirs) by a paired bootstrap over the rounds (both
    tools' medians of a round are drawn together, as they ran side by side)."""
    rng = random.Random(1)
    n = len(ours)
    ratios = []
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        theirs_cv = cv([theirs[i] for i in picks])
        if theirs_cv > 0:
            ratios.append(cv([ours[i] for i in picks]) / theirs_cv)
    if not ratios:
        return math.nan, math.nan
    ratios.sort()
    return ratios[int(0.025 * len(ratios))], ratios[min(len(ratios) - 1, int(0.975 * len(ratios)))]


def fmt_ns(ns: float) -> str:
    for unit, scale in (("ms", 1e6), ("us", 1e3), ("ns", 1.0)):
        if abs(ns) >= scale or unit == "ns":
            value = ns / scale
            return f"{value:.4g} {unit}" if value >= 100 else f"{value:.3g} {unit}"
    return f"{ns} ns"


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gbench", help="the gbench_peer executable")
    parser.add_argument("--benchhost", help="the benchhost executable")
    parser.add_argument("--plugins-dir", help="the folder holding unit/libgbench_peer_plugin.so")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--benchhost-samples", type=int, default=0, help="benchhost's samples, if not --samples")
    parser.add_argument("--min-time", default="0.25", help="--benchmark_min_time, s ('': Google Benchmark's, 0.5)")
    parser.add_argument("--monitor-interval", default="", help="benchhost's --monitor-interval (default: its own, 50)")
    parser.add_argument("--benchhost-args", default="", help="more options of benchhost run, e.g. '--min-time 1'")
    parser.add_argument("--keep", default="", help="keep every round's raw output in this folder")
    parser.add_argument("--from", dest="from_dir", default="", help="read the rounds kept in this folder, run nothing")
    args = parser.parse_args()

    if args.from_dir:
        with open(os.path.join(args.from_dir, "run.json"), encoding="utf-8") as f:
            run = json.load(f)
        gb_rounds, bh_rounds = [], []
        for r in range(1, run["rounds"] + 1):
            folder = os.path.join(args.from_dir, f"round_{r}")
            gb_rounds.append(read_gbench(os.path.join(folder, "gbench.json"), run["samples"]))
            bh_rounds.append(read_benchhost(os.path.join(folder, "benchhost"),
                                            run.get("benchhost_samples", run["samples"])))
    else:
        if not (args.gbench and args.benchhost and args.plugins_dir):
            parser.error("--gbench, --benchhost and --plugins-dir are needed (or --from)")
        if args.rounds < 2 or args.samples < 1 or args.benchhost_samples < 0:
            parser.error("--rounds must be at least 2 and --samples at least 1")
        bh_samples = args.benchhost_samples or args.samples
        work = args.keep or tempfile.mkdtemp(prefix="compare_gbench.")
        os.makedirs(work, exist_ok=True)
        try:
            gb_rounds, bh_rounds = [], []
            load_before = os.getloadavg()[0]
            started = time.monotonic()
            for r in range(1, args.rounds + 1):
                folder = os.path.join(work, f"round_{r}")
                os.makedirs(folder, exist_ok=True)
                order = ["gbench", "benchhost"] if r % 2 == 1 else ["benchhost", "gbench"]
                for tool in order:
                    if tool == "gbench":
                        gb = run_gbench(args.gbench, args.samples, args.min_time, os.path.join(folder, "gbench.json"))
                    else:
                        bh = run_benchhost(args.benchhost, args.plugins_dir, bh_samples, args.monitor_interval,
                                           shlex.split(args.benchhost_args), os.path.join(folder, "benchhost"))
                gb_rounds.append(gb)
                bh_rounds.append(bh)
                log(f"round {r}/{args.rounds} ({order[0]} first), gbench / benchhost: "
                    + ", ".join(f"{w} {fmt_ns(gb[w]['median'])} / {fmt_ns(bh[w]['median'])}" for w in WORKLOADS))
            run = {"rounds": args.rounds, "samples": args.samples, "benchhost_samples": bh_samples,
                   "benchhost_args": args.benchhost_args, "min_time": args.min_time,
                   "elapsed_s": time.monotonic() - started, "cpus": os.cpu_count(),
                   "load_before": load_before, "load_after": os.getloadavg()[0]}
            with open(os.path.join(work, "run.json"), "w", encoding="utf-8") as f:
                json.dump(run, f, indent=1)
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)

    rows = {}
    for w in WORKLOADS:
        g = [r[w]["median"] for r in gb_rounds]
        gc = [r[w]["cpu_median"] for r in gb_rounds]
        b = [r[w]["median"] for r in bh_rounds]
        ratios = [bb / gg for bb, gg in zip(b, g)]
        rows[w] = {"g": statistics.median(g), "gcpu": statistics.median(gc), "b": statistics.median(b),
                   "rmin": min(ratios), "rmax": max(ratios), "gcv": cv(g), "gcpucv": cv(gc), "bcv": cv(b),
                   "gper": gb_rounds[-1][w]["per_sample"], "bper": bh_rounds[-1][w]["per_sample"]}
        rows[w]["cv_ratio"] = rows[w]["bcv"] / rows[w]["gcv"] if rows[w]["gcv"] > 0 else math.nan
        rows[w]["cv_ratio_ci"] = cv_ratio_interval(b, g)
        rows[w]["ratio"] = rows[w]["b"] / rows[w]["g"]
        rows[w]["ratio_cpu"] = rows[w]["b"] / rows[w]["gcpu"]

    bh_samples = run.get("benchhost_samples", run["samples"])
    samples = f"{run['samples']}" if bh_samples == run["samples"] else f"{run['samples']} (benchhost {bh_samples})"
    print(f"{run['rounds']} rounds, alternating (odd: Google Benchmark first); per round and tool "
          f"{samples} samples of each workload ({run['elapsed_s']:.0f} s; {run['cpus']} CPUs, load average "
          f"{run['load_before']:.2f} before, {run['load_after']:.2f} after)")
    extra = f", with {run['benchhost_args']}" if run.get("benchhost_args") else ""
    print("Google Benchmark: a sample is one repetition of --benchmark_min_time "
          f"{run['min_time'] or '0.5 (its default)'} s (real time, and CPU time); "
          f"benchhost: ctx.measure, a sample is one batch (wall clock){extra}")
    print()
    header = ("workload", "gbench real", "gbench cpu", "benchhost", "ours/real", "ours/cpu", "per-round ours/real",
              "CV gbench real", "CV gbench cpu", "CV benchhost", "calls/sample gbench", "calls/sample benchhost")
    table = [header]
    for w in WORKLOADS:
        x = rows[w]
        table.append((w, fmt_ns(x["g"]), fmt_ns(x["gcpu"]), fmt_ns(x["b"]), f"{x['ratio']:.4f}",
                      f"{x['ratio_cpu']:.4f}", f"{x['rmin']:.3f}-{x['rmax']:.3f}", pct(x["gcv"]), pct(x["gcpucv"]),
                      pct(x["bcv"]), str(x["gper"]), str(x["bper"])))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)))
    print()
    # How well the rounds pin the spreads down: with few rounds a CV is itself uncertain.
    print("Spread, ours / gbench real (CV ratio, with its 95% paired-bootstrap interval over the rounds): "
          + "; ".join(f"{w} {rows[w]['cv_ratio']:.2f} [{rows[w]['cv_ratio_ci'][0]:.2f}, {rows[w]['cv_ratio_ci'][1]:.2f}]"
                      for w in WORKLOADS))
    print()

    # Each claim is judged against both of Google Benchmark's figures: its real time
    # (what it reports first) includes the time its process was preempted, its CPU time
    # does not. A claim that holds against only one of them is not established.
    failed = False

    def claim(ok_real: bool, ok_cpu: bool, text: str) -> None:
        nonlocal failed
        ok = ok_real and ok_cpu
        failed |= not ok
        note = "" if ok_real == ok_cpu else \
            f" (holds against gbench's {'real' if ok_real else 'CPU'} time only)"
        print(f"{'PASS' if ok else 'FAIL'}  {text}{note}")

    def within(ratio: float) -> bool:
        return abs(ratio - 1) <= MEDIAN_TOLERANCE

    for w in TIMED:
        x = rows[w]
        claim(within(x["ratio"]), within(x["ratio_cpu"]),
              f"median of {w} agrees within {MEDIAN_TOLERANCE:.0%}: ours/gbench {x['ratio']:.4f} "
              f"(real time), {x['ratio_cpu']:.4f} (CPU time)")
    e = rows["empty"]
    claim(e["b"] <= e["g"], e["b"] <= e["gcpu"],
          f"per-iteration overhead (the empty workload, per call) not larger: ours {fmt_ns(e['b'])}, "
          f"gbench {fmt_ns(e['g'])} real, {fmt_ns(e['gcpu'])} CPU")
    # The spread is judged against Google Benchmark's real time alone: ours is wall-clock
    # time too, and CPU time leaves out by construction the preemptions that make up much
    # of a wall clock's spread. Its CPU-time spread is printed beside it.
    for w in WORKLOADS:
        x = rows[w]
        ok = x["bcv"] <= x["gcv"]
        claim(ok, ok,
              f"run-to-run spread of {w} not wider than gbench's real time: CV of the round medians ours "
              f"{pct(x['bcv'])}, gbench {pct(x['gcv'])} real (CPU time: {pct(x['gcpucv'])}, "
              f"{'ours not wider' if x['bcv'] <= x['gcpucv'] else 'ours wider'})")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as error:
        sys.exit(f"compare_gbench: {' '.join(error.cmd)} exited with {error.returncode}")
