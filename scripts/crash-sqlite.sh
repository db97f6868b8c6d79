#!/usr/bin/env bash
# SQLite's crash recovery on an emulated disk, all in user space:
#
#   scripts/crash-sqlite.sh N [SEED]
#
# 1. An ext4 file system is made on a plain file (the base image).
# 2. `spindle serve` serves a copy of it from an emulated Seagate Cheetah
#    9LP (write-back cache) with --record LOG; `nbdfuse` exposes the export
#    as a file, `fuse2fs` mounts the ext4 on it (needs /dev/fuse).
# 3. SQLite (WAL, synchronous=FULL) commits transactions one by one; after
#    each commit returns, the script notes the log's size: the commit was
#    acknowledged before any crash that cuts the log after that byte.
# 4. `spindle crash-states` builds N crash images from the log, each a
#    state the flush semantics allow (models subset, prefix, torn in turn,
#    seeds SEED, SEED+1, ...). Each is repaired by e2fsck (the restart),
#    mounted with fuse2fs, checked with `PRAGMA integrity_check`, and every
#    acknowledged commit is looked for.
# 5. A negative control does the same with synchronous=OFF (no fsync): it
#    must lose acknowledged commits, showing the check can fail.
#
# Closing line: `crash cycles: N, committed transactions lost: L, integrity
# failures: F` (of the synchronous=FULL run). Exit status 1 if L or F is
# not 0 or the control lost nothing. Skips (exit 0), saying why, where
# FUSE or a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

CYCLES=${1:?usage: scripts/crash-sqlite.sh N [SEED]}
SEED=${2:-1}
TXNS=${TXNS:-40}
SPINDLE=${SPINDLE:-target/release/spindle}

skip() {
    echo "crash-sqlite: skipped: $*"
    exit 0
}
for tool in nbdfuse fuse2fs sqlite3 mkfs.ext4 e2fsck python3; do
    command -v "$tool" >/dev/null || skip "\`$tool\` is missing (apt-get install libnbd-bin nbdkit fuse2fs sqlite3 e2fsprogs python3 fuse3)"
