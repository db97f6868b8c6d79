//! Choosing an array policy and its queue disciplines at run time.

use core::fmt;
use core::str::FromStr;

use super::{
    Abort, ArrayPolicy, BothCopies, BothCopiesAbort, CPssq, Cmq, Completion, CrEsq, CruEsq, Dmq,
    Md, MrEsq, QueueLengths, RandomRead, SPssq, ShortestQueue, Start,
};
use crate::any::{AnyScheduler, PolicySpec, SpecError};
use crate::error::SchedError;
use crate::policy::ExpiredRule;
use crate::request::{Cylinder, Head, Nanos, Request, RequestId};
use crate::scheduler::ServiceEstimator;

/// How a DMQ routes reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Routing {
    /// [`RandomRead`]: disk 0 with probability `alpha` (R-DMQ).
    Random {
        /// Probability of disk 0; the others share the rest.
        alpha: f64,
    },
    /// [`ShortestQueue`] (SQ-DMQ).
    ShortestQueue,
    /// [`BothCopies`] (MR-DMQ).
    Both,
    /// [`BothCopiesAbort`] (MR-DMQA).
    BothAbort(Abort),
    /// [`Md`]: Linux md RAID-1 read balancing.
    Md,
}

/// An array policy with its disciplines, as named on a command line.
///
/// Text forms: `s-pssq`, `c-pssq`, `cr-esq`, `cru-esq`, `mr-esq`;
/// `r-dmq[:alpha=0.5]`, `sq-dmq`, `mr-dmq`, `mr-dmqa[:abort=start|complete]`,
/// `md-raid1`, each with `queue=<policy>` (default `fcfs`) and
/// `modified=true|false` (Chen & Towsley's idle-first routing, default false);
/// `cmq[:common=<policy>,aux=<policy>]` (defaults `fcfs`). A nested policy with
/// parameters is written with parentheses: `queue=ssedo(m=3,beta=2)`.
///
/// The compositions of Chen & Towsley (1991) have names of their own:
/// `dmq-rd`, `dmq-sq`, `dmq-mr` (modified routing over SSTF; `dmq` is
/// `dmq-sq`), `rt-dmq-rd`, `rt-dmq-sq`, `rt-dmq-mr` (the same over SSEDO;
/// `rt-dmq` is `rt-dmq-sq`), `fd-dmq` (modified SQ routing over FD-SCAN),
/// `cmq-sstf` (the modified CMQ) and `rt-cmq-f`, `rt-cmq-s`, `rt-cmq-w`
/// (SSEDO common queue; FCFS, SSTF or SSEDO auxiliary queues; `rt-cmq` is
/// `rt-cmq-s`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArraySpec {
    /// [`SPssq`].
    SPssq,
    /// [`CPssq`].
    CPssq,
    /// [`CrEsq`].
    CrEsq,
    /// [`CruEsq`].
    CruEsq,
    /// [`MrEsq`].
    MrEsq,
    /// [`Dmq`].
    Dmq {
        /// Read routing.
        routing: Routing,
        /// Per-disk queue discipline.
        queue: PolicySpec,
        /// Chen & Towsley's idle-first routing ([`Dmq::prefer_idle`]).
        modified: bool,
    },
    /// [`Cmq`].
    Cmq {
        /// Common queue discipline.
        common: PolicySpec,
        /// Auxiliary queue discipline.
        aux: PolicySpec,
    },
}

/// Why an array policy description did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArraySpecError {
    /// The name is not an array policy.
    UnknownPolicy,
    /// The policy takes no parameter of that name.
    UnknownParameter,
    /// A parameter's value does not parse.
    BadValue {
        /// The parameter.
        parameter: &'static str,
        /// What it must look like.
        expected: &'static str,
    },
    /// A nested queue discipline did not parse.
    Queue(SpecError),
    /// The values parse but a constructor rejects them.
    Invalid(SchedError),
}

impl fmt::Display for ArraySpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArraySpecError::UnknownPolicy => {
                f.write_str("unknown array policy (known: ")?;
                for (i, (name, _)) in ArraySpec::NAMED.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(name)?;
                }
                f.write_str(")")
            }
            ArraySpecError::UnknownParameter => {
                f.write_str("no such parameter for this array policy")
            }
            ArraySpecError::BadValue {
                parameter,
                expected,
            } => write!(f, "parameter {parameter}: expected {expected}"),
            ArraySpecError::Queue(e) => write!(f, "queue discipline: {e}"),
            ArraySpecError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for ArraySpecError {}

