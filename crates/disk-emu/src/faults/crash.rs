//! Crash models: which of the writes a drive held volatile a power cut
//! takes, and how.
//!
//! A write is volatile from the moment the drive acknowledges it until its
//! data is on the media, or a flush sent after its acknowledgement has
//! completed (NBD: `NBD_CMD_FLUSH`; a `FUA` write is never volatile once
//! acknowledged). Flushed writes are never touched: every model below picks
//! only among the volatile ones, and is a state the flush semantics allow.
//!
//! - [`CrashModel::LoseAll`]: every volatile write is lost (a drive that
//!   writes its cache back in order and had not started).
//! - [`CrashModel::Subset`]: each volatile write is lost or kept, with even
//!   chances, independently (a drive that writes its cache back in any
//!   order).
//! - [`CrashModel::Prefix`]: the volatile writes are put in a random order
//!   that keeps overlapping writes in the order they were served (a drive
//!   never writes older data over newer), and a random prefix of it, from
//!   none to all, reached the media.
//! - [`CrashModel::Torn`]: as [`CrashModel::Subset`], but a lost write of
//!   more than one sector is torn instead: a random number of its first
//!   sectors (at least one, not all) reached the media, the rest did not;
//!   a one-sector write is lost whole (sectors are atomic).
//!
//! The sector is the drive's block. What survives is applied in the order
//! the writes were served: where two kept writes overlap, the later one's
//! data is there.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::random::Stream;

/// Which volatile writes a power cut takes. A write is volatile from its
/// acknowledgement until its data is on the media or a flush sent after it
/// completes; flushed writes are never touched. What survives is applied
/// in the order the writes were served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrashModel {
    /// All of them.
    #[default]
    #[serde(rename = "all")]
    LoseAll,
    /// A random subset.
    Subset,
    /// All but a random prefix of a legal reordering.
    Prefix,
    /// A random subset, multi-sector writes torn at a sector boundary.
    Torn,
}

impl CrashModel {
    /// Every model, by name.
    pub const ALL: [CrashModel; 4] = [
        CrashModel::LoseAll,
        CrashModel::Subset,
        CrashModel::Prefix,
        CrashModel::Torn,
    ];

    /// Its name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            CrashModel::LoseAll => "all",
            CrashModel::Subset => "subset",
            CrashModel::Prefix => "prefix",
            CrashModel::Torn => "torn",
        }
    }
}

impl std::fmt::Display for CrashModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A crash model's name that is none of them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("crash model `{0}`: expected all, subset, prefix or torn")]
pub struct UnknownCrashModel(pub String);

impl std::str::FromStr for CrashModel {
    type Err = UnknownCrashModel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CrashModel::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownCrashModel(s.to_string()))
    }
}

/// What a power cut did to one volatile write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    /// It reached the media whole.
    Kept,
    /// None of it did.
    Lost,
    /// Its first `kept_blocks` blocks did (at least one, fewer than all).
    Torn {
        /// Blocks from its first that reached the media.
        kept_blocks: u64,
    },
}

/// The fate of each of the volatile writes `writes` (their blocks, in the
/// order they were served) under `model`, drawn from `rng`.
pub fn fates(model: CrashModel, writes: &[Range<u64>], rng: &mut Stream) -> Vec<Fate> {
    let n = writes.len();
    match model {
        CrashModel::LoseAll => vec![Fate::Lost; n],
        CrashModel::Subset => (0..n)
            .map(|_| {
                if rng.chance(0.5) {
                    Fate::Kept
                } else {
                    Fate::Lost
                }
            })
            .collect(),
        CrashModel::Torn => writes
            .iter()
            .map(|w| {
                let blocks = w.end.saturating_sub(w.start);
                if rng.chance(0.5) {
                    Fate::Kept
                } else if blocks > 1 {
                    Fate::Torn {
                        kept_blocks: 1 + rng.below(blocks - 1),
                    }
                } else {
                    Fate::Lost
                }
            })
            .collect(),
        CrashModel::Prefix => {
            let order = legal_order(writes, rng);
            let kept = rng.below(n as u64 + 1) as usize;
            let mut fate = vec![Fate::Lost; n];
            for &i in &order[..kept] {
                fate[i] = Fate::Kept;
            }
            fate
        }
    }
}

