//! BFQ: Budget Fair Queueing, Linux's proportional-share disk scheduler.
//!
//! After `block/bfq-iosched.c` and `block/bfq-wf2q.c` (Valente & Checconi,
//! *High Throughput Disk Scheduling with Fair Bandwidth Distribution*, IEEE
//! ToC 2010; Valente & Andreolini, SYSTOR 2012) and
//! `Documentation/block/bfq-iosched.rst`. Each class
//! ([`Request::class`](crate::Request::class)) has its own queue with a
//! weight (100 unless [`Bfq::set_weight`] says otherwise, the default of
//! `io.bfq.weight`; 1 ..= 1000 as there). One queue at a time is *in
//! service* and is served alone, in sector order, until it
//!
//! - has received its *budget* (`max_budget` sectors, 16384 by default: the
//!   kernel's `bfq_default_max_budget` before auto-tuning), or the next
//!   request would take it past the budget;
//! - has been in service for `timeout_sync` (125 ms) — the budget timeout;
//! - or runs empty: when its last request was synchronous (a read), the disk
//!   *idles* for `slice_idle` (8 ms) waiting for the queue's next request,
//!   which a process issuing dependent reads sends as soon as the previous
//!   one completes; another queue is chosen only if none arrives in time.
//!   An asynchronous queue (last request a write) is not waited for.
//!
//! Queues are then chosen in B-WF2Q+ order: each busy queue has a virtual
//! start S and finish F = S + budget / weight; the system virtual time V
//! advances by the sectors served over the total weight of the busy queues;
//! among the queues with S ≤ V (eligible; V jumps to the least S when none
//! is) the least F is served. On expiry a queue is charged the service it
//! received (F = S + service / weight) and, still busy, starts again at its
//! F; a queue that empties keeps its F, so that re-activating at
//! max(V, F) gains it nothing, until its slot is needed by another class.
//! Within the in-service queue the first dispatch of each service slot
//! serves the queue's oldest request if its FIFO time has passed
//! (`fifo_expire_sync` 125 ms for reads, `fifo_expire_async` 250 ms for
//! writes; the kernel's `bfq_check_fifo` also looks once a slot), and
//! otherwise requests go in ascending sector order from the arm, wrapping to
//! the queue's lowest (C-LOOK).
//!
//! **Idling in a sans-IO core.** [`Scheduler::next`] is asked when the disk
//! is free, that is when the in-service queue's last request has completed:
//! if the queue is empty and its last request was a read, `next` answers
//! `None` although other classes have requests queued, and
//! [`Scheduler::next_eligible_at`] names the end of the idle period — the
//! driver wakes up then (or at the next arrival) and asks again, exactly as
//! for WRR-SCAN's rounds.
//!
//! **Heuristics in and out.** In: B-WF2Q+, budgets in sectors, the budget
//! timeout, sync idling, FIFO expiry once a slot. Out, and why:
//! *budget auto-tuning* (feedback on how the last budget ended) and the
//! *peak-rate estimate* behind it — the budget is a parameter here, which
//! keeps runs comparable; *weight raising* for interactive and soft
//! real-time queues and *queue merging* of cooperating processes, both of
//! which classify processes by their think time and by the distance between
//! their requests over wall-clock history, which a class in a trace does
//! not carry; *I/O injection* (serving other queues while idling for a
//! queue with requests in flight in a device with internal queueing): a
//! sched-core disk serves one request at a time; *charging time instead of
//! service* for seeky queues that time out, and the *back-seek allowance*
//! (`back_seek_max`, a backward seek within 16 MiB at twice its cost): both
//! tune throughput on specific devices and would weigh the disk model's
//! positioning costs twice; *cgroup hierarchies* and *I/O priority
//! classes*: a flat set of classes. Each class is one queue, sync or async
//! after the kind of its last request, where the kernel gives a process one
//! sync and one async queue.
//!
//! Memory: 58 bytes a queued request (the slab's 47, a cylinder index of 7
//! whose keys are `queue × cylinders + cylinder`, so that each queue is a
//! sorted range of one index, and FIFO links of 4); [`BFQ_QUEUES`] class
//! queues of 24 bytes and as many weights inside the policy value. Nothing
//! is allocated. A decision scans the class queues (at most [`BFQ_QUEUES`])
//! and makes one cylinder-index lookup, whose buckets each span
//! `BFQ_QUEUES × cylinders / capacity` keys.

