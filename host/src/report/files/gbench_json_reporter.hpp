// A run's results in Google Benchmark's JSON output format (version 1.7, what
// `--benchmark_format=json` writes), so that tools made for Google Benchmark read them:
// its tools/compare.py, CI dashboards, plotting scripts. `benchhost export DIR --format
// gbench-json` writes it (docs/reports.md, "Formats other tools read").
//
// The mapping:
//   - "context": date (when the run started), host_name, executable ("benchhost"),
//     num_cpus, mhz_per_cpu, cpu_scaling_enabled, load_avg and library_build_type from the
//     run's hardware record (0, false or [] where the record lacks the fact); "caches" is
//     empty (the record does not say how many CPUs share a cache). benchhost_version,
//     benchhost_commit and benchhost_run are added as Google Benchmark's custom context.
//   - "benchmarks": for each successful scenario, each of its series whose unit is a time
//     (ns, us, ms, s), one entry per sample, named "<scenario_id>/<series>" (e.g.
//     "performance/mock/mock[variant=eager,batch_size=1]/latency"), as Google Benchmark
//     writes one per repetition: run_type "iteration", repetitions = the sample count,
//     repetition_index, threads 1, iterations = the series' inner_iterations (calls per
//     sample), real_time = the sample (time per call). benchhost measures wall time only:
//     cpu_time holds the same value. time_unit is the series' own (ns, us, ms; seconds
//     are written as ms). Samples that are not finite are left out.
//   - then, for a series of 2 or more samples, the aggregates Google Benchmark computes
//     over repetitions: "<name>_mean", "_median", "_stddev" (sample standard deviation,
//     n - 1) with aggregate_unit "time", and "_cv" (stddev / mean, a fraction) with
//     aggregate_unit "percentage"; an aggregate that is not finite is left out.
//   - a family is a benchmark id plus a series ("performance/mock/mock" + "latency"),
//     family_index numbers families in order of appearance, per_family_instance_index
//     the scenarios (axis values) of a family.
// Skipped and failed scenarios, and series that are not times (throughput, tokens/s),
// are not exported.
#pragma once

#include <string>

#include "model/run_record.hpp"

namespace benchhost {

/// The JSON document, pretty-printed, ending in a newline.
std::string to_gbench_json(const RunRecord& record);

/// Number of "benchmarks" entries to_gbench_json writes for `record` of run_type
/// "iteration" (one per exported sample).
std::size_t gbench_iteration_count(const RunRecord& record);

}  // namespace benchhost
