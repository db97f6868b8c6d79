//! The fault injector's faults, each observed through the `Device` API in
//! virtual time: media errors until rewritten, slow disks, failures and
//! replacements on schedule, power cuts that lose what the write-back cache
//! held, and the conformance suite passing with faults scheduled.

mod support;

use support::{next_outcome, submit_now};

use disk_emu::conformance::{Options, check};
use disk_emu::disk::{DiskModel, preset, presets};
use disk_emu::faults::{Fate, Fault, FaultInjector, RandomFaults, Schedule};
use disk_emu::{ArrayDevice, ArrayOptions, Device, DiskDevice, Outcome, ResyncRate, Stream};
use sched_core::array::DiskState;
use sched_core::{Kind, Nanos, PolicySpec};

fn disk(name: &str) -> DiskDevice {
    let model = DiskModel::from_spec(&preset(name).unwrap()).unwrap();
    DiskDevice::new(model, &PolicySpec::Fcfs, Stream::numbered(1)).unwrap()
}

fn mirror() -> ArrayDevice {
    let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
    ArrayDevice::new(
        vec![model.clone(), model],
        &"dmq".parse().unwrap(),
        vec![Stream::numbered(1), Stream::numbered(2)],
        3,
    )
    .unwrap()
    .with_options(ArrayOptions {
        resync: ResyncRate {
            blocks_per_s: 2e6,
            chunk_blocks: 4096,
        },
        ..ArrayOptions::default()
    })
}

/// Submits one request at the device's clock and runs it to its outcome.
fn one<D: Device>(dev: &mut D, id: u64, kind: Kind, block: u64, blocks: u32) -> Outcome {
    submit_now(dev, id, kind, block, blocks);
    next_outcome(dev)
}

#[test]
fn a_media_error_fails_reads_until_the_range_is_rewritten() {
    let mut dev = FaultInjector::new(disk("hp97560"));
    dev.inject(&Fault::MediaError {
        disk: 0,
        blocks: 5_000..5_016,
    })
    .unwrap();
    assert!(matches!(
        one(&mut dev, 1, Kind::Read, 4_990, 16),
        Outcome::MediaError { block: 5_000, .. }
    ));
    assert!(matches!(
        one(&mut dev, 2, Kind::Read, 4_000, 16),
        Outcome::Completed(_)
    ));
    // Rewriting half the range leaves the other half unreadable.
    assert!(matches!(
        one(&mut dev, 3, Kind::Write, 5_000, 8),
        Outcome::Completed(_)
    ));
    assert!(matches!(
        one(&mut dev, 4, Kind::Read, 5_000, 8),
        Outcome::Completed(_)
    ));
    assert!(matches!(
        one(&mut dev, 5, Kind::Read, 5_000, 16),
        Outcome::MediaError { block: 5_008, .. }
    ));
    assert!(
        dev.inject(&Fault::MediaError {
            disk: 0,
            blocks: 7..7
        })
        .is_err()
    );
    assert!(
        dev.inject(&Fault::MediaError {
            disk: 1,
            blocks: 0..1
        })
        .is_err()
    );
}

#[test]
fn a_slow_disk_takes_k_times_as_long_for_a_while() {
    // The exponential disk's service is one draw: the same stream gives the
    // same draws, so the slowed services are exactly k times the normal ones.
    let model = DiskModel::from_spec(&presets::exponential(100.0)).unwrap();
    let make = || DiskDevice::new(model.clone(), &PolicySpec::Fcfs, Stream::numbered(9)).unwrap();
    let mut normal = FaultInjector::new(make());
    let slow_for: Nanos = 2_000_000_000;
    let mut slow = FaultInjector::new(make()).with_schedule(Schedule::new().at(
        0,
        Fault::Slow {
            disk: 0,
            factor: 3.0,
            duration: slow_for,
        },
    ));
    slow.advance(0).unwrap();
    let mut slowed_then_normal = (0, 0);
    for id in 0..200 {
        let service = |o: Outcome| match o {
            Outcome::Completed(d) => d.timing.service(),
            other => panic!("{other:?}"),
        };
        let a = service(one(&mut normal, id, Kind::Read, id * 8, 8));
        let started = slow.now();
        let b = service(one(&mut slow, id, Kind::Read, id * 8, 8));
        if started < slow_for && started + b <= slow_for {
            assert_eq!(b, (a as f64 * 3.0).round() as Nanos);
            slowed_then_normal.0 += 1;
        } else if started >= slow_for {
            assert_eq!(a, b);
            slowed_then_normal.1 += 1;
        }
    }
    assert!(
        slowed_then_normal.0 > 10 && slowed_then_normal.1 > 10,
        "{slowed_then_normal:?}"
    );
}

