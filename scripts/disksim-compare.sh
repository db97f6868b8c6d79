#!/usr/bin/env bash
# Builds DiskSim 4.0 from public source and compares it with spindle on the
# same inputs: the validation demerit of each drive (DiskSim's `rms` tool and
# `spindle validate`) and the speed of an open random-read FCFS workload on
# the HP C2247A model. Not run in CI: it needs network access (or a source
# tree), a C compiler with 32-bit support and a few minutes.
#
#   scripts/disksim-compare.sh [WORKDIR]
#
# Environment:
#   DISKSIM_TREE   an extracted disksim-4.0 source tree to build instead of
#                  cloning one (e.g. from a tarball of CMU's distribution)
#   DISKSIM_REPO   git repository holding build/disksim-4.0 (default
#                  https://github.com/nmsudatalab/disksim-4.0)
#   VALID_DIR      DiskSim's validation suite (default: the tree's valid/)
#   SPINDLE        the spindle binary (default: built here with cargo)
#   REQUESTS       requests of the synthetic workload (default 200000)
#   INSN_REQUESTS  requests of the instruction count (default 10000; see below)
#   ROUNDS         rounds of the speed comparison, DiskSim and spindle in turn
#                  in each (default 1); the median round's ratio is reported
#
# Requirements (Debian/Ubuntu): build-essential gcc-multilib bison flex bc git;
# valgrind for the instruction ratio (skipped without it).
#
# Why DiskSim 4.0: the drive descriptions spindle reads (`.parv`, `.diskspecs`,
# `.model`, `dm_layout_g1` blocks) are DiskSim 3/4's libparam format; DiskSim
# 2.01 reads an older positional format and cannot run them. DiskSim 4.0 is
# 32-bit code (it stores pointers in ints), hence `gcc -m32`.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/disksim-compare.XXXXXX)}
repo=${DISKSIM_REPO:-https://github.com/nmsudatalab/disksim-4.0}
requests=${REQUESTS:-200000}
rounds=${ROUNDS:-1}
mkdir -p "$work"
echo "work directory: $work"

# --- DiskSim source -----------------------------------------------------------
src="$work/disksim-4.0"
if [ ! -d "$src" ]; then
    if [ -n "${DISKSIM_TREE:-}" ]; then
        cp -r "$DISKSIM_TREE" "$src"
    else
        git clone --depth 1 "$repo" "$work/clone"
        cp -r "$work/clone/build/disksim-4.0" "$src"
    fi
    # Start from sources only: no prebuilt objects, libraries or programs.
    find "$src" \( -name '*.o' -o -name '*.a' -o -name '*.d' \) -delete
    rm -f "$src/src/disksim" "$src/src/rms" "$src/src/hplcomb" "$src/src/physim"
fi

# --- build (-O2, as its Makefiles set, 32-bit) --------------------------------
if [ ! -x "$src/src/disksim" ]; then
    echo "building DiskSim 4.0 (log: $work/build.log)"
    (
        set -e
        for d in libddbg libparam diskmodel memsmodel ssdmodel; do
            make -C "$src/$d" CC="gcc -m32"
        done
        make -C "$src/src/modules" CC="gcc -m32"
        make -C "$src/src" CC="gcc -m32 -Wall -Wno-unused -MD"
    ) > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
fi
disksim="$src/src/disksim"
rms="$src/src/rms"
valid=${VALID_DIR:-$src/valid}

# --- spindle --------------------------------------------------------------------
if [ -z "${SPINDLE:-}" ]; then
    (cd "$here" && cargo build --release -p spindle-cli >/dev/null)
    SPINDLE="$here/target/release/spindle"
fi

seconds() { date +%s.%N; }

# --- validation demerits ---------------------------------------------------------
printf '\n%-12s %14s %14s %12s %12s\n' drive "DiskSim ms" "spindle ms" "DiskSim s" "spindle s"
for drive in hp_c2247a hp_c3323a cheetah9LP ibm18es atlas10k atlas_III barracuda cheetah4LP dec_rz26 hp_c2490a; do
    [ -f "$valid/$drive.parv" ] && [ -f "$valid/$drive.trace" ] || continue
    (
        cd "$valid"
        t0=$(seconds)
        "$disksim" "$drive.parv" "$work/$drive.outv" validate "$drive.trace" 0 >/dev/null 2>&1
        t1=$(seconds)
        ds=$("$rms" "$work/$drive.outv" "$work/$drive.outv" -1 -1 1 | awk '{print $3}')
        t2=$(seconds)
        ours=$("$SPINDLE" --format csv validate --parv "$drive.parv" --trace "$drive.trace" |
            awk -F, 'NR == 2 {print $6}')
        t3=$(seconds)
        printf '%-12s %14.3f %14.3f %12.3f %12.3f\n' "$drive" "$ds" "$ours" \
            "$(echo "$t1 - $t0" | bc)" "$(echo "$t3 - $t2" | bc)"
    )
done
echo "(DiskSim: its rms tool on its bucketed distributions; spindle: exact quantiles.)"

# --- speed: open random 1-block reads, FCFS, HP C2247A -----------------------------
# The same workload in both: Poisson arrivals at 45.3/s (spindle's load 0.8
# of this drive), uniformly random 1-block reads, FCFS, one disk.
# synth_parv N FILE: DiskSim's description of N such requests.
synth_parv() {
    sed -e "s/Number of I\/O requests to generate = .*/Number of I\/O requests to generate = $1,/" \
        -e 's/Maximum time of trace generated .*/Maximum time of trace generated = 1000000000000.0,/' \
        -e 's/Probability of read access = .*/Probability of read access = 1.0,/' \
        -e 's/Probability of time-critical request = .*/Probability of time-critical request = 0.0,/' \
        -e 's/Blocking factor = .*/Blocking factor = 1,/' \
        -e 's/General inter-arrival times *= .*/General inter-arrival times = [ exponential, 0.0, 22.075 ],/' \
        -e 's/Sizes *= .*/Sizes = [ normal, 1.0, 0.0 ]/' \
        "$valid/hp_c2247a.parv" > "$2"
}
synth="$work/hp_c2247a_synth.parv"
synth_parv "$requests" "$synth"
cp "$valid"/hp_c2247a.diskspecs "$valid"/hp_c2247a_validate.model "$valid"/statdefs "$work"/
(
    cd "$work"
    printf '\nOpen random reads, FCFS, HP C2247A, %d requests, %d round(s) (load average %s):\n' \
        "$requests" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
    ratios=""
    for round in $(seq 1 "$rounds"); do
        t0=$(seconds)
        "$disksim" "$synth" "$work/synth.outv" ascii 0 1 >/dev/null 2>&1
        t1=$(seconds)
        ds_s=$(echo "$t1 - $t0" | bc)
        ds_rate=$(echo "$requests / $ds_s" | bc)
        ds_resp=$(grep -m1 "IOdriver Response time average" "$work/synth.outv" | awk '{print $NF}')
        line=$("$SPINDLE" --format csv bench emu --disk hp-c2247a --policy fcfs --load 0.8 \
            --requests "$requests" --runs 3 | awk -F, 'NR == 2')
        ours_rate=$(echo "$line" | awk -F, '{print $4}')
        ours_resp=$(echo "$line" | awk -F, '{print $5}')
        ratio=$(echo "$ours_rate / $ds_rate" | bc -l)
        ratios="$ratios $ratio"
        printf '  round %d: DiskSim 4.0 -O2 %10.0f requests/s, spindle %10.0f requests/s: %5.1f x\n' \
            "$round" "$ds_rate" "$ours_rate" "$ratio"
    done
    printf '  mean response:   DiskSim %s ms, spindle %s ms\n' "$ds_resp" "$ours_resp"
    # The median round (the lower middle one of an even number).
    median=$(printf '%s\n' $ratios | sort -g | awk '{r[NR] = $1} END {print r[int((NR + 1) / 2)]}')
    printf '  ratio:           %10.1f x (median round)\n' "$median"
)

# --- instructions per request: independent of the machine's load -----------------
# Counted by cachegrind on runs of N and 2N requests, so that what each
# program does once (reading its description, building the drive, printing)
# cancels: (instructions(2N) - instructions(N)) / N. DiskSim counts 32-bit
# x86 instructions, spindle x86-64 ones; a figure of work done, not of time.
if command -v valgrind >/dev/null; then
    n=${INSN_REQUESTS:-10000}
    # instructions COMMAND...: the instructions COMMAND executes, counted.
    instructions() {
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            awk '/I *refs:/ {gsub(",", "", $NF); print $NF}'
    }
    (
        cd "$work"
        synth_parv "$n" "$work/insn_1.parv"
        synth_parv "$((2 * n))" "$work/insn_2.parv"
        ds1=$(instructions "$disksim" "$work/insn_1.parv" "$work/insn_1.outv" ascii 0 1)
        ds2=$(instructions "$disksim" "$work/insn_2.parv" "$work/insn_2.outv" ascii 0 1)
        spindle_insn() {
            instructions "$SPINDLE" bench emu --disk hp-c2247a --policy fcfs --load 0.8 \
                --requests "$1" --runs 1
        }
        sp1=$(spindle_insn "$n")
        sp2=$(spindle_insn "$((2 * n))")
        ds_per=$(echo "($ds2 - $ds1) / $n" | bc)
        sp_per=$(echo "($sp2 - $sp1) / $n" | bc)
        printf '\nInstructions per request (cachegrind, runs of %d and %d requests):\n' "$n" "$((2 * n))"
        printf '  DiskSim 4.0 -O2: %10d\n' "$ds_per"
        printf '  spindle:         %10d\n' "$sp_per"
        printf '  ratio:           %10.1f x\n' "$(echo "$ds_per / $sp_per" | bc -l)"
    )
else
    echo "(valgrind not found: no instruction counts)"
fi
