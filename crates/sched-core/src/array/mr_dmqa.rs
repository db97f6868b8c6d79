//! MR-DMQA: each read joins every queue; the other copies are withdrawn.
//!
//! Towsley, Chen & Yu (1991, §2.2) in two variants: withdraw the other copies
//! when the first one *starts* service ([`Abort::AtStart`]; with
//! [`Dmq::prefer_idle`](super::Dmq::prefer_idle) this is DMQ-MR of Chen &
//! Towsley 1991, §3.1) or when it *completes* ([`Abort::AtCompletion`], which
//! also aborts a copy already in service).

use super::DiskSet;
use super::dmq::{Abort, ReadRouting, RouteView};
use crate::error::BuildError;

/// Minimum-read routing with abort.
#[derive(Clone, Copy, Debug)]
pub struct BothCopiesAbort {
    when: Abort,
}

impl BothCopiesAbort {
    /// Withdraws the other copies at the given moment.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for [`Abort::Never`] (that is MR-DMQ:
    /// use [`BothCopies`](super::BothCopies)).
    pub fn new(when: Abort) -> Result<Self, BuildError> {
        if when == Abort::Never {
            return Err(BuildError::invalid("abort", "at start or at completion"));
        }
        Ok(BothCopiesAbort { when })
    }
}

impl ReadRouting for BothCopiesAbort {
    fn route(&mut self, view: &RouteView<'_>) -> DiskSet {
        view.eligible
    }

    fn abort(&self) -> Abort {
        self.when
    }
}
