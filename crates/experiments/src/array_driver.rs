//! The driver of an array run: user requests in, copies kept current, the
//! degree of replication controlled, response times and the queue's growth
//! measured. The rules are in [`crate::array_experiment`]'s documentation;
//! this module carries them out on the event loop.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::BufReader;
use std::sync::Arc;

use disk_emu::trace::TraceReader;
use disk_emu::{Device, DeviceError, Moments, Outcome};
use sched_core::array::Copies;
use sched_core::{Block, Blocks, Cyl, EnqueueError, Kind, Nanos, Request, RequestId};

use crate::array_experiment::{ArrayError, ArrayReport, GroupDevice, SECTORS};
use crate::array_layout::Layout;
use crate::free_map::{RotationalCopies, TrackTable};
use crate::oltp::OltpSource;
use crate::replica_map::{DelayedWrites, ReplicaMap, ReplicaSet};
use crate::simulation::{Driver, Flow, Simulation};

/// Propagations sent to one disk's delayed-write queue at a time.
const PROPAGATION_WINDOW: u32 = 2;
/// Request classes beside the users' (class 0): buffered propagations, and
/// propagations written in the foreground (the buffer full, or RAID-10's
/// second copy).
pub(crate) const PROPAGATION: u16 = 1;
const FORCED: u16 = 2;
/// Ids of the array's own writes start here (below the device's own).
const OWN_IDS: u64 = 1 << 62;
/// Sustained overload: the buffer this full for this long lowers the degree.
const HIGH_WATER: f64 = 0.9;
const HIGH_FOR: Nanos = 1_000_000_000;
/// Calm: the buffer this empty for this long raises it again.
const LOW_WATER: f64 = 0.1;
const LOW_FOR: Nanos = 5_000_000_000;
/// Batches the measured arrivals are cut into to measure the queue's growth.
pub(crate) const BATCHES: usize = 10;

/// What an operation in flight is.
#[derive(Clone, Copy, Debug)]
enum Flight {
    Read {
        block: u64,
        arrival: Nanos,
    },
    Write {
        block: u64,
        copies: ReplicaSet,
        version: u32,
        arrival: Nanos,
    },
    Propagation {
        block: u64,
        replica: u32,
        version: u32,
        forced: bool,
    },
}

/// Where requests come from.
/// The most 4 KB array blocks one trace request may span (256 MB): each
/// is queued as a request of its own.
pub(crate) const MAX_TRACE_REQUEST_BLOCKS: u64 = 65_536;

pub(crate) enum Source {
    Oltp(OltpSource),
    Trace {
        reader: Box<TraceReader<BufReader<File>>>,
        speedup: f64,
        database: u64,
        /// Blocks of the current record still to issue.
        pending: VecDeque<(Kind, u64)>,
    },
}

/// The time-averaged number of user requests in the array over each batch
/// of the measured arrivals.
#[derive(Clone, Debug, Default)]
struct Batches {
    /// The batch under way, while measured arrivals come in.
    current: Option<usize>,
    /// When each batch began, and when the last ended.
    bounds: [Nanos; BATCHES + 1],
    /// ∫ requests in the array dt over each batch.
    area: [f64; BATCHES],
    in_array: u64,
    last_change: Nanos,
}

impl Batches {
    /// Adds the requests in the array up to `now` to the batch under way.
    fn accumulate(&mut self, now: Nanos) {
        if let Some(b) = self.current {
            self.area[b] += self.in_array as f64 * (now - self.last_change) as f64;
        }
        self.last_change = now;
    }

    /// Each batch's time average and middle, in seconds.
    fn averages(&self) -> Vec<(f64, f64)> {
        (0..BATCHES)
            .map(|b| {
                let (from, to) = (self.bounds[b], self.bounds[b + 1]);
                let span = to.saturating_sub(from).max(1) as f64;
                ((from as f64 + span / 2.0) / 1e9, self.area[b] / span)
            })
            .collect()
    }
}

/// The least-squares slope of `points` (x, y).
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx > 0.0 { sxy / sxx } else { 0.0 }
}