/// A random order of `writes` in which each write comes after every
/// earlier one it overlaps.
fn legal_order(writes: &[Range<u64>], rng: &mut Stream) -> Vec<usize> {
    let overlaps = |a: &Range<u64>, b: &Range<u64>| a.start < b.end && b.start < a.end;
    let mut placed = vec![false; writes.len()];
    let mut order = Vec::with_capacity(writes.len());
    while order.len() < writes.len() {
        let ready: Vec<usize> = (0..writes.len())
            .filter(|&i| {
                !placed[i] && (0..i).all(|j| placed[j] || !overlaps(&writes[j], &writes[i]))
            })
            .collect();
        let pick = ready[rng.below(ready.len() as u64) as usize];
        placed[pick] = true;
        order.push(pick);
    }
    order
}

/// The blocks of `write` that reached the media under `fate`.
pub fn kept_blocks(write: &Range<u64>, fate: Fate) -> Range<u64> {
    match fate {
        Fate::Kept => write.clone(),
        Fate::Lost => write.start..write.start,
        Fate::Torn { kept_blocks } => write.start..(write.start + kept_blocks).min(write.end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_a_bad_one_is_refused() {
        for m in CrashModel::ALL {
            assert_eq!(m.name().parse::<CrashModel>(), Ok(m));
        }
        assert!(
            "some"
                .parse::<CrashModel>()
                .unwrap_err()
                .to_string()
                .contains("expected all, subset, prefix or torn")
        );
    }

    #[test]
    fn a_legal_order_never_puts_a_write_before_an_earlier_one_it_overlaps() {
        let writes = [0..8, 4..12, 20..24, 10..11, 30..31];
        let mut rng = Stream::numbered(7);
        let mut firsts = std::collections::HashSet::new();
        for _ in 0..200 {
            let order = legal_order(&writes, &mut rng);
            let at = |i: usize| order.iter().position(|&x| x == i).unwrap();
            assert!(at(0) < at(1) && at(1) < at(3), "{order:?}");
            firsts.insert(order[0]);
        }
        // Only the writes overlapping no earlier one can come first.
        assert_eq!(firsts, [0, 2, 4].into_iter().collect());
    }

    #[test]
    fn each_model_draws_only_the_fates_it_allows() {
        let writes: Vec<Range<u64>> = (0..6).map(|i| i * 10..i * 10 + 1 + i).collect();
        let mut rng = Stream::numbered(3);
        let mut seen = [0u32; 3];
        for model in CrashModel::ALL {
            for _ in 0..300 {
                let f = fates(model, &writes, &mut rng);
                assert_eq!(f.len(), writes.len());
                for (w, fate) in writes.iter().zip(&f) {
                    match (model, *fate) {
                        (CrashModel::LoseAll, Fate::Lost) => {}
                        (CrashModel::LoseAll, _) => panic!("{fate:?}"),
                        (_, Fate::Torn { kept_blocks }) => {
                            assert_eq!(model, CrashModel::Torn);
                            assert!(kept_blocks >= 1 && kept_blocks < w.end - w.start);
                            seen[2] += 1;
                        }
                        (_, Fate::Kept) => seen[0] += 1,
                        (_, Fate::Lost) => seen[1] += 1,
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }

    #[test]
    fn a_prefix_keeps_writes_in_a_legal_order() {
        // Overlapping writes 0 and 1: 1 is never kept without 0.
        let writes = [0..8, 0..8, 50..51];
        let mut rng = Stream::numbered(11);
        let mut kept_counts = [0u32; 4];
        for _ in 0..400 {
            let f = fates(CrashModel::Prefix, &writes, &mut rng);
            assert!(!(f[1] == Fate::Kept && f[0] == Fate::Lost), "{f:?}");
            kept_counts[f.iter().filter(|&&x| x == Fate::Kept).count()] += 1;
        }
        // From none to all, each about a quarter of the time.
        assert!(
            kept_counts.iter().all(|&n| (60..140).contains(&n)),
            "{kept_counts:?}"
        );
    }
}
