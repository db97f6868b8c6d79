//! One registry of every policy: name, kind, parameters with their defaults,
//! a one-line summary and the paper that defines it. Front ends list it; the
//! grammar in [`crate::PolicySpec`] and [`crate::array::ArraySpec`] parses
//! the same names (a test keeps them in step).

/// Whether a policy schedules one disk or an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// A [`Scheduler`](crate::Scheduler) for one disk.
    Disk,
    /// An [`ArrayPolicy`](crate::array::ArrayPolicy) for several disks.
    Array,
    /// A rate-based [`Scheduler`](crate::Scheduler) for one disk whose tasks
    /// are admitted through its own API (WRR-SCAN): its description parses
    /// into its admission constants ([`WrrParams`](crate::policy::WrrParams)),
    /// not into a [`PolicySpec`](crate::PolicySpec).
    RateBased,
}

/// One parameter of a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Parameter {
    /// The key in a policy description (`m` in `ssedo:m=3`).
    pub name: &'static str,
    /// Its default, as written in a description.
    pub default: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

/// One policy of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PolicyInfo {
    /// The canonical name, as parsed.
    pub name: &'static str,
    /// One disk or an array.
    pub kind: PolicyKind,
    /// What it does, in one line.
    pub summary: &'static str,
    /// Where it is defined.
    pub paper: &'static str,
    /// Its parameters.
    pub parameters: &'static [Parameter],
}

const fn p(name: &'static str, default: &'static str, meaning: &'static str) -> Parameter {
    Parameter {
        name,
        default,
        meaning,
    }
}

const fn entry(
    kind: PolicyKind,
    name: &'static str,
    summary: &'static str,
    paper: &'static str,
    parameters: &'static [Parameter],
) -> PolicyInfo {
    PolicyInfo {
        name,
        kind,
        summary,
        paper,
        parameters,
    }
}

const fn disk(
    name: &'static str,
    summary: &'static str,
    paper: &'static str,
    parameters: &'static [Parameter],
) -> PolicyInfo {
    entry(PolicyKind::Disk, name, summary, paper, parameters)
}

const fn array(
    name: &'static str,
    summary: &'static str,
    paper: &'static str,
    parameters: &'static [Parameter],
) -> PolicyInfo {
    entry(PolicyKind::Array, name, summary, paper, parameters)
}

const TOWSLEY: &str = "Towsley, Chen & Yu 1991";
const CHEN: &str = "Chen & Towsley 1991";
const QUEUE: Parameter = p(
    "queue",
    "fcfs",
    "per-disk queue discipline, any disk policy",
);
const QUEUE_SSTF: Parameter = p(
    "queue",
    "sstf",
    "per-disk queue discipline, any disk policy",
);
const QUEUE_SSEDO: Parameter = p(
    "queue",
    "ssedo(m=3,beta=2)",
    "per-disk queue discipline, any disk policy",
);
const MODIFIED: Parameter = p(
    "modified",
    "false",
    "a read finding an idle disk takes the nearest one",
);
const MODIFIED_ON: Parameter = p(
    "modified",
    "true",
    "a read finding an idle disk takes the nearest one",
);
const ALPHA: Parameter = p("alpha", "0.5", "probability a read goes to disk 0");
const WINDOW: Parameter = p("window", "all", "candidates nearest the arm, or all");

