//! External drivers of the open devices: submitting, cancelling and
//! collecting completions one event at a time on a single disk and on
//! arrays of 2, 3 and 8 disks; a failed disk replaced and resynchronised
//! while requests flow.

use std::collections::{BTreeMap, BTreeSet};

use disk_emu::disk::{DiskModel, presets};
use disk_emu::{
    ArrayDevice, ArrayOptions, DeviceError, DiskDevice, Done, Outcome, Purpose, ResyncRate, Stream,
};
use sched_core::array::{Copies, DiskState, Location};
use sched_core::{CancelError, Kind, Nanos, PolicySpec, Request, RequestId};

fn model() -> DiskModel {
    DiskModel::from_spec(&presets::hp97560()).unwrap()
}

/// The open API both devices share, so one driver exercises them all.
trait Device {
    fn submit_at(&mut self, req: Request, now: Nanos) -> Result<(), DeviceError>;
    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError>;
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError>;
    fn poll(&mut self) -> Option<Outcome>;
    fn next_event_time(&self) -> Option<Nanos>;
    fn now(&self) -> Nanos;
    /// Ids being served, with the disk serving each.
    fn serving(&self) -> Vec<(RequestId, usize)>;
    /// The disks holding a copy of `req`.
    fn holders(&self, req: &Request) -> Vec<usize>;
}

impl Device for DiskDevice {
    fn submit_at(&mut self, req: Request, now: Nanos) -> Result<(), DeviceError> {
        self.submit(req, now)
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        DiskDevice::cancel(self, id)
    }
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        DiskDevice::advance(self, to)
    }
    fn poll(&mut self) -> Option<Outcome> {
        DiskDevice::poll(self)
    }
    fn next_event_time(&self) -> Option<Nanos> {
        DiskDevice::next_event_time(self)
    }
    fn now(&self) -> Nanos {
        DiskDevice::now(self)
    }
    fn serving(&self) -> Vec<(RequestId, usize)> {
        self.in_service().map(|r| (r.id, 0)).into_iter().collect()
    }
    fn holders(&self, _req: &Request) -> Vec<usize> {
        vec![0]
    }
}

/// Two copies per block on an array of `disks` disks: on disks k and k + 1
/// (mod D) for block group k (chained declustering), at the same block.
fn copies(disks: usize, block: u64) -> Copies {
    let k = (block / 8) as usize % disks;
    let at = Location { block, cylinder: 0 };
    if disks == 1 {
        Copies::new().with(0, at)
    } else {
        Copies::new().with(k, at).with((k + 1) % disks, at)
    }
}

impl Device for ArrayDevice {
    fn submit_at(&mut self, req: Request, now: Nanos) -> Result<(), DeviceError> {
        let c = copies(self.disks(), req.block);
        self.submit(req, &c, now)
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        ArrayDevice::cancel(self, id)
    }
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        ArrayDevice::advance(self, to)
    }
    fn poll(&mut self) -> Option<Outcome> {
        ArrayDevice::poll(self)
    }
    fn next_event_time(&self) -> Option<Nanos> {
        ArrayDevice::next_event_time(self)
    }
    fn now(&self) -> Nanos {
        ArrayDevice::now(self)
    }
    fn serving(&self) -> Vec<(RequestId, usize)> {
        (0..self.disks())
            .filter_map(|d| self.serving(d).map(|r| (r.id, d)))
            .collect()
    }
    fn holders(&self, req: &Request) -> Vec<usize> {
        copies(self.disks(), req.block).holders().iter().collect()
    }
}

/// What the driver saw.
#[derive(Default)]
struct Log {
    submitted: BTreeMap<u64, Request>,
    completed: BTreeMap<u64, Done>,
    cancelled: BTreeSet<u64>,
    refused_in_service: u64,
    steps: u64,
}

