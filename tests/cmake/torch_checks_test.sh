#!/usr/bin/env bash
# Configure-time checks of cmake/BenchTorch.cmake, each on a real configure of the
# project into a temporary folder (nothing is built):
#   1. no LibTorch anywhere (BENCH_PYTHON missing, no prefix): the error says how to get one;
#   2. a torch built with another CUDA than the toolkit's (a torch folder whose version.py
#      says CUDA 99.1): the error names both versions, before torch's own package runs.
# Usage: tests/cmake/torch_checks_test.sh SOURCE_DIR
# Exit status: 0 passed, 1 failed, 77 skipped (no CUDA toolkit for check 2 to compare).
set -uo pipefail
source_dir=$(cd "${1:?usage: torch_checks_test.sh SOURCE_DIR}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "torch_checks_test: FAILED: $*"; failed=1; }
configure() {  # configure NAME ARGS...: the output in $tmp/NAME.log; returns cmake's status
  local name=$1
  shift
  cmake -S "$source_dir" -B "$tmp/$name" -G Ninja -DBENCH_BUILD_TESTS=OFF "$@" >"$tmp/$name.log" 2>&1
}
expect() {  # expect LOG TEXT: TEXT in LOG, whose lines CMake wraps, read as one line
  local text
  text=$(tr -s ' \n' '  ' <"$1")
  [[ $text == *"$2"* ]] || fail "no '$2' in:"$'\n'"$(cat "$1")"
}

if configure no_torch -DBENCH_PYTHON="$tmp/no/python"; then
  fail "configure succeeded without any LibTorch"
fi
expect "$tmp/no_torch.log" "No LibTorch found: BENCH_PYTHON ($tmp/no/python) does not exist"
expect "$tmp/no_torch.log" "-DBENCH_WITH_TORCH=OFF"

toolkit=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
if [[ -z $toolkit ]]; then
  echo "torch_checks_test: skipped the CUDA check: no nvcc on the PATH"
  ((failed == 0)) && exit 77
  exit 1
fi
fake=$tmp/torch
mkdir -p "$fake/share/cmake/Torch"
echo 'message(FATAL_ERROR "torch package reached")' >"$fake/share/cmake/Torch/TorchConfig.cmake"
printf "__version__ = '9.9.0+cu991'\ncuda: Optional[str] = '99.1'\n" >"$fake/version.py"
if configure mismatch -DTorch_DIR="$fake/share/cmake/Torch"; then
  fail "configure succeeded with a torch of CUDA 99.1 and toolkit $toolkit"
fi
expect "$tmp/mismatch.log" "the CUDA toolkit $toolkit"
expect "$tmp/mismatch.log" "does not match the CUDA 99.1 that LibTorch 9.9.0+cu991 was built with"
grep -q "torch package reached" "$tmp/mismatch.log" && fail "torch's own package ran before the check"

((failed == 0)) && echo "torch_checks_test: passed"
exit $failed
