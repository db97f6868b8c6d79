//! The text form of an array policy and its queue disciplines:
//! `name[:key=value,...]`, a nested discipline in parentheses.

use core::fmt;
use core::str::FromStr;

use super::policy::{PolicySpec, SpecError};
use crate::array::Abort;
use crate::error::BuildError;
use crate::policy::ExpiredRule;

/// How a DMQ routes reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Routing {
    /// [`RandomRead`](crate::array::RandomRead): disk 0 with probability `alpha` (R-DMQ).
    Random {
        /// Probability of disk 0; the others share the rest.
        alpha: f64,
    },
    /// [`ShortestQueue`](crate::array::ShortestQueue) (SQ-DMQ).
    ShortestQueue,
    /// [`BothCopies`](crate::array::BothCopies) (MR-DMQ).
    Both,
    /// [`BothCopiesAbort`](crate::array::BothCopiesAbort) (MR-DMQA).
    BothAbort(Abort),
    /// [`Md`](crate::array::Md): Linux md RAID-1 read balancing.
    Md,
    /// [`LeastBacklog`](crate::array::LeastBacklog): Ivy's least expected turnaround.
    LeastBacklog,
}

/// An array policy with its disciplines, as named on a command line.
///
/// Text forms: `s-pssq`, `c-pssq`, `cr-esq`, `cru-esq`, `mr-esq`;
/// `r-dmq[:alpha=0.5]`, `sq-dmq`, `mr-dmq`, `mr-dmqa[:abort=start|complete]`,
/// `md-raid1`, `ivy-dmq` (least expected turnaround), each with `queue=<policy>` (default `fcfs`) and
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
    /// [`SPssq`](crate::array::SPssq).
    SPssq,
    /// [`CPssq`](crate::array::CPssq).
    CPssq,
    /// [`CrEsq`](crate::array::CrEsq).
    CrEsq,
    /// [`CruEsq`](crate::array::CruEsq).
    CruEsq,
    /// [`MrEsq`](crate::array::MrEsq).
    MrEsq,
    /// [`Dmq`](crate::array::Dmq).
    Dmq {
        /// Read routing.
        routing: Routing,
        /// Per-disk queue discipline.
        queue: PolicySpec,
        /// Chen & Towsley's idle-first routing ([`Dmq::prefer_idle`](crate::array::Dmq::prefer_idle)).
        modified: bool,
    },
    /// [`Cmq`](crate::array::Cmq).
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
    Invalid(BuildError),
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
    pub const NAMED: [(&'static str, ArraySpec); 26] = [
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
        ("ivy-dmq", dmq(Routing::LeastBacklog, FCFS, false)),
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

    /// Checks what parsing cannot: the routing's parameters, and that no
    /// queue discipline drops expired requests (array policies never collect them).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] naming the parameter.
    pub fn validate(&self) -> Result<(), BuildError> {
        let keeps_expired = |spec: &PolicySpec| match spec {
            PolicySpec::FdScan {
                expired: ExpiredRule::Drop,
            } => Err(BuildError::invalid(
                "queue",
                "fd-scan with expired=keep (array policies never collect expired requests)",
            )),
            _ => spec.validate(),
        };
        match self {
            ArraySpec::Dmq { routing, queue, .. } => {
                if let Routing::Random { alpha } = routing
                    && !(0.0..=1.0).contains(alpha)
                {
                    return Err(BuildError::invalid("alpha", "a probability in [0, 1]"));
                }
                keeps_expired(queue)
            }
            ArraySpec::Cmq { common, aux } => {
                keeps_expired(common)?;
                keeps_expired(aux)
            }
            _ => Ok(()),
        }
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
                Routing::LeastBacklog => "ivy-dmq",
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
        spec.validate().map_err(ArraySpecError::Invalid)?;
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