/// Every policy, single-disk ones first, in the order of the crate's tables.
pub const POLICIES: &[PolicyInfo] = &[
    disk(
        "fcfs",
        "first come, first served",
        "the classic baseline",
        &[],
    ),
    disk(
        "sstf",
        "shortest seek (cylinder distance) first",
        "Denning 1967",
        &[],
    ),
    disk(
        "scan",
        "elevator sweeping to the disk edge",
        "Denning 1967",
        &[],
    ),
    disk(
        "look",
        "elevator reversing at the last request",
        "Merten 1970",
        &[],
    ),
    disk(
        "c-scan",
        "upward sweeps, return seek to cylinder 0",
        "Seaman et al. 1966",
        &[],
    ),
    disk(
        "c-look",
        "upward sweeps, jump to the lowest request",
        "Merten 1970",
        &[],
    ),
    disk(
        "vscan",
        "SSTF with a reversal penalty of r x cylinders",
        "Geist & Daniel 1987",
        &[p(
            "r",
            "0.2",
            "reversal penalty, a fraction of the cylinders",
        )],
    ),
    disk("edf", "earliest deadline first", "Liu & Layland 1973", &[]),
    disk(
        "ssedo",
        "least beta^(i-1) x distance among the m earliest deadlines",
        CHEN,
        &[
            p("m", "3", "window: requests with the earliest deadlines"),
            p("beta", "2", "weight base, at least 1"),
        ],
    ),
    disk(
        "ssedv",
        "least alpha x distance + (1 - alpha) x slack/unit",
        CHEN,
        &[
            p("alpha", "0.5", "weight of the seek distance, in [0, 1]"),
            p("unit", "1ms", "slack that counts as one cylinder"),
        ],
    ),
    disk(
        "scan-edf",
        "EDF; equal deadlines served in elevator order",
        "Reddy & Wyllie 1993",
        &[p(
            "granularity",
            "1ns",
            "deadlines within one multiple of this tie",
        )],
    ),
    disk(
        "fd-scan",
        "sweep toward the earliest feasible deadline",
        "Abbott & Garcia-Molina 1990",
        &[p(
            "expired",
            "keep",
            "keep or drop requests whose deadline passed",
        )],
    ),
    entry(
        PolicyKind::RateBased,
        "wrr-scan",
        "rate-based tasks in weighted rounds of SCAN sweeps, with admission control",
        "Tsai, Chu & Huang 2004",
        &[
            p(
                "mode",
                "ca",
                "r (random data), c (contiguous) or ca (aligned releases)",
            ),
            p(
                "share",
                "0.005",
                "aperiodic reservation, a fraction of each round",
            ),
        ],
    ),
    disk(
        "sptf",
        "shortest positioning (seek + rotation) time first",
        "Seltzer et al. 1990; Worthington et al. 1994",
        &[WINDOW],
    ),
    disk(
        "aged-sptf",
        "SPTF minus weight x waiting time",
        "Worthington et al. 1994 (DiskSim)",
        &[
            p("weight", "0.01", "positioning ns forgiven per ns waited"),
            WINDOW,
        ],
    ),
    array(
        "s-pssq",
        "one FCFS queue; one request in service; reads on the primary",
        TOWSLEY,
        &[],
    ),
    array(
        "c-pssq",
        "as S-PSSQ, but a read starts as soon as the primary is idle",
        TOWSLEY,
        &[],
    ),
    array(
        "cr-esq",
        "one FCFS queue; a read takes the nearest idle disk unless a write runs",
        TOWSLEY,
        &[],
    ),
    array(
        "cru-esq",
        "one FCFS queue; a read takes the nearest idle disk",
        TOWSLEY,
        &[],
    ),
    array(
        "mr-esq",
        "one FCFS queue; a read starts on every disk when all are idle",
        TOWSLEY,
        &[],
    ),
    array(
        "r-dmq",
        "a queue per disk; reads join one at random",
        TOWSLEY,
        &[ALPHA, QUEUE, MODIFIED],
    ),
    array(
        "sq-dmq",
        "a queue per disk; reads join the shortest",
        TOWSLEY,
        &[QUEUE, MODIFIED],
    ),
    array(
        "mr-dmq",
        "a queue per disk; reads join every queue, first copy wins",
        TOWSLEY,
        &[QUEUE, MODIFIED],
    ),
    array(
        "mr-dmqa",
        "as MR-DMQ, the other copies withdrawn at start or completion",
        TOWSLEY,
        &[p("abort", "complete", "start or complete"), QUEUE, MODIFIED],
    ),
    array(
        "md-raid1",
        "a queue per disk; Linux md RAID-1 read balancing",
        "Linux drivers/md/raid1.c",
        &[QUEUE, MODIFIED],
    ),
    array(
        "ivy-dmq",
        "a queue per disk; reads go where they would finish soonest",
        "Lo 1990 (Ivy)",
        &[QUEUE, MODIFIED],
    ),
    array(
        "cmq",
        "a common queue; lagging writes in per-disk auxiliary queues",
        TOWSLEY,
        &[
            p("common", "fcfs", "common queue discipline"),
            p("aux", "fcfs", "auxiliary queue discipline"),
        ],
    ),
    array("dmq", "DMQ-SQ", CHEN, &[QUEUE_SSTF, MODIFIED_ON]),
    array(
        "dmq-rd",
        "modified R-DMQ over SSTF",
        CHEN,
        &[ALPHA, QUEUE_SSTF, MODIFIED_ON],
    ),
    array(
        "dmq-sq",
        "modified SQ-DMQ over SSTF",
        CHEN,
        &[QUEUE_SSTF, MODIFIED_ON],
    ),
    array(
        "dmq-mr",
        "modified MR-DMQA (abort at start) over SSTF",
        CHEN,
        &[QUEUE_SSTF, MODIFIED_ON],
    ),
    array("rt-dmq", "RT-DMQ-SQ", CHEN, &[QUEUE_SSEDO, MODIFIED_ON]),
    array(
        "rt-dmq-rd",
        "modified R-DMQ over SSEDO",
        CHEN,
        &[ALPHA, QUEUE_SSEDO, MODIFIED_ON],
    ),
    array(
        "rt-dmq-sq",
        "modified SQ-DMQ over SSEDO",
        CHEN,
        &[QUEUE_SSEDO, MODIFIED_ON],
    ),
    array(
        "rt-dmq-mr",
        "modified MR-DMQA (abort at start) over SSEDO",
        CHEN,
        &[QUEUE_SSEDO, MODIFIED_ON],
    ),
    array(
        "fd-dmq",
        "modified SQ-DMQ over FD-SCAN",
        CHEN,
        &[
            p(
                "queue",
                "fd-scan(expired=keep)",
                "per-disk queue discipline",
            ),
            MODIFIED_ON,
        ],
    ),
    array(
        "cmq-sstf",
        "the modified CMQ: SSTF on every queue",
        CHEN,
        &[
            p("common", "sstf", "common queue discipline"),
            p("aux", "sstf", "auxiliary queue discipline"),
        ],
    ),
    array("rt-cmq", "RT-CMQ-S", CHEN, &[]),
    array(
        "rt-cmq-f",
        "CMQ: SSEDO common queue, FCFS auxiliary queues",
        CHEN,
        &[],
    ),
    array(
        "rt-cmq-s",
        "CMQ: SSEDO common queue, SSTF auxiliary queues",
        CHEN,
        &[],
    ),
    array(
        "rt-cmq-w",
        "CMQ: SSEDO common and auxiliary queues",
        CHEN,
        &[],
    ),
];

