"""Checks one property of GPU measurement on the runs of the GPU check, and prints one
line: `gpu_check: PASS|FAIL|SKIP <check>: <what was seen>`. Exit status 1 on FAIL.

    python3 rigor.py CHECK RUN_DIR [RUN_DIR2] [--exit-code N]

Each RUN_DIR is a `benchhost run --output-dir` of one CUDA scenario (ResNet-50 at
batch 1, eager, unless the check says otherwise); the checks read its plugin report:

  timer-events   --timer cuda-events: info.timer says CUDA events; `latency` (device)
                 and `latency_host` (host clock) are both there, and the device's median
                 is no more than the host's
  timer-host     --timer host: info.timer says the host clock; no `latency_host`
  cache          RUN_DIR warm, RUN_DIR2 --cache cold (config.cache says which), and cold's
                 median is not below warm's by more than 3% (the flush is outside the
                 timed region; on a bandwidth-bound kernel cold is slower)
  peaks          float16: cuda_setup_max_memory_allocated (the float32 reference pass
                 included) and cuda_max_memory_allocated (the timed samples) are both
                 there; the set-up's is not below the timed samples'
  settings       --param cudnn_benchmark=1 --param tf32=0 --param matmul_precision=high:
                 info says cudnn_benchmark on, tf32 "cudnn off, cublas off", matmul
                 precision high
  sample-state   --monitor-interval 5: device_state.latency holds an SM clock (MHz) and
                 throttle reasons for every sample of `latency`
  cooldown       --monitor-interval 5 --discard-throttled --throttle-cooldown 2:
                 info.throttle_cooldown says what the cool-downs did (none, or how many
                 and how long), and the kept and the discarded samples make the count asked for
  lock-clocks    --lock-clocks base: the summary's context.gpu.locked_clocks says what
                 was locked and the samples' SM clocks varied by under 2%; SKIP when the
                 run stopped for want of root (--exit-code 2 and NVML's reason)
  memory-limit   --memory-limit 8192: the CUDA scenario succeeded under the limit (the
                 summary's run_metadata.config.memory_limit_by says which: a memory
                 cgroup or RLIMIT_DATA)
  nvml-process   gpu_metrics: this worker's process_memory_used was read (or
                 info.process_memory_used says why not); other processes on the GPU
  fractions      every scenario of the run (ResNet-50 and GPT-2 decoding): each
                 fraction_of_peak* figure (FLOP/s against the calibrated cuBLAS peak,
                 bandwidth against the memory's peak) is above 0 and at most 1.05, and
                 there is at least one
Reads only JSON: imports no torch.
"""

import argparse
import glob
import json
import os
import statistics
import sys