impl Log {
    fn collect(&mut self, dev: &mut impl Device) {
        while let Some(o) = dev.poll() {
            let Outcome::Completed(done) = o else {
                panic!("unexpected outcome {o:?}");
            };
            let id = done.request.id.0;
            let t = done.timing;
            // Reported when the device reaches the completion, not later.
            assert_eq!(t.finish, dev.now(), "request {id}");
            assert_eq!(
                t.wait + t.seek + t.rotation + t.transfer + t.overhead + t.held,
                t.response(),
                "request {id}: {t:?}"
            );
            assert_eq!((t.held, t.arrival), (0, done.request.arrival));
            assert!(t.service() > 0);
            assert!(done.first_start <= t.start);
            assert!(
                dev.holders(&done.request).contains(&t.disk),
                "request {id} served by disk {} which holds no copy",
                t.disk
            );
            assert_eq!(self.submitted[&id], done.request);
            assert!(
                !self.cancelled.contains(&id),
                "cancelled request {id} completed"
            );
            assert!(
                self.completed.insert(id, done).is_none(),
                "request {id} completed twice"
            );
        }
    }

    /// Advances `dev` one event at a time up to `to`, collecting outcomes.
    fn run_until(&mut self, dev: &mut impl Device, to: Nanos) {
        while let Some(t) = dev.next_event_time().filter(|&t| t <= to) {
            dev.advance(t).unwrap();
            self.steps += 1;
            self.collect(dev);
        }
        dev.advance(to).unwrap();
    }
}

/// Poisson arrivals at `rate` per second, a quarter writes; every fifth
/// arrival cancels an earlier request still open, and every seventh tries
/// to cancel the one in service.
fn drive(dev: &mut impl Device, rate: f64, requests: u64, seed: u64) -> Log {
    let mut rng = Stream::new(seed, 0, Purpose::Arrivals);
    let mut log = Log::default();
    let disk = model();
    let capacity = disk.capacity_blocks();
    let gap = (1e9 / rate) as Nanos;
    let mut now = 0;
    for i in 0..requests {
        now += rng.exponential(gap);
        log.run_until(dev, now);
        let kind = if rng.chance(0.75) {
            Kind::Read
        } else {
            Kind::Write
        };
        let block = rng.below(capacity / 8) * 8;
        let req = Request::new(RequestId(i), kind, block, 8, 0, now).with_class(i as u16 % 3);
        dev.submit_at(req, now).unwrap();
        let mut submitted = req;
        submitted.cylinder = disk.locate(block).unwrap();
        log.submitted.insert(i, submitted);
        if i % 5 == 4 {
            let open: Vec<u64> = log
                .submitted
                .keys()
                .filter(|id| !log.completed.contains_key(id) && !log.cancelled.contains(id))
                .copied()
                .collect();
            if !open.is_empty() {
                let victim = open[rng.below(open.len() as u64) as usize];
                let serving = dev.serving();
                match dev.cancel(RequestId(victim)) {
                    Ok(r) => {
                        assert_eq!(r.id.0, victim);
                        log.cancelled.insert(victim);
                    }
                    // In service, or a write some disk has already written
                    // (withdrawing it would leave the copies inconsistent).
                    Err(DeviceError::Cancel(CancelError::InService(id))) => {
                        assert!(
                            serving.iter().any(|&(s, _)| s == id)
                                || log.submitted[&id.0].kind == Kind::Write,
                            "{id} not in service"
                        );
                        log.refused_in_service += 1;
                    }
                    Err(e) => panic!("cancel {victim}: {e}"),
                }
            }
        }
        if i % 7 == 6
            && let Some(&(id, _)) = dev.serving().first()
        {
            assert!(matches!(
                dev.cancel(id),
                Err(DeviceError::Cancel(CancelError::InService(x))) if x == id
            ));
            log.refused_in_service += 1;
        }
    }
    log.run_until(dev, Nanos::MAX - 1);
    assert_eq!(dev.next_event_time(), None);
    // Nothing lost, nothing duplicated: every request completed or was
    // cancelled, exactly once.
    for id in log.submitted.keys() {
        assert!(
            log.completed.contains_key(id) ^ log.cancelled.contains(id),
            "request {id} lost or both completed and cancelled"
        );
    }
    assert!(
        log.cancelled.len() as u64 > requests / 50,
        "{}",
        log.cancelled.len()
    );
    assert!(log.refused_in_service > 0);
    assert!(log.steps >= log.completed.len() as u64);
    log
}

