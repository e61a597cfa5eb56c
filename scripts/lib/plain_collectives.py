"""A plain torch.distributed script that times all_reduce as the collectives plugin does:
the same buffer (float32, in place, sum, zeros), the same warmup and measured calls, a
barrier before each measured call outside its time; prints each size's median latency
(ms) over every rank's samples, sample by sample the slowest rank's, and its bus
bandwidth (GB/s), one JSON line per size from rank 0. Started by torchrun (python -m
torch.distributed.run) from scripts/compare_collectives, gloo on the CPU.

    plain_collectives.py --sizes 1048576,67108864 --warmup 3 --iterations 20
"""

import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1048576")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    for size in (int(s) for s in args.sizes.split(",")):
        elements = max(size // 4 // ranks, 1) * ranks
        buffer = torch.zeros(elements, dtype=torch.float32)
        for _ in range(args.warmup):
            dist.all_reduce(buffer)
        samples = []
        for _ in range(args.iterations):
            dist.barrier()
            start = time.perf_counter_ns()
            dist.all_reduce(buffer)
            samples.append((time.perf_counter_ns() - start) / 1e6)
        # Every rank's samples to rank 0: the slowest rank's per sample, as benchhost's.
        gathered = [None] * ranks
        dist.all_gather_object(gathered, samples)
        if rank == 0:
            slowest = [max(column) for column in zip(*gathered)]
            median = statistics.median(slowest)
            algbw = elements * 4 / (median / 1e3) / 1e9
            print(json.dumps({"size": size, "bytes": elements * 4, "latency_ms": median,
                              "busbw_gbs": algbw * 2 * (ranks - 1) / ranks, "threads": torch.get_num_threads(),
                              "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
