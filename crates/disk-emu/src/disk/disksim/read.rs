//! Reading typed parameters (numbers, whole numbers, words, lists, nested
//! blocks) out of a parsed block, every error naming file, line and
//! parameter.

use crate::disk::DiskError;
use crate::disk::seek::MAX_DURATION_MS;

use super::lex::{Files, Pos};
use super::parse::{Block, Param, Value};

/// A block with the files, to read typed parameters from it.
#[derive(Clone, Copy)]
pub(super) struct Reader<'a> {
    pub(super) block: &'a Block,
    pub(super) files: &'a Files,
}

impl<'a> Reader<'a> {
    pub(super) fn param(&self, name: &str) -> Option<&'a Param> {
        self.block.params.iter().find(|p| p.name == name)
    }

    pub(super) fn error(&self, at: Pos, name: &str, message: impl Into<String>) -> DiskError {
        self.files.error(at, Some(name), message)
    }

    pub(super) fn required(&self, name: &str) -> Result<&'a Param, DiskError> {
        self.param(name).ok_or_else(|| {
            let what = match self.block.name.as_str() {
                "" => format!("`{}` block", self.block.kind),
                n => format!("`{} {n}` block", self.block.kind),
            };
            self.error(self.block.at, name, format!("missing from the {what}"))
        })
    }

    pub(super) fn text_of(&self, p: &'a Param) -> Result<&'a str, DiskError> {
        match &p.value.value {
            Value::Text(t) => Ok(t),
            _ => Err(self.error(
                p.at,
                &p.name,
                "expected a number or a word, found a list or a block",
            )),
        }
    }

    pub(super) fn word(&self, name: &str) -> Result<&'a str, DiskError> {
        self.text_of(self.required(name)?)
    }

    pub(super) fn number_of(&self, p: &Param, text: &str, at: Pos) -> Result<f64, DiskError> {
        text.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.error(at, &p.name, format!("`{text}` is not a number")))
    }

    /// A non-negative number.
    pub(super) fn number(&self, name: &str) -> Result<f64, DiskError> {
        let p = self.required(name)?;
        let x = self.number_of(p, self.text_of(p)?, p.at)?;
        if x < 0.0 {
            return Err(self.error(p.at, name, format!("{x} is negative")));
        }
        Ok(x)
    }

    /// A time in milliseconds, times `scale` (DiskSim's `Time scale for
    /// overheads`, or 1): non-negative and at most an hour
    /// ([`MAX_DURATION_MS`]), so that a DiskSim `1e308` is refused at its
    /// line rather than saturating the clock; `default` when the parameter
    /// is absent, if it may be.
    pub(super) fn ms(
        &self,
        name: &str,
        scale: f64,
        default: Option<f64>,
    ) -> Result<f64, DiskError> {
        let x = match (self.param(name), default) {
            (None, Some(d)) => d,
            _ => self.number(name)?,
        };
        let ms = x * scale;
        let at = self.param(name).map_or(self.block.at, |p| p.at);
        if ms > MAX_DURATION_MS {
            return Err(self.error(
                at,
                name,
                format!(
                    "{x:?} ms{} is more than an hour: a typo, or a time that would never end",
                    if scale == 1.0 {
                        String::new()
                    } else {
                        format!(" scaled by {scale:?}")
                    }
                ),
            ));
        }
        Ok(ms)
    }

    /// A number of either sign.
    pub(super) fn signed(&self, name: &str) -> Result<f64, DiskError> {
        let p = self.required(name)?;
        self.number_of(p, self.text_of(p)?, p.at)
    }

    /// A non-negative number, `default` when the parameter is absent.
    pub(super) fn number_or(&self, name: &str, default: f64) -> Result<f64, DiskError> {
        match self.param(name) {
            Some(_) => self.number(name),
            None => Ok(default),
        }
    }

    pub(super) fn integer_of(&self, p: &Param, text: &str, at: Pos) -> Result<u64, DiskError> {
        let x = self.number_of(p, text, at)?;
        if x < 0.0 || x.fract() != 0.0 || x > 2f64.powi(53) {
            return Err(self.error(
                at,
                &p.name,
                format!("`{text}` is not a whole number of at least 0"),
            ));
        }
        Ok(x as u64)
    }

    /// A whole number of at least 0 (written `12` or `12.000000`).
    pub(super) fn integer(&self, name: &str) -> Result<u64, DiskError> {
        let p = self.required(name)?;
        self.integer_of(p, self.text_of(p)?, p.at)
    }

    /// A whole number that fits in a `u32`.
    pub(super) fn count(&self, name: &str) -> Result<u32, DiskError> {
        let n = self.integer(name)?;
        u32::try_from(n).map_err(|_| {
            self.error(
                self.required(name).map_or(self.block.at, |p| p.at),
                name,
                format!("{n} is too large"),
            )
        })
    }

    /// A list of numbers.
    pub(super) fn numbers(&self, name: &str) -> Result<Vec<(f64, Pos)>, DiskError> {
        let p = self.required(name)?;
        let Value::List(items) = &p.value.value else {
            return Err(self.error(p.at, name, "expected a list `[ … ]`"));
        };
        items
            .iter()
            .map(|item| match &item.value {
                Value::Text(t) => Ok((self.number_of(p, t, item.at)?, item.at)),
                _ => Err(self.error(item.at, name, "expected a number in the list")),
            })
            .collect()
    }

    /// A list of whole numbers.
    pub(super) fn integers(&self, name: &str) -> Result<Vec<(u64, Pos)>, DiskError> {
        let p = self.required(name)?;
        self.numbers(name)?
            .into_iter()
            .map(|(x, at)| {
                if x < 0.0 || x.fract() != 0.0 || x > 2f64.powi(53) {
                    Err(self.error(
                        at,
                        &p.name,
                        format!("{x} is not a whole number of at least 0"),
                    ))
                } else {
                    Ok((x as u64, at))
                }
            })
            .collect()
    }

    /// Refuses a parameter this loader neither reads (`used`) nor
    /// deliberately ignores (`ignored`): a misspelt or foreign key names
    /// its file and line rather than being silently dropped.
    pub(super) fn known_keys(&self, used: &[&str], ignored: &[&str]) -> Result<(), DiskError> {
        for p in &self.block.params {
            let name = p.name.as_str();
            if !used.contains(&name) && !ignored.contains(&name) {
                return Err(self.error(
                    p.at,
                    name,
                    format!(
                        "not a parameter of a `{}` block that DiskSim 4.0 defines",
                        self.block.kind
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A nested block value of kind `kind`.
    pub(super) fn block(&self, name: &str, kinds: &[&str]) -> Result<Reader<'a>, DiskError> {
        let p = self.required(name)?;
        match &p.value.value {
            Value::Block(b) if kinds.contains(&b.kind.as_str()) => Ok(Reader {
                block: b,
                files: self.files,
            }),
            Value::Block(b) => Err(self.error(
                p.at,
                name,
                format!(
                    "a `{}` block is not supported (expected {})",
                    b.kind,
                    kinds.join(" or ")
                ),
            )),
            _ => Err(self.error(p.at, name, format!("expected a `{}` block", kinds[0]))),
        }
    }
}
