//! Silent faults in virtual time: armed by a fault, or drawn per request at
//! seeded rates; decided as requests complete, taken once by the driver,
//! logged; the same seed and the same requests decide the same faults.

mod support;

use support::{next_outcome, submit_now};

use disk_emu::disk::{DiskModel, preset};
use disk_emu::faults::{Fault, FaultInjector, Silent, SilentKind, SilentRates};
use disk_emu::{DiskDevice, Outcome, Stream};
use sched_core::{Kind, PolicySpec, RequestId};

fn hp() -> FaultInjector<DiskDevice> {
    let model = DiskModel::from_spec(&preset("hp97560").unwrap()).unwrap();
    FaultInjector::new(DiskDevice::new(model, &PolicySpec::Fcfs, Stream::numbered(1)).unwrap())
}

fn one(dev: &mut FaultInjector<DiskDevice>, id: u64, kind: Kind, block: u64) {
    submit_now(dev, id, kind, block, 8);
    let o = next_outcome(dev);
    assert!(matches!(o, Outcome::Completed(_)), "{o:?}");
}

#[test]
fn armed_faults_hit_the_next_requests_only() {
    let mut dev = hp();
    dev.inject(&Fault::MisdirectWrites { count: 1 }).unwrap();
    dev.inject(&Fault::CorruptReads { count: 2 }).unwrap();
    dev.inject(&Fault::FailFlushes { count: 1 }).unwrap();
    one(&mut dev, 1, Kind::Write, 1_000);
    one(&mut dev, 2, Kind::Write, 2_000);
    one(&mut dev, 3, Kind::Read, 1_000);
    one(&mut dev, 4, Kind::Read, 1_000);
    one(&mut dev, 5, Kind::Read, 1_000);
    match dev.take_silent(RequestId(1)) {
        Some(Silent::Misdirected { to }) => assert_ne!(to, 1_000),
        other => panic!("{other:?}"),
    }
    assert_eq!(dev.take_silent(RequestId(1)), None, "taken once");
    assert_eq!(dev.take_silent(RequestId(2)), None);
    for id in [3, 4] {
        match dev.take_silent(RequestId(id)) {
            Some(Silent::ReadCorrupted { bit }) => assert!(bit < 8 * 512 * 8),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(dev.take_silent(RequestId(5)), None);
    assert!(dev.flush_fails());
    assert!(!dev.flush_fails());
    let log = dev.silent_log();
    assert_eq!(log.len(), 4);
    assert_eq!(log[3].what, SilentKind::FlushFailed);
    assert!(
        log[0]
            .to_string()
            .contains("request 1 blocks 1000+8: write misdirected to block")
    );
    // A stored block past the disk is refused.
    assert!(
        dev.inject(&Fault::CorruptStored {
            disk: 0,
            block: u64::MAX
        })
        .is_err()
    );
}

#[test]
fn random_silent_faults_follow_the_seed() {
    let run = |seed| {
        let rates = SilentRates {
            seed,
            misdirect: 0.1,
            corrupt_read: 0.2,
            flush_error: 0.05,
            latent: 0.0,
        };
        let mut dev = hp().with_silent_rates(rates);
        let mut flushes_failed = 0;
        for id in 0..1_000 {
            let kind = if id % 2 == 0 { Kind::Write } else { Kind::Read };
            one(&mut dev, id, kind, (id * 97) % 200_000);
            if dev.flush_fails() {
                flushes_failed += 1;
            }
        }
        let count =
            |f: fn(&SilentKind) -> bool| dev.silent_log().iter().filter(|r| f(&r.what)).count();
        let misdirected = count(|k| matches!(k, SilentKind::Misdirected { .. }));
        let corrupt = count(|k| matches!(k, SilentKind::ReadCorrupted { .. }));
        assert_eq!(count(|k| *k == SilentKind::FlushFailed), flushes_failed);
        // 500 writes at 10 %, 500 reads at 20 %, 1000 flushes at 5 %.
        assert!((30..75).contains(&misdirected), "{misdirected}");
        assert!((70..135).contains(&corrupt), "{corrupt}");
        assert!((30..75).contains(&flushes_failed), "{flushes_failed}");
        dev.silent_log()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}