use crate::error::{BuildError, CancelError, EnqueueError, check_cylinders, valid};
use crate::queue::{CylinderIndex, Links, NIL, Slab, Slot};
use crate::request::{Dispatch, Head, Kind, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// The most classes with a queue at one time (busy, in service, or keeping
/// their virtual finish time); a request of one more class is refused with
/// [`EnqueueError::TooManyClasses`] while all are busy.
pub const BFQ_QUEUES: usize = 16;

/// A class's weight when none was set: `io.bfq.weight`'s default.
pub const BFQ_DEFAULT_WEIGHT: u16 = 100;

/// The largest weight, as in `io.bfq.weight`.
pub const BFQ_MAX_WEIGHT: u16 = 1000;

/// Virtual time units per sector of service at weight 1: fine enough that
/// a sector at the largest weight still advances virtual time.
const SCALE: u64 = 1 << 20;

/// BFQ's tunables (`/sys/block/*/queue/iosched/`), in nanoseconds and sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfqParams {
    /// How long the disk waits for a sync queue's next request.
    pub slice_idle: Nanos,
    /// The budget timeout: the longest a queue stays in service.
    pub timeout_sync: Nanos,
    /// The budget in sectors.
    pub max_budget: u32,
    /// A read is served first once this long has passed since it arrived.
    pub fifo_expire_sync: Nanos,
    /// A write is served first once this long has passed since it arrived.
    pub fifo_expire_async: Nanos,
}

impl BfqParams {
    /// The kernel's defaults: 8 ms, 125 ms, 16384 sectors, 125 ms, 250 ms.
    pub const LINUX: BfqParams = BfqParams {
        slice_idle: 8_000_000,
        timeout_sync: 125_000_000,
        max_budget: 16_384,
        fifo_expire_sync: 125_000_000,
        fifo_expire_async: 250_000_000,
    };
}

/// One class's queue.
#[derive(Clone, Copy, Debug)]
struct ClassQueue {
    class: u16,
    /// The class's weight; 0 for an entry that belongs to no class.
    weight: u16,
    /// Requests queued.
    queued: u16,
    /// Oldest request (FIFO list head).
    fifo: Slot,
    /// Virtual start and finish times.
    start: u64,
    finish: u64,
}

const UNUSED: ClassQueue = ClassQueue {
    class: 0,
    weight: 0,
    queued: 0,
    fifo: NIL,
    start: 0,
    finish: 0,
};

/// The in-service queue's slot.
#[derive(Clone, Copy, Debug)]
struct InService {
    queue: usize,
    /// When the slot began.
    since: Nanos,
    /// Sectors dispatched in the slot.
    service: u32,
    /// Whether the slot's one FIFO look has been taken.
    fifo_checked: bool,
    /// Whether the last request dispatched was a read.
    sync: bool,
    /// End of the idle period, once the queue ran empty.
    idle_until: Option<Nanos>,
}

/// Budget Fair Queueing over per-class queues, with sync idling.
///
/// ```
/// use sched_core::{Block, Blocks, Cyl, Head, Kind, NullEstimator, Request, RequestId, Scheduler};
/// use sched_core::{Inline, policy::{Bfq, BfqParams}};
///
/// let mut q = Bfq::new(Inline::<8>::new(), 1000, BfqParams::LINUX)?;
/// q.enqueue(Request::new(RequestId(1), Kind::Read, Block(0), Blocks(8), Cyl(10), 0).with_class(1))?;
/// q.enqueue(Request::new(RequestId(2), Kind::Read, Block(0), Blocks(8), Cyl(20), 0).with_class(2))?;
/// let first = q.next(Head::at(0), 0, &NullEstimator).unwrap();
/// assert_eq!(first.request.id, RequestId(1));
/// // Class 1 ran empty after a read: the disk idles 8 ms for its next one.
/// assert!(q.next(Head::at(10), 1_000_000, &NullEstimator).is_none());
/// assert_eq!(q.next_eligible_at(1_000_000), Some(9_000_000));
/// let second = q.next(Head::at(10), 9_000_000, &NullEstimator).unwrap();
/// assert_eq!(second.request.id, RequestId(2));
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Bfq<S: Storage> {
    slab: Slab<S>,
    /// Keyed `queue × cylinders + cylinder`.
    sorted: CylinderIndex<S>,
    /// Each queue's FIFO, headed in its [`ClassQueue::fifo`].
    fifo: Links<S>,
    queues: [ClassQueue; BFQ_QUEUES],
    /// Weights set for classes, `(class, weight)`, the first `weights_set`.
    weights: [(u16, u16); BFQ_QUEUES],
    weights_set: usize,
    cylinders: u32,
    params: BfqParams,
    /// System virtual time.
    vtime: u64,
    in_service: Option<InService>,
}