/// The driver (see [`crate::array_experiment`]).
pub(crate) struct ArrayRun {
    layout: Layout,
    table: Arc<TrackTable>,
    rotational: Option<Arc<RotationalCopies>>,
    map: ReplicaMap,
    buffer: DelayedWrites,
    source: Source,
    degree: u32,
    lowest_degree: u32,
    degree_changes: u32,
    high_since: Option<Nanos>,
    low_since: Option<Nanos>,
    flights: HashMap<u64, Flight>,
    /// User writes held because every copy had a write in flight.
    held: HashMap<u64, VecDeque<(u64, Nanos)>>,
    /// Propagations sent per disk and not yet complete.
    sent: Vec<u32>,
    next_id: u64,
    next_own: u64,
    arrivals: u64,
    warmup: u64,
    target: u64,
    measured_done: u64,
    batches: Batches,
    all: Moments,
    reads: Moments,
    writes: Moments,
    propagated: u64,
    forced: u64,
    buffer_peak: usize,
    end: Nanos,
}

impl ArrayRun {
    /// A run of `layout` fed by `source`: `warmup` arrivals, then
    /// `requests` measured ones.
    pub(crate) fn new(
        layout: Layout,
        table: Arc<TrackTable>,
        rotational: Option<Arc<RotationalCopies>>,
        source: Source,
        buffer: usize,
        warmup: u64,
        requests: u64,
    ) -> Self {
        let map = match &rotational {
            Some(copies) => ReplicaMap::with_slots(&layout, |local, r| copies.slot(local, r)),
            None => ReplicaMap::new(&layout),
        };
        let disks = layout.disks_used() as usize;
        ArrayRun {
            map,
            buffer: DelayedWrites::new(buffer, disks),
            sent: vec![0; disks],
            degree: layout.copies(),
            lowest_degree: layout.copies(),
            layout,
            table,
            rotational,
            source,
            degree_changes: 0,
            high_since: None,
            low_since: None,
            flights: HashMap::new(),
            held: HashMap::new(),
            next_id: 0,
            next_own: OWN_IDS,
            arrivals: 0,
            warmup,
            target: warmup + requests,
            measured_done: 0,
            batches: Batches::default(),
            all: Moments::new(),
            reads: Moments::new(),
            writes: Moments::new(),
            propagated: 0,
            forced: 0,
            buffer_peak: 0,
            end: 0,
        }
    }

    /// User requests that arrived.
    pub(crate) fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Draws the next arrival after `now`, if the run wants one.
    pub(crate) fn next_arrival(&mut self, now: Nanos) -> Result<Option<Nanos>, ArrayError> {
        if self.arrivals >= self.target {
            return Ok(None);
        }
        Ok(match &mut self.source {
            Source::Oltp(s) => Some(now + s.gap()),
            Source::Trace {
                reader,
                speedup,
                database,
                pending,
            } => {
                if !pending.is_empty() {
                    return Ok(Some(now));
                }
                let Some(record) = reader.next().transpose()? else {
                    return Ok(None);
                };
                let Some(arrival) = record.arrival else {
                    return Err(ArrayError::Untimed(reader.file().to_string()));
                };
                // In u128: a block near u64::MAX does not wrap.
                let sector = |b: u64| (u128::from(b) * 512 / 4096) as u64;
                let first = sector(record.block);
                let last = sector(record.block.saturating_add(u64::from(record.blocks) - 1));
                if last - first >= MAX_TRACE_REQUEST_BLOCKS {
                    return Err(ArrayError::TraceRequest {
                        file: reader.file().to_string(),
                        blocks: last - first + 1,
                    });
                }
                for b in first..=last {
                    pending.push_back((record.kind, b % *database));
                }
                let at = arrival as f64 / *speedup;
                Some((at as Nanos).max(now))
            }
        })
    }

    /// The next request's kind and block.
    fn draw(&mut self) -> (Kind, u64) {
        match &mut self.source {
            Source::Oltp(s) => s.request(),
            Source::Trace { pending, .. } => pending.pop_front().unwrap_or((Kind::Read, 0)),
        }
    }

    /// The copies of `set` as the group's device addresses them: each
    /// member disk at its copy (the first of `set` on it: an SR-Array's
    /// other copies on the disk are offered through its places).
    fn copies(&self, block: u64, set: ReplicaSet) -> Copies {
        let mut copies = Copies::new();
        for r in (0..self.layout.copies()).filter(|r| set & 1 << r != 0) {
            let member = self.layout.member(r) as usize;
            if !copies.holders().contains(member) {
                copies = copies.with(member, self.table.location(self.map.slot(block, r)));
            }
        }
        copies
    }

    /// Submits user request `req` of `block` to its group at `copies`, its
    /// rotational copies `set` offered to the group's places.
    fn submit_user(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        req: Request,
        block: u64,
        set: ReplicaSet,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let (g, local) = self.layout.locate(block);
        if self.rotational.is_some() {
            sim.with_device(g as usize, |d| d.places_mut().offer(req.id, local, set));
        }
        let copies = self.copies(block, set);
        self.submit(sim, g, req, &copies, now)
    }