const FCFS: PolicySpec = PolicySpec::Fcfs;
const SSTF: PolicySpec = PolicySpec::Sstf;
const SSEDO: PolicySpec = PolicySpec::Ssedo { m: 3, beta: 2.0 };
const FD_SCAN: PolicySpec = PolicySpec::FdScan {
    expired: ExpiredRule::Keep,
};

const fn dmq(routing: Routing, queue: PolicySpec, modified: bool) -> ArraySpec {
    ArraySpec::Dmq {
        routing,
        queue,
        modified,
    }
}

impl ArraySpec {
    /// Every named array policy, base policies first, then the compositions.
    pub const NAMED: [(&'static str, ArraySpec); 25] = [
        ("s-pssq", ArraySpec::SPssq),
        ("c-pssq", ArraySpec::CPssq),
        ("cr-esq", ArraySpec::CrEsq),
        ("cru-esq", ArraySpec::CruEsq),
        ("mr-esq", ArraySpec::MrEsq),
        ("r-dmq", dmq(Routing::Random { alpha: 0.5 }, FCFS, false)),
        ("sq-dmq", dmq(Routing::ShortestQueue, FCFS, false)),
        ("mr-dmq", dmq(Routing::Both, FCFS, false)),
        (
            "mr-dmqa",
            dmq(Routing::BothAbort(Abort::AtCompletion), FCFS, false),
        ),
        ("md-raid1", dmq(Routing::Md, FCFS, false)),
        (
            "cmq",
            ArraySpec::Cmq {
                common: FCFS,
                aux: FCFS,
            },
        ),
        ("dmq", dmq(Routing::ShortestQueue, SSTF, true)),
        ("dmq-rd", dmq(Routing::Random { alpha: 0.5 }, SSTF, true)),
        ("dmq-sq", dmq(Routing::ShortestQueue, SSTF, true)),
        (
            "dmq-mr",
            dmq(Routing::BothAbort(Abort::AtStart), SSTF, true),
        ),
        ("rt-dmq", dmq(Routing::ShortestQueue, SSEDO, true)),
        (
            "rt-dmq-rd",
            dmq(Routing::Random { alpha: 0.5 }, SSEDO, true),
        ),
        ("rt-dmq-sq", dmq(Routing::ShortestQueue, SSEDO, true)),
        (
            "rt-dmq-mr",
            dmq(Routing::BothAbort(Abort::AtStart), SSEDO, true),
        ),
        ("fd-dmq", dmq(Routing::ShortestQueue, FD_SCAN, true)),
        (
            "cmq-sstf",
            ArraySpec::Cmq {
                common: SSTF,
                aux: SSTF,
            },
        ),
        (
            "rt-cmq",
            ArraySpec::Cmq {
                common: SSEDO,
                aux: SSTF,
            },
        ),
        (
            "rt-cmq-f",
            ArraySpec::Cmq {
                common: SSEDO,
                aux: FCFS,
            },
        ),
        (
            "rt-cmq-s",
            ArraySpec::Cmq {
                common: SSEDO,
                aux: SSTF,
            },
        ),
        (
            "rt-cmq-w",
            ArraySpec::Cmq {
                common: SSEDO,
                aux: SSEDO,
            },
        ),
    ];

    /// Builds the policy for `D` disks of `cylinders` cylinders, up to `N`
    /// logical requests; `seed` drives random routing.
    ///
    /// # Errors
    /// A constructor's [`SchedError`].
    pub fn build<const N: usize, const D: usize>(
        &self,
        cylinders: u32,
        seed: u64,
    ) -> Result<AnyArray<N, D>, SchedError> {
        let queues = |spec: &PolicySpec| -> Result<[AnyScheduler<N>; D], SchedError> {
            let mut out: [Option<AnyScheduler<N>>; D] = core::array::from_fn(|_| None);
            for q in out.iter_mut() {
                *q = Some(spec.build::<N>(cylinders)?);
            }
            Ok(out.map(|q| q.expect("filled above")))
        };
        let check = |spec: &PolicySpec| match spec {
            PolicySpec::FdScan {
                expired: ExpiredRule::Drop,
            } => Err(SchedError::InvalidParameter {
                name: "queue",
                expected: "fd-scan with expired=keep (array policies never collect expired requests)",
            }),
            _ => Ok(()),
        };
        Ok(match *self {
            ArraySpec::SPssq => AnyArray::SPssq(SPssq::new()?),
            ArraySpec::CPssq => AnyArray::CPssq(CPssq::new()?),
            ArraySpec::CrEsq => AnyArray::CrEsq(CrEsq::new()?),
            ArraySpec::CruEsq => AnyArray::CruEsq(CruEsq::new()?),
            ArraySpec::MrEsq => AnyArray::MrEsq(MrEsq::new()?),
            ArraySpec::Dmq {
                routing,
                queue,
                modified,
            } => {
                check(&queue)?;
                let qs = queues(&queue)?;
                let finish = |mut d: AnyDmq<N, D>| {
                    if modified {
                        d = d.prefer_idle();
                    }
                    AnyArray::Dmq(d)
                };
                match routing {
                    Routing::Random { alpha } => finish(AnyDmq::Random(Dmq::new(
                        qs,
                        RandomRead::with_alpha(alpha, seed)?,
                    )?)),
                    Routing::ShortestQueue => {
                        finish(AnyDmq::Shortest(Dmq::new(qs, ShortestQueue)?))
                    }
                    Routing::Both => finish(AnyDmq::Both(Dmq::new(qs, BothCopies)?)),
                    Routing::BothAbort(when) => finish(AnyDmq::BothAbort(Dmq::new(
                        qs,
                        BothCopiesAbort::new(when)?,
                    )?)),
                    Routing::Md => finish(AnyDmq::Md(Dmq::new(qs, Md)?)),
                }
            }
            ArraySpec::Cmq { common, aux } => {
                check(&common)?;
                check(&aux)?;
                AnyArray::Cmq(Cmq::new(common.build::<N>(cylinders)?, queues(&aux)?)?)
            }
        })
    }

    /// The base policy's name (without disciplines).
    pub fn base_name(&self) -> &'static str {
        match self {
            ArraySpec::SPssq => "s-pssq",
            ArraySpec::CPssq => "c-pssq",
            ArraySpec::CrEsq => "cr-esq",
            ArraySpec::CruEsq => "cru-esq",
            ArraySpec::MrEsq => "mr-esq",
            ArraySpec::Dmq { routing, .. } => match routing {
                Routing::Random { .. } => "r-dmq",
                Routing::ShortestQueue => "sq-dmq",
                Routing::Both => "mr-dmq",
                Routing::BothAbort(_) => "mr-dmqa",
                Routing::Md => "md-raid1",
            },
            ArraySpec::Cmq { .. } => "cmq",
        }
    }
}

