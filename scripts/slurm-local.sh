#!/usr/bin/env bash
# A real cluster run on this machine: starts a single-node Slurm from
# Debian's packages (munge, slurmctld and slurmd, configured without
# cgroups, state in a temporary directory), runs a command as a job array of
# shards with a dependent merge job (scripts/slurm-shards.sh), waits, and
# compares the merged output with the unsharded run's, byte for byte.
#
#   scripts/slurm-local.sh [COUNT] [-- COMMAND...]
#
# Default: 4 shards of `repro towsley91 --figure 2 --format csv`. Needs root
# (it starts daemons) and the packages slurmctld slurmd slurm-client munge;
# with --install it installs them with apt-get. Uses target/release/spindle
# (built if missing). Exit status 0 only if the outputs are identical.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ${1:-} == --install ]]; then
    shift
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi
count=${1:-4}
shift || true
if [[ ${1:-} == -- ]]; then
    shift
    command=("$@")
else
    command=(repro towsley91 --figure 2)
fi
for tool in munged slurmctld slurmd sbatch squeue; do
    if ! command -v "$tool" >/dev/null && ! [[ -x /usr/sbin/$tool ]]; then
        echo "$0: $tool is missing: install slurmctld slurmd slurm-client munge (or pass --install)" >&2
        exit 3
    fi
done
export PATH=$PATH:/usr/sbin
spindle=$root/target/release/spindle
[[ -x $spindle ]] || cargo build --release -p spindle-cli --manifest-path "$root/Cargo.toml"

work=$(mktemp -d /tmp/spindle-slurm.XXXXXX)
host=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/log"
cat >"$work/slurm.conf" <<CONF
ClusterName=spindle
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

started_munge=
cleanup() {
    scontrol shutdown >/dev/null 2>&1 || true
    sleep 1
    [[ -n $started_munge ]] && munged --stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

if ! munge -n </dev/null >/dev/null 2>&1; then
    mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
    [[ -s /etc/munge/munge.key ]] || { mungekey --create >/dev/null 2>&1 || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; }
    chmod 0700 /etc/munge && chmod 0400 /etc/munge/munge.key
    munged --force
    started_munge=1
fi
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 30); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && break
    sleep 1
done
sinfo

echo "unsharded: spindle ${command[*]} --format csv --jobs 1"
"$spindle" "${command[@]}" --format csv --jobs 1 >"$work/whole.csv" 2>/dev/null

SPINDLE=$spindle SPINDLE_MERGE_ARGS="--format csv" \
    SBATCH_ARGS="--cpus-per-task=1" \
    "$root/scripts/slurm-shards.sh" "$count" "$work/out" -- "${command[@]}" --jobs 1
for _ in $(seq 600); do
    [[ -z $(squeue -h 2>/dev/null) ]] && break
    sleep 1
done
if cmp "$work/whole.csv" "$work/out/result.txt"; then
    echo "identical: $count Slurm shards merged = the unsharded run ($(wc -l <"$work/whole.csv") lines; $work)"
else
    echo "DIFFERENT: see $work (merge.log, parts/*.log)" >&2
    exit 1
fi