    fn submit(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        req: Request,
        copies: &Copies,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        match sim.with_device(g as usize, |d| d.submit(req, copies, now)) {
            Ok(()) => Ok(()),
            Err(DeviceError::Refused(EnqueueError::QueueFull { .. })) => {
                Err(ArrayError::Overflow {
                    at_ms: now as f64 / 1e6,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Sends user write `id` of `block` to its copies without a write in
    /// flight, or holds it.
    fn write(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        id: u64,
        block: u64,
        arrival: Nanos,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let set = self.map.writable(block);
        if set == 0 {
            self.held.entry(block).or_default().push_back((id, arrival));
            return Ok(());
        }
        let version = self.map.write_started(block, set);
        self.flights.insert(
            id,
            Flight::Write {
                block,
                copies: set,
                version,
                arrival,
            },
        );
        let req = block_request(id, Kind::Write, arrival);
        self.submit_user(sim, req, block, set, now)
    }

    /// Propagates every copy of `block` kept at the current degree that is
    /// behind, `written` being the copy a write just put the current
    /// version on: through the buffer in the background, or at once in the
    /// foreground when the buffer is full or the layout writes every copy
    /// at once (`raid10:foreground`).
    fn propagate(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        block: u64,
        written: u32,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let (g, _) = self.layout.locate(block);
        let kept = (0..self.layout.copies())
            .filter(|&r| r != written)
            .take(self.degree as usize - 1);
        for r in kept {
            if !self.map.needs_propagation(block, r) {
                continue;
            }
            let disk = self.layout.disk(g, r) as usize;
            if self.layout.background && self.buffer.push(disk, block, r) {
                self.map.set_pending(block, r, true);
                self.buffer_peak = self.buffer_peak.max(self.buffer.held());
                self.fill(sim, disk, now)?;
            } else {
                self.send_propagation(sim, r, block, true, now)?;
            }
        }
        Ok(())
    }

    /// Sends buffered propagations to `disk` while it has fewer than the
    /// window in flight.
    fn fill(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        disk: usize,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        while self.sent[disk] < PROPAGATION_WINDOW {
            let Some((block, r)) = self.buffer.next_for(disk) else {
                return Ok(());
            };
            let behind = self.map.version(block, r) < self.map.current(block);
            if !behind || self.map.writable(block) & 1 << r == 0 {
                // Written meanwhile, or a write of it is in flight (which
                // propagates again if it needs to when it completes).
                self.map.set_pending(block, r, false);
                self.buffer.written();
                continue;
            }
            self.sent[disk] += 1;
            self.send_propagation(sim, r, block, false, now)?;
        }
        Ok(())
    }

    fn send_propagation(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        r: u32,
        block: u64,
        forced: bool,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let version = self.map.propagation_started(block, r);
        let id = self.next_own;
        self.next_own += 1;
        self.flights.insert(
            id,
            Flight::Propagation {
                block,
                replica: r,
                version,
                forced,
            },
        );
        let class = if forced { FORCED } else { PROPAGATION };
        let req = block_request(id, Kind::Write, now).with_class(class);
        let copies = self.copies(block, 1 << r);
        let (g, _) = self.layout.locate(block);
        self.submit(sim, g, req, &copies, now)
    }

    /// Which copy of `block` operation `id`, served by member disk
    /// `member` of group `g`, reached, and the new slot it took (eager
    /// writes; `None` in place).
    fn served_copy(
        &self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        id: u64,
        block: u64,
        member: u32,
    ) -> (u32, Option<u64>) {
        let placed = sim.with_device(g as usize, |d| d.places_mut().take_placement(RequestId(id)));
        match (&self.rotational, placed) {
            (Some(copies), Some((_, slot))) => {
                let (_, local) = self.layout.locate(block);
                let k = (0..copies.replicas())
                    .find(|&k| copies.slot(local, k) == slot)
                    .unwrap_or(0);
                (member * self.layout.rotational + k, None)
            }
            (None, Some((_, slot))) => (member, Some(slot)),
            (_, None) => (member * self.layout.rotational, None),
        }
    }

    /// Applies a completed write of `block` on copy `r` of group `g`
    /// (`slot`: its new place, if eager).
    #[allow(clippy::too_many_arguments)]
    fn written(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        block: u64,
        copies: ReplicaSet,
        r: u32,
        slot: Option<u64>,
        version: u32,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        if let Some((replica, old)) = self.map.write_done(block, copies, r, version, slot) {
            self.release(sim, g, replica, old)?;
        }
        self.propagate(sim, block, r, now)?;
        if let Some(mut waiting) = self.held.remove(&block)
            && let Some((wid, arrival)) = waiting.pop_front()
        {
            if !waiting.is_empty() {
                self.held.insert(block, waiting);
            }
            self.write(sim, wid, block, arrival, now)?;
        }
        Ok(())
    }

    fn release(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        replica: u32,
        slot: u64,
    ) -> Result<(), ArrayError> {
        let member = self.layout.member(replica) as usize;
        if sim.with_device(g as usize, |d| d.places_mut().release(member, slot)) {
            Ok(())
        } else {
            Err(ArrayError::Invariant(format!(
                "slot {slot} of group {g} replica {replica} freed twice"
            )))
        }
    }

    /// Lowers or raises the degree of replication of an array that may
    /// lower it (see [`crate::array_experiment`]).
    fn control_degree(&mut self, now: Nanos) {
        if !self.layout.lowers_degree {
            return;
        }
        let fill = self.buffer.held() as f64 / self.buffer.capacity().max(1) as f64;
        if fill >= HIGH_WATER {
            let since = *self.high_since.get_or_insert(now);
            if now - since >= HIGH_FOR && self.degree > 1 {
                self.degree -= 1;
                self.lowest_degree = self.lowest_degree.min(self.degree);
                self.degree_changes += 1;
                self.high_since = None;
                self.low_since = None;
            }
        } else {
            self.high_since = None;
        }
        if fill <= LOW_WATER {
            let since = *self.low_since.get_or_insert(now);
            if now - since >= LOW_FOR && self.degree < self.layout.copies() {
                self.degree += 1;
                self.degree_changes += 1;
                self.high_since = None;
                self.low_since = None;
            }
        } else {
            self.low_since = None;
        }
    }

    fn measured(&self, id: u64) -> bool {
        id >= self.warmup && id < self.target
    }

    /// Moves the batch boundaries as arrival `id` comes in at `now`.
    fn arrival_batch(&mut self, sim: &mut Simulation<GroupDevice, ()>, id: u64, now: Nanos) {
        self.batches.accumulate(now);
        if id < self.warmup || id >= self.target {
            return;
        }
        let measured = self.target - self.warmup;
        let b = ((id - self.warmup) * BATCHES as u64 / measured) as usize;
        if self.batches.current != Some(b) {
            if b == 0 {
                for g in 0..sim.device_count() {
                    sim.with_device(g, Device::reset_stats);
                }
            }
            self.batches.current = Some(b);
            self.batches.bounds[b] = now;
        }
    }
}

impl Driver<GroupDevice> for ArrayRun {
    type Event = ();
    type Output = ArrayReport;
    type Error = ArrayError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        now: Nanos,
        _event: (),
    ) -> Result<Flow, ArrayError> {
        let id = self.next_id;
        self.next_id += 1;
        self.arrivals += 1;
        self.arrival_batch(sim, id, now);
        self.batches.in_array += 1;
        let (kind, block) = self.draw();
        self.control_degree(now);
        match kind {
            Kind::Read => {
                self.map.read_started(block);
                self.flights.insert(
                    id,
                    Flight::Read {
                        block,
                        arrival: now,
                    },
                );
                let req = block_request(id, Kind::Read, now);
                let fresh = self.map.fresh(block);
                self.submit_user(sim, req, block, fresh, now)?;
            }
            Kind::Write => self.write(sim, id, block, now, now)?,
        }
        match self.next_arrival(now)? {
            Some(t) => sim.schedule(t, ()),
            None => {
                self.batches.current = None;
                self.batches.bounds[BATCHES] = now;
            }
        }
        Ok(Flow::Continue)
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        now: Nanos,
        device: usize,
        outcome: Outcome,
    ) -> Result<Flow, ArrayError> {
        let Outcome::Completed(done) = outcome else {
            return Err(ArrayError::Invariant(format!(
                "unexpected outcome {outcome:?}"
            )));
        };
        let id = done.request.id.0;
        let g = device as u32;
        let flight = self
            .flights
            .remove(&id)
            .ok_or_else(|| ArrayError::Invariant(format!("completion of unknown request {id}")))?;
        let member = done.timing.disk as u32;
        let user = match flight {
            Flight::Read { block, arrival } => {
                // The copy a read was served at is the places' business
                // only; forget it.
                self.served_copy(sim, g, id, block, member);
                for (replica, slot) in self.map.read_finished(block) {
                    self.release(sim, g, replica, slot)?;
                }
                Some((Kind::Read, arrival))
            }
            Flight::Write {
                block,
                copies,
                version,
                arrival,
            } => {
                let (r, slot) = self.served_copy(sim, g, id, block, member);
                self.written(sim, g, block, copies, r, slot, version, now)?;
                Some((Kind::Write, arrival))
            }
            Flight::Propagation {
                block,
                replica,
                version,
                forced,
            } => {
                let disk = self.layout.disk(g, replica) as usize;
                if forced {
                    self.forced += 1;
                } else {
                    self.propagated += 1;
                    self.buffer.written();
                    self.map.set_pending(block, replica, false);
                    self.sent[disk] -= 1;
                }
                let (_, slot) = self.served_copy(sim, g, id, block, member);
                self.written(sim, g, block, 1 << replica, replica, slot, version, now)?;
                self.fill(sim, disk, now)?;
                None
            }
        };
        let Some((kind, arrival)) = user else {
            return Ok(Flow::Continue);
        };
        self.batches.accumulate(now);
        self.batches.in_array -= 1;
        if self.measured(id) {
            let response = (now - arrival) as f64 / 1e6;
            self.all.add(response);
            match kind {
                Kind::Read => self.reads.add(response),
                Kind::Write => self.writes.add(response),
            }
            self.measured_done += 1;
            if self.measured_done == self.target - self.warmup {
                self.end = now;
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        _stopped: bool,
    ) -> Result<ArrayReport, ArrayError> {
        let conflicts: u64 = sim.devices().map(|d| d.places().conflicts()).sum();
        if conflicts > 0 {
            return Err(ArrayError::Invariant(format!(
                "{conflicts} eager writes were placed on blocks that were not free"
            )));
        }
        let start = self.batches.bounds[0];
        let span = self.end.saturating_sub(start).max(1);
        let mut busy = 0.0;
        let mut disks = 0;
        for g in 0..sim.device_count() {
            let report = sim.with_device(g, |d| d.report(self.end));
            for u in &report.disks {
                busy += u.utilisation;
                disks += 1;
            }
        }
        let batches = self.batches.averages();
        let arrival_span = self.batches.bounds[BATCHES].saturating_sub(start).max(1);
        let arrival_rate = (self.target - self.warmup) as f64 * 1e9 / arrival_span as f64;
        let growth_per_s = slope(&batches);
        let half = |range: std::ops::Range<usize>| {
            let n = range.len() as f64;
            batches[range].iter().map(|b| b.1).sum::<f64>() / n
        };
        let mean = |m: &Moments| m.mean().unwrap_or(f64::NAN);
        Ok(ArrayReport {
            speedup: 0.0,
            completed: self.measured_done,
            mean_response_ms: mean(&self.all),
            read_response_ms: mean(&self.reads),
            write_response_ms: mean(&self.writes),
            max_response_ms: self.all.max().unwrap_or(f64::NAN),
            in_array: [half(0..BATCHES / 2), half(BATCHES / 2..BATCHES)],
            in_array_batches: batches.iter().map(|b| b.1).collect(),
            growth_per_s,
            drift: growth_per_s / arrival_rate,
            throughput_per_s: self.measured_done as f64 * 1e9 / span as f64,
            utilisation: if disks > 0 { busy / disks as f64 } else { 0.0 },
            propagated: self.propagated,
            forced: self.forced,
            buffer_peak: self.buffer_peak,
            lowest_degree: self.lowest_degree,
            degree_changes: self.degree_changes,
            requests_per_wall_s: 0.0,
        })
    }
}

/// Operation `id` on one logical block, arriving at `at`: where it lies on
/// each disk is given by the copies it is submitted with, not by the
/// request.
fn block_request(id: u64, kind: Kind, at: Nanos) -> Request {
    Request::new(RequestId(id), kind, Block(0), Blocks(SECTORS), Cyl(0), at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_of_a_line_is_its_gradient() {
        let line: Vec<(f64, f64)> = (0..10)
            .map(|i| (f64::from(i), 3.0 + 2.0 * f64::from(i)))
            .collect();
        assert!((slope(&line) - 2.0).abs() < 1e-12);
        assert_eq!(slope(&[(1.0, 5.0), (1.0, 7.0)]), 0.0);
    }
}
