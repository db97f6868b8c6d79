//! The policy table: one row per policy, and everything that names policies
//! follows from it — [`PolicySpec`] and [`ArraySpec`](crate::array::ArraySpec)
//! with their parameters, parsing (aliases, "expected" messages) and
//! canonical text, [`AnyScheduler`] and [`AnyArray`](crate::array::AnyArray)
//! with the calls that build each policy, [`AnySpec`] for a description of any
//! kind, and the [`registry`](crate::registry) with each policy's summary,
//! paper and parameter meanings.
//!
//! Adding a policy is its own file (with its `mod` line in `policy/` or
//! `array/`) and one row here; `tests/one_row_per_policy.rs` checks that
//! nothing else names it. The kinds of row:
//!
//! - `disk Type "name" | "alias" { summary, paper, [uses: [deadlines,
//!   cylinders],] [estimator: true,]
//!   [parameters: { field: type as Codec = value => "as written", keys "key" |
//!   "alias", expects "...", means "..."; }], build: |storage, cylinders| ... }`:
//!   a [`Scheduler`]; `uses` says what it orders requests by besides
//!   arrival ([`Uses`]; asking the estimator is using positioning);
//!   `Type` names the policy, its [`PolicySpec`] and
//!   [`AnyScheduler`] variants. A default is given twice, as a value
//!   ([`PolicySpec::DEFAULTS`] is a constant) and as written (the registry's
//!   text); a test keeps the two equal.
//! - `rate_based Type "name" { summary, paper, spec: Spec = default,
//!   parameters: [...] }`: a rate-based policy whose description parses into
//!   `Spec` (the policy's own admission constants) through
//!   `Spec::set_parameter` and prints through `Spec::write_parameters`.
//! - `single_queue Variant "name" { summary, paper, rule: Rule }`: a start
//!   rule of the single-queue family; `dmq Routing "name" { ..., routing:
//!   |disks, seed| ... }`: a DMQ read routing (the family's own parameters,
//!   `queue` and `modified`, are in the `dmq_family` block); `queue_sets
//!   Type "name" { ..., variant: Type<...>, build: |storage, queue, queues|
//!   ... }`: an array policy over per-disk queue sets (CMQ with its common
//!   queue, the EW-Array's stripe group), `variant` the type
//!   [`AnyArray`](crate::array::AnyArray) holds it as, `queue` and `queues`
//!   building one queue or one per disk of a discipline. Array parameters
//!   are given as written only.
//! - `composition "name" = "description" { summary, paper }`: a name of
//!   Chen & Towsley (1991), or Linux's for its mirror, for a description; its registry parameters are
//!   its base policy's, with the defaults the description sets.

#[macro_use]
mod generate;
mod any_spec;
mod grammar;

use core::fmt;
use core::str::FromStr;

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

pub use any_spec::{AnySpec, AnySpecError};
use grammar::{
    Class, Count, Discipline, Duration, Flag, PAIRS_EXPECTED, Real, Window, any, key_value, pairs,
    repeated_key, same_name, split_description, top_level_pairs,
};
pub(crate) use grammar::{Codec, Separator};