#[test]
fn external_driver_on_a_single_disk() {
    let mut dev = DiskDevice::new(
        model(),
        &PolicySpec::Sstf,
        Stream::new(1, 0, Purpose::Service),
    )
    .unwrap();
    let log = drive(&mut dev, 30.0, 3_000, 1);
    // Every completion is in the device's statistics, by class.
    let report = dev.report(dev.now());
    assert_eq!(report.completions, log.completed.len() as u64);
    let by_class: u64 = report.classes.iter().map(|c| c.response.count).sum();
    assert_eq!(by_class, report.completions);
    assert_eq!(report.classes.len(), 3);
}

fn array(spec: &str, disks: usize) -> ArrayDevice {
    ArrayDevice::new(
        vec![model(); disks],
        &spec.parse().unwrap(),
        (0..disks)
            .map(|d| Stream::new(2, 0, Purpose::Other(d as u32)))
            .collect(),
        2,
    )
    .unwrap()
}

#[test]
fn external_driver_on_arrays_of_2_3_and_8_disks_under_dmq_and_cmq() {
    for spec in ["dmq", "cmq"] {
        for disks in [2, 3, 8] {
            let mut dev = array(spec, disks);
            // About 60 % of the array's capacity for writes to two copies.
            let rate = 20.0 * disks as f64;
            let log = drive(&mut dev, rate, 3_000, disks as u64);
            let report = dev.report(dev.now());
            assert_eq!(report.disks.len(), disks);
            assert_eq!(report.queues.disk.len(), disks);
            // Every disk did some of the work.
            for (d, usage) in report.disks.iter().enumerate() {
                assert!(
                    usage.completions > 100,
                    "{spec}/{disks}: disk {d} {usage:?}"
                );
            }
            let served: BTreeSet<usize> = log.completed.values().map(|d| d.timing.disk).collect();
            assert_eq!(served.len(), disks, "{spec}/{disks}");
            let classes: u64 = dev.class_report().iter().map(|c| c.response.count).sum();
            assert_eq!(classes, log.completed.len() as u64, "{spec}/{disks}");
        }
    }
}

#[test]
fn inputs_at_a_time_the_device_has_not_reached_are_refused() {
    let mut dev = array("dmq", 2);
    let req = |id, t| Request::new(RequestId(id), Kind::Read, 800, 8, 0, t);
    dev.submit(req(1, 0), &copies(2, 800), 0).unwrap();
    let due = dev.next_event_time().unwrap();
    assert!(matches!(
        dev.submit(req(2, due + 1), &copies(2, 800), due + 1),
        Err(DeviceError::Behind { .. })
    ));
    dev.advance(due).unwrap();
    assert!(matches!(
        dev.submit(req(3, 0), &copies(2, 800), 0),
        Err(DeviceError::TimeWentBack { .. })
    ));
    assert!(matches!(
        dev.submit(req(1 << 63, due), &copies(2, 800), due),
        Err(DeviceError::ReservedId(_))
    ));
    let beyond = model().capacity_blocks();
    assert!(matches!(
        dev.submit(req(4, due), &copies(2, beyond), due),
        Err(DeviceError::Extent { .. })
    ));
    assert!(matches!(
        dev.cancel(RequestId(99)),
        Err(DeviceError::Cancel(CancelError::UnknownId(_)))
    ));
}

