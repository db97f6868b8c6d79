//! The stripe groups of the disk-array experiment (Zhang et al., FAST 2002)
//! pass the `Device` conformance suite of `disk_emu::conformance`: the
//! [`ArrayDevice`](disk_emu::ArrayDevice) with the `EwArray` group policy
//! (SATF-EW per disk and the free-space maps of an EW-Array; SATF with
//! fixed places for a stripe and RAID-10; SATF with rotational replicas for
//! an SR-Array), built exactly as a run builds them. The suite's own cases
//! (single disks, the DMQ/CMQ/single-queue arrays, broken devices) are in
//! `crates/disk-emu/tests/conformance.rs`; these live here because the
//! free-space maps belong to this crate.

use disk_emu::Device;
use disk_emu::conformance::{Options, Summary, check};
use disk_emu::disk::presets;
use experiments::oltp::OltpWorkload;
use experiments::{ArrayExperiment, ArrayWorkload, GroupDevice, Organisation};
use sched_core::RequestId;

/// An array of `disks` Cheetah 9LPs organised as `organisation`, over a
/// database of 200,000 blocks (800 MB).
fn experiment(organisation: Organisation, disks: u32) -> ArrayExperiment {
    ArrayExperiment {
        disk: presets::cheetah9lp_sync(),
        disks,
        organisation,
        workload: ArrayWorkload::Oltp(OltpWorkload::uniform(100.0, 200_000)),
        buffer: 10_000,
        warmup: 0,
        requests: 1,
        seed: 3,
    }
}

/// Fails the test when the run did not exercise what the suite is for.
fn plausible(s: &Summary, what: &str) {
    if let Err(e) = s.exercised(&Options::default()) {
        panic!("{what}: {e}");
    }
}

fn o_requests() -> u64 {
    Options::default().requests
}

#[test]
fn mirrored_groups_conform_with_eager_writes_and_in_place_updates() {
    for (organisation, disks) in [
        (
            Organisation::EwArray {
                mirrors: 2,
                striping: 1.0,
                dilution: 2.0,
            },
            4,
        ),
        (
            Organisation::EwArray {
                mirrors: 2,
                striping: 1.2,
                dilution: 1.6,
            },
            4,
        ),
        (Organisation::Raid10 { background: true }, 4),
    ] {
        let e = experiment(organisation, disks);
        let what = format!("{organisation:?} on {disks} disks");
        let s = check(|| e.group_device(0, 0).unwrap(), &Options::default()).unwrap();
        plausible(&s, &what);
        // Both members of the group may serve every request: one failure
        // loses nothing.
        assert_eq!((s.failed, s.refused), (0, 0), "{what}: {s:?}");
        assert!(s.completed > o_requests() / 2, "{what}: {s:?}");
        assert_eq!(e.group_device(0, 0).unwrap().disks(), 2, "{what}");
    }
}

#[test]
fn single_disk_groups_conform_as_a_stripe_and_with_rotational_replicas() {
    let stripe = experiment(Organisation::Stripe, 2);
    let s = check(|| stripe.group_device(1, 0).unwrap(), &Options::default()).unwrap();
    plausible(&s, "stripe");
    // One disk, one copy: its failure fails or refuses work.
    assert!(s.failed + s.refused > 0, "stripe: {s:?}");

    let sr = experiment(
        Organisation::SrArray {
            striping: 2,
            replicas: 3,
        },
        6,
    );
    let per_disk = sr.layout().unwrap().per_disk;
    // Every request the suite submits (ids 0, 1, …) may be served at any of
    // its block's three rotational copies; the suite cannot know which
    // block, so each id is offered a block of its own.
    let offered = || -> GroupDevice {
        let mut dev = sr.group_device(0, 0).unwrap();
        for id in 0..Options::default().requests {
            dev.places_mut()
                .offer(RequestId(id), (id * 7_919) % per_disk, 0b111);
        }
        dev
    };
    let s = check(offered, &Options::default()).unwrap();
    plausible(&s, "SR-Array 2 × 3");
    assert!(s.failed + s.refused > 0, "SR-Array: {s:?}");
}

#[test]
fn a_group_beyond_the_layout_is_an_error() {
    let e = experiment(Organisation::Stripe, 2);
    assert!(e.group_device(2, 0).is_err());
}
