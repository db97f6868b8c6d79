//! One registry of every policy: name, kind, parameters with their defaults,
//! a one-line summary and the paper that defines it. Front ends list it. It
//! is made from the same table rows as the grammar of [`crate::PolicySpec`],
//! [`crate::array::ArraySpec`] and [`crate::AnySpec`], so every name listed
//! parses and every name that parses is listed; so is this table of them:
//!
#![doc = registry_table!()]

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

/// What a policy orders its queue by, besides the order of arrival: what a
/// front end needs to warn that a run gives a policy nothing to work with (a
/// deadline policy without deadlines, a seek-aware policy on a disk whose
/// seek time does not depend on the distance). A row of the policy table
/// says it once for each single-disk policy ([`PolicySpec::uses`](crate::PolicySpec::uses));
/// an array policy uses what its queue disciplines use
/// ([`ArraySpec::uses`](crate::array::ArraySpec::uses)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Uses {
    /// The requests' deadlines: without them every request ties, and the
    /// policy falls back on its tie-break.
    pub deadlines: bool,
    /// Where each request's cylinder lies from the arm: the seek distance,
    /// or the elevator's sweep over the cylinders.
    pub cylinders: bool,
    /// The positioning time (seek and rotation) the disk model estimates
    /// for each request.
    pub positioning: bool,
}

impl Uses {
    /// Nothing but the order of arrival (FCFS).
    pub const ARRIVAL_ORDER: Uses = Uses {
        deadlines: false,
        cylinders: false,
        positioning: false,
    };

    /// What either uses.
    #[must_use]
    pub const fn or(self, other: Uses) -> Uses {
        Uses {
            deadlines: self.deadlines || other.deadlines,
            cylinders: self.cylinders || other.cylinders,
            positioning: self.positioning || other.positioning,
        }
    }
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

/// Every policy, single-disk ones first, in the order of the crate's
/// tables; the named compositions of array policies last.
pub const POLICIES: &[PolicyInfo] = &crate::policy_table::POLICIES;

/// The registry entry of `name` (the canonical spelling).
pub fn find(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

/// The most parameters a policy the compositions build on has.
const MOST_PARAMETERS: usize = 4;

/// The parameters of a named composition (`dmq` is
/// `sq-dmq:queue=sstf,modified=true`): its base policy's, in their order and
/// with their meanings, with the defaults its description sets. Worked out
/// when the crate compiles, from the table's text alone.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ComposedParameters {
    parameters: [Parameter; MOST_PARAMETERS],
    count: usize,
}

impl ComposedParameters {
    /// The parameters of the composition described by `definition`
    /// (`base:key=value,...`, values possibly in parentheses), whose base is
    /// among `bases`. A definition the table gets wrong stops the build.
    pub(crate) const fn of(bases: &[PolicyInfo], definition: &'static str) -> Self {
        let text = definition.as_bytes();
        let colon = position(text, 0, b':');
        let base = slice(definition, 0, colon);
        let mut i = 0;
        let info = loop {
            assert!(i < bases.len(), "a composition of an unknown policy");
            if same(bases[i].name, base) {
                break bases[i];
            }
            i += 1;
        };
        assert!(
            info.parameters.len() <= MOST_PARAMETERS,
            "a base policy with more parameters than MOST_PARAMETERS"
        );
        let blank = Parameter {
            name: "",
            default: "",
            meaning: "",
        };
        let mut out = ComposedParameters {
            parameters: [blank; MOST_PARAMETERS],
            count: info.parameters.len(),
        };
        let mut k = 0;
        while k < out.count {
            out.parameters[k] = info.parameters[k];
            k += 1;
        }
        let mut at = colon + 1;
        while at < text.len() {
            let equals = position(text, at, b'=');
            // The value runs to the next comma outside parentheses.
            let mut end = equals;
            let mut depth = 0;
            while end < text.len() && !(text[end] == b',' && depth == 0) {
                match text[end] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                end += 1;
            }
            let key = slice(definition, at, equals);
            let mut k = 0;
            loop {
                assert!(k < out.count, "a composition setting an unknown parameter");
                if same(out.parameters[k].name, key) {
                    out.parameters[k].default = slice(definition, equals + 1, end);
                    break;
                }
                k += 1;
            }
            at = end + 1;
        }
        out
    }

    /// The parameters of composition `name` among `composed`.
    pub(crate) const fn find(
        composed: &'static [(&'static str, ComposedParameters)],
        name: &str,
    ) -> &'static [Parameter] {
        let mut i = 0;
        loop {
            assert!(i < composed.len(), "an unknown composition");
            if same(composed[i].0, name) {
                let c = &composed[i].1;
                return c.parameters.split_at(c.count).0;
            }
            i += 1;
        }
    }
}

/// The first index at or after `from` where `text` holds `byte` (its length if none).
const fn position(text: &[u8], from: usize, byte: u8) -> usize {
    let mut i = from;
    while i < text.len() && text[i] != byte {
        i += 1;
    }
    i
}

/// `s[from..to]`, in a constant.
const fn slice(s: &'static str, from: usize, to: usize) -> &'static str {
    let (_, rest) = s.as_bytes().split_at(from);
    let (part, _) = rest.split_at(to - from);
    match core::str::from_utf8(part) {
        Ok(part) => part,
        Err(_) => panic!("a description cut inside a character"),
    }
}

/// `a == b`, in a constant.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
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