impl<S: Storage> Bfq<S> {
    /// An empty scheduler for a disk with `cylinders` cylinders.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders or with
    /// more than 2³² / [`BFQ_QUEUES`], or a budget of 0 sectors.
    pub fn new(storage: S, cylinders: u32, params: BfqParams) -> Result<Self, BuildError> {
        let keys = sort_keys(cylinders, &params)?;
        Ok(Self::idle(
            Slab::new(&storage),
            CylinderIndex::new(&storage, keys)?,
            Links::new(&storage),
            cylinders,
            params,
        ))
    }

    /// The scheduler before its first request, on built storage (one
    /// body for [`Bfq::new`] and [`Bfq::new_inline`]).
    const fn idle(
        slab: Slab<S>,
        sorted: CylinderIndex<S>,
        fifo: Links<S>,
        cylinders: u32,
        params: BfqParams,
    ) -> Self {
        Bfq {
            slab,
            sorted,
            fifo,
            queues: [UNUSED; BFQ_QUEUES],
            weights: [(0, BFQ_DEFAULT_WEIGHT); BFQ_QUEUES],
            weights_set: 0,
            cylinders,
            params,
            vtime: 0,
            in_service: None,
        }
    }

    /// Gives `class` a weight (1 ..= 1000): its share of the disk while
    /// busy is its weight over the busy classes' total. Takes effect the
    /// next time the class's queue becomes busy.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a weight outside 1 ..= 1000, or
    /// a new class when [`BFQ_QUEUES`] classes have weights already.
    pub fn set_weight(&mut self, class: u16, weight: u16) -> Result<(), BuildError> {
        if weight == 0 || weight > BFQ_MAX_WEIGHT {
            return Err(BuildError::invalid("weight", "a weight in 1 ..= 1000"));
        }
        let set = &mut self.weights[..self.weights_set];
        if let Some(entry) = set.iter_mut().find(|(c, _)| *c == class) {
            entry.1 = weight;
            return Ok(());
        }
        if self.weights_set == BFQ_QUEUES {
            return Err(BuildError::invalid(
                "weight",
                "weights for at most 16 classes",
            ));
        }
        self.weights[self.weights_set] = (class, weight);
        self.weights_set += 1;
        Ok(())
    }

    /// The weight of `class`.
    pub fn weight(&self, class: u16) -> u16 {
        self.weights[..self.weights_set]
            .iter()
            .find(|(c, _)| *c == class)
            .map_or(BFQ_DEFAULT_WEIGHT, |&(_, w)| w)
    }

    /// The queue a request of `class` joins: its own, a free entry, or the
    /// lowest entry of an empty queue not in service (which forgets its
    /// finish time); `None` when every entry is busy.
    fn queue_for(&self, class: u16) -> Option<usize> {
        let serving = self.in_service.map(|i| i.queue);
        self.queues
            .iter()
            .position(|q| q.weight != 0 && q.class == class)
            .or_else(|| self.queues.iter().position(|q| q.weight == 0))
            .or_else(|| (0..BFQ_QUEUES).find(|&i| self.queues[i].queued == 0 && serving != Some(i)))
    }

    /// A queue's virtual length of `sectors` of service.
    fn virtual_span(&self, queue: usize, sectors: u32) -> u64 {
        u64::from(sectors) * SCALE / u64::from(self.queues[queue].weight)
    }

    /// Makes an idle queue busy: it starts at max(V, F).
    fn activate(&mut self, queue: usize) {
        self.queues[queue].weight = self.weight(self.queues[queue].class);
        let span = self.virtual_span(queue, self.params.max_budget);
        let q = &mut self.queues[queue];
        q.start = q.finish.max(self.vtime);
        q.finish = q.start + span;
    }

