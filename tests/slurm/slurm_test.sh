#!/usr/bin/env bash
# A real SLURM cluster in a temporary folder: munged, slurmctld and slurmd started from
# Debian's munge and slurm-wlm packages, each with its own socket, ports, state, spool,
# pid and log files. On it:
#   1. a trivial job array (sbatch --array=1-3) checks the cluster itself;
#   2. shards (one node): scripts/slurm/submit runs the mock plugin's plan in 3 shards (a
#      job array of scripts/slurm/benchhost.sbatch) and merges them in a dependent job;
#      the merged summary must hold exactly the scenarios of an unsharded run of the same
#      options;
#   2. ranks (two nodes, two slurmd on this machine, each with a port of its own):
#      scripts/slurm/submit --nodes 2 --ntasks-per-node 1 runs the Python collectives
#      plugin at world size 2 (benchhost run --launcher slurm: the ranks are one srun
#      step, a task on each node); every rank's results must be in the report, the ranks
#      on both nodes; then a rank that raises and one that hangs end their scenarios with
#      the rank named, and no task of theirs is left running.
# The daemons are stopped (by their pid files) and the folder removed however it ends.
#
# Usage: tests/slurm/slurm_test.sh BUILD_DIR [shards|ranks]   (default shards)
#   BUILD_DIR: the build folder (bin/benchhost, plugins/performance/libmock_benchmark.so).
# Environment: BENCH_SLURM_KEEP=1 keeps the temporary folder (its path is printed);
#   BENCH_SLURM_TIMEOUT (seconds, default 300) bounds each wait for the jobs.
# Exit status: 0 passed, 1 failed (the daemons' logs are printed), 77 skipped (ctest's
#   SKIP_RETURN_CODE): SLURM or munge not installed, or this machine cannot run slurmd.
set -uo pipefail

readonly skip_status=77
# The daemons live in /usr/sbin, which is not on the PATH of users other than root.
export PATH=$PATH:/usr/sbin:/sbin
build_dir=${1:?usage: slurm_test.sh BUILD_DIR [shards|ranks]}
part=${2:-shards}
[[ $part == shards || $part == ranks ]] || { echo "slurm_test: the part is shards or ranks, not '$part'" >&2; exit 2; }
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$(cd "$build_dir" && pwd)
benchhost=$build_dir/bin/benchhost
mock_plugin=$build_dir/plugins/performance/libmock_benchmark.so
submit=$source_dir/scripts/slurm/submit
job_timeout=${BENCH_SLURM_TIMEOUT:-300}

say() { printf 'slurm_test: %s\n' "$*"; }
skip() {
  say "SKIPPED: $*"
  exit "$skip_status"
}

# --- What the test needs ---------------------------------------------------------------
for tool in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel python3; do
  command -v "$tool" >/dev/null ||
    skip "$tool is not installed (not on PATH; Debian: apt-get install slurm-wlm munge python3; scripts/lib/setup.sh lists them)"
done
[[ -x $benchhost ]] || { say "FAILED: $benchhost is not built"; exit 1; }
[[ -f $mock_plugin ]] || { say "FAILED: $mock_plugin is not built"; exit 1; }

tmp=
submitted_jobs=()

# The daemons' logs, for a failure.
print_logs() {
  local log
  for log in "$tmp"/munged.log "$tmp"/slurmctld.log "$tmp"/slurmd-*.log "$tmp"/jobs/*.out "$tmp"/results/logs/*.out \
    "$tmp"/ranks-*/logs/*.out; do
    [[ -f $log ]] || continue
    printf '\n----- %s (last 60 lines) -----\n' "$log"
    tail -n 60 "$log"
  done
}

fail() {
  say "FAILED: $*"
  print_logs
  exit 1
}

# Whether process $1 runs. A zombie does not (in a container whose init does not reap, a
# stopped daemon stays one), but a leader thread that has ended while its other threads
# still run, as a daemon shutting down, shows as one too.
alive() {
  local stat tasks
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != Z ]] && return 0
  tasks=(/proc/"$1"/task/*)
  ((${#tasks[@]} > 1))
}

# The slurmstepd processes of this cluster (each job's step daemon), known by the
# SLURM_CONF they inherited from slurmd.
our_stepds() {
  local comm pid
  for comm in /proc/[0-9]*/comm; do
    [[ $(cat "$comm" 2>/dev/null) == slurmstepd ]] || continue
    pid=${comm#/proc/}
    pid=${pid%/comm}
    # Read whole, then matched: grep -q on a pipe under pipefail fails when it exits before
    # the writer has written everything (SIGPIPE).
    grep -qxF "SLURM_CONF=$tmp/slurm.conf" <<<"$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ")" && echo "$pid"
  done
}