/// Splits `a=1,b=f(x=1,y=2)` at the commas outside parentheses.
fn top_level_pairs(params: &str) -> impl Iterator<Item = &str> {
    let mut rest = params;
    core::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut depth = 0i32;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                c == ',' && depth == 0
            })
            .map_or(rest.len(), |(i, _)| i);
        let item = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or("");
        Some(item.trim())
    })
    .filter(|p| !p.is_empty())
}

/// Parses a nested discipline, `ssedo(m=3,beta=2)` or `ssedo:m=3` or `sstf`.
fn parse_queue(v: &str) -> Result<PolicySpec, ArraySpecError> {
    let v = v.trim();
    let parsed = match v.split_once('(') {
        Some((name, rest)) => {
            let params = rest.strip_suffix(')').ok_or(ArraySpecError::BadValue {
                parameter: "queue",
                expected: "a policy such as ssedo(m=3,beta=2)",
            })?;
            // PolicySpec's own syntax is name:params; rebuild it without allocating.
            parse_policy_parts(name, params)
        }
        None => v.parse::<PolicySpec>(),
    };
    parsed.map_err(ArraySpecError::Queue)
}

fn parse_policy_parts(name: &str, params: &str) -> Result<PolicySpec, SpecError> {
    let mut buf = [0u8; 128];
    let total = name.len() + 1 + params.len();
    if total > buf.len() {
        return Err(SpecError::BadValue {
            parameter: "queue",
            expected: "a policy description under 128 characters",
        });
    }
    buf[..name.len()].copy_from_slice(name.as_bytes());
    buf[name.len()] = b':';
    buf[name.len() + 1..total].copy_from_slice(params.as_bytes());
    // Both halves are valid UTF-8 and ':' is ASCII, so the join is too.
    core::str::from_utf8(&buf[..total])
        .map_err(|_| SpecError::UnknownPolicy)?
        .parse()
}

