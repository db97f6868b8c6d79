//! Every device in the tree passes the `Device` conformance suite, and the
//! suite catches devices that break the contract.

use std::sync::atomic::{AtomicU64, Ordering};

use disk_emu::conformance::{Options, Summary, Violation, check};
use disk_emu::disk::{DiskModel, presets};
use disk_emu::{
    ArrayDevice, ArrayOptions, Device, DeviceError, DiskDevice, DiskReport, FaultInjector, Outcome,
    ResyncRate, Stream,
};
use sched_core::array::{Copies, DiskState};
use sched_core::{Nanos, PolicySpec, Request, RequestId};

fn model() -> DiskModel {
    DiskModel::from_spec(&presets::hp97560()).unwrap()
}

fn disk(policy: &str) -> DiskDevice {
    DiskDevice::new(model(), &policy.parse().unwrap(), Stream::numbered(7)).unwrap()
}

fn array(policy: &str, disks: usize) -> ArrayDevice {
    ArrayDevice::new(
        vec![model(); disks],
        &policy.parse().unwrap(),
        (0..disks as u64).map(Stream::numbered).collect(),
        3,
    )
    .unwrap()
    // A fast resync, so that the replaced disk is back within the run.
    .with_options(ArrayOptions {
        resync: ResyncRate {
            blocks_per_s: 200_000.0,
            chunk_blocks: 512,
        },
        ..ArrayOptions::default()
    })
}

/// Fails the test when the run did not exercise what the suite is for.
fn plausible(s: &Summary, what: &str) {
    if let Err(e) = s.exercised(&Options::default()) {
        panic!("{what}: {e}");
    }
}

#[test]
fn a_single_disk_conforms_under_every_kind_of_policy() {
    for policy in ["fcfs", "sstf", "c-look", "scan", "edf", "ssedo", "sptf"] {
        let s = check(|| disk(policy), &Options::default()).unwrap();
        plausible(&s, policy);
        // A failed single disk takes its queue and refuses work until replaced.
        assert!(s.failed > 0 && s.refused > 0, "{policy}: {s:?}");
    }
}

#[test]
fn arrays_conform_under_dmq_cmq_and_the_single_queue_family() {
    for (policy, disks) in [
        ("dmq", 2),
        ("rt-dmq", 3),
        ("mr-dmq", 2),
        ("dmq-mr", 2),
        ("ivy-dmq", 4),
        ("md-raid1", 2),
        ("cmq", 2),
        ("rt-cmq-w", 3),
        ("s-pssq", 2),
        ("mr-esq", 2),
        ("cru-esq", 8),
    ] {
        let what = format!("{policy} on {disks} disks");
        let s = check(|| array(policy, disks), &Options::default()).unwrap();
        plausible(&s, &what);
        // Every block has a second copy: one failure loses nothing.
        assert_eq!((s.failed, s.refused), (0, 0), "{what}: {s:?}");
    }
}

#[test]
fn the_fault_injector_with_no_fault_conforms_and_changes_nothing() {
    for policy in ["fcfs", "sptf"] {
        let plain = check(|| disk(policy), &Options::default()).unwrap();
        let wrapped = check(|| FaultInjector::new(disk(policy)), &Options::default()).unwrap();
        assert_eq!(plain, wrapped, "{policy}");
    }
    for policy in ["rt-dmq", "cmq"] {
        let plain = check(|| array(policy, 2), &Options::default()).unwrap();
        let wrapped = check(|| FaultInjector::new(array(policy, 2)), &Options::default()).unwrap();
        assert_eq!(plain, wrapped, "{policy}");
        plausible(&wrapped, policy);
    }
}

/// A device whose factory is shared, so that the suite's two runs differ.
struct Drifting {
    inner: DiskDevice,
}

static RUNS: AtomicU64 = AtomicU64::new(0);

/// What a broken device gets wrong.
#[derive(Clone, Copy)]
enum Fault {
    /// Swallows one completion.
    Loses,
    /// Reports one completion twice.
    Repeats,
    /// Misstates the seek of every completion by a nanosecond.
    Mistimes,
    /// Accepts inputs at a time behind a due event.
    Skips,
    /// Withdraws the request in service.
    CancelsInService,
}

/// A single disk with one deliberate fault.
struct Broken {
    inner: DiskDevice,
    fault: Fault,
    completions: u64,
    repeat: Option<Outcome>,
}

impl Broken {
    fn new(fault: Fault) -> Self {
        Broken {
            inner: disk("sstf"),
            fault,
            completions: 0,
            repeat: None,
        }
    }
}

impl Device for Broken {
    type Report = DiskReport;