/// Replaces disk 1 of a mirror rebuilding `resync_blocks`; returns when
/// (virtual ns after the replacement) it came back online.
fn resync_time(resync_blocks: Option<u64>) -> Nanos {
    let mut dev = mirror().with_options(ArrayOptions {
        resync: ResyncRate {
            blocks_per_s: 2e6,
            chunk_blocks: 4096,
        },
        resync_blocks,
    });
    dev.fail_disk(1).unwrap();
    dev.replace_disk(1).unwrap();
    while let Some(t) = dev.next_event_time() {
        dev.advance(t).unwrap();
        if let Some(Outcome::Resynced { disk: 1, at }) = dev.poll() {
            assert_eq!(dev.disk_state(1).unwrap(), DiskState::Online);
            return at;
        }
    }
    panic!("the resync never ended");
}

#[test]
fn a_resync_rebuilds_only_the_blocks_it_is_told_to() {
    let capacity = mirror().resync_end(0);
    assert_eq!(capacity, 2_684_016, "the HP 97560's blocks");
    let small = mirror().with_options(ArrayOptions {
        resync_blocks: Some(40_960),
        ..ArrayOptions::default()
    });
    assert_eq!(small.resync_end(1), 40_960);
    // Ten chunks of 4096 blocks, then twenty: twice the time, each chunk
    // being a 2 MB write on the HP 97560.
    let ten = resync_time(Some(40_960));
    let twenty = resync_time(Some(81_920));
    let ratio = twenty as f64 / ten as f64;
    assert!(
        (1.8..2.2).contains(&ratio),
        "{ten} ns, {twenty} ns: {ratio}"
    );
    // More than the disk holds is the whole disk.
    let huge = mirror().with_options(ArrayOptions {
        resync_blocks: Some(u64::MAX),
        ..ArrayOptions::default()
    });
    assert_eq!(huge.resync_end(1), capacity);
}

#[test]
fn scheduled_failure_and_replacement_of_a_mirror_disk() {
    let schedule = Schedule::new()
        .at(10_000_000, Fault::FailDisk { disk: 1 })
        .at(20_000_000, Fault::ReplaceDisk { disk: 1 })
        .at(20_000_000, Fault::ReplaceDisk { disk: 1 });
    let mut dev = FaultInjector::new(mirror()).with_schedule(schedule);
    dev.advance(15_000_000).unwrap();
    assert_eq!(dev.disk_state(1).unwrap(), DiskState::Failed);
    let applied = dev.poll_applied().unwrap();
    assert_eq!(
        (applied.at, applied.fault),
        (10_000_000, Fault::FailDisk { disk: 1 })
    );
    dev.advance(20_000_000).unwrap();
    assert!(matches!(
        dev.disk_state(1).unwrap(),
        DiskState::Rebuilding { .. }
    ));
    assert!(dev.poll_applied().unwrap().effect.is_ok());
    // Replacing a disk being rebuilt is refused, and reported, not fatal.
    assert!(dev.poll_applied().unwrap().effect.is_err());
    while let Some(t) = dev.next_event_time() {
        dev.advance(t).unwrap();
    }
    assert!(matches!(
        dev.poll(),
        Some(Outcome::Resynced { disk: 1, .. })
    ));
    assert_eq!(dev.disk_state(1).unwrap(), DiskState::Online);
}

#[test]
fn a_power_cut_loses_exactly_the_unflushed_write_back() {
    // The Cheetah 9LP acknowledges writes once in its buffer.
    let mut dev = FaultInjector::new(disk("cheetah9lp"));
    let Outcome::Completed(w) = one(&mut dev, 1, Kind::Write, 100_000, 16) else {
        panic!()
    };
    let unflushed = dev.model(0).unwrap().unflushed(dev.now());
    assert_eq!(unflushed.len(), 1);
    assert_eq!(unflushed[0].blocks, 100_000..100_016);
    assert!(unflushed[0].durable_at > w.timing.finish);
    let lost = dev.inject(&Fault::PowerCut).unwrap();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].unflushed, unflushed[0]);
    assert_eq!(lost[0].fate, Fate::Lost);
    assert!(dev.model(0).unwrap().unflushed(dev.now()).is_empty());
    // Once the media write is done there is nothing to lose.
    one(&mut dev, 2, Kind::Write, 200_000, 16);
    let durable = dev.model(0).unwrap().unflushed(dev.now())[0].durable_at;
    dev.advance(durable).unwrap();
    assert!(dev.inject(&Fault::PowerCut).unwrap().is_empty());
    // A write-through drive never loses an acknowledged write.
    let mut hp = FaultInjector::new(disk("hp97560"));
    one(&mut hp, 1, Kind::Write, 100, 16);
    assert!(hp.inject(&Fault::PowerCut).unwrap().is_empty());
}

#[test]
fn the_suite_passes_with_random_faults_scheduled() {
    let faults = RandomFaults {
        horizon: 60_000_000_000,
        disks: 2,
        capacity_blocks: 2_000_000,
        failures: 0,
        repair: 0,
        media_errors: 4,
        media_blocks: 200_000,
        slowdowns: 2,
        slow_factor: 2.0,
        slow_for: 5_000_000_000,
        power_cuts: 2,
    };
    let s = check(
        || FaultInjector::new(mirror()).with_schedule(Schedule::random(11, &faults)),
        &Options::default(),
    )
    .unwrap();
    assert!(s.media_errors > 0, "{s:?}");
    assert_eq!(s.resynced, 1);
}
