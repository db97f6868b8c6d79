//! Where the copies of a logical block live: the one place that builds the
//! [`Copies`] a device is given with each request.
//!
//! A placement turns a logical block into its copies (which disks hold one,
//! and at which block on each); the device fills in the cylinders from each
//! disk's geometry. A single disk, a mirror laid out identically, shifted or
//! reversed, and N-way replication are all placements; the dynamic maps of
//! replication schemes and eager-writing arrays live beside them.

use sched_core::array::{Copies, Location, MAX_COPIES};
use serde::{Deserialize, Serialize};

/// How the copies of a logical block are laid out over a device's disks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Placement {
    /// Disks `0..copies` each hold a copy at the block's own address: one
    /// disk (`copies` = 1), the usual mirror (2), N-way replication.
    Identical {
        /// Copies, one per disk (1 ..= 8).
        copies: usize,
    },
    /// A mirror whose second copy is rotated by this fraction of the
    /// capacity: block b of disk 0 is at (b + fraction · capacity) mod
    /// capacity on disk 1, a request wrapping past the end placed at 0 whole.
    Shifted {
        /// Offset as a fraction of the capacity, in [0, 1).
        fraction: f64,
    },
    /// A mirror whose second copy is in reverse order: block b is at
    /// capacity − blocks − b on disk 1, so data at the outer edge of one
    /// disk is at the inner edge of the other.
    Reversed,
}

impl Placement {
    /// One disk.
    pub const SINGLE: Placement = Placement::Identical { copies: 1 };
    /// The usual mirror.
    pub const MIRROR: Placement = Placement::Identical { copies: 2 };

    /// The disks the placement spreads copies over.
    pub fn disks(&self) -> usize {
        match *self {
            Placement::Identical { copies } => copies,
            Placement::Shifted { .. } | Placement::Reversed => 2,
        }
    }

    /// Why the placement cannot be used, if it cannot.
    pub fn invalid(&self) -> Option<&'static str> {
        match *self {
            Placement::Identical { copies } if copies == 0 || copies > MAX_COPIES => {
                Some("1 ..= 8 copies")
            }
            Placement::Shifted { fraction } if !(0.0..1.0).contains(&fraction) => {
                Some("a shift in [0, 1) of the capacity")
            }
            _ => None,
        }
    }

    /// The copies of `block..block + blocks` on disks of `capacity` blocks
    /// (cylinders 0: the device fills them in).
    pub fn copies(&self, block: u64, blocks: u32, capacity: u64) -> Copies {
        let at = |block| Location { block, cylinder: 0 };
        match *self {
            Placement::Identical { copies } => Copies::everywhere(copies, at(block)),
            Placement::Shifted { .. } | Placement::Reversed => Copies::new()
                .with(0, at(block))
                .with(1, at(self.second_copy(block, blocks, capacity))),
        }
    }

    /// The block of disk 1's copy of `block..block + blocks`.
    fn second_copy(&self, block: u64, blocks: u32, capacity: u64) -> u64 {
        let len = u64::from(blocks);
        match *self {
            Placement::Identical { .. } => block,
            Placement::Shifted { fraction } => {
                let offset = (fraction * capacity as f64) as u64;
                let b = (block + offset) % capacity;
                // Keep the copy contiguous: wrap whole requests.
                if b + len > capacity { 0 } else { b }
            }
            Placement::Reversed => capacity.saturating_sub(block + len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_keep_copies_on_the_disk() {
        for p in [
            Placement::MIRROR,
            Placement::Shifted { fraction: 0.5 },
            Placement::Reversed,
        ] {
            for b in [0, 10, 990, 992] {
                let c = p.copies(b, 8, 1000);
                assert_eq!(c.holders().len(), 2);
                assert!(
                    c.locations().iter().all(|l| l.block + 8 <= 1000),
                    "{p:?} {b}"
                );
            }
        }
        let second = |p: Placement, b| p.copies(b, 8, 1000).location(1).unwrap().block;
        assert_eq!(second(Placement::Reversed, 0), 992);
        assert_eq!(second(Placement::Shifted { fraction: 0.25 }, 100), 350);
        assert_eq!(second(Placement::MIRROR, 100), 100);
    }

    #[test]
    fn identical_copies_on_every_disk_and_bad_placements_named() {
        let c = Placement::Identical { copies: 5 }.copies(64, 8, 1000);
        assert_eq!(c.holders().iter().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        assert!(c.locations().iter().all(|l| l.block == 64));
        assert_eq!(Placement::SINGLE.disks(), 1);
        assert!(Placement::Identical { copies: 9 }.invalid().is_some());
        assert!(Placement::Identical { copies: 0 }.invalid().is_some());
        assert!(Placement::Shifted { fraction: 1.0 }.invalid().is_some());
        assert_eq!(Placement::Reversed.invalid(), None);
    }
}
