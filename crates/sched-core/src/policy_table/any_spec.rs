//! A description of any registered policy, whatever its kind, read with one
//! look-up of its name in the policy table.

use core::fmt;
use core::str::FromStr;

use super::grammar::split_description;
use crate::PolicySpec;
use crate::array::ArraySpec;
use crate::error::{ArraySpecError, SpecError};
use crate::policy::WrrParams;
use crate::registry::{POLICIES, PolicyInfo, PolicyKind};

/// Any registered policy with its parameters: `sstf`, `wrr-scan:mode=c`,
/// `rt-dmq:queue=sstf`. Front ends that accept a policy of any kind parse
/// this, then build the kind they got.
///
/// [`fmt::Display`] prints the canonical form, which parses back to the same
/// spec (for a rate-based policy: its mode and reservation, on the paper's
/// disk constants, the only ones a description can give).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AnySpec {
    /// A policy for one disk.
    Disk(PolicySpec),
    /// A policy for an array of disks.
    Array(ArraySpec),
    /// A rate-based policy for one disk (WRR-SCAN): its admission constants;
    /// tasks are admitted through the policy's own API.
    RateBased(WrrParams),
}

/// Why a description of any policy did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnySpecError {
    /// No registered policy has that name.
    UnknownPolicy,
    /// A single-disk policy's parameters are wrong.
    Disk(SpecError),
    /// An array policy's parameters are wrong.
    Array(ArraySpecError),
    /// A rate-based policy's parameters are wrong.
    RateBased(SpecError),
}

impl AnySpec {
    /// Whether the policy is for one disk, an array, or rate-based.
    pub fn kind(&self) -> PolicyKind {
        match self {
            AnySpec::Disk(_) => PolicyKind::Disk,
            AnySpec::Array(_) => PolicyKind::Array,
            AnySpec::RateBased(_) => PolicyKind::RateBased,
        }
    }

    /// The canonical name (of the base policy, for an array composition).
    pub fn name(&self) -> &'static str {
        match self {
            AnySpec::Disk(spec) => spec.name(),
            AnySpec::Array(spec) => spec.base_name(),
            AnySpec::RateBased(_) => WrrParams::NAME,
        }
    }

    /// The registry entry of the policy.
    pub fn info(&self) -> Option<&'static PolicyInfo> {
        crate::registry::find(self.name())
    }
}

impl FromStr for AnySpec {
    type Err = AnySpecError;

    fn from_str(s: &str) -> Result<Self, AnySpecError> {
        let (name, params) = split_description(s);
        if let Some(parsed) = PolicySpec::parse_named(name, params) {
            return parsed.map(AnySpec::Disk).map_err(AnySpecError::Disk);
        }
        if let Some(parsed) = WrrParams::parse_named(name, params) {
            return parsed
                .map(AnySpec::RateBased)
                .map_err(AnySpecError::RateBased);
        }
        if let Some(parsed) = ArraySpec::parse_named(name, params) {
            return parsed.map(AnySpec::Array).map_err(AnySpecError::Array);
        }
        Err(AnySpecError::UnknownPolicy)
    }
}

impl fmt::Display for AnySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnySpec::Disk(spec) => write!(f, "{spec}"),
            AnySpec::Array(spec) => write!(f, "{spec}"),
            AnySpec::RateBased(spec) => write!(f, "{spec}"),
        }
    }
}

impl fmt::Display for AnySpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnySpecError::UnknownPolicy => {
                f.write_str("unknown policy (known: ")?;
                for (i, info) in POLICIES.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(info.name)?;
                }
                f.write_str(")")
            }
            AnySpecError::Disk(e) | AnySpecError::RateBased(e) => write!(f, "{e}"),
            AnySpecError::Array(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for AnySpecError {}
