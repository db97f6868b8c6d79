//! The values a scheduler trades in: requests, time, head state and dispatch decisions.

use core::fmt;

use crate::array::Location;

/// Time in integer nanoseconds. Every clock reading, deadline and service time in
/// the project is a `Nanos`; floats never take part in an ordering decision.
pub type Nanos = u64;

/// A cylinder number on one disk, counted from the outer edge (cylinder 0).
pub type Cylinder = u32;

/// Caller-chosen identity of a queued request.
///
/// Ids only need to be unique among the requests queued in one scheduler at one
/// time; a driver may reuse an id once its request has been dispatched or cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RequestId(pub u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The first block (sector) of a request, as [`Request::new`] takes it:
/// its own type so that it cannot trade places with the other integers
/// (see [`Request`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Block(pub u64);

/// The length of a request in blocks, as [`Request::new`] takes it (see
/// [`Block`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Blocks(pub u32);

/// The cylinder holding a request's first block, as [`Request::new`] takes
/// it (see [`Block`]). Named `Cyl` because [`Cylinder`], the plain number
/// every field, [`Head`] and [`Travel`] use, keeps its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Cyl(pub Cylinder);

/// Direction of data transfer.
///
/// Exhaustive on purpose (not `#[non_exhaustive]`): a scheduled block
/// request reads or writes; a flush or a discard is a command to the device
/// the driver handles around the queue, not a request a policy orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Kind {
    /// Data flows from the disk to the host.
    #[default]
    Read,
    /// Data flows from the host to the disk.
    Write,
}

/// One block I/O request as a scheduler sees it.
///
/// The driver resolves `cylinder` from `block` with the device's geometry before
/// enqueueing, so that policies never need to know the disk layout. Requests are
/// plain `Copy` values: a rejected enqueue loses nothing, the caller still holds it.
///
/// [`Request::new`] takes the block, the length and the cylinder wrapped in
/// [`Block`], [`Blocks`] and [`Cyl`]: as bare integers (a `u64` and two
/// `u32`s, beside a `u64` arrival time) any two of them could trade places
/// and still compile, and a request with its length and cylinder swapped is
/// served on the wrong cylinder without a word. With the wrappers every
/// argument of the constructor has its own type, so a swap is a type error.
/// The fields keep their plain types: a field is read by name, which cannot
/// be swapped, and the policies do arithmetic on them.
///
/// `arrival` is the one clock the policies see of a request: the driver
/// stamps it with its own clock when the request arrives, and the policies
/// order by it (FCFS order, tie-breaks, WRR-SCAN's rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Request {
    /// Identity, unique among queued requests.
    pub id: RequestId,
    /// Read or write.
    pub kind: Kind,
    /// First logical block (sector) addressed.
    pub block: u64,
    /// Length in blocks.
    pub blocks: u32,
    /// Cylinder holding `block` on the disk this request is queued for.
    pub cylinder: Cylinder,
    /// Time the request arrived at the scheduler.
    pub arrival: Nanos,
    /// Absolute time by which the request should complete, if it has one.
    /// A deadline of `Nanos::MAX` is the same as none.
    pub deadline: Option<Nanos>,
    /// The class or stream the request belongs to: a rate-based task for
    /// WRR-SCAN, and the key of per-class statistics. Drivers that need to
    /// know which client or transaction issued a request keep that in their
    /// own tables, not here.
    pub class: u16,
}

impl Request {
    /// A request with no deadline and class 0: `blocks` blocks from `block`,
    /// on `cylinder`, arrived at `arrival` (the driver's clock).
    ///
    /// ```
    /// use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId};
    ///
    /// // 8 blocks from block 4096, on cylinder 1500, arrived at 2 ms.
    /// let req = Request::new(RequestId(1), Kind::Read, Block(4096), Blocks(8), Cyl(1500), 2_000_000);
    /// assert_eq!((req.block, req.blocks, req.cylinder), (4096, 8, 1500));
    /// ```
    ///
    /// The length and the cylinder swapped do not compile:
    ///
    /// ```compile_fail,E0308
    /// use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId};
    ///
    /// let req = Request::new(RequestId(1), Kind::Read, Block(4096), Cyl(1500), Blocks(8), 2_000_000);
    /// ```
    ///
    /// nor do the block and the arrival time swapped:
    ///
    /// ```compile_fail,E0308
    /// use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId};
    ///
    /// let req = Request::new(RequestId(1), Kind::Read, 2_000_000, Blocks(8), Cyl(1500), Block(4096));
    /// ```
    ///
    /// nor bare integers, which could be in any order:
    ///
    /// ```compile_fail,E0308
    /// use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId};
    ///
    /// let req = Request::new(RequestId(1), Kind::Read, 4096, 1500, 8, 2_000_000);
    /// ```
    pub const fn new(
        id: RequestId,
        kind: Kind,
        block: Block,
        blocks: Blocks,
        cylinder: Cyl,
        arrival: Nanos,
    ) -> Self {
        Request {
            id,
            kind,
            block: block.0,
            blocks: blocks.0,
            cylinder: cylinder.0,
            arrival,
            deadline: None,
            class: 0,
        }
    }

