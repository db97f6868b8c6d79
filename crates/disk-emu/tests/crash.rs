//! Power cuts on a drive with a write-back cache, in virtual time: the
//! cache remembers every acknowledged write until its media write ends, so
//! a cut takes only acknowledged, unflushed writes (never one still in
//! service, never a flushed one), and each crash model takes exactly what
//! it allows.

mod support;

use support::{next_outcome, submit_now};

use std::collections::{HashMap, HashSet};

use disk_emu::disk::{DiskModel, Unflushed, WriteBack, preset};
use disk_emu::faults::{CrashModel, Fate, Fault, FaultInjector};
use disk_emu::{Device, DiskDevice, Done, Outcome, Stream};
use sched_core::{Kind, PolicySpec, RequestId};

fn cheetah(write_back: WriteBack) -> DiskDevice {
    let mut spec = preset("cheetah9lp").unwrap();
    spec.cache.as_mut().unwrap().write_back = write_back;
    let model = DiskModel::from_spec(&spec).unwrap();
    DiskDevice::new(model, &PolicySpec::Fcfs, Stream::numbered(1)).unwrap()
}

/// Runs the device to its next completion.
fn next_done<D: Device>(dev: &mut D) -> Done {
    match next_outcome(dev) {
        Outcome::Completed(done) => done,
        other => panic!("{other:?}"),
    }
}

#[test]
fn at_queue_depth_two_a_cut_takes_the_acknowledged_write_not_the_one_in_service() {
    let mut dev = FaultInjector::new(cheetah(WriteBack::All));
    submit_now(&mut dev, 1, Kind::Write, 100_000, 16);
    submit_now(&mut dev, 2, Kind::Write, 300_000, 16);
    let a = next_done(&mut dev);
    assert_eq!(a.request.id, RequestId(1));
    // The second write is in service: it waits for the first one's media
    // write before it takes its own data.
    assert_eq!(dev.serving(0).map(|r| r.id), Some(RequestId(2)));
    let now = dev.now();
    let held = dev.model(0).unwrap().unflushed(now);
    let acked: Vec<&Unflushed> = held.iter().filter(|u| u.acknowledged <= now).collect();
    assert_eq!(acked.len(), 1, "{held:?}");
    assert_eq!(acked[0].id, RequestId(1));
    assert_eq!(acked[0].acknowledged, a.timing.finish);
    let first = acked[0].clone();

    // A FUA write is answered at `durable_at`: no sooner than the media
    // write a write-through twin of the drive does for it.
    let mut twin = FaultInjector::new(cheetah(WriteBack::Off));
    submit_now(&mut twin, 1, Kind::Write, 100_000, 16);
    let t = next_done(&mut twin);
    let media = t.timing.seek + t.timing.rotation + t.timing.transfer;
    assert!(media > 1_000_000, "{:?}", t.timing);
    assert!(first.durable_at >= media, "{first:?} vs {media}");
    assert!(first.durable_at > a.timing.finish);

    let lost = dev.inject(&Fault::PowerCut).unwrap();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].unflushed, first);
    assert_eq!(lost[0].fate, Fate::Lost);
    // The write in service goes on, completes, and is then in the cache.
    let b = next_done(&mut dev);
    assert_eq!(b.request.id, RequestId(2));
    let held = dev.model(0).unwrap().unflushed(dev.now());
    assert_eq!(
        held.iter().map(|u| u.id).collect::<Vec<_>>(),
        [RequestId(2)]
    );
}

#[test]
fn a_write_joining_a_write_back_is_remembered_on_its_own() {
    // Sequential writes arriving back to back join the write-back under
    // way: each keeps its own entry and its own `durable_at`.
    let mut dev = FaultInjector::new(cheetah(WriteBack::All));
    submit_now(&mut dev, 1, Kind::Write, 100_000, 8);
    let a = next_done(&mut dev);
    submit_now(&mut dev, 2, Kind::Write, 100_008, 8);
    let b = next_done(&mut dev);
    let held = dev.model(0).unwrap().unflushed(b.timing.finish);
    assert_eq!(held.len(), 2, "{held:?} after {a:?}");
    assert_eq!(held[0].blocks, 100_000..100_008);
    assert_eq!(held[1].blocks, 100_008..100_016);
    assert!(held[0].durable_at < held[1].durable_at, "{held:?}");
    // A cut between the two media writes takes only the second.
    dev.advance(held[0].durable_at).unwrap();
    let lost = dev.inject(&Fault::PowerCut).unwrap();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].unflushed.id, RequestId(2));
}

/// One run: sequential 8-block writes, two at a time, in runs that join
/// the write-back, a flush (waiting for every held write's media write)
/// after every `flush_every` writes, and a cut after `writes` writes.
/// Returns the held writes at the cut, the writes flushed, and the cut's
/// losses.
struct Cut {
    held: Vec<Unflushed>,
    flushed: HashSet<RequestId>,
    lost: Vec<disk_emu::faults::Lost>,
}

