# Sourced by scripts/bench and scripts/test: installs the Debian packages that are
# missing, makes the project's virtual environment with the pinned PyTorch
# (scripts/lib/requirements.txt), then configures and builds benchhost (Release) into
# build/ against that torch's LibTorch.
# Idempotent: with everything installed and built, it only checks and returns.

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BENCH_BUILD_DIR:-$repo_root/build}
venv_dir=${BENCH_VENV:-$repo_root/.venv}

# Everything benchhost needs, from Debian 12's own packages.
bench_packages=(
  cmake ninja-build g++ pkg-config git ca-certificates
  python3-venv  # the project's virtual environment, where PyTorch (LibTorch with it) is installed
  python3-dev  # Python.h, which Inductor's C++ compiles include (torch.compile, AOTInductor packages)
  pybind11-dev  # the benchhost module that Python plugins import (the worker embeds CPython)
  libjpeg-dev libpng-dev  # JPEG (libjpeg-turbo) and PNG images for --param dataset=DIR
  libboost-dev libboost-filesystem-dev libyaml-cpp-dev rapidjson-dev libspdlog-dev
  libcli11-dev libelf-dev libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev sqlite3  # the run history (--history), and the command its tests edit it with
  # The run history in PostgreSQL (--history postgresql://...): libpqxx, and the server
  # whose initdb and pg_ctl the tests start a throw-away cluster with.
  libpqxx-dev postgresql
  clang libclang-rt-14-dev  # the fuzz targets (scripts/test)
  clang-format  # the format check (ctest format_test; scripts/format rewrites)
  # For the tests that read our reports with other tools: the JSON Schema validator,
  # Google Benchmark's compare.py (libbenchmark-tools) with what it imports, and
  # xmllint (JUnit XML against its schema).
  python3-jsonschema libbenchmark-tools python3-scipy python3-numpy libxml2-utils
  # Headless Chromium: the test that renders report.html and keeps a screenshot.
  chromium
  # A single-node SLURM cluster for tests/slurm/slurm_test.sh (about 4 MB to download).
  slurm-wlm munge
)

bench_install_packages() {
  local missing=() package
  for package in "${bench_packages[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == 'install ok installed' ]] || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then return 0; fi
  echo "benchhost: installing ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The venv, from Debian's python3, with exactly the versions of requirements.txt. pip runs
# only when that file differs from the copy kept in the venv by the last install.
bench_install_python() {
  local requirements=$repo_root/scripts/lib/requirements.txt
  local installed=$venv_dir/benchhost-requirements.txt
  if [[ -x $venv_dir/bin/python ]] && cmp -s "$requirements" "$installed"; then return 0; fi
  if [[ ! -x $venv_dir/bin/python ]]; then /usr/bin/python3 -m venv "$venv_dir"; fi
  echo "benchhost: installing the pinned Python packages (PyTorch) into $venv_dir"
  local start=$SECONDS
  "$venv_dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
  cp "$requirements" "$installed"
  echo "benchhost: Python packages installed in $((SECONDS - start)) s"
}

bench_build() {
  if [[ ! -f $build_dir/build.ninja ]]; then
    cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBENCH_PYTHON="$venv_dir/bin/python"
  fi
  cmake --build "$build_dir" -j "$(nproc)"
}

bench_setup() {
  bench_install_packages
  bench_install_python
  bench_build
}
