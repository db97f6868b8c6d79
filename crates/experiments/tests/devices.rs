//! External drivers of the open devices through the public `Device` trait
//! and the event loop: submitting, cancelling and collecting completions on
//! a single disk and on arrays of 2, 3 and 8 disks; a failed disk replaced
//! and resynchronised while requests flow.

use std::collections::{BTreeMap, BTreeSet};

use disk_emu::disk::{DiskModel, presets};
use disk_emu::{
    ArrayDevice, ArrayOptions, Device, DeviceError, DiskDevice, Done, Outcome, ResyncRate, Stream,
};
use experiments::simulation::{Driver, Flow, Simulation};
use sched_core::array::{Copies, DiskState, Location};
use sched_core::{Block, Blocks, CancelError, Cyl, Kind, Nanos, PolicySpec, Request, RequestId};

fn model() -> DiskModel {
    DiskModel::from_spec(&presets::hp97560()).unwrap()
}

/// Two copies per block on an array of `disks` disks: on disks k and k + 1
/// (mod D) for block group k (chained declustering), at the same block; the
/// one copy of a single disk.
fn copies(disks: usize, block: u64) -> Copies {
    let k = (block / 8) as usize % disks;
    let at = Location { block, cylinder: 0 };
    if disks == 1 {
        Copies::everywhere(1, at)
    } else {
        Copies::new().with(k, at).with((k + 1) % disks, at)
    }
}

/// Poisson arrivals at `rate` per second, a quarter writes; every fifth
/// arrival cancels an earlier request still open, and every seventh tries
/// to cancel the one in service. It checks every outcome as it comes.
struct Checker {
    rng: Stream,
    gap: Nanos,
    requests: u64,
    capacity: u64,
    disk: DiskModel,
    submitted: BTreeMap<u64, Request>,
    completed: BTreeMap<u64, Done>,
    cancelled: BTreeSet<u64>,
    refused_in_service: u64,
    steps: u64,
}

impl Checker {
    fn new(rate: f64, requests: u64, seed: u64) -> Self {
        let disk = model();
        Checker {
            rng: Stream::numbered(seed),
            gap: (1e9 / rate) as Nanos,
            requests,
            capacity: disk.capacity_blocks(),
            disk,
            submitted: BTreeMap::new(),
            completed: BTreeMap::new(),
            cancelled: BTreeSet::new(),
            refused_in_service: 0,
            steps: 0,
        }
    }

    /// Ids being served, with the disk serving each.
    fn serving<D: Device>(dev: &D) -> Vec<(RequestId, usize)> {
        (0..dev.disks())
            .filter_map(|d| dev.serving(d).map(|r| (r.id, d)))
            .collect()
    }
}