use crate::array::*;
use crate::error::{ArraySpecError, BuildError, CancelError, EnqueueError, SpecError};
#[cfg(feature = "alloc")]
use crate::error::{CompleteError, DiskStateError, PollError};
use crate::policy::*;
use crate::registry::{ComposedParameters, Parameter, PolicyInfo, PolicyKind, Uses};
use crate::request::{Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// What to do with a single-disk policy built as its own type
/// ([`PolicySpec::build_with`]): code generic over the queue, compiled once
/// for each policy, where [`AnyScheduler`] would choose the policy on every
/// call.
pub trait WithPolicy {
    /// What [`run`](Self::run) returns.
    type Output;

    /// Takes the queue the spec describes.
    fn run<Q: Scheduler>(self, queue: Q) -> Self::Output;
}

/// A single-disk parameter's value read from `text`.
fn disk_value<C: Codec>(
    text: &str,
    parameter: &'static str,
    expected: &'static str,
) -> Result<C::Value, SpecError> {
    C::parse(text).map_err(|nested| {
        nested.unwrap_or(SpecError::BadValue {
            parameter,
            expected,
        })
    })
}

/// An array parameter's value read from `text`.
fn array_value<C: Codec>(
    text: &str,
    parameter: &'static str,
    expected: &'static str,
) -> Result<C::Value, ArraySpecError> {
    C::parse(text).map_err(|nested| match nested {
        Some(e) => ArraySpecError::Queue(e),
        None => ArraySpecError::BadValue {
            parameter,
            expected,
        },
    })
}

policy_table! {
    /// [`Fcfs`](crate::policy::Fcfs).
    disk Fcfs "fcfs" {
        summary: "first come, first served",
        paper: "the classic baseline",
        build: |storage, _cylinders| Ok(Fcfs::new(storage)),
    }
    /// [`Sstf`](crate::policy::Sstf).
    disk Sstf "sstf" {
        summary: "shortest seek (cylinder distance) first",
        paper: "Denning 1967",
        uses: [cylinders],
        build: |storage, cylinders| Sstf::new(storage, cylinders),
    }
    /// [`Scan`](crate::policy::Scan).
    disk Scan "scan" {
        summary: "elevator sweeping to the disk edge",
        paper: "Denning 1967",
        uses: [cylinders],
        build: |storage, cylinders| Scan::new(storage, cylinders),
    }
    /// [`Look`](crate::policy::Look).
    disk Look "look" {
        summary: "elevator reversing at the last request",
        paper: "Merten 1970",
        uses: [cylinders],
        build: |storage, cylinders| Look::new(storage, cylinders),
    }
    /// [`CScan`](crate::policy::CScan).
    disk CScan "c-scan" {
        summary: "upward sweeps, return seek to cylinder 0",
        paper: "Seaman et al. 1966",
        uses: [cylinders],
        build: |storage, cylinders| CScan::new(storage, cylinders),
    }
    /// [`CLook`](crate::policy::CLook).
    disk CLook "c-look" {
        summary: "upward sweeps, jump to the lowest request",
        paper: "Merten 1970",
        uses: [cylinders],
        build: |storage, cylinders| CLook::new(storage, cylinders),
    }
    /// [`VScan`](crate::policy::VScan) with bias `r` (default 0.2, Geist & Daniel's best).
    disk VScan "vscan" {
        summary: "SSTF with a reversal penalty of r x cylinders",
        paper: "Geist & Daniel 1987",
        uses: [cylinders],
        parameters: {
            /// Reversal penalty as a fraction of the cylinder count.
            r: f64 as Real = 0.2 => "0.2",
                keys "r" | "R",
                expects "a number in [0, 1]",
                means "reversal penalty, a fraction of the cylinders";
        },
        build: |storage, cylinders| VScan::new(storage, cylinders, r),
    }
    /// [`Edf`](crate::policy::Edf).
    disk Edf "edf" {
        summary: "earliest deadline first",
        paper: "Liu & Layland 1973",
        uses: [deadlines],
        build: |storage, _cylinders| Ok(Edf::new(storage)),
    }
    /// [`Ssedo`](crate::policy::Ssedo) (defaults m = 3, β = 2, the paper's values).
    disk Ssedo "ssedo" {
        summary: "least beta^(i-1) x distance among the m earliest deadlines",
        paper: "Chen & Towsley 1991",
        uses: [deadlines, cylinders],
        parameters: {
            /// Window size.
            m: usize as Count = 3 => "3",
                keys "m" | "window",
                expects "a window of 1 ..= 64 requests",
                means "window: requests with the earliest deadlines";
            /// Weight base.
            beta: f64 as Real = 2.0 => "2",
                keys "beta",
                expects "a number of at least 1",
                means "weight base, at least 1";
        },
        build: |storage, _cylinders| Ssedo::new(storage, m, beta),
    }
    /// [`Ssedv`](crate::policy::Ssedv) (defaults α = 0.5, unit 1 ms).
    disk Ssedv "ssedv" {
        summary: "least alpha x distance + (1 - alpha) x slack/unit",
        paper: "Chen & Towsley 1991",
        uses: [deadlines, cylinders],
        parameters: {
            /// Weight of the seek distance.
            alpha: f64 as Real = 0.5 => "0.5",
                keys "alpha",
                expects "a number in [0, 1]",
                means "weight of the seek distance, in [0, 1]";
            /// Nanoseconds of slack that count as one unit (1 ns ..= 2⁴⁸ ns).
            unit: Nanos as Duration = 1_000_000 => "1ms",
                keys "unit",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "slack that counts as one cylinder";
        },
        build: |storage, cylinders| Ssedv::new(storage, cylinders, alpha, unit),
    }
    /// [`ScanEdf`](crate::policy::ScanEdf) (default granularity 1 ns: exact ties).
    disk ScanEdf "scan-edf" {
        summary: "EDF; equal deadlines served in elevator order",
        paper: "Reddy & Wyllie 1993",
        uses: [deadlines, cylinders],
        parameters: {
            /// Deadlines within the same multiple of this many ns tie.
            granularity: Nanos as Duration = 1 => "1ns",
                keys "granularity" | "g",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "deadlines within one multiple of this tie";
        },
        build: |storage, cylinders| ScanEdf::new(storage, cylinders, granularity),
    }
    /// [`FdScan`](crate::policy::FdScan) (default: keep expired requests).
    disk FdScan "fd-scan" {
        summary: "sweep toward the earliest feasible deadline",
        paper: "Abbott & Garcia-Molina 1990",
        uses: [deadlines, cylinders],
        estimator: true,
        parameters: {
            /// What happens to expired requests.
            expired: ExpiredRule as ExpiredRule = ExpiredRule::Keep => "keep",
                keys "expired",
                expects "keep or drop",
                means "keep or drop requests whose deadline passed";
        },
        build: |storage, cylinders| FdScan::new(storage, cylinders, expired),
    }
    rate_based WrrScan "wrr-scan" {
        summary: "rate-based tasks in weighted rounds of SCAN sweeps, with admission control",
        paper: "Tsai, Chu & Huang 2004",
        spec: WrrParams = WrrParams::tsai04(WrrMode::Aligned, AperiodicReserve::Share { ppm: 5_000 }),
        parameters: [
            "mode" = "ca", means "r (random data), c (contiguous) or ca (aligned releases)";
            "share" = "0.005", means "aperiodic reservation, a fraction of each round";
        ],
    }
    /// [`Sptf`](crate::policy::Sptf) (default: every request is a candidate).
    disk Sptf "sptf" | "satf" {
        summary: "shortest positioning (seek + rotation) time first",
        paper: "Seltzer et al. 1990; Worthington et al. 1994",
        estimator: true,
        parameters: {
            /// Candidates nearest the arm, `None` for all.
            window: Option<usize> as Window = None => "all",
                keys "window",
                expects "a number of candidates or `all`",
                means "candidates nearest the arm, or all";
        },
        build: |storage, cylinders| Sptf::new(storage, cylinders, window),
    }
    /// [`AgedSptf`](crate::policy::AgedSptf) (default weight 0.01: 100 ms of waiting forgives 1 ms of positioning).
    disk AgedSptf "aged-sptf" {
        summary: "SPTF minus weight x waiting time",
        paper: "Worthington et al. 1994 (DiskSim)",
        estimator: true,
        parameters: {
            /// Positioning nanoseconds forgiven per nanosecond waited.
            weight: f64 as Real = 0.01 => "0.01",
                keys "weight",
                expects "a number of at least 0",
                means "positioning ns forgiven per ns waited";
            /// Candidates nearest the arm, `None` for all.
            window: Option<usize> as Window = None => "all",
                keys "window",
                expects "a number of candidates or `all`",
                means "candidates nearest the arm, or all";
        },
        build: |storage, cylinders| AgedSptf::new(storage, cylinders, weight, window),
    }
    /// [`SatfEw`](crate::policy::SatfEw).
    disk SatfEw "satf-ew" {
        summary: "SATF against the nearest free block for a write, sweeping one way at a time",
        paper: "Zhang, Yu, Krishnamurthy & Wang 2002",
        estimator: true,
        build: |storage, cylinders| SatfEw::new(storage, cylinders),
    }
    /// [`MqDeadline`](crate::policy::MqDeadline) (the kernel's defaults).
    disk MqDeadline "mq-deadline" | "deadline" {
        summary: "Linux: sorted batches of reads or writes, FIFO expiry between batches",
        paper: "Linux block/mq-deadline.c (Axboe 2002, 2016)",
        uses: [cylinders],
        parameters: {
            /// Nanoseconds after arrival at which a read expires.
            read_expire: Nanos as Duration = 500_000_000 => "500ms",
                keys "read_expire",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "a read expires this long after it arrived";
            /// Nanoseconds after arrival at which a write expires.
            write_expire: Nanos as Duration = 5_000_000_000 => "5s",
                keys "write_expire",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "a write expires this long after it arrived";
            /// Requests a batch may hold.
            fifo_batch: usize as Count = 16 => "16",
                keys "fifo_batch",
                expects "a number of requests",
                means "requests a batch of one direction may hold";
            /// Read batches chosen over waiting writes before a write batch.
            writes_starved: usize as Count = 2 => "2",
                keys "writes_starved",
                expects "a number of read batches",
                means "read batches preferred over waiting writes";
        },
        build: |storage, cylinders| {
            MqDeadline::new(storage, cylinders, read_expire, write_expire, fifo_batch, writes_starved)
        },
    }
    /// [`Bfq`](crate::policy::Bfq) (the kernel's defaults; weights through
    /// [`Bfq::set_weight`](crate::policy::Bfq::set_weight), 100 otherwise).
    disk Bfq "bfq" {
        summary: "Linux: per-class queues with budgets in B-WF2Q+ order, idling for sync queues",
        paper: "Linux block/bfq-iosched.c (Valente & Checconi 2010)",
        uses: [cylinders],
        parameters: {
            /// How long the disk waits for a sync queue's next request.
            slice_idle: Nanos as Duration = 8_000_000 => "8ms",
                keys "slice_idle",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "idle this long for a sync queue's next request";
            /// The longest a queue stays in service.
            timeout_sync: Nanos as Duration = 125_000_000 => "125ms",
                keys "timeout_sync",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "budget timeout: the longest a queue stays in service";
            /// The budget in sectors.
            max_budget: usize as Count = 16_384 => "16384",
                keys "max_budget",
                expects "a number of sectors, at least 1",
                means "sectors a queue may receive in one service slot";
            /// A read is served first this long after it arrived.
            fifo_expire_sync: Nanos as Duration = 125_000_000 => "125ms",
                keys "fifo_expire_sync",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "a read is served first this long after it arrived";
            /// A write is served first this long after it arrived.
            fifo_expire_async: Nanos as Duration = 250_000_000 => "250ms",
                keys "fifo_expire_async",
                expects "a duration such as 10ms, 500us, 2s or 1000ns",
                means "a write is served first this long after it arrived";
        },
        build: |storage, cylinders| {
            let params = BfqParams {
                slice_idle,
                timeout_sync,
                max_budget: u32::try_from(max_budget)
                    .map_err(|_| BuildError::invalid("max_budget", "at most 2^32 - 1 sectors"))?,
                fifo_expire_sync,
                fifo_expire_async,
            };
            Bfq::new(storage, cylinders, params)
        },
    }

    /// [`SPssq`](crate::array::SPssq).
    single_queue SPssq "s-pssq" {
        summary: "one FCFS queue; one request in service; reads on the primary",
        paper: "Towsley, Chen & Yu 1991",
        rule: SPssqRule,
    }
    /// [`CPssq`](crate::array::CPssq).
    single_queue CPssq "c-pssq" {
        summary: "as S-PSSQ, but a read starts as soon as the primary is idle",
        paper: "Towsley, Chen & Yu 1991",
        rule: CPssqRule,
    }
    /// [`CrEsq`](crate::array::CrEsq).
    single_queue CrEsq "cr-esq" {
        summary: "one FCFS queue; a read takes the nearest idle disk unless a write runs",
        paper: "Towsley, Chen & Yu 1991",
        rule: CrEsqRule,
    }
    /// [`CruEsq`](crate::array::CruEsq).
    single_queue CruEsq "cru-esq" {
        summary: "one FCFS queue; a read takes the nearest idle disk",
        paper: "Towsley, Chen & Yu 1991",
        rule: CruEsqRule,
    }
    /// [`MrEsq`](crate::array::MrEsq).
    single_queue MrEsq "mr-esq" {
        summary: "one FCFS queue; a read starts on every disk when all are idle",
        paper: "Towsley, Chen & Yu 1991",
        rule: MrEsqRule,
    }

    dmq_family {
        queue = "fcfs",
            expects "a policy such as ssedo(m=3,beta=2)",
            means "per-disk queue discipline, any disk policy";
        modified = "false",
            expects "true or false",
            means "a read finding an idle disk takes the nearest one";
    }
    /// [`RandomRead`](crate::array::RandomRead): disk 0 with probability `alpha` (R-DMQ).
    dmq RandomRead "r-dmq" {
        summary: "a queue per disk; reads join one at random",
        paper: "Towsley, Chen & Yu 1991",
        parameters: {
            /// Probability of disk 0; the others share the rest.
            alpha: f64 as Real = "0.5",
                keys "alpha",
                expects "a probability in [0, 1]",
                means "probability a read goes to disk 0";
        },
        routing: |disks, seed| RandomRead::with_alpha(disks, alpha, seed),
    }
    /// [`ShortestQueue`](crate::array::ShortestQueue) (SQ-DMQ).
    dmq ShortestQueue "sq-dmq" {
        summary: "a queue per disk; reads join the shortest",
        paper: "Towsley, Chen & Yu 1991",
        routing: |_disks, _seed| Ok(ShortestQueue),
    }
    /// [`BothCopies`](crate::array::BothCopies) (MR-DMQ).
    dmq BothCopies "mr-dmq" {
        summary: "a queue per disk; reads join every queue, first copy wins",
        paper: "Towsley, Chen & Yu 1991",
        routing: |_disks, _seed| Ok(BothCopies),
    }
    /// [`BothCopiesAbort`](crate::array::BothCopiesAbort) (MR-DMQA).
    dmq BothCopiesAbort "mr-dmqa" {
        summary: "as MR-DMQ, the other copies withdrawn at start or completion",
        paper: "Towsley, Chen & Yu 1991",
        parameters: {
            /// When the other copies are withdrawn.
            abort: Abort as Abort = "complete",
                keys "abort",
                expects "start or complete",
                means "start or complete";
        },
        routing: |_disks, _seed| BothCopiesAbort::new(abort),
    }
    /// [`Md`](crate::array::Md): Linux md RAID-1 read balancing.
    dmq Md "md-raid1" {
        summary: "a queue per disk; Linux md RAID-1 read balancing",
        paper: "Linux drivers/md/raid1.c",
        parameters: {
            /// Every disk rotates (nearest head, not fewest pending, when none is idle).
            rotational: bool as Flag = "true",
                keys "rotational",
                expects "true or false",
                means "disks rotate: a busy array reads at the nearest head, else the fewest pending";
        },
        routing: |_disks, _seed| Ok(Md { rotational }),
    }
    /// [`LeastTurnaround`](crate::array::LeastTurnaround): Ivy's least expected turnaround.
    dmq LeastTurnaround "ivy-dmq" {
        summary: "a queue per disk; reads go where they would finish soonest",
        paper: "Lo 1990 (Ivy)",
        parameters: {
            /// Count only the queued work the discipline would serve first.
            reorder: bool as Flag = "true",
                keys "reorder",
                expects "true or false",
                means "count the queued work the discipline serves first (true) or all of it";
        },
        routing: |_disks, _seed| Ok(LeastTurnaround { reorder }),
    }
    /// [`Cmq`](crate::array::Cmq).
    queue_sets Cmq "cmq" {
        summary: "a common queue; lagging writes in per-disk auxiliary queues",
        paper: "Towsley, Chen & Yu 1991",
        parameters: {
            /// Common queue discipline.
            common: PolicySpec as Discipline = "fcfs",
                keys "common",
                expects "a policy such as ssedo(m=3,beta=2)",
                means "common queue discipline";
            /// Auxiliary queue discipline.
            aux: PolicySpec as Discipline = "fcfs",
                keys "aux",
                expects "a policy such as ssedo(m=3,beta=2)",
                means "auxiliary queue discipline";
        },
        variant: Cmq<AnyScheduler<S>, Vec<AnyScheduler<S>>, S>,
        build: |storage, queue, queues| Cmq::new(storage, queue(common)?, queues(aux)?),
    }
    /// [`EwArray`](crate::array::EwArray).
    queue_sets EwArray "ew-array" {
        summary: "an eager-writing stripe group: writes placed at dispatch, copies propagated when a disk is idle",
        paper: "Zhang, Yu, Krishnamurthy & Wang 2002",
        parameters: {
            /// Per-disk foreground discipline.
            queue: PolicySpec as Discipline = "satf-ew",
                keys "queue",
                expects "a policy such as satf-ew or sptf",
                means "per-disk foreground queue discipline";
            /// Per-disk delayed-write discipline.
            delayed: PolicySpec as Discipline = "satf-ew",
                keys "delayed",
                expects "a policy such as satf-ew or sptf",
                means "per-disk delayed-write queue discipline";
            /// The class of the driver's propagation writes.
            propagation: u16 as Class = "1",
                keys "propagation",
                expects "a request class from 0 to 65535",
                means "class of the driver's propagation writes";
        },
        variant: EwArray<Vec<AnyScheduler<S>>, Vec<AnyScheduler<S>>, S>,
        build: |storage, _queue, queues| {
            EwArray::new(storage, queues(queue)?, queues(delayed)?, propagation)
        },
    }

    composition "dmq" = "sq-dmq:queue=sstf,modified=true" {
        summary: "DMQ-SQ",
        paper: "Chen & Towsley 1991",
    }
    composition "dmq-rd" = "r-dmq:queue=sstf,modified=true" {
        summary: "modified R-DMQ over SSTF",
        paper: "Chen & Towsley 1991",
    }
    composition "dmq-sq" = "sq-dmq:queue=sstf,modified=true" {
        summary: "modified SQ-DMQ over SSTF",
        paper: "Chen & Towsley 1991",
    }
    composition "dmq-mr" = "mr-dmqa:abort=start,queue=sstf,modified=true" {
        summary: "modified MR-DMQA (abort at start) over SSTF",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-dmq" = "sq-dmq:queue=ssedo(m=3,beta=2),modified=true" {
        summary: "RT-DMQ-SQ",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-dmq-rd" = "r-dmq:queue=ssedo(m=3,beta=2),modified=true" {
        summary: "modified R-DMQ over SSEDO",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-dmq-sq" = "sq-dmq:queue=ssedo(m=3,beta=2),modified=true" {
        summary: "modified SQ-DMQ over SSEDO",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-dmq-mr" = "mr-dmqa:abort=start,queue=ssedo(m=3,beta=2),modified=true" {
        summary: "modified MR-DMQA (abort at start) over SSEDO",
        paper: "Chen & Towsley 1991",
    }
    composition "fd-dmq" = "sq-dmq:queue=fd-scan(expired=keep),modified=true" {
        summary: "modified SQ-DMQ over FD-SCAN",
        paper: "Chen & Towsley 1991",
    }
    composition "cmq-sstf" = "cmq:common=sstf,aux=sstf" {
        summary: "the modified CMQ: SSTF on every queue",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-cmq" = "cmq:common=ssedo(m=3,beta=2),aux=sstf" {
        summary: "RT-CMQ-S",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-cmq-f" = "cmq:common=ssedo(m=3,beta=2),aux=fcfs" {
        summary: "CMQ: SSEDO common queue, FCFS auxiliary queues",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-cmq-s" = "cmq:common=ssedo(m=3,beta=2),aux=sstf" {
        summary: "CMQ: SSEDO common queue, SSTF auxiliary queues",
        paper: "Chen & Towsley 1991",
    }
    composition "rt-cmq-w" = "cmq:common=ssedo(m=3,beta=2),aux=ssedo(m=3,beta=2)" {
        summary: "CMQ: SSEDO common and auxiliary queues",
        paper: "Chen & Towsley 1991",
    }
    composition "linux-raid1" = "md-raid1:queue=mq-deadline" {
        summary: "Linux's mirror: md RAID-1 read balancing over mq-deadline queues",
        paper: "Linux drivers/md/raid1.c, block/mq-deadline.c",
    }
}