/// A mirrored pair under load: disk 1 fails at 20 s, is replaced at 40 s
/// and resynchronised at `rate` while requests keep flowing.
#[test]
fn failed_disk_is_replaced_and_resynced_while_requests_flow() {
    let rate = ResyncRate {
        blocks_per_s: 2_000.0,
        chunk_blocks: 256,
    };
    let mut dev = array("dmq", 2).with_options(ArrayOptions { resync: rate });
    let capacity = model().capacity_blocks();
    let mirrored = |block| {
        let at = Location { block, cylinder: 0 };
        Copies::new().with(0, at).with(1, at)
    };
    let mut rng = Stream::new(9, 0, Purpose::Arrivals);
    let (fail_at, replace_at): (Nanos, Nanos) = (20_000_000_000, 40_000_000_000);
    let mut failed = false;
    let mut replaced = false;
    let mut resynced_at = None;
    // (time, rebuilt_to) of disk 1 after every step of the rebuild.
    let mut marks: Vec<(Nanos, u64)> = Vec::new();
    let mut served = Vec::new(); // (start, disk, block, kind)
    let mut now = 0;
    let mut id = 0;
    let step = |dev: &mut ArrayDevice,
                to: Nanos,
                marks: &mut Vec<(Nanos, u64)>,
                served: &mut Vec<(Nanos, usize, u64, Kind)>,
                resynced_at: &mut Option<Nanos>| {
        while let Some(t) = dev.next_event_time().filter(|&t| t <= to) {
            dev.advance(t).unwrap();
            if let DiskState::Rebuilding { rebuilt_to } = dev.disk_state(1).unwrap() {
                marks.push((t, rebuilt_to));
            }
            while let Some(o) = dev.poll() {
                match o {
                    Outcome::Completed(d) => served.push((
                        d.timing.start,
                        d.timing.disk,
                        d.request.block,
                        d.request.kind,
                    )),
                    Outcome::Resynced { disk: 1, at } => *resynced_at = Some(at),
                    other => panic!("{other:?}"),
                }
            }
        }
        dev.advance(to).unwrap();
    };
    // Run until well after the resync should have finished.
    let expected_resync = capacity as f64 / rate.blocks_per_s;
    let end = replace_at + ((expected_resync + 60.0) * 1e9) as Nanos;
    while now < end {
        now += rng.exponential(50_000_000); // 20 requests per second
        if !failed && now >= fail_at {
            step(&mut dev, fail_at, &mut marks, &mut served, &mut resynced_at);
            dev.fail_disk(1).unwrap();
            failed = true;
        }
        if !replaced && now >= replace_at {
            step(
                &mut dev,
                replace_at,
                &mut marks,
                &mut served,
                &mut resynced_at,
            );
            dev.replace_disk(1).unwrap();
            replaced = true;
        }
        step(&mut dev, now, &mut marks, &mut served, &mut resynced_at);
        let kind = if rng.chance(0.75) {
            Kind::Read
        } else {
            Kind::Write
        };
        let block = rng.below(capacity / 8) * 8;
        dev.submit(
            Request::new(RequestId(id), kind, block, 8, 0, now),
            &mirrored(block),
            now,
        )
        .unwrap();
        id += 1;
    }
    let resynced_at = resynced_at.expect("the resync finished");
    // The resync took the time its rate implies.
    let took = (resynced_at - replace_at) as f64 / 1e9;
    assert!(
        (took / expected_resync - 1.0).abs() < 0.05,
        "resync took {took:.1} s, rate implies {expected_resync:.1} s"
    );
    assert_eq!(dev.disk_state(1).unwrap(), DiskState::Online);
    let mark_at = |t: Nanos| {
        let i = marks.partition_point(|&(at, _)| at <= t);
        if i == 0 { 0 } else { marks[i - 1].1 }
    };
    let mut reads_on_1 = [0u64; 4]; // before failure, failed, rebuilding, after
    for &(start, disk, block, kind) in &served {
        if disk != 1 || kind != Kind::Read {
            continue;
        }
        let phase = if start < fail_at {
            0
        } else if start < replace_at {
            1
        } else if start < resynced_at {
            2
        } else {
            3
        };
        reads_on_1[phase] += 1;
        if phase == 2 {
            assert!(
                block + 8 <= mark_at(start),
                "read of block {block} served by disk 1 at {start} while rebuilt only to {}",
                mark_at(start)
            );
        }
    }
    assert_eq!(reads_on_1[1], 0, "reads served by the failed disk");
    assert!(reads_on_1[0] > 50 && reads_on_1[3] > 50, "{reads_on_1:?}");
    // While rebuilding, reads of the rebuilt part went to it.
    assert!(reads_on_1[2] > 0, "{reads_on_1:?}");
    // The rebuild's writes were real work on disk 1.
    let report = dev.report(dev.now());
    let chunks = capacity.div_ceil(u64::from(rate.chunk_blocks));
    assert!(
        report.disks[1].completions > chunks,
        "{:?}",
        report.disks[1]
    );
}
