//! Which disks hold a copy of a logical request, and where on each.

use crate::request::Cylinder;

/// The largest array: disk sets are 64-bit masks.
pub const MAX_DISKS: usize = 64;

/// The most copies one logical request may have. Mirrors have 2, Ivy's
/// replication and the eager-writing arrays a few; 8 keeps the places of a
/// request's copies in the array's ledger within two cache lines.
pub const MAX_COPIES: usize = 8;

/// The number of bits set in `mask`. Most sets are the low disks of an
/// array (a mirror's two, every disk), whose count is their trailing ones:
/// cheaper than a population count on targets without one.
#[inline]
const fn count(mask: u64) -> usize {
    if mask & mask.wrapping_add(1) == 0 {
        mask.trailing_ones() as usize
    } else {
        mask.count_ones() as usize
    }
}

/// A set of disks of an array, as a bit mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DiskSet(u64);

impl DiskSet {
    /// No disk.
    pub const EMPTY: DiskSet = DiskSet(0);

    /// Disks `0..d`.
    #[inline]
    pub const fn all(d: usize) -> DiskSet {
        if d >= 64 {
            DiskSet(u64::MAX)
        } else {
            DiskSet((1u64 << d) - 1)
        }
    }

    /// The disks among `0..d` that satisfy `pred`.
    #[inline]
    pub fn matching(d: usize, pred: impl Fn(usize) -> bool) -> DiskSet {
        (0..d)
            .filter(|&i| pred(i))
            .fold(DiskSet::EMPTY, DiskSet::with)
    }

    /// Just disk `d` (empty for a disk beyond [`MAX_DISKS`]).
    #[inline]
    pub const fn only(d: usize) -> DiskSet {
        DiskSet::EMPTY.with(d)
    }

    /// Whether disk `d` is in the set.
    #[inline]
    pub const fn contains(self, d: usize) -> bool {
        d < MAX_DISKS && self.0 & (1 << d) != 0
    }

    /// The set with disk `d` added (unchanged for a disk beyond [`MAX_DISKS`]).
    #[inline]
    pub const fn with(self, d: usize) -> DiskSet {
        if d < MAX_DISKS {
            DiskSet(self.0 | 1 << d)
        } else {
            self
        }
    }

    /// The set with disk `d` removed.
    #[inline]
    pub const fn without(self, d: usize) -> DiskSet {
        if d < MAX_DISKS {
            DiskSet(self.0 & !(1 << d))
        } else {
            self
        }
    }

    /// True when no disk is in the set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of disks in the set.
    #[inline]
    pub const fn len(self) -> usize {
        count(self.0)
    }

    /// Disks in both sets.
    #[inline]
    pub const fn intersection(self, other: DiskSet) -> DiskSet {
        DiskSet(self.0 & other.0)
    }

    /// Disks in either set.
    #[inline]
    pub const fn union(self, other: DiskSet) -> DiskSet {
        DiskSet(self.0 | other.0)
    }

    /// Disks in this set and not in `other`.
    #[inline]
    pub const fn difference(self, other: DiskSet) -> DiskSet {
        DiskSet(self.0 & !other.0)
    }

    /// Whether every disk of `self` is in `other`.
    #[inline]
    pub const fn is_subset(self, other: DiskSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The raw mask (bit d = disk d).
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The lowest disk in the set.
    #[inline]
    pub const fn first(self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros() as usize)
        }
    }

    /// How many disks of the set come before disk `d`.
    #[inline]
    pub(crate) const fn rank(self, d: usize) -> usize {
        count(self.0 & ((1u64 << d) - 1))
    }

    /// The disks in increasing order.
    #[inline]
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        core::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let d = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(d)
        })
    }
}

/// Where one copy lives on its disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// First block of the copy on this disk.
    pub block: u64,
    /// Cylinder holding that block on this disk.
    pub cylinder: Cylinder,
}

/// The copies of one logical request: the disks holding one, and where.
///
/// Built with [`Copies::new`] and [`Copies::with`] (or [`Copies::everywhere`]
/// for a mirror laid out identically). A malformed set — a disk beyond
/// [`MAX_DISKS`], the same disk twice, more than [`MAX_COPIES`] copies — is
/// remembered and refused by the array's `submit` with
/// [`EnqueueError::InvalidCopies`](crate::EnqueueError::InvalidCopies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Copies {
    holders: DiskSet,
    /// Locations in increasing disk order; the first `count` are used.
    at: [Location; MAX_COPIES],
    count: u8,
    invalid: Option<&'static str>,
}

impl Default for Copies {
    fn default() -> Self {
        Copies::new()
    }
}

impl Copies {
    /// No copy yet.
    #[inline]
    pub const fn new() -> Self {
        Copies {
            holders: DiskSet::EMPTY,
            at: [Location {
                block: 0,
                cylinder: 0,
            }; MAX_COPIES],
            count: 0,
            invalid: None,
        }
    }

    /// A copy at the same place on each of disks `0..disks`.
    #[inline]
    pub fn everywhere(disks: usize, at: Location) -> Self {
        let mut c = Copies::new();
        if disks > MAX_COPIES {
            c.invalid = Some("more than 8 copies");
            return c;
        }
        c.holders = DiskSet::all(disks);
        c.at = [at; MAX_COPIES];
        c.count = disks as u8;
        c
    }

    /// These copies and one more, on `disk` at `at`.
    #[must_use]
    #[inline]
    pub const fn with(mut self, disk: usize, at: Location) -> Self {
        if self.invalid.is_some() {
            return self;
        }
        if disk >= MAX_DISKS {
            self.invalid = Some("a disk number beyond 63");
            return self;
        }
        if self.holders.contains(disk) {
            self.invalid = Some("two copies on one disk");
            return self;
        }
        let n = self.count as usize;
        if n == MAX_COPIES {
            self.invalid = Some("more than 8 copies");
            return self;
        }
        let rank = self.holders.rank(disk);
        let mut i = n;
        while i > rank {
            self.at[i] = self.at[i - 1];
            i -= 1;
        }
        self.at[rank] = at;
        self.holders = self.holders.with(disk);
        self.count += 1;
        self
    }

    /// The disks holding a copy.
    #[inline]
    pub const fn holders(&self) -> DiskSet {
        self.holders
    }

    /// Where the copy on `disk` lives, if it has one.
    #[inline]
    pub const fn location(&self, disk: usize) -> Option<Location> {
        if self.holders.contains(disk) {
            Some(self.at[self.holders.rank(disk)])
        } else {
            None
        }
    }

    /// The locations in increasing disk order.
    #[inline]
    pub fn locations(&self) -> &[Location] {
        &self.at[..self.count as usize]
    }

    /// Why the copies are malformed, if they are.
    #[inline]
    pub const fn invalid(&self) -> Option<&'static str> {
        self.invalid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_keep_disk_order_whatever_the_insertion_order() {
        let at = |b| Location {
            block: b,
            cylinder: b as u32,
        };
        let c = Copies::new()
            .with(5, at(50))
            .with(1, at(10))
            .with(3, at(30));
        let mut disks = c.holders().iter();
        let first_four = [disks.next(), disks.next(), disks.next(), disks.next()];
        assert_eq!(first_four, [Some(1), Some(3), Some(5), None]);
        assert_eq!(c.location(3), Some(at(30)));
        assert_eq!(c.location(2), None);
        assert_eq!(c.locations(), &[at(10), at(30), at(50)]);
        assert_eq!(c.with(3, at(1)).invalid(), Some("two copies on one disk"));
        assert_eq!(
            Copies::new().with(64, at(0)).invalid(),
            Some("a disk number beyond 63")
        );
    }
}
