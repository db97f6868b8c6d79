//! The eager-writing array's bookkeeping (the EW- and SR-Arrays' groups)
//! under random interleavings of writes, propagations, degree changes and
//! reads, driven directly (no devices): every read returns the newest
//! version acknowledged before it arrived, or a later one (checked against
//! the reference model of acknowledged writes sched-core's consistency
//! oracle uses, `crates/sched-core/tests/support/acknowledged.rs`), no
//! physical slot is owned by two copies, free-space accounting balances, and
//! the delayed-write buffer never exceeds its bound.
//! `SPINDLE_CONSISTENCY_CASES` sets the number of cases (10,000 by default).
//! And the configuration errors name their parameter.

#[path = "../../sched-core/tests/support/acknowledged.rs"]
mod acknowledged;

use std::collections::{HashMap, HashSet};

use acknowledged::Acknowledged;
use std::sync::{Arc, OnceLock};

use disk_emu::Places;
use disk_emu::disk::{DiskModel, presets};
use experiments::free_map::{GroupSpace, TrackTable};
use experiments::replica_map::{DelayedWrites, ReplicaMap};
use experiments::{Layout, Organisation};
use proptest::prelude::*;
use sched_core::array::Location;
use sched_core::{Block, Blocks, Cyl, Direction, Head, Kind, Request, RequestId};

/// One step of the interleaving.
#[derive(Clone, Debug)]
enum Step {
    /// A user write of block `b` arrives.
    Write(u64),
    /// A read of block `b` arrives.
    Read(u64),
    /// The `k`-th operation in flight completes.
    Complete(usize),
    /// The degree of replication changes to 1 or 2.
    Degree(u32),
    /// A buffered propagation of disk `d` is sent.
    Propagate(usize),
}

fn step(blocks: u64) -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..blocks).prop_map(Step::Write),
        3 => (0..blocks).prop_map(Step::Read),
        6 => any::<usize>().prop_map(Step::Complete),
        1 => (1u32..=2).prop_map(Step::Degree),
        2 => (0usize..2).prop_map(Step::Propagate),
    ]
}

/// What is in flight.
#[derive(Clone, Copy, Debug)]
enum Op {
    Read {
        block: u64,
        replica: u32,
        slot: u64,
        /// The input it was submitted at.
        submitted: u64,
    },
    Write {
        block: u64,
        copies: u8,
        replica: u32,
        version: u32,
        slot: u64,
        user: bool,
    },
}

