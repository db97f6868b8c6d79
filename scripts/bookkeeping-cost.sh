#!/usr/bin/env bash
# What the array policies' ordering and resync-barrier bookkeeping costs
# (issue 29's target: at most 10 % of the decision): the decision bench's
# array group (`cargo bench --bench decision -- --arrays`) built twice, as
# is and with the bookkeeping built out by sched-core's test-only features,
# run back to back PAIRS times (alternating which goes first); each pair
# gives the bookkeeping's share of the array's time per logical request and
# of its ratio to the policy it wraps; the medians and quartiles of the
# pairs are printed. Pairs cancel most of a busy machine's drift; quote the
# load average beside the figures.
#
#   scripts/bookkeeping-cost.sh [PAIRS]     (default 30)
#
# Environment: NOBK_TARGET, the target directory of the build without the
# bookkeeping (default target/bookkeeping-out; it takes a release build).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
pairs=${1:-30}
nobk_target=${NOBK_TARGET:-target/bookkeeping-out}
features=sched-core/unordered-writes-for-tests,sched-core/unbarriered-resync-for-tests

bench_binary() {
    cargo bench --bench decision --no-run --message-format=json "$@" 2>/dev/null |
        python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "decision" and m.get("executable"):
        print(m["executable"])'
}
with=$(bench_binary)
without=$(bench_binary --features "$features" --target-dir "$nobk_target")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

out=$(mktemp)
run() { "$2" --bench --arrays 2>&1 | awk -v t="$1" '/^(sq-dmq|cmq)/ {print t, $1, $2, $5}'; }
for i in $(seq 1 "$pairs"); do
    if (( i % 2 )); then run with "$with"; run without "$without"; else run without "$without"; run with "$with"; fi
done >"$out"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" <<'EOF'
import collections, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = collections.defaultdict(lambda: collections.defaultdict(list))
for build, policy, ns, ratio in rows:
    by[policy][build].append((float(ns), float(ratio)))
def q(values, f):
    s = sorted(values)
    return s[int(f * (len(s) - 1))]
print(f"{'array policy':28s} {'ns with':>8s} {'without':>8s} {'x wrapped':>10s} {'without':>8s}  bookkeeping share of the time (of the ratio), median [quartiles]")
for policy, builds in by.items():
    pairs = list(zip(builds["with"], builds["without"]))
    time = [(w[0] - o[0]) / w[0] * 100 for w, o in pairs]
    ratio = [(w[1] - o[1]) / w[1] * 100 for w, o in pairs]
    med = lambda k, b: statistics.median(x[k] for x in builds[b])
    print(f"{policy:28s} {med(0, 'with'):8.0f} {med(0, 'without'):8.0f} {med(1, 'with'):9.2f}x {med(1, 'without'):7.2f}x  "
          f"{statistics.median(time):5.1f} % [{q(time, .25):.1f}, {q(time, .75):.1f}] ({statistics.median(ratio):.1f} % [{q(ratio, .25):.1f}, {q(ratio, .75):.1f}])")
print(f"{len(rows) // 8} pairs")
EOF
rm -f "$out"
