"""Prints what one `benchhost run` of the GPU check ran and skipped, scenario by scenario,
and exits 1 when a scenario expected on CUDA did not run there as it should.

    python3 summary.py RUN_DIR [--expect-cuda]

RUN_DIR is the run's --output-dir (benchmark_summary.json and the plugin reports). One
line a scenario: status, id, the headline median and, on CUDA, the caching allocator's
peak (cuda_max_memory_allocated, which only a build with the SDK's CUDA parts records).
With --expect-cuda, a problem is any scenario that is not `success`, ran on another
device than CUDA, or succeeded without the CUDA memory statistics; each is printed with
its reason, and the exit status is 1. Reads only JSON: imports no torch.
"""

import argparse
import json
import os
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def scenario_reports(run_dir, results):
    """The plugin reports' scenarios by scenario_name, for the reports the results name."""
    scenarios = {}
    for report in sorted({r["report"] for r in results if r.get("report")}):
        path = os.path.join(run_dir, report)
        if not os.path.exists(path):
            continue
        for s in load(path).get("benchmark_scenarios", []):
            scenarios[(report, s["scenario_name"])] = s
    return scenarios


def headline(result):
    for name in ("latency", "time_to_first_token", "throughput"):
        figures = (result.get("headline") or {}).get(name)
        if isinstance(figures, dict) and isinstance(figures.get("median"), (int, float)):
            return f"{name} median {figures['median']:.4g} {figures.get('unit', '')}".rstrip()
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--expect-cuda", action="store_true")
    args = parser.parse_args()
    summary_path = os.path.join(args.run_dir, "benchmark_summary.json")
    if not os.path.exists(summary_path):
        print(f"gpu_check: {summary_path} is missing: the run wrote no summary")
        return 1
    results = load(summary_path).get("results", [])
    reports = scenario_reports(args.run_dir, results)
    problems = []
    if args.expect_cuda and not results:
        problems.append("the run selected no scenario")
    for r in results:
        status, device = r["status"], r.get("device", "")
        scenario = reports.get((r.get("report"), r["scenario_name"]), {})
        measurements = scenario.get("measurements", {})
        memory = measurements.get("cuda_max_memory_allocated", {})
        line = f"  {status:9} {r['scenario_id']}"
        if status == "success":
            line += f"  {headline(r)}"
            if "value" in memory:
                line += f"  cuda peak {memory['value']:.1f} MiB"
        else:
            line += f"  ({r.get('reason', '')})"
        print(line)
        if not args.expect_cuda:
            continue
        if status != "success":
            problems.append(f"{r['scenario_id']}: {status} on CUDA: {r.get('reason', '')}")
        elif not device.startswith("cuda"):
            problems.append(f"{r['scenario_id']}: ran on '{device}', not on CUDA")
        elif "value" not in memory:
            problems.append(f"{r['scenario_id']}: no cuda_max_memory_allocated: the SDK's CUDA memory "
                            "statistics are not compiled in")
    for problem in problems:
        print(f"gpu_check: PROBLEM {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
