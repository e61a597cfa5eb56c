#!/usr/bin/env bash
# tools/gpu_check/summary.py, the GPU check's verdict on a run, on runs made here with
# the real host: the mock on the CPU (listed, and a problem where CUDA is expected), and
# ResNet-50 asked for on CUDA, which this machine skips (a problem, with the reason).
#
# Usage: tests/tools/gpu_check_summary_test.sh BUILD_DIR
# Exit status: 0 passed, 1 failed.
set -uo pipefail
build_dir=$(cd "${1:?usage: gpu_check_summary_test.sh BUILD_DIR}" && pwd)
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
summary=$source_dir/tools/gpu_check/summary.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "gpu_check_summary_test: FAILED: $*"; failed=1; }
expect() {  # expect TEXT_FILE PATTERN
  grep -qE -- "$2" "$1" || fail "no line matching '$2' in:"$'\n'"$(cat "$1")"
}

"$build_dir/bin/benchhost" run --plugins-dir "$build_dir/plugins" --output-dir "$tmp/mock" --enable-mock \
  --include mock_benchmark/mock_benchmark --variants eager --measurement-iterations 2 --warmup-iterations 0 --quiet \
  >"$tmp/mock.log" 2>&1 || fail "the mock run failed: $(cat "$tmp/mock.log")"

# Without --expect-cuda: every scenario listed with its headline, exit 0.
python3 "$summary" "$tmp/mock" >"$tmp/plain.out" 2>&1 || fail "exit $? without --expect-cuda"
expect "$tmp/plain.out" '^  success +performance/mock_benchmark/mock_benchmark\[variant=eager.* latency median [0-9.]+ ms'

# With --expect-cuda: a scenario on the CPU is a problem, exit 1.
python3 "$summary" "$tmp/mock" --expect-cuda >"$tmp/cuda.out" 2>&1 && fail "exit 0 with --expect-cuda on a CPU run"
expect "$tmp/cuda.out" "^gpu_check: PROBLEM .*ran on 'cpu', not on CUDA"

# A LibTorch plugin asked for on CUDA where there is none: skipped, and the reason shown.
if [[ -f $build_dir/plugins/performance/libresnet50.so ]]; then
  "$build_dir/bin/benchhost" run --plugins-dir "$build_dir/plugins" --output-dir "$tmp/cuda" \
    --include resnet50/resnet50 --variants eager --devices cuda --batch-sizes 1 --measurement-iterations 1 \
    --warmup-iterations 0 --quiet >"$tmp/cuda.log" 2>&1
  if ! nvidia-smi -L >/dev/null 2>&1; then  # without a GPU
    python3 "$summary" "$tmp/cuda" --expect-cuda >"$tmp/skip.out" 2>&1 && fail "exit 0 for a skipped CUDA scenario"
    expect "$tmp/skip.out" '^  skipped +performance/resnet50/resnet50\[.*\(cuda requested, but'
    expect "$tmp/skip.out" '^gpu_check: PROBLEM .*: skipped on CUDA: cuda requested, but'
  fi
fi

# No run at all: a missing summary is said, exit 1.
python3 "$summary" "$tmp/nothing" >"$tmp/none.out" 2>&1 && fail "exit 0 without a run"
expect "$tmp/none.out" 'benchmark_summary.json is missing'

((failed == 0)) && echo "gpu_check_summary_test: passed"
exit $failed