fn parse_bool(v: &str, parameter: &'static str) -> Result<bool, ArraySpecError> {
    match v {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(ArraySpecError::BadValue {
            parameter,
            expected: "true or false",
        }),
    }
}

impl FromStr for ArraySpec {
    type Err = ArraySpecError;

    fn from_str(s: &str) -> Result<Self, ArraySpecError> {
        let (name, params) = s.split_once(':').unwrap_or((s, ""));
        let name = name.trim();
        let mut spec = ArraySpec::NAMED
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, spec)| *spec)
            .ok_or(ArraySpecError::UnknownPolicy)?;
        for pair in top_level_pairs(params) {
            let (key, value) = pair.split_once('=').ok_or(ArraySpecError::BadValue {
                parameter: "parameters",
                expected: "key=value pairs separated by commas",
            })?;
            let (key, value) = (key.trim(), value.trim());
            match (&mut spec, key) {
                (ArraySpec::Dmq { queue, .. }, "queue") => *queue = parse_queue(value)?,
                (ArraySpec::Dmq { modified, .. }, "modified") => {
                    *modified = parse_bool(value, "modified")?
                }
                (
                    ArraySpec::Dmq {
                        routing: Routing::Random { alpha },
                        ..
                    },
                    "alpha",
                ) => {
                    *alpha = value.parse().map_err(|_| ArraySpecError::BadValue {
                        parameter: "alpha",
                        expected: "a probability in [0, 1]",
                    })?
                }
                (
                    ArraySpec::Dmq {
                        routing: Routing::BothAbort(when),
                        ..
                    },
                    "abort",
                ) => {
                    *when = match value {
                        "start" => Abort::AtStart,
                        "complete" | "completion" => Abort::AtCompletion,
                        _ => {
                            return Err(ArraySpecError::BadValue {
                                parameter: "abort",
                                expected: "start or complete",
                            });
                        }
                    }
                }
                (ArraySpec::Cmq { common, .. }, "common") => *common = parse_queue(value)?,
                (ArraySpec::Cmq { aux, .. }, "aux") => *aux = parse_queue(value)?,
                _ => return Err(ArraySpecError::UnknownParameter),
            }
        }
        spec.build::<1, 2>(1, 0).map_err(ArraySpecError::Invalid)?;
        Ok(spec)
    }
}

/// Prints a nested discipline in the parenthesised form `parse_queue` reads.
struct Nested<'a>(&'a PolicySpec);

impl fmt::Display for Nested<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // PolicySpec prints `name:params`; nested, the params go in parentheses.
        struct Paren<'b, 'c> {
            out: &'b mut fmt::Formatter<'c>,
            opened: bool,
        }
        impl fmt::Write for Paren<'_, '_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                match s.split_once(':').filter(|_| !self.opened) {
                    Some((before, after)) => {
                        self.opened = true;
                        write!(self.out, "{before}({after}")
                    }
                    None => self.out.write_str(s),
                }
            }
        }
        let mut w = Paren {
            out: f,
            opened: false,
        };
        fmt::write(&mut w, format_args!("{}", self.0))?;
        if w.opened {
            w.out.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for ArraySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base_name())?;
        match self {
            ArraySpec::Dmq {
                routing,
                queue,
                modified,
            } => {
                f.write_str(":")?;
                match routing {
                    Routing::Random { alpha } => write!(f, "alpha={alpha},")?,
                    Routing::BothAbort(Abort::AtStart) => f.write_str("abort=start,")?,
                    Routing::BothAbort(_) => f.write_str("abort=complete,")?,
                    _ => {}
                }
                write!(f, "queue={},modified={modified}", Nested(queue))
            }
            ArraySpec::Cmq { common, aux } => {
                write!(f, ":common={},aux={}", Nested(common), Nested(aux))
            }
            _ => Ok(()),
        }
    }
}

