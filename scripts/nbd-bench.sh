#!/usr/bin/env bash
# The NBD path measured against nbdkit's memory plugin in one run: fio, 4 KB
# random reads over a Unix socket at queue depth 32 and 1, spindle serve on
# the zero-latency disk against `nbdkit memory`, rounds interleaved; prints
# the medians and their ratios (targets: >= 0.8 at QD 32, >= 1.0 at QD 1).
# Then the server's peak memory with 64 clients (fio jobs, each its own
# connection) on a file-backed export, so that the resident set holds the
# server and not the data (target: under 50 MB).
#
# usage: scripts/nbd-bench.sh [ROUNDS] [SECONDS_PER_RUN]
# Needs fio (with its nbd engine) and nbdkit: apt-get install fio nbdkit.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
seconds=${2:-3}
for tool in fio nbdkit; do
    if ! command -v "$tool" >/dev/null; then
        echo "nbd-bench: skipped: $tool is not installed (apt-get install fio nbdkit)"
        exit 0
    fi
done
if ! fio --enghelp=nbd >/dev/null 2>&1; then
    echo "nbd-bench: skipped: this fio has no nbd engine"
    exit 0
fi
cargo build --release -q -p spindle-cli
spindle=target/release/spindle
dir=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

wait_for() { for _ in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.1; done; echo "no socket $1" >&2; exit 1; }

size=256M
"$spindle" serve --disk zero-latency --size "$size" --socket "$dir/spindle.sock" --quiet >/dev/null &
pids+=($!)
nbdkit -f -U "$dir/nbdkit.sock" memory "$size" &
pids+=($!)
wait_for "$dir/spindle.sock"
wait_for "$dir/nbdkit.sock"
uri() { echo "nbd+unix:///?socket=$dir/$1.sock"; }

# The same data on both: random bytes, written once.
for s in spindle nbdkit; do
    fio --name=fill --ioengine=nbd --uri="$(uri $s)" --rw=write --bs=1M --iodepth=8 \
        --size="$size" --refill_buffers --output-format=terse >/dev/null
done

iops() { # server qd
    fio --name=bench --ioengine=nbd --uri="$(uri "$1")" --rw=randread --bs=4k --iodepth="$2" \
        --size="$size" --time_based --runtime="$seconds" --ramp_time=0.5 --output-format=json |
        python3 -c 'import json,sys; t=sys.stdin.read(); print(json.loads(t[t.index("{"):])["jobs"][0]["read"]["iops"])'
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

for qd in 32 1; do
    : >"$dir/spindle.$qd"
    : >"$dir/nbdkit.$qd"
    for _ in $(seq "$rounds"); do
        iops spindle "$qd" >>"$dir/spindle.$qd"
        iops nbdkit "$qd" >>"$dir/nbdkit.$qd"
    done
    s=$(median <"$dir/spindle.$qd")
    k=$(median <"$dir/nbdkit.$qd")
    awk -v qd="$qd" -v s="$s" -v k="$k" -v r="$rounds" 'BEGIN {
        printf "QD %2d: spindle serve %9.0f IOPS, nbdkit memory %9.0f IOPS (medians of %d): ratio %.2f\n", qd, s, k, r, s / k }'
done

# Memory with 64 clients, data in a file.
"$spindle" serve --disk zero-latency --size "$size" --file "$dir/disk.img" \
    --socket "$dir/mem.sock" --quiet >/dev/null &
server=$!
pids+=("$server")
wait_for "$dir/mem.sock"
fio --name=clients --ioengine=nbd --uri="nbd+unix:///?socket=$dir/mem.sock" --rw=randrw --bs=4k \
    --iodepth=8 --numjobs=64 --size="$size" --time_based --runtime="$seconds" \
    --output-format=terse >/dev/null
peak=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
awk -v kb="$peak" 'BEGIN { printf "64 clients: server peak resident memory %.1f MB (data in a file, not resident)\n", kb / 1024 }'