impl<D: Device> Driver<D> for Checker {
    /// The arrival of request `u64`.
    type Event = u64;
    type Output = ();
    type Error = DeviceError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<D, u64>,
        now: Nanos,
        i: u64,
    ) -> Result<Flow, DeviceError> {
        let kind = if self.rng.chance(0.75) {
            Kind::Read
        } else {
            Kind::Write
        };
        let block = self.rng.below(self.capacity / 8) * 8;
        let req = Request::new(RequestId(i), kind, Block(block), Blocks(8), Cyl(0), now)
            .with_class(i as u16 % 3);
        let disks = sim.device(0).disks();
        sim.with_device(0, |d| d.submit(req, &copies(disks, block), now))?;
        let mut submitted = req;
        submitted.cylinder = self.disk.locate(block).unwrap();
        self.submitted.insert(i, submitted);
        if i % 5 == 4 {
            let open: Vec<u64> = self
                .submitted
                .keys()
                .filter(|id| !self.completed.contains_key(id) && !self.cancelled.contains(id))
                .copied()
                .collect();
            if !open.is_empty() {
                let victim = open[self.rng.below(open.len() as u64) as usize];
                let serving = Self::serving(sim.device(0));
                match sim.with_device(0, |d| d.cancel(RequestId(victim))) {
                    Ok(r) => {
                        assert_eq!(r.id.0, victim);
                        self.cancelled.insert(victim);
                    }
                    // In service, or a write some disk has already written
                    // (withdrawing it would leave the copies inconsistent).
                    Err(DeviceError::Cancel(CancelError::InService(id))) => {
                        assert!(
                            serving.iter().any(|&(s, _)| s == id)
                                || self.submitted[&id.0].kind == Kind::Write,
                            "{id} not in service"
                        );
                        self.refused_in_service += 1;
                    }
                    Err(e) => panic!("cancel {victim}: {e}"),
                }
            }
        }
        if i % 7 == 6
            && let Some(&(id, _)) = Self::serving(sim.device(0)).first()
        {
            assert!(matches!(
                sim.with_device(0, |d| d.cancel(id)),
                Err(DeviceError::Cancel(CancelError::InService(x))) if x == id
            ));
            self.refused_in_service += 1;
        }
        if i + 1 < self.requests {
            sim.schedule(now + self.rng.exponential(self.gap), i + 1);
        }
        Ok(Flow::Continue)
    }

    fn on_advance(
        &mut self,
        _sim: &mut Simulation<D, u64>,
        _now: Nanos,
        _device: usize,
    ) -> Result<(), DeviceError> {
        self.steps += 1;
        Ok(())
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<D, u64>,
        now: Nanos,
        _device: usize,
        o: Outcome,
    ) -> Result<Flow, DeviceError> {
        let Outcome::Completed(done) = o else {
            panic!("unexpected outcome {o:?}");
        };
        let id = done.request.id.0;
        let t = done.timing;
        // Reported when the device reaches the completion, not later.
        assert_eq!((t.finish, sim.device(0).now()), (now, now), "request {id}");
        assert_eq!(
            t.wait + t.seek + t.rotation + t.transfer + t.overhead + t.held,
            t.response(),
            "request {id}: {t:?}"
        );
        assert_eq!((t.held, t.arrival), (0, done.request.arrival));
        assert!(t.service() > 0);
        assert!(done.first_start <= t.start);
        let disks = sim.device(0).disks();
        assert!(
            copies(disks, done.request.block).holders().contains(t.disk),
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
        Ok(Flow::Continue)
    }

    fn finish(&mut self, sim: &mut Simulation<D, u64>, stopped: bool) -> Result<(), DeviceError> {
        assert!(!stopped);
        assert_eq!(sim.device(0).next_event_time(), None);
        // Nothing lost, nothing duplicated: every request completed or was
        // cancelled, exactly once.
        for id in self.submitted.keys() {
            assert!(
                self.completed.contains_key(id) ^ self.cancelled.contains(id),
                "request {id} lost or both completed and cancelled"
            );
        }
        assert!(
            self.cancelled.len() as u64 > self.requests / 50,
            "{}",
            self.cancelled.len()
        );
        assert!(self.refused_in_service > 0);
        assert!(self.steps >= self.completed.len() as u64);
        Ok(())
    }
}

/// Runs `checker` on `dev`; returns the checker and the device.
fn drive<D: Device>(dev: D, mut checker: Checker) -> (Checker, D) {
    let mut sim = Simulation::new();
    sim.add_device(dev);
    sim.schedule(checker.rng.exponential(checker.gap), 0);
    sim.run(&mut checker).unwrap();
    let dev = sim.into_devices().pop().unwrap();
    (checker, dev)
}

#[test]
fn external_driver_on_a_single_disk() {
    let dev = DiskDevice::new(model(), &PolicySpec::Sstf, Stream::numbered(1)).unwrap();
    let (log, mut dev) = drive(dev, Checker::new(30.0, 3_000, 1));
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
        (0..disks as u64)
            .map(|d| Stream::numbered(20 + d))
            .collect(),
        2,
    )
    .unwrap()
}

#[test]
fn external_driver_on_arrays_of_2_3_and_8_disks_under_dmq_and_cmq() {
    for spec in ["dmq", "cmq"] {
        for disks in [2, 3, 8] {
            // About 60 % of the array's capacity for writes to two copies.
            let rate = 20.0 * disks as f64;
            let (log, mut dev) = drive(array(spec, disks), Checker::new(rate, 3_000, disks as u64));
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
            let classes: u64 = report.classes.iter().map(|c| c.response.count).sum();
            assert_eq!(classes, log.completed.len() as u64, "{spec}/{disks}");
        }
    }
}

#[test]
fn inputs_at_a_time_the_device_has_not_reached_are_refused() {
    let mut dev = array("dmq", 2);
    let req = |id, t| Request::new(RequestId(id), Kind::Read, Block(800), Blocks(8), Cyl(0), t);
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

/// The failure scenario's own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    Arrival,
    Fail,
    Replace,
}

/// A mirrored pair under load: disk 1 fails, is replaced and resynchronised
/// while requests keep flowing. It records disk 1's rebuild mark after
/// every step of the device, and every operation served.
struct Rebuild {
    rng: Stream,
    capacity: u64,
    end: Nanos,
    next_id: u64,
    /// (time, rebuilt_to) of disk 1 after every step of the rebuild.
    marks: Vec<(Nanos, u64)>,
    /// (start, disk, block, kind) of every completed request.
    served: Vec<(Nanos, usize, u64, Kind)>,
    resynced_at: Option<Nanos>,
}

