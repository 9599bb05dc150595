#!/usr/bin/env bash
# A real one-node Slurm cluster (docs/sweep.md, Testing): munged as the munge user, slurmctld and
# slurmd as root with a generated slurm.conf, all in a private temporary folder on free ports.
# Runs a 12-point sweep as a job array and checks that the merged CSV equals the local
# executor's apart from timings; then cancels part of a second array with scancel and checks
# that a rerun completes only the missing points. Stops exactly the daemons it started (trap).
#   slurm_cluster_test.sh TESSERA ASSETS
# Exit 77 (skipped) only when the Slurm or munge binaries are missing or it cannot run as root.
set -euo pipefail
tessera="$1"; assets="$2"

for bin in munged slurmctld slurmd sbatch squeue scancel scontrol sinfo setpriv; do
  if ! command -v "$bin" >/dev/null; then
    echo "SKIP: $bin is not installed (tools/setup-deps.sh installs slurm-wlm and munge)"
    exit 77
  fi
done
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: slurmd must run as root to start jobs; run this test as root (CI does)"
  exit 77
fi
id munge >/dev/null 2>&1 || { echo "FAIL: no munge user (the munge package creates it)"; exit 1; }

work=$(mktemp -d /tmp/tessera-slurm.XXXXXX)
chmod 755 "$work"
pids=()
ok=0
cleanup() {
  # Exactly the daemons this script started, by pid.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$ok" = 1 ]; then
    rm -rf "$work"
  else
    for log in slurmctld.log slurmd.log munge/munged.log; do
      [ -f "$work/$log" ] && { echo "--- $log (last lines)"; tail -20 "$work/$log"; }
    done
    echo "(files kept in $work)"
  fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Free TCP ports for slurmctld and slurmd: random, and nothing listening on them.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    # A port something listens on accepts the connection; a free one refuses it.
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))

# munge: its own key, socket and files in a folder only the munge user can write.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge"
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
setpriv --reuid=munge --regid=munge --init-groups munged --foreground --force --socket="$socket" \
  --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed" > "$work/munge-out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "munged did not create $socket"

node="tessera$(basename "$work" | tr -dc 'a-zA-Z0-9' | tail -c 6)"
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=$node
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
MaxArraySize=10001
NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweep Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" > "$work/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 150); do
  state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "node $node not idle after 30 s (state: '$state')"
echo "cluster up: node $node, $(nproc) CPUs, slurmctld :$ctld_port, slurmd :$slurmd_port"

# 12 points: GPP count x tiling on the patch scene.
cat > "$work/spec.json" <<SPEC
{
  "name": "slurm12",
  "inputs": [{"scene": "$assets/patches.json"}],
  "config": {"frame.width": 64, "frame.height": 36},
  "parameters": {"grid": {"tessellation.gpps": [1, 2, 4, 6, 8, 16], "tiling.mode": ["fixed", "adaptive"]}},
  "metrics": ["tessellation.*", "geometry.gpp.onchip.cycles.*", "tiling.rendered.*", "raster.triangles.*", "frame.threads"],
  "plots": ["geometry.gpp.onchip.cycles.makespan"]
}
SPEC
# The columns that describe the run, not the frame (docs/stats.md): dropped before comparing.
strip() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) drop[i] = ($i == "seconds" || $i == "frame.threads") }
           { out = ""; for (i = 1; i <= NF; ++i) if (!drop[i]) out = out (out == "" ? "" : ",") $i; print out }' "$1"
}

t0=$(date +%s.%N)
"$tessera" sweep "$work/spec.json" --output "$work/local" -j 2 --threads 1 > "$work/local.out" 2>&1 ||
  { cat "$work/local.out"; fail "local sweep failed"; }
t1=$(date +%s.%N)
"$tessera" sweep "$work/spec.json" --output "$work/slurm" --executor slurm --points-per-task 2 --poll 0.3 \
  --threads 1 > "$work/slurm.out" 2>&1 || { cat "$work/slurm.out"; fail "slurm sweep failed"; }
t2=$(date +%s.%N)
cat "$work/slurm.out"
grep -q "6 array tasks, 12 jobs" "$work/slurm.out" || fail "expected 6 array tasks of 2 points"
[ "$(ls "$work/slurm/slurm/submit-0"/task-*.out | wc -l)" -eq 6 ] || fail "expected 6 task outputs"
[ "$(wc -l < "$work/slurm/results.csv")" -eq 13 ] || fail "slurm results.csv should have 12 rows"
if ! diff <(strip "$work/local/results.csv") <(strip "$work/slurm/results.csv"); then
  fail "the Slurm executor's CSV differs from the local executor's"
fi
grep -c ',ok,' "$work/slurm/results.csv" | grep -qx 12 || fail "not every point ok"
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "throughput: local (2 workers) %.1f points/min, one-node slurm %.1f points/min\n", 12 * 60 / (b - a), 12 * 60 / (c - b) }'

# Cancel half of a held array, let the rest run, then rerun: only the missing points run.
"$tessera" sweep "$work/spec.json" --output "$work/partial" --executor slurm --points-per-task 1 --threads 1 \
  --slurm-arg=--hold --detach > "$work/partial.out" 2>&1 || { cat "$work/partial.out"; fail "detached submit failed"; }
job=$(sed -n 's/^submitted Slurm job \([0-9]*\):.*/\1/p' "$work/partial.out")
[ -n "$job" ] || { cat "$work/partial.out"; fail "no job id in the sweep's output"; }
scancel "${job}_[6-11]"
scontrol release "$job"
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "array $job still queued after 120 s"
status_out=$("$tessera" sweep status "$work/partial") && fail "status should report an incomplete sweep" || true
echo "$status_out"
echo "$status_out" | grep -q "6 ok, 0 failed, 6 not run" || fail "expected 6 done and 6 cancelled"
mkdir -p "$work/kept"
cp -p "$work/partial/results"/*.json "$work/kept/"
"$tessera" sweep "$work/spec.json" --output "$work/partial" --executor slurm --threads 1 --poll 0.3 \
  > "$work/rerun.out" 2>&1 || { cat "$work/rerun.out"; fail "rerun failed"; }
cat "$work/rerun.out"
grep -q "12 jobs, 6 done, 6 to submit" "$work/rerun.out" || fail "the rerun should submit only the 6 missing points"
for f in "$work/kept"/*.json; do
  cmp -s "$f" "$work/partial/results/$(basename "$f")" || fail "rerun touched a finished point: $(basename "$f")"
done
diff <(strip "$work/local/results.csv") <(strip "$work/partial/results.csv") ||
  fail "the completed sweep differs from the local executor's"
ok=1
echo "slurm sweep ok"
