#!/usr/bin/env bash
# scripts/lib/setup.sh installs JAX's CUDA plugin (requirements-jax-cuda.txt) with the
# pinned packages exactly where an NVIDIA driver answers, and pip runs again only when
# that choice changes. bench_install_python runs against a stand-in venv whose python
# records the pip command instead of running it, with a stand-in nvidia-smi that lists
# a GPU, or fails as it does where no driver is loaded. Nothing is installed.
#
#     jax_cuda_plugin_test.sh SETUP_SH
set -euo pipefail
setup=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
venv=$work/venv
mkdir -p "$venv/bin" "$venv/lib/python3.11/site-packages" "$work/driver" "$work/no-driver"
cat >"$venv/bin/python" <<'PYTHON'
#!/bin/sh
printf '%s\n' "$*" >>"$(dirname "$0")/../pip-calls"
PYTHON
cat >"$work/driver/nvidia-smi" <<'SMI'
#!/bin/sh
echo "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
SMI
cat >"$work/no-driver/nvidia-smi" <<'SMI'
#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
exit 9
SMI
chmod +x "$venv/bin/python" "$work/driver/nvidia-smi" "$work/no-driver/nvidia-smi"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# install <folder of the nvidia-smi to find first>: bench_install_python's output.
install() {
  rm -f "$venv/pip-calls"
  PATH="$1:$PATH" BENCH_VENV=$venv bash -c 'source "$1" && bench_install_python' bash "$setup"
}
calls() { cat "$venv/pip-calls" 2>/dev/null || true; }

out=$(install "$work/no-driver")
[[ $(calls) == *"-r "*"/scripts/lib/requirements.txt"* ]] || fail "no driver: pip was not given requirements.txt: $(calls)"
[[ $(calls) != *requirements-jax-cuda.txt* ]] || fail "no driver: the CUDA plugin was installed: $(calls)"
[[ $out == *"installing the pinned Python packages (PyTorch, JAX) into"* ]] || fail "no driver: said: $out"

out=$(install "$work/no-driver")
[[ -z $(calls) ]] || fail "nothing changed, yet pip ran again: $(calls)"

out=$(install "$work/driver")
[[ $(calls) == *"/scripts/lib/requirements.txt -r "*"/scripts/lib/requirements-jax-cuda.txt"* ]] ||
  fail "a driver: pip was not given both files: $(calls)"
[[ $out == *"(PyTorch, JAX and its CUDA plugin)"* ]] || fail "a driver: said: $out"
grep -q '^jax-cuda13-plugin\[with-cuda\]==' "$venv/benchhost-requirements.txt" ||
  fail "the venv's record of what it holds lacks the plugin"

out=$(install "$work/driver")
[[ -z $(calls) ]] || fail "a driver again: pip ran again: $(calls)"

# Every line of the plugin's file pins an exact version, as requirements.txt's do.
while IFS= read -r line; do
  [[ -z $line || $line == \#* ]] && continue
  [[ $line =~ ^[A-Za-z0-9._-]+(\[[a-z-]+\])?==[0-9][0-9A-Za-z.+]*$ ]] || fail "not an exact pin: $line"
done <"$(dirname "$setup")/requirements-jax-cuda.txt"

((failures == 0)) && echo "PASS: the CUDA plugin installed exactly where a driver answers"
exit $((failures > 0))