fn run(model: CrashModel, seed: u64, writes: u64) -> Cut {
    let mut dev = FaultInjector::new(cheetah(WriteBack::All)).with_crash_model(model, seed);
    let mut rng = Stream::numbered(seed ^ 0x5eed);
    let mut flushed = HashSet::new();
    let mut done_ids = Vec::new();
    let mut block = 200_000;
    for id in 0..writes {
        // Now and then a write elsewhere, or over one just written.
        if rng.chance(0.1) {
            block = 200_000 + rng.below(64) * 8;
        }
        submit_now(&mut dev, id, Kind::Write, block, 8);
        block += 8;
        if dev.in_system() >= 2 || id + 1 == writes {
            done_ids.push(next_done(&mut dev).request.id);
        }
        if rng.chance(0.05) {
            // A flush: every write answered so far is durable once the
            // last media write the cache holds has ended (those answered
            // while it waits are not covered).
            let covered = done_ids.clone();
            let now = dev.now();
            let until = dev
                .model(0)
                .unwrap()
                .unflushed(now)
                .iter()
                .filter(|u| u.acknowledged <= now)
                .map(|u| u.durable_at)
                .max();
            if let Some(t) = until {
                while dev.now() < t {
                    let next = dev.next_event_time().map_or(t, |e| e.min(t));
                    dev.advance(next).unwrap();
                    while let Some(o) = dev.poll() {
                        if let Outcome::Completed(d) = o {
                            done_ids.push(d.request.id);
                        }
                    }
                }
            }
            flushed.extend(covered);
        }
    }
    let now = dev.now();
    let held: Vec<Unflushed> = dev
        .model(0)
        .unwrap()
        .unflushed(now)
        .into_iter()
        .filter(|u| u.acknowledged <= now)
        .collect();
    let lost = dev.inject(&Fault::PowerCut).unwrap();
    Cut {
        held,
        flushed,
        lost,
    }
}

#[test]
fn each_crash_model_takes_only_what_it_allows() {
    let mut seen: HashMap<CrashModel, [u32; 4]> = HashMap::new();
    for model in CrashModel::ALL {
        for seed in 0..40 {
            let cut = run(model, seed, 30 + seed % 7);
            let held: HashMap<RequestId, &Unflushed> = cut.held.iter().map(|u| (u.id, u)).collect();
            let counts = seen.entry(model).or_default();
            counts[0] += cut.held.len() as u32;
            for l in &cut.lost {
                // Only an acknowledged write the cache held, never a
                // flushed one.
                let h = held.get(&l.unflushed.id).expect("lost a write not held");
                assert_eq!(**h, l.unflushed);
                assert!(!cut.flushed.contains(&l.unflushed.id));
                match l.fate {
                    Fate::Lost => counts[1] += 1,
                    Fate::Torn { kept_blocks } => {
                        assert_eq!(model, CrashModel::Torn);
                        let n = h.blocks.end - h.blocks.start;
                        assert!((1..n).contains(&kept_blocks), "{l:?}");
                        counts[2] += 1;
                    }
                    Fate::Kept => panic!("a kept write is not reported"),
                }
            }
            let lost: HashSet<RequestId> = cut.lost.iter().map(|l| l.unflushed.id).collect();
            counts[3] += (cut.held.len() - lost.len()) as u32;
            match model {
                CrashModel::LoseAll => assert_eq!(lost.len(), cut.held.len()),
                CrashModel::Prefix => {
                    // Kept writes form a prefix of a legal order: a kept
                    // write overlaps no earlier lost one.
                    for (i, u) in cut.held.iter().enumerate() {
                        if lost.contains(&u.id) {
                            continue;
                        }
                        for e in &cut.held[..i] {
                            let overlap =
                                e.blocks.start < u.blocks.end && u.blocks.start < e.blocks.end;
                            assert!(
                                !(overlap && lost.contains(&e.id)),
                                "{cut:?}",
                                cut = cut.held
                            );
                        }
                    }
                }
                CrashModel::Subset | CrashModel::Torn => {}
            }
        }
    }
    // Every model met several writes held at once; the random ones kept
    // some and lost some; `torn` tore some.
    for (model, [held, lost, torn, kept]) in &seen {
        assert!(*held >= 80, "{model}: {held} held");
        match model {
            CrashModel::LoseAll => assert_eq!((*lost, *kept), (*held, 0)),
            CrashModel::Torn => assert!(*torn >= 10 && *kept >= 10, "{model}: {seen:?}"),
            _ => assert!(*lost >= 10 && *kept >= 10, "{model}: {seen:?}"),
        }
    }
}

#[test]
fn the_same_seed_cuts_the_same_writes_and_another_differs() {
    let fates = |seed: u64| -> Vec<(RequestId, Fate)> {
        (0..6)
            .flat_map(|k: u64| run(CrashModel::Torn, seed * 100 + k, 40).lost)
            .map(|l| (l.unflushed.id, l.fate))
            .collect()
    };
    assert_eq!(fates(1), fates(1));
    assert_ne!(fates(1), fates(2));
}
