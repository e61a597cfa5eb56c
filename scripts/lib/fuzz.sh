# Sourced by scripts/test: builds the libFuzzer targets of tests/fuzz/ with clang into
# build-fuzz/ and runs each for a bounded time. `bench_fuzz` returns non-zero when a
# target finds a crash, a sanitizer report, a leak, a timeout or runs out of memory.
#
#   BENCH_FUZZ_SECONDS=N   seconds per target (default 30)
#   BENCH_FUZZ_JOBS=N      targets run at a time (default: the number of cores)
#
# Each target runs on a working corpus, build-fuzz/fuzz/<target>/corpus: the committed
# seeds (tests/fuzz/corpus/<name>/, and configs/*.yaml for fuzz_config) are copied into
# it, and what libFuzzer finds is kept there for the next run; the committed corpus is
# never modified. A crashing input is written to build-fuzz/fuzz/<target>/artifacts/;
# to reproduce it: build-fuzz/bin/<target> <that file>.

bench_fuzz_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The targets, in the order they run (each in tests/fuzz/CMakeLists.txt, its seeds in
# tests/fuzz/corpus/<name without fuzz_>/).
bench_fuzz_targets=(fuzz_config fuzz_elf fuzz_result_json fuzz_report fuzz_comparison)

# Seed folders of a target, relative to the repository root.
bench_fuzz_seed_dirs() {
  case $1 in
    fuzz_config) echo "tests/fuzz/corpus/config configs" ;;
    *) echo "tests/fuzz/corpus/${1#fuzz_}" ;;
  esac
}

bench_fuzz_build() {
  local fuzz_build=$1
  if ! command -v clang++ >/dev/null; then
    echo "fuzz: clang++ is not installed (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    return 1
  fi
  if [[ ! -f $fuzz_build/build.ninja ]]; then
    CC=clang CXX=clang++ cmake -S "$bench_fuzz_root" -B "$fuzz_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DBENCH_BUILD_FUZZERS=ON -DBENCH_WITH_TORCH=OFF -DBENCH_BUILD_TESTS=OFF || return 1
  fi
  cmake --build "$fuzz_build" -j "$(nproc)" --target "${bench_fuzz_targets[@]}"
}

# bench_fuzz_run <build dir> <target> <seconds>: runs one target, prints its line.
bench_fuzz_run() {
  local fuzz_build=$1 target=$2 seconds=$3
  local work=$fuzz_build/fuzz/$target
  local corpus=$work/corpus artifacts=$work/artifacts log=$work/$target.log
  mkdir -p "$corpus" "$artifacts" || return 1
  local dir file
  for dir in $(bench_fuzz_seed_dirs "$target"); do
    for file in "$bench_fuzz_root/$dir"/*; do
      [[ -f $file ]] && cp "$file" "$corpus/seed-${dir##*/}-${file##*/}"
    done
  done
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$artifacts/")
  local dict=$bench_fuzz_root/tests/fuzz/${target#fuzz_}.dict
  [[ -f $dict ]] && args+=(-dict="$dict")

  local rc=0 start=$SECONDS
  # libFuzzer stops itself after max_total_time; timeout only guards against a fuzzer
  # that hangs outside its own watchdog.
  # The target's own temporary folder (fuzz_elf writes each input to a file there): what
  # a target leaves when libFuzzer ends it at its time limit stays out of /tmp, and goes
  # at the next run.
  rm -rf "$work/tmp" && mkdir -p "$work/tmp" || return 1
  TMPDIR=$work/tmp UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    timeout --kill-after=10 $((seconds + 60)) "$fuzz_build/bin/$target" "${args[@]}" "$corpus" >"$log" 2>&1 || rc=$?
  local elapsed=$((SECONDS - start))

  if ((rc == 0)); then
    local runs cov
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+' "$log" | tail -n 1)
    echo "fuzz: $target: passed (${runs:-?} inputs in ${elapsed} s; ${cov:-no coverage line})"
    return 0
  fi
  local what artifact
  what=$(grep -m 1 -E '^==[0-9]+==ERROR|^SUMMARY: |runtime error:|ERROR: libFuzzer' "$log" || true)
  artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
  echo "fuzz: $target: FAILED (exit status $rc after ${elapsed} s): ${what:-see the log}"
  echo "fuzz: $target: input: ${artifact:-none written}; log: $log"
  [[ -n $artifact ]] && echo "fuzz: $target: reproduce with: $fuzz_build/bin/$target $artifact"
  echo "---- last lines of $log" >&2
  tail -n 40 "$log" >&2
  echo "----" >&2
  return 1
}

bench_fuzz() {
  local fuzz_build=${BENCH_FUZZ_BUILD_DIR:-$bench_fuzz_root/build-fuzz}
  local seconds=${BENCH_FUZZ_SECONDS:-30}
  if [[ ! $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: BENCH_FUZZ_SECONDS must be a whole number of seconds > 0, got '$seconds'" >&2
    return 2
  fi
  local start=$SECONDS
  if ! bench_fuzz_build "$fuzz_build"; then
    echo "fuzz: building the fuzz targets in $fuzz_build failed" >&2
    return 1
  fi
  echo "fuzz: targets up to date in $((SECONDS - start)) s"
  # The targets run side by side, as many at a time as there are cores (each libFuzzer
  # process uses one), so each still gets its seconds of a core; their lines are printed
  # in the targets' order once all have run.
  local jobs=${BENCH_FUZZ_JOBS:-$(nproc)}
  if [[ ! $jobs =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz: BENCH_FUZZ_JOBS must be a whole number > 0, got '$jobs'" >&2
    return 2
  fi
  local results
  results=$(mktemp -d) || return 1
  local target running=0 passed=0 failed=0
  start=$SECONDS
  for target in "${bench_fuzz_targets[@]}"; do
    if ((running >= jobs)); then
      wait -n
      running=$((running - 1))
    fi
    (
      rc=0
      bench_fuzz_run "$fuzz_build" "$target" "$seconds" || rc=$?
      echo "$rc" >"$results/$target.rc"
    ) >"$results/$target.out" 2>&1 &
    running=$((running + 1))
  done
  wait
  for target in "${bench_fuzz_targets[@]}"; do
    cat "$results/$target.out"
    if [[ $(cat "$results/$target.rc" 2>/dev/null) == 0 ]]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  done
  rm -rf "$results"
  echo "fuzz: $passed passed, $failed failed ($jobs at a time, $((SECONDS - start)) s)"
  ((failed == 0))
}