done
FUSERMOUNT=$(command -v fusermount3 || command -v fusermount || true)
[ -n "$FUSERMOUNT" ] || skip "fusermount is missing (apt-get install fuse3)"
[ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not usable here"
python3 -c 'import sqlite3' 2>/dev/null || skip "python3 has no sqlite3 module"
if [ ! -x "$SPINDLE" ]; then
    cargo build --release -p spindle-cli >/dev/null
fi

WORK=$(mktemp -d)
SERVER=
FUSE2FS=

# fuse2fs in the foreground (in the background of this shell), so that an
# unmount can wait for it to have written everything and let go.
mount_ext4() {
    fuse2fs "$1" "$2" -o fakeroot -f >/dev/null 2>&1 &
    FUSE2FS=$!
    for _ in $(seq 100); do
        mountpoint -q "$2" && return 0
        kill -0 "$FUSE2FS" 2>/dev/null || break
        sleep 0.1
    done
    FUSE2FS=
    return 1
}
umount_ext4() {
    "$FUSERMOUNT" -u "$1"
    wait "$FUSE2FS" || true
    FUSE2FS=
}

cleanup() {
    set +e
    for m in "$WORK"/fs "$WORK"/nbd "$WORK"/check; do
        mountpoint -q "$m" 2>/dev/null && "$FUSERMOUNT" -u "$m"
    done
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK"/fs "$WORK"/nbd "$WORK"/check "$WORK"/states

# A probe: can this sandbox mount a FUSE file system at all?
truncate -s 8M "$WORK/probe.img"
mkfs.ext4 -q -F "$WORK/probe.img"
mount_ext4 "$WORK/probe.img" "$WORK/check" || skip "fuse2fs cannot mount here (no FUSE permission)"
umount_ext4 "$WORK/check"

SIZE=$((64 << 20))
truncate -s "$SIZE" "$WORK/base.img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$WORK/base.img"

# One workload: serve, mount, commit TXNS transactions, note each commit's
# log size, unmount, stop. $1: synchronous mode; $2: the run's name.
workload() {
    local sync=$1 name=$2
    cp "$WORK/base.img" "$WORK/$name.img"
    rm -f "$WORK/nbd.sock" "$WORK/ctl.sock"
    "$SPINDLE" serve --disk cheetah9lp --time-scale 10 --size "$SIZE" \
        --file "$WORK/$name.img" --socket "$WORK/nbd.sock" \
        --control "$WORK/ctl.sock" --record "$WORK/$name.log" --quiet \
        >"$WORK/$name.serve.out" 2>&1 &
    SERVER=$!
    for _ in $(seq 100); do [ -S "$WORK/nbd.sock" ] && break; sleep 0.1; done
    # The server advertises the drive's sector as its minimum block size;
    # nbdfuse passes the kernel's unaligned writes on as they come, and
    # libnbd refuses them. nbdkit's blocksize filter turns them into
    # read-modify-writes of whole sectors in between.
    if command -v nbdkit >/dev/null; then
        nbdfuse "$WORK/nbd/disk" [ nbdkit --exit-with-parent --filter=blocksize \
            nbd socket="$WORK/nbd.sock" minblock=512 ] &
    else
        nbdfuse "$WORK/nbd/disk" --unix "$WORK/nbd.sock" &
    fi
    local nbdfuse=$!
    for _ in $(seq 100); do [ -e "$WORK/nbd/disk" ] && break; sleep 0.1; done
    mount_ext4 "$WORK/nbd/disk" "$WORK/fs"
    python3 - "$WORK/fs/db" "$WORK/$name.log" "$sync" "$TXNS" >"$WORK/$name.commits" <<'EOF'
import os, sqlite3, sys
db, log, sync, txns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = sqlite3.connect(db, isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute(f"PRAGMA synchronous={sync}")
c.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v BLOB)")
for i in range(txns):
    c.execute("BEGIN")
    c.execute("INSERT INTO t VALUES (?, ?)", (i, os.urandom(3000)))
    c.execute("COMMIT")
    # The commit returned: acknowledged before any cut after this byte.
    print(i, os.stat(log).st_size, flush=True)
c.close()
EOF
    umount_ext4 "$WORK/fs"
    "$FUSERMOUNT" -u "$WORK/nbd"
    wait "$nbdfuse" || true
    "$SPINDLE" control "$WORK/ctl.sock" shutdown >/dev/null
    wait "$SERVER"
    SERVER=
}

# Checks N crash states of run $1; prints "L F" (commits lost, integrity
# failures).
explore() {
    local name=$1 lost=0 failed=0 models=(subset prefix torn)
    for i in $(seq 0 $((CYCLES - 1))); do
        local model=${models[$((i % 3))]}
        rm -f "$WORK"/states/*
        "$SPINDLE" crash-states "$WORK/$name.log" --out "$WORK/states" --count 1 \
            --seed $((SEED + i)) --model "$model" --base "$WORK/base.img" >>"$WORK/$name.states"
        local img=$WORK/states/crash-0000.img
        local cut
        cut=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["state"]["cut_at_byte"])' "$WORK/states/crash-states.json")
        # The restart: repair the file system, mount it, open the database.
        local rc=0
        e2fsck -fy "$img" >/dev/null 2>&1 || rc=$?
        if [ "$rc" -ge 4 ] || ! mount_ext4 "$img" "$WORK/check"; then
            failed=$((failed + 1))
            echo "cycle $i ($model): file system not recoverable (e2fsck $rc)" >&2
            continue
        fi
        local result
        echo -n "$name: cycle $i ($model, seed $((SEED + i))): cut at log byte $cut: " >&2
        result=$(python3 - "$WORK/check/db" "$WORK/$name.commits" "$cut" <<'EOF'
import os, sqlite3, sys
db, commits, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
acked = [int(l.split()[0]) for l in open(commits) if int(l.split()[1]) <= cut]
print(f"{len(acked)} commits acknowledged before the cut", end="; ", file=sys.stderr)
if not os.path.exists(db):
    print("no database", file=sys.stderr)
    print(len(acked), 0)
    sys.exit()
try:
    c = sqlite3.connect(db)
    ok = c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    have = {r[0] for r in c.execute("SELECT id FROM t")} if c.execute(
        "SELECT count(*) FROM sqlite_master WHERE name='t'").fetchone()[0] else set()
    lost = len([i for i in acked if i not in have])
    print(f"{len(have)} present, {lost} lost, integrity {'ok' if ok else 'FAILED'}", file=sys.stderr)
    print(lost, 0 if ok else 1)
except sqlite3.DatabaseError as e:
    print(f"database error: {e}", file=sys.stderr)
    print(len(acked), 1)
EOF
)
        umount_ext4 "$WORK/check"
        lost=$((lost + ${result% *}))
        failed=$((failed + ${result#* }))
    done
    echo "$lost $failed"
}

workload FULL full
read -r LOST FAILED < <(explore full)
workload OFF off
read -r CONTROL_LOST CONTROL_FAILED < <(explore off)
echo "negative control (synchronous=OFF): crash cycles: $CYCLES, committed transactions lost: $CONTROL_LOST, integrity failures: $CONTROL_FAILED"
echo "crash cycles: $CYCLES, committed transactions lost: $LOST, integrity failures: $FAILED"
if [ "$LOST" -ne 0 ] || [ "$FAILED" -ne 0 ]; then
    exit 1
fi
if [ "$CONTROL_LOST" -eq 0 ]; then
    echo "crash-sqlite: the negative control lost nothing: the check cannot tell" >&2
    exit 1
fi