    fn submit(&mut self, req: Request, copies: &Copies, now: Nanos) -> Result<(), DeviceError> {
        if let Fault::Skips = self.fault
            && self.inner.next_event_time().is_some_and(|due| due < now)
        {
            // Accepted, and quietly dropped.
            return Ok(());
        }
        self.inner.submit(req, copies, now)
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        match (self.fault, self.inner.serving(0)) {
            (Fault::CancelsInService, Some(r)) if r.id == id => Ok(*r),
            _ => self.inner.cancel(id),
        }
    }
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        self.inner.advance(to)
    }
    fn fail_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.inner.fail_disk(disk)
    }
    fn replace_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.inner.replace_disk(disk)
    }
    fn reset_stats(&mut self) {
        self.inner.reset_stats();
    }
    fn poll(&mut self) -> Option<Outcome> {
        if let Some(o) = self.repeat.take() {
            return Some(o);
        }
        let mut o = self.inner.poll()?;
        if let Outcome::Completed(done) = &mut o {
            self.completions += 1;
            match self.fault {
                Fault::Loses if self.completions == 100 => return self.inner.poll(),
                Fault::Repeats if self.completions == 100 => self.repeat = Some(o),
                Fault::Mistimes => done.timing.seek += 1,
                _ => {}
            }
        }
        Some(o)
    }
    fn next_event_time(&self) -> Option<Nanos> {
        self.inner.next_event_time()
    }
    fn now(&self) -> Nanos {
        self.inner.now()
    }
    fn disks(&self) -> usize {
        1
    }
    fn disk_state(&self, disk: usize) -> Result<DiskState, DeviceError> {
        self.inner.disk_state(disk)
    }
    fn serving(&self, disk: usize) -> Option<&Request> {
        self.inner.serving(disk)
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
    fn in_system(&self) -> usize {
        self.inner.in_system()
    }
    fn model(&self, disk: usize) -> Option<&DiskModel> {
        self.inner.model(disk)
    }
    fn report(&mut self, end: Nanos) -> DiskReport {
        self.inner.report(end)
    }
}

impl Device for Drifting {
    type Report = DiskReport;

    fn submit(&mut self, req: Request, copies: &Copies, now: Nanos) -> Result<(), DeviceError> {
        self.inner.submit(req, copies, now)
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        self.inner.cancel(id)
    }
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        self.inner.advance(to)
    }
    fn fail_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.inner.fail_disk(disk)
    }
    fn replace_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.inner.replace_disk(disk)
    }
    fn reset_stats(&mut self) {
        self.inner.reset_stats();
    }
    fn poll(&mut self) -> Option<Outcome> {
        self.inner.poll()
    }
    fn next_event_time(&self) -> Option<Nanos> {
        self.inner.next_event_time()
    }
    fn now(&self) -> Nanos {
        self.inner.now()
    }
    fn disks(&self) -> usize {
        1
    }
    fn disk_state(&self, disk: usize) -> Result<DiskState, DeviceError> {
        self.inner.disk_state(disk)
    }
    fn serving(&self, disk: usize) -> Option<&Request> {
        self.inner.serving(disk)
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
    fn in_system(&self) -> usize {
        self.inner.in_system()
    }
    fn model(&self, disk: usize) -> Option<&DiskModel> {
        self.inner.model(disk)
    }
    fn report(&mut self, end: Nanos) -> DiskReport {
        self.inner.report(end)
    }
}

#[test]
fn the_suite_fails_devices_that_break_the_contract() {
    let o = Options::default();
    assert!(matches!(
        check(|| Broken::new(Fault::Loses), &o),
        Err(Violation::Lost { .. })
    ));
    assert!(matches!(
        check(|| Broken::new(Fault::Repeats), &o),
        Err(Violation::Outcome { .. })
    ));
    assert!(matches!(
        check(|| Broken::new(Fault::Mistimes), &o),
        Err(Violation::Timing { .. })
    ));
    assert!(matches!(
        check(|| Broken::new(Fault::Skips), &o),
        Err(Violation::Clock { .. })
    ));
    assert!(matches!(
        check(|| Broken::new(Fault::CancelsInService), &o),
        Err(Violation::Cancel { .. })
    ));
    // Each run draws its service from another stream: the two runs differ.
    let drifting = || {
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        Drifting {
            inner: DiskDevice::new(
                DiskModel::from_spec(&presets::ibm3330(0.6)).unwrap(),
                &PolicySpec::Fcfs,
                Stream::numbered(n),
            )
            .unwrap(),
        }
    };
    assert!(matches!(
        check(drifting, &o),
        Err(Violation::Nondeterministic { .. })
    ));
}

#[test]
fn a_run_that_never_withdraws_is_not_counted_as_exercised() {
    let s = check(|| disk("fcfs"), &Options::default()).unwrap();
    assert!(s.exercised(&Options::default()).is_ok());
    let never_cancelled = Summary {
        completed: s.completed + s.cancelled,
        cancelled: 0,
        ..s.clone()
    };
    let e = never_cancelled.exercised(&Options::default()).unwrap_err();
    assert!(e.contains("withdrawals not exercised"), "{e}");
    let lost = Summary {
        completed: s.completed - 1,
        ..s
    };
    assert!(
        lost.exercised(&Options::default())
            .unwrap_err()
            .contains("outcomes for")
    );
}
