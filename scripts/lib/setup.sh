# Sourced by scripts/bench and scripts/test: installs the Debian packages that are
# missing (scripts/test: the test tools too), makes the project's virtual environment with
# the pinned PyTorch and JAX (scripts/lib/requirements.txt; JAX's CUDA plugin where an
# NVIDIA driver is, requirements-jax-cuda.txt), then configures benchhost (Release)
# in build/ against that torch's LibTorch and builds what a run needs (scripts/test:
# everything).
# Idempotent: with everything installed and built, it only checks and returns.

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BENCH_BUILD_DIR:-$repo_root/build}
venv_dir=${BENCH_VENV:-$repo_root/.venv}

# Two sets of Debian 12 packages. bench_run_packages: what building benchhost and running
# it need (scripts/bench). bench_test_packages: what only the tests, the fuzz targets and
# the tools add (scripts/test). tests/install/run_packages_test.py checks that every
# header and library the run build uses comes from the first set or what it pulls in.
bench_run_packages=(
  cmake ninja-build g++ pkg-config git ca-certificates
  python3-venv  # the project's virtual environment, where PyTorch (LibTorch with it) and JAX are installed
  python3-dev  # Python.h, which Inductor's C++ compiles include (torch.compile, AOTInductor packages)
  pybind11-dev  # the benchhost module that Python plugins import (the worker embeds CPython)
  libjpeg-dev libpng-dev  # JPEG (libjpeg-turbo) and PNG images for --param dataset=DIR
  libboost-dev libboost-filesystem-dev libyaml-cpp-dev rapidjson-dev libspdlog-dev
  libcli11-dev libelf-dev
  libsqlite3-dev  # the run history (--history)
  libpqxx-dev  # the run history in PostgreSQL (--history postgresql://...)
)
bench_test_packages=(
  libgtest-dev libgmock-dev  # the unit tests
  libbenchmark-dev  # Google Benchmark as a peer (tools/gbench_peer, scripts/compare_gbench)
  sqlite3  # the command the history tests edit a history with
  postgresql  # initdb and pg_ctl: the tests start a throw-away PostgreSQL cluster
  clang libclang-rt-14-dev  # the fuzz targets
  clang-format  # the format check (ctest format_test; scripts/format rewrites)
  mypy  # the benchhost module's stubs against the Python plugins and the guide's examples (ctest python_type_check)
  # For the tests that read our reports with other tools: the JSON Schema validator,
  # Google Benchmark's compare.py (libbenchmark-tools) with what it imports, and
  # xmllint (JUnit XML against its schema).
  python3-jsonschema libbenchmark-tools python3-scipy python3-numpy libxml2-utils
  # Headless Chromium: the test that renders report.html and keeps a screenshot.
  chromium
  # A single-node SLURM cluster for tests/slurm/slurm_test.sh (about 4 MB to download).
  slurm-wlm munge
)

# bench_install_packages <package>...: installs those of them that are missing.
bench_install_packages() {
  local missing=() package
  for package in "$@"; do
    [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == 'install ok installed' ]] || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then return 0; fi
  echo "benchhost: installing ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  local start=$SECONDS
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "benchhost: Debian packages installed in $((SECONDS - start)) s"
}

# Whether this machine has an NVIDIA driver to run JAX's CUDA plugin: nvidia-smi works.
bench_has_nvidia_driver() {
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1
}

# The venv, from Debian's python3, with exactly the versions of requirements.txt (PyTorch,
# JAX on the CPU) and, where an NVIDIA driver is, of requirements-jax-cuda.txt (JAX's CUDA
# plugin). pip runs only when those files differ from the copy kept in the venv by the
# last install. Then the pure-Python benchhost package is linked in.
bench_install_python() {
  local files=("$repo_root/scripts/lib/requirements.txt")
  if bench_has_nvidia_driver; then files+=("$repo_root/scripts/lib/requirements-jax-cuda.txt"); fi
  local installed=$venv_dir/benchhost-requirements.txt
  if ! [[ -x $venv_dir/bin/python ]] || ! cmp -s <(cat "${files[@]}") "$installed"; then
    if [[ ! -x $venv_dir/bin/python ]]; then /usr/bin/python3 -m venv "$venv_dir"; fi
    local what="PyTorch, JAX" file arguments=()
    ((${#files[@]} > 1)) && what+=" and its CUDA plugin"
    echo "benchhost: installing the pinned Python packages ($what) into $venv_dir"
    for file in "${files[@]}"; do arguments+=(-r "$file"); done
    local start=$SECONDS
    "$venv_dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${arguments[@]}"
    cat "${files[@]}" >"$installed"
    echo "benchhost: Python packages installed in $((SECONDS - start)) s"
  fi
  bench_link_python_package
}

# `import benchhost` in the venv outside a worker: benchhost.pth in its site-packages
# names sdk/python/package (the compiled module's stubs, a stand-in Context, benchhost.torch,
# python -m benchhost.check). Nothing is copied or downloaded; the file is written only
# when it names another folder. A worker still imports its built-in compiled module:
# Python finds built-in modules before sys.path.
bench_link_python_package() {
  local package=$repo_root/sdk/python/package site
  local sites=("$venv_dir"/lib/python3*/site-packages)
  if ((${#sites[@]} != 1)) || [[ ! -d ${sites[0]} ]]; then
    echo "benchhost: no single site-packages folder in $venv_dir; benchhost is not importable there" >&2
    return 1
  fi
  site=${sites[0]}
  if [[ -f $site/benchhost.pth && $(<"$site/benchhost.pth") == "$package" ]]; then return 0; fi
  printf '%s\n' "$package" >"$site/benchhost.pth"
  echo "benchhost: $site/benchhost.pth makes $package importable (import benchhost outside a worker)"
}

# bench_build run|test: configures build/ once, then builds the target bench_run (what a
# run needs: the host, the SDK, the Python loader, the plugins) or everything. A build
# folder that scripts/bench configured without the tests gets them when scripts/test
# configures it again; what is built already is not built again.
bench_build() {
  local mode=$1
  if [[ ! -f $build_dir/build.ninja ]]; then
    local tests=ON
    [[ $mode == run ]] && tests=OFF
    cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBENCH_PYTHON="$venv_dir/bin/python" \
      -DBENCH_BUILD_TESTS=$tests
  elif [[ $mode == test ]] && ! grep -q '^BENCH_BUILD_TESTS:BOOL=ON$' "$build_dir/CMakeCache.txt"; then
    cmake "$build_dir" -DBENCH_BUILD_TESTS=ON
  fi
  local start=$SECONDS
  if [[ $mode == run ]]; then
    cmake --build "$build_dir" -j "$(nproc)" --target bench_run
  else
    cmake --build "$build_dir" -j "$(nproc)"
  fi
  echo "benchhost: build ($mode) up to date in $((SECONDS - start)) s"
}

# bench_setup run|test: scripts/bench sets up for a run, scripts/test for the tests too.
bench_setup() {
  local mode=${1:-run}
  if [[ $mode == test ]]; then
    bench_install_packages "${bench_run_packages[@]}" "${bench_test_packages[@]}"
  else
    bench_install_packages "${bench_run_packages[@]}"
  fi
  bench_install_python
  bench_build "$mode"
}