    /// The same request with an absolute deadline.
    pub const fn with_deadline(mut self, deadline: Nanos) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The same request addressed at another place: a copy's block and
    /// cylinder on the disk that holds it.
    pub const fn relocated(mut self, at: Location) -> Self {
        self.block = at.block;
        self.cylinder = at.cylinder;
        self
    }

    /// The same request in another class.
    pub const fn with_class(mut self, class: u16) -> Self {
        self.class = class;
        self
    }

    /// The deadline as a sort key: requests without one sort after every deadline.
    pub const fn deadline_key(&self) -> Nanos {
        match self.deadline {
            Some(d) => d,
            None => Nanos::MAX,
        }
    }
}

/// Where the disk arm is when the driver asks for the next request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Head {
    /// Cylinder under the heads.
    pub cylinder: Cylinder,
}

impl Head {
    /// The arm at `cylinder`.
    pub const fn at(cylinder: Cylinder) -> Self {
        Head { cylinder }
    }
}

/// Direction of arm travel for the sweeping policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// Towards higher cylinder numbers.
    #[default]
    Up,
    /// Towards cylinder 0.
    Down,
}

impl Direction {
    /// The other direction.
    pub const fn reversed(self) -> Self {
        match self {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
        }
    }
}

/// How the arm reaches a dispatched request.
///
/// Only SCAN and C-SCAN ever ask for more than a direct seek: they sweep to the
/// edge of the disk before reversing (SCAN) or returning to the start (C-SCAN),
/// which is exactly what distinguishes them from LOOK and C-LOOK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Travel {
    /// Seek straight from the current cylinder to the request.
    #[default]
    Direct,
    /// Seek to `edge` first, then to the request.
    ViaEdge {
        /// The extreme cylinder the sweep reaches before reversing.
        edge: Cylinder,
    },
    /// Seek to `edge`, return to `restart`, then seek to the request.
    Wrap {
        /// The extreme cylinder the sweep reaches.
        edge: Cylinder,
        /// The cylinder the return seek lands on.
        restart: Cylinder,
    },
}

/// A scheduling decision: serve `request`, reaching it as `travel` says, at
/// the place `chosen` names if the policy chose one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dispatch {
    /// The request to serve now; it has left the queue. Its `block` and
    /// `cylinder` are those it was queued with.
    pub request: Request,
    /// The arm's path to it.
    pub travel: Travel,
    /// Where a write goes when the policy chose its place at dispatch (eager
    /// writing: the free block the heads reach soonest, from
    /// [`ServiceEstimator::nearest_free`](crate::ServiceEstimator::nearest_free)).
    /// The driver serves the request there instead of at its own block and
    /// takes the place out of its free space. `None` for every policy that
    /// serves requests where they lie.
    pub chosen: Option<Location>,
}

impl Dispatch {
    /// A dispatch reached by a direct seek.
    pub const fn direct(request: Request) -> Self {
        Dispatch {
            request,
            travel: Travel::Direct,
            chosen: None,
        }
    }

    /// A write reached by a direct seek and served at `at`, a place the
    /// policy chose for it.
    pub const fn placed(request: Request, at: Location) -> Self {
        Dispatch {
            request,
            travel: Travel::Direct,
            chosen: Some(at),
        }
    }
}

/// A free place the heads can reach, as a disk model finds it for an eager
/// write (see [`ServiceEstimator::nearest_free`](crate::ServiceEstimator::nearest_free)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FreeBlock {
    /// Where the free place starts.
    pub at: Location,
    /// Time to position the heads over its first block: seek, head switch
    /// and rotational latency, as [`ServiceEstimator::positioning_time`](crate::ServiceEstimator::positioning_time)
    /// counts them for a queued request.
    pub positioning: Nanos,
}
