//! A three-level bitmap over up to 65 536 buckets with constant-time
//! "next set bit at or after / at or before" queries.
//!
//! A [`Storage`] makes arrays of one length, the capacity `N`, so the bottom
//! level lives in `N` bytes (of which only the first `⌈N/8⌉` are used) and is
//! read as little-endian 64-bit words; the two upper levels have a fixed size.

use crate::storage::{Inline, Slots, Storage};

const L1_WORDS: usize = 16; // 16 × 64 bottom words = 65 536 buckets

#[derive(Clone)]
pub(crate) struct Bitmap<S: Storage> {
    /// Bit `b` of the bottom level says bucket `b` is non-empty.
    bytes: Slots<u8, S>,
    /// Bit `w` says bottom word `w` is non-zero.
    l1: [u64; L1_WORDS],
    /// Bit `v` says `l1[v]` is non-zero.
    l2: u64,
    /// Number of buckets.
    n: usize,
}

impl<S: Storage> Bitmap<S> {
    /// A bitmap of [`Storage::capacity`] buckets, all clear.
    pub(crate) fn new(storage: &S) -> Self {
        Bitmap {
            bytes: Slots::new(storage, 0),
            l1: [0; L1_WORDS],
            l2: 0,
            n: storage.capacity(),
        }
    }
}

impl<const N: usize> Bitmap<Inline<N>> {
    /// [`Bitmap::new`] on inline storage, in const context.
    pub(crate) const fn inline() -> Self {
        Bitmap {
            bytes: Slots::inline(0),
            l1: [0; L1_WORDS],
            l2: 0,
            n: N,
        }
    }
}

impl<S: Storage> Bitmap<S> {
    #[inline]
    fn word(&self, w: usize) -> u64 {
        let start = w * 8;
        let n = self.n;
        if start + 8 <= n {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.bytes.as_slice()[start..start + 8]);
            u64::from_le_bytes(b)
        } else {
            let mut b = [0u8; 8];
            let end = n.min(start + 8);
            b[..end - start].copy_from_slice(&self.bytes.as_slice()[start..end]);
            u64::from_le_bytes(b)
        }
    }

    #[inline]
    pub(crate) fn set(&mut self, b: usize) {
        self.bytes[b / 8] |= 1 << (b % 8);
        let w = b / 64;
        self.l1[w / 64] |= 1 << (w % 64);
        self.l2 |= 1 << (w / 64);
    }

    #[inline]
    pub(crate) fn clear(&mut self, b: usize) {
        self.bytes[b / 8] &= !(1 << (b % 8));
        let w = b / 64;
        if self.word(w) == 0 {
            self.l1[w / 64] &= !(1 << (w % 64));
            if self.l1[w / 64] == 0 {
                self.l2 &= !(1 << (w / 64));
            }
        }
    }

    /// The first set bucket `>= b`.
    #[inline]
    pub(crate) fn next_at_or_after(&self, b: usize) -> Option<usize> {
        if b >= self.n {
            return None;
        }
        let w = b / 64;
        let bits = self.word(w) & (!0u64 << (b % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        // Next non-zero bottom word after w.
        let w = w + 1;
        if w >= self.n.div_ceil(64) {
            return None;
        }
        let v = w / 64;
        let bits = self.l1[v] & (!0u64 << (w % 64));
        let w = if bits != 0 {
            v * 64 + bits.trailing_zeros() as usize
        } else {
            let v = v + 1;
            if v >= L1_WORDS {
                return None;
            }
            let top = self.l2 & (!0u64 << v);
            if top == 0 {
                return None;
            }
            let v = top.trailing_zeros() as usize;
            v * 64 + self.l1[v].trailing_zeros() as usize
        };
        Some(w * 64 + self.word(w).trailing_zeros() as usize)
    }

    /// The last set bucket `<= b`.
    #[inline]
    pub(crate) fn prev_at_or_before(&self, b: usize) -> Option<usize> {
        let b = b.min(self.n - 1);
        let w = b / 64;
        let bits = self.word(w) & (!0u64 >> (63 - b % 64));
        if bits != 0 {
            return Some(w * 64 + 63 - bits.leading_zeros() as usize);
        }
        if w == 0 {
            return None;
        }
        let w = w - 1;
        let v = w / 64;
        let bits = self.l1[v] & (!0u64 >> (63 - w % 64));
        let w = if bits != 0 {
            v * 64 + 63 - bits.leading_zeros() as usize
        } else {
            if v == 0 {
                return None;
            }
            let top = self.l2 & (!0u64 >> (64 - v));
            if top == 0 {
                return None;
            }
            let v = 63 - top.leading_zeros() as usize;
            v * 64 + 63 - self.l1[v].leading_zeros() as usize
        };
        Some(w * 64 + 63 - self.word(w).leading_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Inline;

    fn check<const N: usize>(seed: u64) {
        let mut bm = Bitmap::new(&Inline::<N>::new());
        let mut reference = [false; N];
        let mut x = seed;
        for _ in 0..4 * N {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = (x % N as u64) as usize;
            if reference[b] {
                bm.clear(b);
            } else {
                bm.set(b);
            }
            reference[b] = !reference[b];
            let q = ((x >> 20) % N as u64) as usize;
            assert_eq!(bm.next_at_or_after(q), (q..N).find(|&i| reference[i]));
            assert_eq!(
                bm.prev_at_or_before(q),
                (0..=q).rev().find(|&i| reference[i])
            );
        }
    }

    #[test]
    fn matches_a_boolean_array() {
        check::<1>(1);
        check::<7>(2);
        check::<64>(3);
        check::<100>(4);
        check::<4096>(5);
        check::<5000>(6);
    }

    #[test]
    fn sparse_far_apart_bits() {
        let mut bm = Bitmap::new(&Inline::<65535>::new());
        bm.set(3);
        bm.set(65_000);
        assert_eq!(bm.next_at_or_after(4), Some(65_000));
        assert_eq!(bm.prev_at_or_before(64_999), Some(3));
        assert_eq!(bm.next_at_or_after(65_001), None);
        bm.clear(3);
        assert_eq!(bm.prev_at_or_before(64_999), None);
    }
}
