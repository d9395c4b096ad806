#!/usr/bin/env bash
# A one-machine Slurm (Debian's slurm-wlm and munge) to try scripts/slurm/grade-array.sh on:
# slurmctld and slurmd on this host, configured in DIR (default /tmp/cudalab-slurm), as root.
#
#   scripts/slurm/single-node.sh start [DIR]   then: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm/single-node.sh stop [DIR]
set -euo pipefail
what="${1:-start}"; dir="${2:-/tmp/cudalab-slurm}"
if [[ "$what" == stop ]]; then
  for d in slurmd slurmctld; do [[ -f "$dir/$d.pid" ]] && kill "$(cat "$dir/$d.pid")" 2>/dev/null || true; done
  exit 0
fi
command -v slurmctld >/dev/null || { echo "single-node: install Debian's slurm-wlm (apt-get install slurm-wlm)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "single-node: run it as root (slurmd starts jobs as their users)" >&2; exit 2; }
mkdir -p "$dir/state" "$dir/spool"
host="$(hostname -s)"
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
cat > "$dir/slurm.conf" <<CONF
ClusterName=cudalab
SlurmctldHost=$host
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# munge: the key Debian's package made, and the daemon unless one runs.
if ! pgrep -x munged >/dev/null; then
  [[ -f /etc/munge/munge.key ]] || mungekey --create
  mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
  runuser -u munge -- munged || munged --force
fi
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 30); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && { echo "single-node: Slurm is up; export SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 1
done
echo "single-node: the node did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