/// DMQ over run-time disciplines, one variant per read routing.
#[allow(clippy::large_enum_variant)] // every variant is a fixed-size array of queues
pub enum AnyDmq<const N: usize, const D: usize> {
    /// R-DMQ.
    Random(Dmq<AnyScheduler<N>, RandomRead<D>, N, D>),
    /// SQ-DMQ.
    Shortest(Dmq<AnyScheduler<N>, ShortestQueue, N, D>),
    /// MR-DMQ.
    Both(Dmq<AnyScheduler<N>, BothCopies, N, D>),
    /// MR-DMQA.
    BothAbort(Dmq<AnyScheduler<N>, BothCopiesAbort, N, D>),
    /// Linux md RAID-1 balancing.
    Md(Dmq<AnyScheduler<N>, Md, N, D>),
}

macro_rules! each_dmq {
    ($self:expr, $d:ident => $body:expr) => {
        match $self {
            AnyDmq::Random($d) => $body,
            AnyDmq::Shortest($d) => $body,
            AnyDmq::Both($d) => $body,
            AnyDmq::BothAbort($d) => $body,
            AnyDmq::Md($d) => $body,
        }
    };
}

impl<const N: usize, const D: usize> AnyDmq<N, D> {
    fn prefer_idle(self) -> Self {
        match self {
            AnyDmq::Random(d) => AnyDmq::Random(d.prefer_idle()),
            AnyDmq::Shortest(d) => AnyDmq::Shortest(d.prefer_idle()),
            AnyDmq::Both(d) => AnyDmq::Both(d.prefer_idle()),
            AnyDmq::BothAbort(d) => AnyDmq::BothAbort(d.prefer_idle()),
            AnyDmq::Md(d) => AnyDmq::Md(d.prefer_idle()),
        }
    }
}

/// Any array policy, chosen at run time, without allocation.
#[allow(clippy::large_enum_variant)] // every variant is fixed-size queue storage; none is small
pub enum AnyArray<const N: usize, const D: usize> {
    /// [`SPssq`].
    SPssq(SPssq<N, D>),
    /// [`CPssq`].
    CPssq(CPssq<N, D>),
    /// [`CrEsq`].
    CrEsq(CrEsq<N, D>),
    /// [`CruEsq`].
    CruEsq(CruEsq<N, D>),
    /// [`MrEsq`].
    MrEsq(MrEsq<N, D>),
    /// Any [`Dmq`].
    Dmq(AnyDmq<N, D>),
    /// [`Cmq`].
    Cmq(Cmq<AnyScheduler<N>, AnyScheduler<N>, N, D>),
}

macro_rules! each_array {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            AnyArray::SPssq($p) => $body,
            AnyArray::CPssq($p) => $body,
            AnyArray::CrEsq($p) => $body,
            AnyArray::CruEsq($p) => $body,
            AnyArray::MrEsq($p) => $body,
            AnyArray::Dmq(dmq) => each_dmq!(dmq, $p => $body),
            AnyArray::Cmq($p) => $body,
        }
    };
}

impl<const N: usize, const D: usize> ArrayPolicy<D> for AnyArray<N, D> {
    fn submit(
        &mut self,
        req: Request,
        placement: [Cylinder; D],
        heads: &[Head; D],
        now: Nanos,
    ) -> Result<(), SchedError> {
        each_array!(self, p => p.submit(req, placement, heads, now))
    }
    fn poll_start(
        &mut self,
        heads: &[Head; D],
        now: Nanos,
        est: &[&dyn ServiceEstimator; D],
    ) -> Option<Start> {
        each_array!(self, p => p.poll_start(heads, now, est))
    }
    fn complete(&mut self, disk: usize, now: Nanos) -> Result<Completion, SchedError> {
        each_array!(self, p => p.complete(disk, now))
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError> {
        each_array!(self, p => p.cancel(id))
    }
    fn in_system(&self) -> usize {
        each_array!(self, p => p.in_system())
    }
    fn is_busy(&self, disk: usize) -> bool {
        each_array!(self, p => p.is_busy(disk))
    }
    fn queue_lengths(&self) -> QueueLengths<D> {
        each_array!(self, p => p.queue_lengths())
    }
}