    /// Ends the in-service slot, charging the queue the service it received.
    fn expire(&mut self) {
        let Some(slot) = self.in_service.take() else {
            return;
        };
        let charged = self.virtual_span(slot.queue, slot.service);
        let q = &mut self.queues[slot.queue];
        q.finish = q.start + charged;
        if q.queued > 0 {
            let span = self.virtual_span(slot.queue, self.params.max_budget);
            let q = &mut self.queues[slot.queue];
            q.start = q.finish;
            q.finish = q.start + span;
        }
    }

    /// The busy queue B-WF2Q+ serves next: the least finish time among the
    /// eligible (start ≤ V, after V jumps to the least start when none is),
    /// then the lower class.
    fn choose(&mut self) -> Option<usize> {
        let busy = || (0..BFQ_QUEUES).filter(|&i| self.queues[i].queued > 0);
        let least_start = busy().map(|i| self.queues[i].start).min()?;
        self.vtime = self.vtime.max(least_start);
        let vtime = self.vtime;
        busy()
            .filter(|&i| self.queues[i].start <= vtime)
            .min_by_key(|&i| (self.queues[i].finish, self.queues[i].class))
    }

    /// The total weight of the busy queues and the one in service.
    fn busy_weight(&self) -> u64 {
        let serving = self.in_service.map(|i| i.queue);
        (0..BFQ_QUEUES)
            .filter(|&i| self.queues[i].queued > 0 || serving == Some(i))
            .map(|i| u64::from(self.queues[i].weight))
            .sum()
    }

    /// The queue a stored slot belongs to, from its key.
    fn queue_of(&self, s: Slot) -> usize {
        (self.slab.cylinder(s) / self.cylinders) as usize
    }

    /// The in-service queue's request to serve: its oldest if expired, on
    /// the slot's first dispatch; else the nearest at or above the arm,
    /// wrapping to its lowest.
    fn pick(&mut self, queue: usize, head: Head, now: Nanos) -> Option<Slot> {
        let slot = self.in_service.as_mut()?;
        if !slot.fifo_checked {
            slot.fifo_checked = true;
            let oldest = self.queues[queue].fifo;
            if oldest != NIL {
                let expire = match self.slab.get(oldest).kind {
                    Kind::Read => self.params.fifo_expire_sync,
                    Kind::Write => self.params.fifo_expire_async,
                };
                if now >= self.slab.arrival(oldest).saturating_add(expire) {
                    return Some(oldest);
                }
            }
        }
        let base = queue as u32 * self.cylinders;
        let at = head.cylinder.min(self.cylinders - 1);
        let in_queue = |s: Slot| self.queue_of(s) == queue;
        self.sorted
            .at_or_above(&self.slab, base + at)
            .filter(|&s| in_queue(s))
            .or_else(|| {
                self.sorted
                    .at_or_above(&self.slab, base)
                    .filter(|&s| in_queue(s))
            })
    }

    /// Takes a slot out of every list and gives the request back as enqueued.
    fn take(&mut self, s: Slot) -> Request {
        let queue = self.queue_of(s);
        self.sorted.remove(&self.slab, s);
        self.fifo.unlink(&mut self.queues[queue].fifo, s);
        self.queues[queue].queued -= 1;
        let mut req = self.slab.remove(s);
        req.cylinder -= queue as u32 * self.cylinders;
        req
    }
}

impl<const N: usize> Bfq<Inline<N>> {
    /// [`Bfq::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)). Every class
    /// starts at the default weight; [`Bfq::set_weight`] changes one at run
    /// time, on the locked static, as on a policy built by [`Bfq::new`].
    ///
    /// # Panics
    /// When `cylinders` is 0 or above 2³² / [`BFQ_QUEUES`], or
    /// `params.max_budget` is 0 (which [`Bfq::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, params: BfqParams) -> Self {
        Self::idle(
            Slab::inline(),
            CylinderIndex::inline(valid(sort_keys(cylinders, &params))),
            Links::inline(),
            cylinders,
            params,
        )
    }
}

