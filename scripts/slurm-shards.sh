#!/usr/bin/env bash
# Runs one spindle command as a Slurm job array of COUNT shards, then a merge
# job that starts when every shard has succeeded (afterok).
#
#   scripts/slurm-shards.sh COUNT OUT_DIR -- COMMAND...
#   scripts/slurm-shards.sh 16 results/fig2 -- repro towsley91 --figure 2 --replications 200
#
# Shard i writes OUT_DIR/parts/i.part; the merge writes OUT_DIR/result.txt
# (add --format csv|json to SPINDLE_MERGE_ARGS for another format). The
# spindle binary is $SPINDLE (default: the one on PATH); sbatch options (a
# partition, a time limit) go in $SBATCH_ARGS. Prints the two job ids.
set -euo pipefail

if [[ $# -lt 4 || $3 != "--" ]]; then
    echo "usage: $0 COUNT OUT_DIR -- COMMAND..." >&2
    exit 2
fi
count=$1
out=$2
shift 3
spindle=${SPINDLE:-$(command -v spindle || true)}
if [[ -z $spindle ]]; then
    echo "$0: no spindle binary: set SPINDLE or put spindle on PATH" >&2
    exit 2
fi
if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: COUNT must be a whole number of shards, got '$count'" >&2
    exit 2
fi
mkdir -p "$out/parts"
out=$(cd "$out" && pwd)
quoted=$(printf ' %q' "$@")

array=$(sbatch --parsable ${SBATCH_ARGS:-} --array="0-$((count - 1))" \
    --job-name=spindle-shard --output="$out/parts/%a.log" \
    --wrap="exec $(printf %q "$spindle") --shard \$SLURM_ARRAY_TASK_ID/$count --part $out/parts/\$SLURM_ARRAY_TASK_ID.part$quoted")
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency="afterok:$array" \
    --job-name=spindle-merge --output="$out/merge.log" \
    --wrap="exec $(printf %q "$spindle") merge ${SPINDLE_MERGE_ARGS:-} $out/parts/*.part > $out/result.txt")
echo "shards: job $array (array 0-$((count - 1))), merge: job $merge"