fn cases() -> u32 {
    std::env::var("SPINDLE_CONSISTENCY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Marks `slot` in the set `owned` of a region's slots (fewer than 64);
/// false if it was in it already.
fn claim(owned: &mut u64, slot: u64) -> bool {
    let bit = 1 << slot;
    let fresh = *owned & bit == 0;
    *owned |= bit;
    fresh
}

/// The drive, the layout and its track table, built once for every case.
struct Fixture {
    model: DiskModel,
    layout: Layout,
    table: Arc<TrackTable>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let model = DiskModel::from_spec(&presets::cheetah9lp_sync()).unwrap();
        let organisation = Organisation::EwArray {
            mirrors: 2,
            striping: 1.0,
            dilution: 2.0,
        };
        // Two groups of two disks, 48 blocks; the test drives group 0 (the
        // even blocks): 24 blocks in a region of 48 slots on each disk.
        let layout = Layout::new(organisation, 4, 1 << 20, 48).unwrap();
        let table = Arc::new(TrackTable::new(&model, layout.region, 8).unwrap());
        Fixture {
            model,
            layout,
            table,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn reads_see_the_latest_version_and_the_space_balances(
        steps in proptest::collection::vec(step(24), 1..300)
    ) {
        let Fixture { model, layout, table } = fixture();
        prop_assert_eq!((layout.groups, layout.region, layout.per_disk), (2, 48, 24));
        let mut space = GroupSpace::new(table.clone(), 2);
        let used: HashSet<u64> = (0..24).map(|i| layout.initial_slot(i)).collect();
        for disk in 0..2 {
            for s in (0..layout.region).filter(|s| !used.contains(s)) {
                space.release(disk, s);
            }
        }
        let mut map = ReplicaMap::new(layout);
        let block = |x: u64| 2 * x;
        let mut buffer = DelayedWrites::new(5, 2);
        let mut degree = 2;
        // What each physical slot holds: (block, version).
        let mut content: HashMap<(u32, u64), (u64, u32)> = HashMap::new();
        for b in (0..24).map(block) {
            for r in 0..2 {
                content.insert((r, map.slot(b, r)), (b, 0));
            }
        }
        let mut reference = Acknowledged::new();
        let mut flying: Vec<Op> = Vec::new();
        let mut id = 0;
        // The free slot an eager write takes, if any is left (writes in
        // flight hold slots too: a full region waits).
        let place = |space: &mut GroupSpace, disk: usize, id: u64| -> Option<u64> {
            let found = space
                .nearest_free(disk, model, Head::at(0), id * 1_000_000, Direction::Up, 8)?;
            let req = Request::new(RequestId(id), Kind::Write, Block(0), Blocks(8), Cyl(0), 0);
            space.claim(disk, &req, Location { ..found.at });
            space.take_placement(RequestId(id)).map(|(_, slot)| slot)
        };
        // The script, then as many completions as it had steps: everything
        // in flight lands.
        let drain = steps.len();
        for s in steps.into_iter().chain(std::iter::repeat_n(Step::Complete(0), drain)) {
            id += 1;
            reference.input();
            match s {
                Step::Write(x) => {
                    let b = block(x);
                    let copies = map.writable(b);
                    if copies == 0 {
                        continue;
                    }
                    let replica = copies.trailing_zeros();
                    let Some(slot) = place(&mut space, replica as usize, id) else {
                        continue;
                    };
                    let version = map.write_started(b, copies);
                    reference.write(u64::from(version), b..b + 1);
                    content.insert((replica, slot), (b, version));
                    flying.push(Op::Write { block: b, copies, replica, version, slot, user: true });
                }
                Step::Read(x) => {
                    let b = block(x);
                    let fresh = map.fresh(b);
                    prop_assert!(fresh != 0, "block {} has no fresh copy", b);
                    let replica = fresh.trailing_zeros();
                    map.read_started(b);
                    flying.push(Op::Read {
                        block: b,
                        replica,
                        slot: map.slot(b, replica),
                        submitted: reference.inputs(),
                    });
                }
                Step::Degree(d) => degree = d,
                Step::Propagate(disk) => {
                    let r = disk as u32;
                    if let Some((b, _)) = buffer.next_for(disk) {
                        if map.version(b, r) >= map.current(b) || map.writable(b) & 1 << r == 0 {
                            map.set_pending(b, r, false);
                            buffer.written();
                            continue;
                        }
                        let Some(slot) = place(&mut space, disk, id) else {
                            map.set_pending(b, r, false);
                            buffer.written();
                            continue;
                        };
                        let version = map.propagation_started(b, r);
                        content.insert((r, slot), (b, version));
                        flying.push(Op::Write { block: b, copies: 1 << r, replica: r, version, slot, user: false });
                    }
                }
                Step::Complete(k) => {
                    if flying.is_empty() {
                        continue;
                    }
                    match flying.swap_remove(k % flying.len()) {
                        Op::Read { block: b, replica, slot, submitted } => {
                            let (held, version) = content[&(replica, slot)];
                            prop_assert_eq!(held, b, "a read found another block's data");
                            if let Err(stale) = reference.check_read(b, &[u64::from(version)], submitted) {
                                prop_assert!(false, "stale read: version {} of block {} though {} was acknowledged", stale.got(), b, stale.newest);
                            }
                            for (r, s) in map.read_finished(b) {
                                prop_assert!(space.release(r as usize, s));
                            }
                        }
                        Op::Write { block: b, copies, replica, version, slot, user } => {
                            if !user {
                                map.set_pending(b, replica, false);
                                buffer.written();
                            }
                            if let Some((r, s)) = map.write_done(b, copies, replica, version, Some(slot)) {
                                prop_assert!(space.release(r as usize, s), "slot {} freed twice", s);
                            }
                            if user {
                                reference.acknowledge(u64::from(version));
                            }
                            let other = 1 - replica;
                            if degree == 2 && map.needs_propagation(b, other)
                                && buffer.push(other as usize, b, other) {
                                map.set_pending(b, other, true);
                            }
                        }
                    }
                }
            }
            prop_assert!(buffer.held() <= buffer.capacity());
            // No slot is owned twice, and owned + held + in flight + free
            // is the region on every disk.
            for disk in 0..2u32 {
                // The region's 48 slots, one bit each.
                let mut owned = 0u64;
                for b in (0..24).map(block) {
                    prop_assert!(claim(&mut owned, map.slot(b, disk)), "two blocks own one slot");
                }
                for (r, s) in map.held_slots().filter(|&(r, _)| r == disk) {
                    prop_assert!(claim(&mut owned, s), "a held slot is also owned (replica {})", r);
                }
                for op in &flying {
                    if let Op::Write { replica, slot, .. } = op
                        && *replica == disk {
                        prop_assert!(claim(&mut owned, *slot), "an in-flight write's slot is owned");
                    }
                }
                let free = space.map(disk as usize).count();
                prop_assert_eq!(u64::from(owned.count_ones()) + free, layout.region);
                for s in (0..layout.region).filter(|s| owned & 1 << s != 0) {
                    prop_assert!(!space.map(disk as usize).is_free(s));
                }
            }
        }
        // No acknowledged write lost: every copy the map counts current
        // holds the newest acknowledged version.
        prop_assert!(flying.is_empty());
        for b in (0..24).map(block) {
            for r in (0..2).filter(|r| map.fresh(b) & 1 << r != 0) {
                let (held, version) = content[&(r, map.slot(b, r))];
                prop_assert_eq!(held, b, "a current copy holds another block");
                if let Err(newest) = reference.check_settled(b, u64::from(version)) {
                    prop_assert!(false, "lost write: replica {} of block {} holds version {}, not the acknowledged {}", r, b, version, newest);
                }
            }
        }
    }
}