/// The keys of the cylinder index the class queues share: one range of
/// `cylinders` keys per queue. Checks the budget too, the one tunable with
/// a domain.
const fn sort_keys(cylinders: u32, params: &BfqParams) -> Result<u32, BuildError> {
    if let Err(e) = check_cylinders(cylinders) {
        return Err(e);
    }
    let Some(keys) = cylinders.checked_mul(BFQ_QUEUES as u32) else {
        return Err(BuildError::invalid(
            "cylinders",
            "at most 2^32 / 16 cylinders (one key range per class queue)",
        ));
    };
    if params.max_budget == 0 {
        return Err(BuildError::invalid("max_budget", "at least one sector"));
    }
    Ok(keys)
}

impl<S: Storage> Scheduler for Bfq<S> {
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
        if req.cylinder >= self.cylinders {
            return Err(EnqueueError::CylinderOutOfRange {
                id: req.id,
                cylinder: req.cylinder,
                cylinders: self.cylinders,
            });
        }
        if self.slab.len() == self.slab.capacity() {
            return Err(EnqueueError::QueueFull {
                capacity: self.slab.capacity(),
            });
        }
        if self.slab.find(req.id).is_some() {
            return Err(EnqueueError::DuplicateId(req.id));
        }
        let queue = self
            .queue_for(req.class)
            .ok_or(EnqueueError::TooManyClasses {
                id: req.id,
                class: req.class,
                queues: BFQ_QUEUES,
            })?;
        if self.queues[queue].weight == 0 || self.queues[queue].class != req.class {
            self.queues[queue] = ClassQueue {
                class: req.class,
                weight: self.weight(req.class),
                ..UNUSED
            };
        }
        let serving = self.in_service.is_some_and(|i| i.queue == queue);
        if self.queues[queue].queued == 0 && !serving {
            self.activate(queue);
        }
        let s = self.slab.insert(&Request {
            cylinder: queue as u32 * self.cylinders + req.cylinder,
            ..req
        })?;
        self.sorted.insert(&self.slab, s);
        let slab = &self.slab;
        self.fifo
            .insert_by_arrival(&mut self.queues[queue].fifo, s, |a, b| {
                slab.arrives_before(a, b)
            });
        self.queues[queue].queued += 1;
        Ok(())
    }

    fn next(&mut self, head: Head, now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        loop {
            let Some(slot) = self.in_service else {
                let queue = self.choose()?;
                self.in_service = Some(InService {
                    queue,
                    since: now,
                    service: 0,
                    fifo_checked: false,
                    sync: false,
                    idle_until: None,
                });
                continue;
            };
            let queue = slot.queue;
            if self.queues[queue].queued == 0 {
                if slot.sync && self.params.slice_idle > 0 {
                    let until = slot
                        .idle_until
                        .unwrap_or(now.saturating_add(self.params.slice_idle));
                    if now < until {
                        if let Some(s) = self.in_service.as_mut() {
                            s.idle_until = Some(until);
                        }
                        return None;
                    }
                }
                self.expire();
                continue;
            }
            // A slot always serves one request: the timeout and the budget
            // end it only once it has.
            if slot.service > 0 && now >= slot.since.saturating_add(self.params.timeout_sync) {
                self.expire();
                continue;
            }
            let s = self.pick(queue, head, now)?;
            let blocks = self.slab.get(s).blocks;
            if slot.service > 0 && slot.service.saturating_add(blocks) > self.params.max_budget {
                self.expire();
                continue;
            }
            let total = self.busy_weight().max(1);
            self.vtime += u64::from(blocks) * SCALE / total;
            let req = self.take(s);
            if let Some(slot) = self.in_service.as_mut() {
                slot.service = slot.service.saturating_add(blocks);
                slot.sync = req.kind == Kind::Read;
                slot.idle_until = None;
            }
            return Some(Dispatch::direct(req));
        }
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.slab.find(id).ok_or(CancelError::UnknownId(id))?;
        Ok(self.take(s))
    }

    fn len(&self) -> usize {
        self.slab.len()
    }

    fn capacity(&self) -> usize {
        self.slab.capacity()
    }

    fn contains(&self, id: RequestId) -> bool {
        self.slab.find(id).is_some()
    }

    fn pop_any(&mut self) -> Option<Request> {
        let s = self.slab.any_occupied()?;
        Some(self.take(s))
    }

    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        if self.is_empty() {
            return None;
        }
        self.in_service
            .and_then(|slot| slot.idle_until)
            .filter(|&until| until > now)
    }
}
