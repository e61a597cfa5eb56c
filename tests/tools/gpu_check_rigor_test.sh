#!/usr/bin/env bash
# tools/gpu_check/rigor.py, the GPU check's measurement checks, on runs made here with
# the real host over the fake CUDA runtime and the fake NVML of tests/fixtures (found
# through LD_LIBRARY_PATH as the real ones are): fixture_device's benchmarks on "cuda".
# Each check that the fakes can satisfy passes; the ones that need LibTorch on a GPU
# (peaks, settings) fail, saying what is missing; a run refused by --lock-clocks skips.
#
# Usage: tests/tools/gpu_check_rigor_test.sh BUILD_DIR
# Exit status: 0 passed, 1 failed.
set -uo pipefail
build_dir=$(cd "${1:?usage: gpu_check_rigor_test.sh BUILD_DIR}" && pwd)
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rigor=$source_dir/tools/gpu_check/rigor.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "gpu_check_rigor_test: FAILED: $*"; failed=1; }
fixtures=$build_dir/tests/fixtures
export LD_LIBRARY_PATH=$fixtures/fake_cudart:$fixtures/fake_nvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export BENCH_FAKE_NVML_SCRIPT=$tmp/nvml.txt BENCH_FAKE_NVML_LOG=$tmp/nvml.log
echo "sample sm_mhz=1980 throttle=0x0 proc_mem_mib=300" >"$BENCH_FAKE_NVML_SCRIPT"

runs=0
code=0
# measure BENCHMARK OPTIONS...: a run of fixture_device/BENCHMARK on cuda into $tmp/$runs
measure() {
  local benchmark=$1
  shift
  runs=$((runs + 1))
  "$build_dir/bin/benchhost" run --plugins-dir "$fixtures/device" --output-dir "$tmp/$runs" \
    --include "fixture_device/$benchmark" --devices cuda --warmup-iterations 1 --measurement-iterations 6 \
    --quiet "$@" >"$tmp/$runs.log" 2>&1
  code=$?
}
# expect VERDICT CHECK PATTERN DIRS...: rigor.py's line and exit status
expect() {
  local verdict=$1 check=$2 pattern=$3
  shift 3
  local out
  out=$(python3 "$rigor" "$check" "$@" --exit-code "$code" 2>&1)
  local status=$?
  [[ $out =~ ^gpu_check:\ $verdict\ $check:\ $pattern ]] || fail "$check: expected $verdict matching '$pattern', got: $out"
  local want=0
  [[ $verdict == FAIL ]] && want=1
  ((status == want)) || fail "$check: exit $status for $verdict"
}

# The fake's events answer 1.5 ms, within the host's 2 ms spin and its waits.
BENCH_FAKE_CUDART_ELAPSED_MS=1.5 measure two_ms_samples --timer cuda-events
expect PASS timer-events 'median [0-9.]+ ms by CUDA events, [0-9.]+ ms by the host.s clock' "$tmp/$runs"
measure on_device --timer host
expect PASS timer-host "timer 'host clock \(--timer host\)'" "$tmp/$runs"
measure on_device
warm=$tmp/$runs
measure on_device --cache cold
expect PASS cache 'warm [0-9.]+ ms, cold [0-9.]+ ms .*config.cache: warm, cold' "$warm" "$tmp/$runs"
measure two_ms_samples --monitor-interval 1
expect PASS sample-state '6 clocks and 6 reasons for 6 samples; SM clock 1980-1980 MHz' "$tmp/$runs"
measure two_ms_samples --monitor-interval 1 --discard-throttled --throttle-cooldown 2
expect PASS cooldown "throttle_cooldown 'none: the GPU did not throttle before a sample \(at most 2 s each\)'; 6 samples kept, 0 discarded, 6 asked for" "$tmp/$runs"
measure two_ms_samples --monitor-interval 1 --lock-clocks base
expect PASS lock-clocks 'base clock on GPU 0 \(Fake NVML GPU\); SM clock 1980-1980 MHz over 6 samples' "$tmp/$runs"
grep -qx "reset 0" "$BENCH_FAKE_NVML_LOG" || fail "the clocks were not unlocked: $(cat "$BENCH_FAKE_NVML_LOG")"
measure on_device --memory-limit 8192
expect PASS memory-limit 'succeeded under --memory-limit' "$tmp/$runs"
measure on_device
expect FAIL timer-events 'median 2.0[0-9]* ms by CUDA events, 0.0[0-9]+ ms by the host.s clock' "$tmp/$runs"
expect PASS nvml-process 'process memory max 300(\.0)? MiB; other processes 0' "$tmp/$runs"
# The bandwidth of 8 MB a call against the fake H100's 3352.32 GB/s; on a memory bus one
# bit wide (a peak of 0.65 GB/s) the same samples are beyond the peak.
expect PASS fractions 'fixture_device/on_device fraction_of_peak_bandwidth 0.0011' "$tmp/$runs"
BENCH_FAKE_CUDART_BUS_BITS=1 measure on_device
expect FAIL fractions 'outside \(0, 1.05\]: fixture_device/on_device fraction_of_peak_bandwidth [0-9.e+]+' "$tmp/$runs"
measure on_device
# What needs LibTorch on a GPU fails here, naming what is missing.
expect FAIL peaks 'set-up peak None, timed peak None' "$tmp/$runs"
expect FAIL settings "info \{'cudnn_benchmark': None" "$tmp/$runs"
# Without the right to lock, the run stops before its first scenario: a skip.
echo "lock_error 4" >>"$BENCH_FAKE_NVML_SCRIPT"
measure on_device --lock-clocks base
((code == 2)) || fail "--lock-clocks without the right: exit $code, not 2"
expect SKIP lock-clocks 'the run stopped before its first scenario' "$tmp/$runs"

((failed == 0)) && echo "gpu_check_rigor_test: passed"
exit $failed