/// The registry entry of `name` (the canonical spelling).
pub fn find(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicySpec;
    use crate::array::ArraySpec;

    #[test]
    fn every_parsed_name_is_registered_and_back() {
        for name in PolicySpec::NAMES {
            assert_eq!(find(name).map(|p| p.kind), Some(PolicyKind::Disk), "{name}");
        }
        for (name, _) in ArraySpec::NAMED {
            assert_eq!(
                find(name).map(|p| p.kind),
                Some(PolicyKind::Array),
                "{name}"
            );
        }
        let parsed = PolicySpec::NAMES.len() + ArraySpec::NAMED.len();
        let rate_based = POLICIES
            .iter()
            .filter(|p| p.kind == PolicyKind::RateBased)
            .count();
        assert_eq!(POLICIES.len(), parsed + rate_based);
    }

    /// `name:key=value` in `buf`.
    fn described<'b>(buf: &'b mut [u8; 96], parts: [&str; 5]) -> &'b str {
        let n = parts.iter().fold(0, |at, part| {
            buf[at..at + part.len()].copy_from_slice(part.as_bytes());
            at + part.len()
        });
        core::str::from_utf8(&buf[..n]).unwrap()
    }

    #[test]
    fn every_registered_parameter_parses_with_its_default() {
        for info in POLICIES {
            for param in info.parameters {
                let mut buf = [0u8; 96];
                let text = described(&mut buf, [info.name, ":", param.name, "=", param.default]);
                let parses = match info.kind {
                    PolicyKind::Disk => text.parse::<PolicySpec>().is_ok(),
                    PolicyKind::Array => text.parse::<ArraySpec>().is_ok(),
                    PolicyKind::RateBased => text.parse::<crate::policy::WrrParams>().is_ok(),
                };
                assert!(parses, "{text}");
            }
        }
    }
}