impl Driver<ArrayDevice> for Rebuild {
    type Event = Scenario;
    type Output = ();
    type Error = DeviceError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<ArrayDevice, Scenario>,
        now: Nanos,
        event: Scenario,
    ) -> Result<Flow, DeviceError> {
        match event {
            Scenario::Fail => sim.with_device(0, |d| d.fail_disk(1))?,
            Scenario::Replace => sim.with_device(0, |d| d.replace_disk(1))?,
            Scenario::Arrival => {
                let kind = if self.rng.chance(0.75) {
                    Kind::Read
                } else {
                    Kind::Write
                };
                let block = self.rng.below(self.capacity / 8) * 8;
                let at = Location { block, cylinder: 0 };
                let req = Request::new(
                    RequestId(self.next_id),
                    kind,
                    Block(block),
                    Blocks(8),
                    Cyl(0),
                    now,
                );
                sim.with_device(0, |d| d.submit(req, &Copies::everywhere(2, at), now))?;
                self.next_id += 1;
                let next = now + self.rng.exponential(50_000_000); // 20 requests per second
                if next < self.end {
                    sim.schedule(next, Scenario::Arrival);
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn on_advance(
        &mut self,
        sim: &mut Simulation<ArrayDevice, Scenario>,
        now: Nanos,
        _device: usize,
    ) -> Result<(), DeviceError> {
        if let DiskState::Rebuilding { rebuilt_to } = sim.device(0).disk_state(1)? {
            self.marks.push((now, rebuilt_to));
        }
        Ok(())
    }

    fn on_outcome(
        &mut self,
        _sim: &mut Simulation<ArrayDevice, Scenario>,
        _now: Nanos,
        _device: usize,
        o: Outcome,
    ) -> Result<Flow, DeviceError> {
        match o {
            Outcome::Completed(d) => self.served.push((
                d.timing.start,
                d.timing.disk,
                d.request.block,
                d.request.kind,
            )),
            Outcome::Resynced { disk: 1, at } => self.resynced_at = Some(at),
            other => panic!("{other:?}"),
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        _sim: &mut Simulation<ArrayDevice, Scenario>,
        _stopped: bool,
    ) -> Result<(), DeviceError> {
        Ok(())
    }
}

#[test]
fn failed_disk_is_replaced_and_resynced_while_requests_flow() {
    let rate = ResyncRate {
        blocks_per_s: 2_000.0,
        chunk_blocks: 256,
    };
    let capacity = model().capacity_blocks();
    let (fail_at, replace_at): (Nanos, Nanos) = (20_000_000_000, 40_000_000_000);
    // Run until well after the resync should have finished.
    let expected_resync = capacity as f64 / rate.blocks_per_s;
    let end = replace_at + ((expected_resync + 60.0) * 1e9) as Nanos;
    let mut rebuild = Rebuild {
        rng: Stream::numbered(9),
        capacity,
        end,
        next_id: 0,
        marks: Vec::new(),
        served: Vec::new(),
        resynced_at: None,
    };
    let mut sim = Simulation::new();
    sim.add_device(array("dmq", 2).with_options(ArrayOptions {
        resync: rate,
        ..ArrayOptions::default()
    }));
    sim.schedule(rebuild.rng.exponential(50_000_000), Scenario::Arrival);
    sim.schedule(fail_at, Scenario::Fail);
    sim.schedule(replace_at, Scenario::Replace);
    sim.run(&mut rebuild).unwrap();
    let mut dev = sim.into_devices().pop().unwrap();
    let resynced_at = rebuild.resynced_at.expect("the resync finished");
    // The resync took the time its rate implies.
    let took = (resynced_at - replace_at) as f64 / 1e9;
    assert!(
        (took / expected_resync - 1.0).abs() < 0.05,
        "resync took {took:.1} s, rate implies {expected_resync:.1} s"
    );
    assert_eq!(dev.disk_state(1).unwrap(), DiskState::Online);
    let marks = &rebuild.marks;
    let mark_at = |t: Nanos| {
        let i = marks.partition_point(|&(at, _)| at <= t);
        if i == 0 { 0 } else { marks[i - 1].1 }
    };
    let mut reads_on_1 = [0u64; 4]; // before failure, failed, rebuilding, after
    for &(start, disk, block, kind) in &rebuild.served {
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
