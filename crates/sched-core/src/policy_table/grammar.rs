//! The grammar every policy description shares: `name[:key=value,...]`,
//! names compared ignoring case, `-` and `_` (single-disk and rate-based
//! policies) or ignoring case only (array policies), and the value kinds a
//! parameter may take, each with its parser and its canonical text.

use core::fmt;
use core::str::FromStr;

use crate::error::{BuildError, SpecError};
use crate::registry::Uses;
use crate::request::Nanos;

use super::PolicySpec;

/// A kind of parameter value: how it is read from a description and written
/// back in canonical form.
pub(crate) trait Codec {
    /// The value.
    type Value;

    /// The value `text` spells. `Err(None)`: not a value of this kind (the
    /// caller names the parameter and what it expects); `Err(Some(e))`: a
    /// nested policy description that failed with `e`.
    fn parse(text: &str) -> Result<Self::Value, Option<SpecError>>;

    /// Writes `value` as a description spells it.
    fn write(value: &Self::Value, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Whether a queue discipline with this value sets expired requests
    /// aside for the driver to collect, which array policies never do.
    fn drops_expired(_value: &Self::Value) -> bool {
        false
    }

    /// What a queue discipline with this value orders its requests by
    /// (nothing, for a value that is not a discipline).
    fn uses(_value: &Self::Value) -> Uses {
        Uses::ARRIVAL_ORDER
    }

    /// Checks a value an array policy's description gives, beyond what
    /// parsing checks.
    fn check_in_array(_value: &Self::Value) -> Result<(), BuildError> {
        Ok(())
    }
}

/// A real number (`0.2`, `1.5`).
pub(crate) struct Real;

impl Codec for Real {
    type Value = f64;
    fn parse(text: &str) -> Result<f64, Option<SpecError>> {
        // NaN and the infinities parse as numbers but mean nothing here.
        f64::from_str(text)
            .ok()
            .filter(|v| v.is_finite())
            .ok_or(None)
    }
    fn write(value: &f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{value}")
    }
}

/// A whole number (`3`).
pub(crate) struct Count;

impl Codec for Count {
    type Value = usize;
    fn parse(text: &str) -> Result<usize, Option<SpecError>> {
        usize::from_str(text).map_err(|_| None)
    }
    fn write(value: &usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{value}")
    }
}

/// A request class (`1`): a whole number from 0 to 65,535.
pub(crate) struct Class;

impl Codec for Class {
    type Value = u16;
    fn parse(text: &str) -> Result<u16, Option<SpecError>> {
        u16::from_str(text).map_err(|_| None)
    }
    fn write(value: &u16, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{value}")
    }
}

/// A duration: `10ms`, `500us`, `2s`, `1000ns` or a plain number of
/// nanoseconds; written in nanoseconds (`1000000ns`).
pub(crate) struct Duration;

impl Codec for Duration {
    type Value = Nanos;
    fn parse(text: &str) -> Result<Nanos, Option<SpecError>> {
        let split = text
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let scale = match unit {
            // A bare number is ambiguous (1 meant as 1 ms would be read as
            // 1 ns): only 0 may go without its unit.
            "" if f64::from_str(number) != Ok(0.0) => return Err(None),
            "" | "ns" => 1.0,
            "us" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            _ => return Err(None),
        };
        let ns = f64::from_str(number).map_err(|_| None)? * scale;
        if !(0.0..1.8e19).contains(&ns) {
            return Err(None);
        }
        Ok((ns + 0.5) as Nanos)
    }
    fn write(value: &Nanos, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{value}ns")
    }
}

/// A number of candidates, or `all`.
pub(crate) struct Window;

impl Codec for Window {
    type Value = Option<usize>;
    fn parse(text: &str) -> Result<Option<usize>, Option<SpecError>> {
        if text.eq_ignore_ascii_case("all") {
            return Ok(None);
        }
        usize::from_str(text).map(Some).map_err(|_| None)
    }
    fn write(value: &Option<usize>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match value {
            Some(k) => write!(f, "{k}"),
            None => f.write_str("all"),
        }
    }
}

/// `true` or `false` (also `yes`/`no`, `1`/`0`).
pub(crate) struct Flag;

impl Codec for Flag {
    type Value = bool;
    fn parse(text: &str) -> Result<bool, Option<SpecError>> {
        match text {
            "true" | "yes" | "1" => Ok(true),
            "false" | "no" | "0" => Ok(false),
            _ => Err(None),
        }
    }
    fn write(value: &bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{value}")
    }
}

/// A single-disk policy nested in an array description, its parameters in
/// parentheses: `ssedo(m=3,beta=2)` (or `ssedo:m=3`, or `sstf`).
pub(crate) struct Discipline;

impl Codec for Discipline {
    type Value = PolicySpec;
    fn parse(text: &str) -> Result<PolicySpec, Option<SpecError>> {
        let text = text.trim();
        match text.split_once('(') {
            Some((name, rest)) => {
                let params = rest.strip_suffix(')').ok_or(None)?;
                parse_policy_parts(name, params).map_err(Some)
            }
            None => text.parse::<PolicySpec>().map_err(Some),
        }
    }
    fn uses(spec: &PolicySpec) -> Uses {
        spec.uses()
    }

