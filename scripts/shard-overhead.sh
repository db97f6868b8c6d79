#!/usr/bin/env bash
# The cost of sharding, both sides in one run: the unsharded command with
# --jobs 1 against the sum of COUNT shards' wall times (each --jobs 1, run
# one after another), and the time to merge 1,000 parts.
#
#   scripts/shard-overhead.sh [COUNT] [-- COMMAND...]
#
# Default: 4 shards of `repro towsley91 --figure 2`. Uses
# target/release/spindle (built if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spindle=$root/target/release/spindle
[[ -x $spindle ]] || cargo build --release -p spindle-cli --manifest-path "$root/Cargo.toml"
count=${1:-4}
shift || true
if [[ ${1:-} == -- ]]; then shift; command=("$@"); else command=(repro towsley91 --figure 2); fi
work=$(mktemp -d /tmp/spindle-overhead.XXXXXX)
trap 'rm -rf "$work"' EXIT
now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { print $1 }"; }

t0=$(now)
"$spindle" "${command[@]}" --jobs 1 >"$work/whole.txt" 2>/dev/null
whole=$(calc "$(now) - $t0")
sum=0
for i in $(seq 0 $((count - 1))); do
    t0=$(now)
    "$spindle" --shard "$i/$count" --part "$work/$i.part" "${command[@]}" --jobs 1 2>/dev/null
    sum=$(calc "$sum + $(now) - $t0")
done
"$spindle" merge "$work"/*.part >"$work/merged.txt"
cmp -s "$work/whole.txt" "$work/merged.txt" || { echo "merge differs from the unsharded run" >&2; exit 1; }
printf 'unsharded --jobs 1: %.2f s; %d shards: %.2f s in all; ratio %.3f\n' "$whole" "$count" "$sum" "$(calc "$sum / $whole")"

mkdir "$work/thousand"
for i in $(seq 0 999); do
    "$spindle" --shard "$i/1000" --part "$work/thousand/$i.part" \
        run --policy sstf --load 0.5 --replications 1000 --requests 200 --warmup 10 --jobs 1 2>/dev/null
done
t0=$(now)
"$spindle" merge "$work"/thousand/*.part >/dev/null
printf 'merging 1000 parts: %.3f s\n' "$(calc "$(now) - $t0")"