# The pid in pid file $1, if that process runs and is the program $2.
daemon_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2"* ]] || return 1
  echo "$pid"
}

# Stops the daemon whose pid is in file $1, if it is still the program $2: TERM, then KILL.
stop_daemon() {
  local pid i
  pid=$(daemon_pid "$1" "$2") || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 100; i++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
  say "$2 (pid $pid) did not stop on SIGTERM: killing it"
  kill -KILL "$pid" 2>/dev/null
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  [[ -n $tmp ]] || exit "$status"
  local i
  if daemon_pid "$tmp/slurmctld.pid" slurmctld >/dev/null && ((${#submitted_jobs[@]} > 0)); then
    # Jobs still running (a failure, a timeout) end before slurmd does.
    scancel "${submitted_jobs[@]}" >/dev/null 2>&1
    local jobs
    jobs=$(IFS=,; echo "${submitted_jobs[*]}")
    for ((i = 0; i < 30; i++)); do
      [[ -z $(squeue -h -j "$jobs" -t PENDING,RUNNING,COMPLETING,SUSPENDED 2>/dev/null) ]] && break
      sleep 1
    done
  fi
  # A step daemon ends a moment after its job; one still there after 10 s is stopped.
  local stepd
  for ((i = 0; i < 100; i++)); do
    [[ -z $(our_stepds) ]] && break
    sleep 0.1
  done
  for stepd in $(our_stepds); do
    say "slurmstepd (pid $stepd) still runs: killing it"
    kill -KILL "$stepd" 2>/dev/null
  done
  local pid_file
  for pid_file in "$tmp"/slurmd-*.pid; do stop_daemon "$pid_file" slurmd; done
  stop_daemon "$tmp/slurmctld.pid" slurmctld
  stop_daemon "$tmp/munged.pid" munged
  if [[ ${BENCH_SLURM_KEEP:-0} == 1 ]]; then
    say "kept $tmp"
  else
    rm -rf "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchhost-slurm.XXXXXX") || exit 1
chmod 0700 "$tmp"
mkdir -p "$tmp"/{state,spool,munge,plugins/performance,jobs}
export SLURM_CONF=$tmp/slurm.conf
# slurmd runs each job's script from its spool folder, in $tmp.
printf '#!/bin/sh\nexit 0\n' >"$tmp/exec-check"
chmod +x "$tmp/exec-check"
"$tmp/exec-check" 2>/dev/null ||
  skip "$tmp: cannot execute files there (mounted noexec?); slurmd runs job scripts from it: set TMPDIR"
# Nothing from the caller's own SLURM set-up (or from a job this test runs inside).
unset SLURM_JOB_ID SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX \
  SLURM_ARRAY_TASK_COUNT SBATCH_PARTITION SBATCH_ACCOUNT SBATCH_TIMELIMIT SLURM_CLUSTERS

# Three TCP ports free on this machine (the kernel's choice; released just before use):
# slurmctld's, and one for each slurmd.
read -r ctld_port slurmd_port slurmd_port2 < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
for s in socks: s.close()') || fail "cannot find free ports"

node=$(uname -n)
node=${node%%.*}
[[ -n $node ]] || skip "this machine has no host name (uname -n is empty); slurmctld needs one"
# The nodes: this machine; or, for the ranks, two nodes on it, each a slurmd of its own
# (SLURM tells them apart by name and port, and reaches both at 127.0.0.1).
if [[ $part == ranks ]]; then
  nodes=(benchhost1 benchhost2)
  ports=("$slurmd_port" "$slurmd_port2")
else
  nodes=("$node")
  ports=("$slurmd_port")
fi
mkdir -p "${nodes[@]/#/$tmp/spool/}"
user=$(id -un) || skip "the current user ($(id -u)) has no name; SLURM needs one"
if [[ $(id -u) -ne 0 ]]; then
  say "note: not root; slurmd runs as $user and can start jobs only for $user"
fi

# SLURM 22.05 resolves every address, 127.0.0.1 included, with getaddrinfo(AF_INET,
# AI_ADDRCONFIG), which finds nothing where the only IPv4 address is the loopback's (a
# container without a network, docker --network none). With IPv6 enabled it asks for
# AF_UNSPEC, which does.
communication=
if ! python3 -c '
import socket
socket.getaddrinfo("127.0.0.1", "6817", socket.AF_INET, socket.SOCK_STREAM, 0,
                   socket.AI_ADDRCONFIG | socket.AI_NUMERICSERV)' 2>/dev/null; then
  say "note: no IPv4 address here but the loopback's: slurm gets CommunicationParameters=EnableIPv6"
  communication=CommunicationParameters=EnableIPv6
fi

# --- munged ----------------------------------------------------------------------------
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 || fail "mungekey failed"
else
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1 count=1024 status=none
fi
chmod 0600 "$tmp/munge/munge.key"
munge_socket=$tmp/munge/munge.sock
munged --force -S "$munge_socket" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munged.seed" >"$tmp/munged.out" 2>&1 ||
  { cat "$tmp/munged.out"; fail "munged did not start"; }
if ! munge -n -S "$munge_socket" 2>/dev/null | unmunge -S "$munge_socket" >/dev/null 2>&1; then
  fail "munged runs but a credential does not round-trip through $munge_socket"
fi

# --- slurm.conf ------------------------------------------------------------------------
# The node as slurmd sees it (CPUs, sockets, cores, threads, memory): configuring more
# than it has would leave the node drained.
hardware=$(slurmd -C 2>/dev/null | head -n 1 | sed -E 's/^NodeName=[^ ]* *//')
[[ $hardware == *CPUs=* ]] || hardware="CPUs=$(nproc)"
cat >"$SLURM_CONF" <<EOF
ClusterName=benchhost-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
SlurmctldPort=$ctld_port
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
$communication
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
$(for i in "${!nodes[@]}"; do
  echo "NodeName=${nodes[i]} NodeHostname=$node NodeAddr=127.0.0.1 Port=${ports[i]} $hardware State=UNKNOWN"
done)
PartitionName=test Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP
EOF

# slurmd (22.05) loads a cgroup plugin whatever the other plugins: autodetected, it
# fails where /sys/fs/cgroup is read-only or unusual (containers). Nothing here uses
# cgroups (proctrack/linuxproc, task/none, no accounting), so it gets cgroup/v1 over an
# empty folder, which it only reads.
mkdir -p "$tmp/cgroup"
cat >"$tmp/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=$tmp/cgroup
CgroupAutomount=no
EOF

# When a daemon does not come up, names the cause if it is one this machine imposes
# (a sandbox without what slurmd needs), and skips; any other cause fails the test.
explain_and_skip() {
  local what=$1
  # Pairs: a pattern of the daemons' logs, the cause it names (the first that matches).
  local causes=(
    'Unable to initialize cgroup plugin' 'slurmd cannot initialise its cgroup plugin in this sandbox'
    'Unable to bind listen port|Address already in use|Error binding slurm stream socket'
    'a port slurm needs is taken or cannot be bound'
    'not a valid controller' "slurmctld does not take this host ($node) for the controller"
    'getaddrinfo\(\) failed|Unable to resolve' 'an address does not resolve here (getaddrinfo)'
    'error: .*Operation not permitted' 'the sandbox forbids an operation slurm needs'
  )
  local i line
  for ((i = 0; i < ${#causes[@]}; i += 2)); do
    line=$(grep -hE "${causes[i]}" "$tmp"/slurmctld.log "$tmp"/slurmd-*.log "$tmp"/slurm*.out 2>/dev/null | head -n 1)
    if [[ -n $line ]]; then
      print_logs
      skip "$what: ${causes[i + 1]} (log: $line)"
    fi
  done
  fail "$what"
}

# --- slurmctld and slurmd --------------------------------------------------------------
# Waits (10 s at most) for daemon $1 to write its pid file $2 and run.
wait_for_daemon() {
  local i
  for ((i = 0; i < 100; i++)); do
    daemon_pid "$2" "$1" >/dev/null && return 0
    sleep 0.1
  done
  explain_and_skip "$1 did not start"
}
slurmctld -c >"$tmp/slurmctld.out" 2>&1 || explain_and_skip "slurmctld did not start"
wait_for_daemon slurmctld "$tmp/slurmctld.pid"
for name in "${nodes[@]}"; do
  slurmd -N "$name" >"$tmp/slurmd-$name.out" 2>&1 || explain_and_skip "slurmd of node $name did not start"
  wait_for_daemon slurmd "$tmp/slurmd-$name.pid"
done

deadline=$((SECONDS + 60))
state=
while ((SECONDS < deadline)); do
  # Every node's state: "idle" once all are.
  state=$(sinfo -h -N -o '%T' 2>/dev/null | sort -u | paste -sd, -)
  [[ $state == idle ]] && break
  daemon_pid "$tmp/slurmctld.pid" slurmctld >/dev/null ||
    explain_and_skip "slurmctld is not running (node states: ${state:-none})"
  for name in "${nodes[@]}"; do
    daemon_pid "$tmp/slurmd-$name.pid" slurmd >/dev/null ||
      explain_and_skip "slurmd of node $name is not running (node states: ${state:-none})"
  done
  sleep 0.5
done
[[ $state == idle ]] || explain_and_skip "nodes ${nodes[*]} are not idle after 60 s (states: ${state:-none})"
say "cluster up: nodes ${nodes[*]} on $node ($hardware), slurmctld port $ctld_port, slurmd ports ${ports[*]}"

# Prints the state of every task of job $1, one per line ("COMPLETED", "FAILED", ...).
job_states() {
  scontrol -o show job "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2
}

# Waits until every task of each job given has ended; fails past $job_timeout seconds.
wait_for_jobs() {
  local deadline=$((SECONDS + job_timeout)) job states running
  while ((SECONDS < deadline)); do
    running=0
    for job in "$@"; do
      states=$(job_states "$job")
      [[ -n $states ]] || fail "slurmctld does not know job $job"
      if grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$' <<<"$states"; then
        running=1
      fi
    done
    ((running)) || return 0
    sleep 1
  done
  scontrol show job "$@"
  fail "jobs $* did not end within $job_timeout s"
}

# Every task of job $1 COMPLETED (exit code 0).
expect_completed() {
  local states
  states=$(job_states "$1")
  if grep -qv '^COMPLETED$' <<<"$states"; then
    scontrol show job "$1"
    fail "job $1 ($2) did not complete: $(tr '\n' ' ' <<<"$states")"
  fi
}

# --- 1. The cluster: a trivial job array -----------------------------------------------
array=$(sbatch --parsable --array=1-3 --output="$tmp/jobs/trivial-%a.out" \
  --wrap "echo \$SLURM_ARRAY_TASK_ID \$SLURM_ARRAY_TASK_COUNT > '$tmp/jobs/task-'\$SLURM_ARRAY_TASK_ID") ||
  fail "sbatch of a trivial job array failed"
array=${array%%;*}
submitted_jobs+=("$array")
wait_for_jobs "$array"
expect_completed "$array" "trivial array"
for k in 1 2 3; do
  [[ $(cat "$tmp/jobs/task-$k" 2>/dev/null) == "$k 3" ]] || fail "array task $k did not write '$k 3'"
done
say "a trivial job array of 3 tasks ran: ok"

# --- 2. ranks: distributed scenarios started by srun, over two nodes ----------------------
if [[ $part == ranks ]]; then
  run_help=$("$benchhost" run --help 2>/dev/null)
  grep -q -- '--launcher' <<<"$run_help" || fail "$benchhost has no 'run --launcher' option"
  python_plugins=$tmp/rank-plugins/performance
  mkdir -p "$python_plugins" "$tmp/out"
  cp "$source_dir/plugins/performance/collectives/collectives.py" "$python_plugins/"

  # Outside an allocation --launcher slurm is refused before anything runs.
  if outside=$(env -u SLURM_JOB_ID "$benchhost" run --plugins-dir "$tmp/rank-plugins" --include collectives \
    --launcher slurm --output-dir "$tmp/outside" 2>&1); then
    fail "benchhost run --launcher slurm outside an allocation succeeded: $outside"
  fi
  grep -q 'not inside a SLURM allocation (SLURM_JOB_ID is not set)' <<<"$outside" ||
    fail "benchhost run --launcher slurm outside an allocation did not say why: $outside"
  say "outside an allocation: $(head -n 1 <<<"$outside")"

  # The collectives at 2 ranks, one on each node: scripts/slurm/submit --nodes 2.
  submitted=$("$submit" --nodes 2 --ntasks-per-node 1 --benchhost "$benchhost" --results "$tmp/ranks-collectives" \
    --parsable -- --quiet --plugins-dir "$tmp/rank-plugins" --include collectives --param sizes=8,4096 \
    --param collective=all_reduce,broadcast --warmup-iterations 1 --measurement-iterations 3 \
    --monitor-interval 0 --timeout 240 2>&1) || { printf '%s\n' "$submitted"; fail "scripts/slurm/submit --nodes 2 failed"; }
  read -r ranks_job ranks_merge_job <<<"$submitted"
  [[ $ranks_job =~ ^[0-9]+$ && $ranks_merge_job =~ ^[0-9]+$ ]] ||
    fail "scripts/slurm/submit --parsable printed '$submitted', not two job ids"
  submitted_jobs+=("$ranks_job" "$ranks_merge_job")
  say "submitted: collectives job $ranks_job (2 nodes), merge job $ranks_merge_job"
  wait_for_jobs "$ranks_job" "$ranks_merge_job"
  expect_completed "$ranks_job" "the collectives over 2 nodes"
  expect_completed "$ranks_merge_job" "their merge"

  # A rank that raises, a rank that hangs (both while the other waits), then a scenario
  # that checks that none of their processes survived; no PyTorch, so that the timeout
  # can be short. In an allocation of its own (sbatch -N 2), as a user would run it.
  cat >"$python_plugins/rank_faults.py" <<'PLUGIN'
import os
import time

import benchhost
import benchhost.distributed as bd


def _record(ctx, name):
    with open(os.path.join(ctx.config.params["out"], f"{name}_rank{bd.rank()}.pid"), "w") as f:
        f.write(str(os.getpid()))


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_step1_raises(ctx):
    _record(ctx, "raises")
    if bd.rank() == 1:
        raise ValueError("rank 1 fails on purpose")
    time.sleep(600)  # as a rank blocked in a collective with its failed peer


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_step2_hangs(ctx):
    _record(ctx, "hangs")
    time.sleep(600)


def _running(pid):
    """The state of process pid ("S", "R", ...), None once it has ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None
    return None if state in ("Z", "X") else state


@benchhost.benchmark(distributed=True, axes={"world_size": [2]})
def benchmark_step3_survivors(ctx):
    out = ctx.config.params["out"]
    pids = {name[:-4]: int(open(os.path.join(out, name)).read()) for name in os.listdir(out) if name.endswith(".pid")}
    # A process SIGKILL reached may take a moment to be gone.
    deadline = time.monotonic() + 2
    while True:
        alive = {name: (pid, _running(pid)) for name, pid in pids.items() if _running(pid)}
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if alive:
        raise RuntimeError("still running: " + ", ".join(f"{n} (pid {p}, state {s})" for n, (p, s) in sorted(alive.items())))
    ctx.add_sample("step", 1.0, "ms")
PLUGIN
  faults_job=$(sbatch --parsable --nodes=2 --ntasks-per-node=1 --output="$tmp/jobs/faults.out" \
    --wrap "exec '$benchhost' run --quiet --launcher slurm --plugins-dir '$tmp/rank-plugins' --include rank_faults \
      --param out='$tmp/out' --measurement-iterations 1 --monitor-interval 0 --timeout 20 \
      --output-dir '$tmp/ranks-faults'") || fail "sbatch of the rank faults failed"
  faults_job=${faults_job%%;*}
  submitted_jobs+=("$faults_job")
  say "submitted: rank faults job $faults_job (2 nodes)"
  wait_for_jobs "$faults_job"
  # benchhost exits 1: scenarios failed, on purpose.
  [[ $(scontrol -o show job "$faults_job" | grep -oE 'ExitCode=[0-9]+' | head -n 1) == ExitCode=1 ]] ||
    { scontrol show job "$faults_job"; fail "the rank faults job did not end with benchhost's status 1"; }

  python3 - "$tmp" <<'CHECK' || fail "the ranks' results are not what srun's ranks should give"
import json, pathlib, sys

tmp = pathlib.Path(sys.argv[1])

def scenarios(folder):
    found = {}
    for path in sorted(folder.rglob("*.json")):
        try:
            report = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(report, dict):
            for s in report.get("benchmark_scenarios", []):
                found[s["scenario_name"]] = s
    return found

problems = []
def expect(condition, what):
    if not condition:
        problems.append(what)

merged = scenarios(tmp / "ranks-collectives" / "merged")
for collective in ("all_reduce", "broadcast"):
    s = merged.get(f"{collective}[world_size=2]")
    if s is None:
        problems.append(f"{collective}[world_size=2] is not in the merged report: {sorted(merged)}")
        continue
    expect(s["status"] == "success", f"{collective}: {s['status']}: {s.get('reason')}")
    info = s.get("info", {})
    expect(info.get("launcher") == "slurm", f"{collective}: info launcher is {info.get('launcher')}")
    expect(info.get("rank_nodes") == "benchhost1 | benchhost2",
           f"{collective}: the ranks ran on {info.get('rank_nodes')}, not one on each node")
    expect(info.get("master_addr") == "127.0.0.1", f"{collective}: master_addr {info.get('master_addr')}")
    expect(info.get("backend") == "gloo", f"{collective}: backend {info.get('backend')}")
    m = s.get("measurements", {})
    for size in ("8B", "4KiB"):
        for series in (f"latency.{size}", f"latency.{size}.rank0", f"latency.{size}.rank1", f"busbw.{size}"):
            values = m.get(series, {}).get("measurements", [])
            expect(len(values) == 3 and all(v > 0 for v in values),
                   f"{collective}: {series} has {values}, not 3 positive samples")
        # The scenario's latency is the slowest rank's, sample by sample.
        both = [m.get(f"latency.{size}.rank{r}", {}).get("measurements", []) for r in (0, 1)]
        whole = m.get(f"latency.{size}", {}).get("measurements", [])
        if all(len(x) == 3 for x in both + [whole]):
            expect(whole == [max(a, b) for a, b in zip(*both)],
                   f"{collective}: latency.{size} {whole} is not the slowest rank's of {both}")
    print(f"{collective}[world_size=2]: {s['status']}, ranks on {info.get('rank_nodes')}, step {info.get('slurm_step')}, "
          f"latency.4KiB rank0 {m['latency.4KiB.rank0']['measurements']} rank1 {m['latency.4KiB.rank1']['measurements']}")

faults = scenarios(tmp / "ranks-faults")
raises = faults.get("step1_raises[world_size=2]", {})
expect(raises.get("status") == "failed", f"step1_raises: {raises.get('status')}")
expect(raises.get("reason", "").startswith("rank 1 of 2: raised ValueError: rank 1 fails on purpose"),
       f"step1_raises: reason {raises.get('reason')!r}")
expect("the host stopped rank 0" in raises.get("reason", ""), f"step1_raises: reason {raises.get('reason')!r}")
hangs = faults.get("step2_hangs[world_size=2]", {})
expect(hangs.get("status") == "timed_out", f"step2_hangs: {hangs.get('status')}: {hangs.get('reason')}")
expect(hangs.get("reason", "").startswith("timed out after 20 s") and "every rank was killed" in hangs.get("reason", ""),
       f"step2_hangs: reason {hangs.get('reason')!r}")
survivors = faults.get("step3_survivors[world_size=2]", {})
expect(survivors.get("status") == "success", f"step3_survivors: {survivors.get('status')}: {survivors.get('reason')}")
for name in ("step1_raises", "step2_hangs", "step3_survivors"):
    s = faults.get(f"{name}[world_size=2]", {})
    print(f"{name}[world_size=2]: {s.get('status')}: {s.get('reason', '')}")
pids = sorted(p.name for p in (tmp / "out").glob("*.pid"))
expect(len(pids) == 4, f"the faulty ranks wrote {pids}, not 4 pid files")
for problem in problems:
    print("  " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
CHECK
  # Nothing of the steps is left: no task of this cluster runs.
  [[ -z $(our_stepds) ]] || sleep 2
  [[ -z $(our_stepds) ]] || fail "step daemons still run after the jobs ended: $(our_stepds | tr '\n' ' ')"
  say "PASSED"
  exit 0
fi

# --- 2. benchhost in 3 shards, merged ----------------------------------------------------
if ! grep -q -- '--shard' <<<"$("$benchhost" run --help 2>/dev/null)"; then
  fail "$benchhost has no 'run --shard' option"
fi
if ! "$benchhost" merge --help >/dev/null 2>&1; then
  fail "$benchhost has no 'merge' subcommand"
fi

# The plugin folder holds only the mock: a rebuild of the build folder's other plugins
# cannot disturb the jobs.
cp "$mock_plugin" "$tmp/plugins/performance/"
# shellcheck disable=SC2054  # the commas belong to the options
run_args=(--plugins-dir "$tmp/plugins" --enable-mock --include mock_benchmark --variants eager,compiled
  --measurement-iterations 3 --monitor-interval 0)

"$benchhost" run --quiet --output-dir "$tmp/unsharded" "${run_args[@]}" >"$tmp/unsharded.out" 2>&1 ||
  { cat "$tmp/unsharded.out"; fail "the unsharded run failed"; }

submitted=$("$submit" --shards 3 --benchhost "$benchhost" --results "$tmp/results" --parsable \
  -- --quiet "${run_args[@]}" 2>&1) || { printf '%s\n' "$submitted"; fail "scripts/slurm/submit failed"; }
read -r shard_job merge_job <<<"$submitted"
[[ $shard_job =~ ^[0-9]+$ && $merge_job =~ ^[0-9]+$ ]] ||
  fail "scripts/slurm/submit --parsable printed '$submitted', not two job ids"
submitted_jobs+=("$shard_job" "$merge_job")
say "submitted: shards job $shard_job, merge job $merge_job"
wait_for_jobs "$shard_job" "$merge_job"
expect_completed "$shard_job" "benchhost shards"
expect_completed "$merge_job" "benchhost merge"

python3 - "$tmp/unsharded" "$tmp/results" <<'EOF' || fail "the merged run does not match the unsharded run"
import json, pathlib, sys

unsharded, results = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

def summary(folder):
    path = folder / "benchmark_summary.json"
    if not path.is_file():
        sys.exit(f"{path} is missing")
    return json.loads(path.read_text())

def ids(s):
    return sorted(entry["scenario_id"] for entry in s["results"])

expected = ids(summary(unsharded))
problems = []
seen = []
fingerprints = set()
for k in (1, 2, 3):
    shard_summary = summary(results / f"shard-{k}")
    shard = shard_summary["run_metadata"].get("shard")
    if shard is None:
        problems.append(f"shard-{k}: run_metadata has no shard")
        continue
    if (shard.get("index"), shard.get("count"), shard.get("plan_scenarios")) != (k, 3, len(expected)):
        problems.append(f"shard-{k}: run_metadata.shard is {shard}, expected index {k}, count 3, "
                        f"plan_scenarios {len(expected)}")
    fingerprints.add(shard.get("plan_fingerprint"))
    seen += ids(shard_summary)
    print(f"shard {k}/3: {len(ids(shard_summary))} scenarios")
if len(fingerprints) != 1:
    problems.append(f"the shards have different plan fingerprints: {sorted(map(str, fingerprints))}")
if sorted(seen) != expected:
    problems.append(f"the shards together ran {sorted(seen)}, the unsharded run {expected}")

merged = summary(results / "merged")
if ids(merged) != expected:
    problems.append(f"merged scenarios {ids(merged)} != unsharded {expected}")
failed = [e["scenario_id"] for e in merged["results"] if e["status"] != "success"]
if failed:
    problems.append(f"merged scenarios not successful: {failed}")
if merged["run_metadata"].get("total_benchmarks") != len(expected):
    problems.append(f"merged total_benchmarks is {merged['run_metadata'].get('total_benchmarks')}")
for problem in problems:
    print("  " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"merged: {len(expected)} scenarios, the same as the unsharded run:")
for scenario in expected:
    print("  " + scenario)
EOF
say "PASSED"