    /// A queue discipline of an array must keep expired requests: array
    /// policies never collect them.
    fn check_in_array(spec: &PolicySpec) -> Result<(), BuildError> {
        if spec.drops_expired() {
            return Err(BuildError::invalid(
                "queue",
                "fd-scan with expired=keep (array policies never collect expired requests)",
            ));
        }
        spec.validate()
    }

    fn write(value: &PolicySpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
        fmt::write(&mut w, format_args!("{value}"))?;
        if w.opened {
            w.out.write_str(")")?;
        }
        Ok(())
    }
}

/// Parses `name:params` from its two halves without allocating.
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

/// Single-disk and rate-based policy names compare ignoring case, `-` and `_`.
pub(crate) fn same_name(given: &str, canonical: &str) -> bool {
    let mut a = given
        .bytes()
        .filter(|b| *b != b'-' && *b != b'_')
        .map(|b| b.to_ascii_lowercase());
    let mut b = canonical.bytes().filter(|b| *b != b'-' && *b != b'_');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (x, y) if x == y => {}
            _ => return false,
        }
    }
}

/// `name` and `params` of a single-disk or rate-based description
/// (`name:params`, or a bare name), the name trimmed.
pub(crate) fn split_description(s: &str) -> (&str, &str) {
    match s.split_once(':') {
        Some((n, p)) => (n.trim(), p),
        None => (s.trim(), ""),
    }
}

/// The `key=value` pairs of single-disk and rate-based parameters: split
/// at every comma, trimmed, empty ones skipped.
pub(crate) fn pairs(params: &str) -> impl Iterator<Item = &str> {
    params.split(',').map(str::trim).filter(|p| !p.is_empty())
}

/// The first key given twice among `params`' `key=value` pairs (compared
/// without case), if any: a second value would silently replace the first.
pub(crate) fn repeated_key(params: &str) -> Option<&str> {
    let keys = || pairs(params).filter_map(|p| key_value(p).map(|(k, _)| k));
    keys()
        .enumerate()
        .find(|&(i, key)| {
            keys()
                .take(i)
                .any(|earlier| earlier.eq_ignore_ascii_case(key))
        })
        .map(|(_, key)| key)
}

/// The `key=value` pairs of array parameters, split at the commas outside
/// parentheses (`a=1,b=f(x=1,y=2)`), trimmed, empty ones skipped.
pub(crate) fn top_level_pairs(params: &str) -> impl Iterator<Item = &str> {
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

/// Splits one pair at its `=`, both sides trimmed; `None` when it has none.
pub(crate) fn key_value(pair: &str) -> Option<(&str, &str)> {
    pair.split_once('=').map(|(k, v)| (k.trim(), v.trim()))
}

/// What a description's parameters must look like.
pub(crate) const PAIRS_EXPECTED: &str = "key=value pairs separated by commas";

/// Writes `:` before a description's first parameter and `,` before the others.
pub(crate) struct Separator(bool);

impl Separator {
    pub(crate) fn new() -> Self {
        Separator(false)
    }

    /// Writes `key=` after the right separator.
    pub(crate) fn key(&mut self, f: &mut fmt::Formatter<'_>, key: &str) -> fmt::Result {
        f.write_str(if core::mem::replace(&mut self.0, true) {
            ","
        } else {
            ":"
        })?;
        f.write_str(key)?;
        f.write_str("=")
    }
}

/// Whether any of `flags` is set (for the table's per-parameter checks).
pub(crate) fn any(flags: &[bool]) -> bool {
    flags.iter().any(|&b| b)
}