def scenario(run_dir):
    """The first scenario of the run's plugin report, and the summary."""
    with open(os.path.join(run_dir, "benchmark_summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    for path in sorted(glob.glob(os.path.join(run_dir, "*", "*.json"))):
        with open(path, encoding="utf-8") as f:
            scenarios = json.load(f).get("benchmark_scenarios", [])
        if scenarios:
            return scenarios[0], summary
    return {}, summary


def all_scenarios(run_dir):
    """Every scenario of every plugin report of the run, as (plugin, scenario)."""
    found = []
    for path in sorted(glob.glob(os.path.join(run_dir, "*", "*.json"))):
        with open(path, encoding="utf-8") as f:
            found += [(os.path.basename(os.path.dirname(path)), s) for s in json.load(f).get("benchmark_scenarios", [])]
    return found


def fractions(run_dir):
    """(verdict, text) of the fractions check: every fraction of a peak in (0, 1.05]."""
    seen, bad = [], []
    for plugin, s in all_scenarios(run_dir):
        for name, figure in sorted(s.get("measurements", {}).items()):
            if not name.startswith("fraction_of_peak") or "value" not in figure:
                continue
            value = figure["value"]
            text = f"{plugin}/{s.get('benchmark', '?')} {name} {value:.3g}"
            seen.append(text)
            if not 0 < value <= 1.05:
                bad.append(text)
    if not seen:
        return "FAIL", "no fraction_of_peak figure in the run"
    if bad:
        return "FAIL", "outside (0, 1.05]: " + "; ".join(bad)
    return "PASS", "; ".join(seen)


def median(s, name):
    series = s.get("measurements", {}).get(name, {})
    return series.get("median")


def scalar(s, name):
    return s.get("measurements", {}).get(name, {}).get("value")


def check(name, dirs, exit_code):
    """(verdict, text) of check `name` on the runs in `dirs`."""
    if name == "fractions":
        return fractions(dirs[0])
    if name == "lock-clocks" and exit_code == 2:
        return "SKIP", "the run stopped before its first scenario (not root, or the GPU cannot lock)"
    s, summary = scenario(dirs[0])
    info = s.get("info", {})
    if name != "lock-clocks" and s.get("status") != "success":
        return "FAIL", f"the scenario did not succeed: {s.get('status')}: {s.get('reason', '')}"
    if name == "timer-events":
        device, host = median(s, "latency"), median(s, "latency_host")
        ok = info.get("timer", "").startswith("CUDA events") and device is not None and host is not None
        if not ok:
            return "FAIL", f"timer '{info.get('timer')}', latency {device}, latency_host {host}"
        return ("PASS" if device <= host else "FAIL"), (f"median {device:.4g} ms by CUDA events, {host:.4g} ms by the "
                                                       f"host's clock (ratio {device / host:.3f})")
    if name == "timer-host":
        ok = info.get("timer", "").startswith("host clock") and median(s, "latency_host") is None
        return ("PASS" if ok else "FAIL"), f"timer '{info.get('timer')}', median {median(s, 'latency')} ms"
    if name == "cache":
        cold, _ = scenario(dirs[1])
        warm_ms, cold_ms = median(s, "latency"), median(cold, "latency")
        if warm_ms is None or cold_ms is None or cold.get("status") != "success":
            return "FAIL", f"warm {warm_ms}, cold {cold_ms} ({cold.get('status')}: {cold.get('reason', '')})"
        return ("PASS" if cold_ms >= 0.97 * warm_ms else "FAIL"), (
            f"warm {warm_ms:.4g} ms, cold {cold_ms:.4g} ms (cold/warm {cold_ms / warm_ms:.3f}; the reports' "
            f"config.cache: {s.get('metadata', {}).get('config', {}).get('cache')}, "
            f"{cold.get('metadata', {}).get('config', {}).get('cache')})")
    if name == "peaks":
        setup, timed = scalar(s, "cuda_setup_max_memory_allocated"), scalar(s, "cuda_max_memory_allocated")
        if setup is None or timed is None:
            return "FAIL", f"set-up peak {setup}, timed peak {timed}"
        return ("PASS" if setup >= timed else "FAIL"), (
            f"set-up {setup:.1f} MiB, timed samples {timed:.1f} MiB; host: setup_peak_rss "
            f"{scalar(s, 'setup_peak_rss')}, measured_peak_rss {scalar(s, 'measured_peak_rss')}, "
            f"peak_rss {scalar(s, 'peak_rss')} MiB")
    if name == "settings":
        seen = {k: info.get(k) for k in ("cudnn_benchmark", "tf32", "matmul_precision")}
        want = {"cudnn_benchmark": "on", "tf32": "cudnn off, cublas off", "matmul_precision": "high"}
        return ("PASS" if seen == want else "FAIL"), f"info {seen}"
    if name == "sample-state":
        state = s.get("device_state", {}).get("latency", {})
        clocks = [c for c in state.get("sm_clock_mhz", []) if isinstance(c, (int, float))]
        samples = len(s.get("measurements", {}).get("latency", {}).get("measurements", []))
        reasons = state.get("throttle_reasons", [])
        ok = samples > 0 and len(clocks) == samples and len(reasons) == samples
        text = f"{len(clocks)} clocks and {len(reasons)} reasons for {samples} samples"
        if clocks:
            text += f"; SM clock {min(clocks):.0f}-{max(clocks):.0f} MHz"
        return ("PASS" if ok else "FAIL"), text
    if name == "cooldown":
        cooled = info.get("throttle_cooldown")
        state = s.get("device_state", {}).get("latency", {})
        kept = len(s.get("measurements", {}).get("latency", {}).get("measurements", []))
        dropped = state.get("discarded_throttled", 0)
        asked = s.get("metadata", {}).get("config", {}).get("measurement_iterations")
        ok = cooled is not None and kept + dropped == asked
        return ("PASS" if ok else "FAIL"), (f"throttle_cooldown {cooled!r}; {kept} samples kept, {dropped} discarded, "
                                            f"{asked} asked for")
    if name == "lock-clocks":
        locked = summary.get("context", {}).get("gpu", {}).get("locked_clocks")
        clocks = [c for c in s.get("device_state", {}).get("latency", {}).get("sm_clock_mhz", [])
                  if isinstance(c, (int, float))]
        if not locked or not clocks:
            return "FAIL", f"locked_clocks {locked}, {len(clocks)} sample clocks"
        spread = (max(clocks) - min(clocks)) / statistics.median(clocks)
        return ("PASS" if spread < 0.02 else "FAIL"), (f"{locked}; SM clock {min(clocks):.0f}-{max(clocks):.0f} MHz "
                                                      f"over {len(clocks)} samples")
    if name == "memory-limit":
        by = summary.get("run_metadata", {}).get("config", {}).get("memory_limit_by", "?")
        return "PASS", f"succeeded under --memory-limit ({by}), peak_rss {scalar(s, 'peak_rss')} MiB"
    if name == "nvml-process":
        gpu = s.get("gpu_metrics", {})
        used = gpu.get("metrics", {}).get("process_memory_used", {}).get("max")
        why = gpu.get("info", {}).get("process_memory_used")
        others = gpu.get("values", {}).get("other_processes", {}).get("value")
        verdict = "PASS" if used is not None or why else "FAIL"
        return verdict, (f"process memory max {used} MiB" if used is not None else f"no process memory: {why}") + (
            f"; other processes {others}")
    return "FAIL", f"unknown check '{name}'"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check")
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--exit-code", type=int, default=0, help="the run's exit status")
    args = parser.parse_args()
    try:
        verdict, text = check(args.check, args.dirs, args.exit_code)
    except (OSError, ValueError, KeyError, TypeError) as e:
        verdict, text = "FAIL", f"cannot read the run: {e}"
    print(f"gpu_check: {verdict} {args.check}: {text}")
    return 1 if verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
