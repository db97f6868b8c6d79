//! Quantiles in constant memory: a log-linear histogram of nanosecond values.

use sched_core::Nanos;
use serde::{Deserialize, Serialize};

use super::tally::{Tally, saturate};

/// Bits of sub-bucket index within one power of two: 2⁶ = 64 equal-width
/// buckets per octave. A bucket of [2ᵉ, 2ᵉ⁺¹) is 2ᵉ⁻⁶ wide, so its midpoint is
/// within 2ᵉ⁻⁷ of any value in it: a relative error below 1/128 ≈ 0.78 %.
/// 32 buckets per octave would allow 1.6 %, more than the 1 % we promise.
const SUB_BITS: u32 = 6;
/// Buckets per octave above the exact range.
const SUB: usize = 1 << SUB_BITS;
/// Values below this are counted exactly, one bucket per value: below 2·SUB a
/// bucket would be narrower than one nanosecond.
const EXACT: usize = 2 * SUB;
/// Values from 2⁴⁴ ns (about 4.9 hours, well beyond the 10⁴ s we must cover)
/// share one overflow bucket.
const TOP_OCTAVE: u32 = 44;
/// Octaves resolved above the exact range: [2⁷, 2⁸) … [2⁴³, 2⁴⁴).
const OCTAVES: usize = (TOP_OCTAVE - (SUB_BITS + 1)) as usize;
/// Index of the overflow bucket.
const OVERFLOW: usize = EXACT + OCTAVES * SUB;
/// Total number of buckets: 2 497, about 10 KB of counters.
const BUCKETS: usize = OVERFLOW + 1;

/// A fixed-size log-linear histogram of non-negative integer values
/// (nanoseconds), HdrHistogram-style, answering quantile queries.
///
/// Values below 128 are counted exactly; from 128 up to 2⁴⁴ ns (≈ 17 592 s)
/// each power of two is split into 64 equal buckets, so every reported
/// quantile is within [`Histogram::MAX_RELATIVE_ERROR`] (0.78 %) of a value of
/// the requested rank. Larger values share one overflow bucket whose
/// quantiles are reported as the exact maximum. Recording is one bit scan, a
/// shift and an increment: no allocation, no floating point, so histograms
/// from any thread merge to the same counts.
///
/// Counters are 32-bit to keep the histogram at about 10 KB (a `u64` counter
/// array would double it, for runs 40 times longer than the 100-million-request
/// runs we plan). A bucket that would pass 2³² − 1 samples stops counting and
/// the histogram is marked saturated; its quantiles are then unknown and
/// reported as `None`, never as a silently wrong number. The exact total count
/// is kept separately.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Histogram {
    counts: [u32; BUCKETS],
    count: u64,
    min: u64,
    max: u64,
    saturated: bool,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

/// The bucket holding `v`.
#[inline]
fn bucket(v: u64) -> usize {
    if v < EXACT as u64 {
        return v as usize;
    }
    let octave = 63 - v.leading_zeros();
    if octave >= TOP_OCTAVE {
        return OVERFLOW;
    }
    let shift = octave - SUB_BITS;
    // The top SUB_BITS + 1 bits of v are 1xxxxxx: the x's pick the sub-bucket.
    let sub = (v >> shift) as usize - SUB;
    EXACT + (octave - (SUB_BITS + 1)) as usize * SUB + sub
}

/// The value reported for bucket `i` (below the overflow bucket): the middle
/// of the integers it holds, which halves the worst-case error of either edge.
fn representative(i: usize) -> f64 {
    if i < EXACT {
        return i as f64;
    }
    let octave = (i - EXACT) / SUB + (SUB_BITS + 1) as usize;
    let sub = ((i - EXACT) % SUB + SUB) as u64;
    let shift = octave as u32 - SUB_BITS;
    let low = sub << shift;
    let width = 1u64 << shift;
    low as f64 + (width - 1) as f64 / 2.0
}

impl Histogram {
    /// Upper bound on |reported − true| / true for any quantile of values below
    /// 2⁴⁴ ns: half a bucket width over the bucket's lower edge, 2ᵉ⁻⁷ / 2ᵉ.
    pub const MAX_RELATIVE_ERROR: f64 = 1.0 / 128.0;

    /// First value counted in the overflow bucket (2⁴⁴ ns ≈ 17 592 s).
    pub const RESOLVED_BELOW: Nanos = 1 << TOP_OCTAVE;

    /// An empty histogram.
    pub const fn new() -> Self {
        Histogram {
            counts: [0; BUCKETS],
            count: 0,
            min: u64::MAX,
            max: 0,
            saturated: false,
        }
    }

    /// Counts one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let slot = &mut self.counts[bucket(v)];
        match slot.checked_add(1) {
            Some(c) => *slot = c,
            None => self.saturated = true,
        }
        self.count += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Adds every value counted by `other`. Merging is exact: the result has
    /// the same counts as one histogram fed both streams, in any order.
    pub fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            match mine.checked_add(*theirs) {
                Some(c) => *mine = c,
                None => {
                    *mine = u32::MAX;
                    self.saturated = true;
                }
            }
        }
        self.saturated |= other.saturated;
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Smallest value recorded, exactly.
    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    /// Largest value recorded, exactly.
    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// Whether some bucket overflowed its 32-bit counter (see the type's
    /// documentation); quantiles are then unavailable.
    pub fn saturated(&self) -> bool {
        self.saturated
    }

    /// The `q`-quantile (0 ≤ q ≤ 1): the value of rank ⌈q·n⌉ (at least 1)
    /// among the n recorded values in ascending order, within
    /// [`Histogram::MAX_RELATIVE_ERROR`]. `q = 0` gives the exact minimum and
    /// `q = 1` the exact maximum. `None` when empty, saturated or `q` is not
    /// in [0, 1].
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 || self.saturated || !(0.0..=1.0).contains(&q) {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let (lo, hi) = (self.min as f64, self.max as f64);
        if rank == 1 {
            return Some(lo);
        }
        if rank == self.count {
            return Some(hi);
        }
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                if i == OVERFLOW {
                    return Some(hi);
                }
                // A bucket's middle may lie outside the recorded range when
                // the extreme values sit in it; the true answer cannot.
                return Some(representative(i).clamp(lo, hi));
            }
        }
        // Unreachable while not saturated: the counts add up to `count`.
        None
    }
}

/// A [`Histogram`] of nanosecond values with their exact sum and sum of
/// squares: exact count, mean, deviation and range, plus percentiles. The
/// count and the range are the histogram's, kept once.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Distribution {
    histogram: Histogram,
    sum: i128,
    sum_sq: u128,
}

impl Distribution {
    /// An empty distribution.
    pub const fn new() -> Self {
        Distribution {
            histogram: Histogram::new(),
            sum: 0,
            sum_sq: 0,
        }
    }

    /// Records one value.
    #[inline]
    pub fn record(&mut self, v: Nanos) {
        self.histogram.record(v);
        self.sum += i128::from(v);
        // Saturates rather than wraps past 2¹²⁸ (see `Tally`).
        self.sum_sq = self.sum_sq.saturating_add(u128::from(v) * u128::from(v));
    }

    /// Folds in another distribution's values.
    pub fn merge(&mut self, other: &Distribution) {
        self.histogram.merge(&other.histogram);
        self.sum += other.sum;
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.histogram.count()
    }

    /// The exact moments (sums as described at [`Tally`]).
    pub fn moments(&self) -> Tally {
        let h = &self.histogram;
        Tally::from_parts(
            h.count(),
            self.sum,
            self.sum_sq,
            h.min().map_or(i64::MAX, saturate),
            h.max().map_or(i64::MIN, saturate),
        )
    }

    /// The histogram.
    pub fn histogram(&self) -> &Histogram {
        &self.histogram
    }

    /// The `q`-quantile, as [`Histogram::quantile`].
    pub fn quantile(&self, q: f64) -> Option<f64> {
        self.histogram.quantile(q)
    }

    /// Moments and the usual percentiles, for a report.
    pub fn report(&self) -> DistributionReport {
        let m = self.moments().report();
        let p = |q| self.quantile(q).unwrap_or(f64::NAN);
        DistributionReport {
            count: m.count,
            mean: m.mean,
            std_dev: m.std_dev,
            min: m.min,
            p50: p(0.50),
            p90: p(0.90),
            p95: p(0.95),
            p99: p(0.99),
            max: m.max,
        }
    }
}

/// Summary of a distribution of times, in nanoseconds. Mean, deviation and
/// range are exact; percentiles are within 0.78 % (see [`Histogram`]).
/// Undefined values (anything of an empty distribution, the deviation of one
/// value, percentiles of a saturated histogram) are NaN, written as `null`
/// by `serde_json`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistributionReport {
    /// Number of values.
    pub count: u64,
    /// Exact mean.
    pub mean: f64,
    /// Exact sample standard deviation (divisor n − 1).
    pub std_dev: f64,
    /// Smallest value.
    pub min: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Stream;

    /// The value of rank ⌈q·n⌉ in the sorted sample: what `quantile` estimates.
    fn exact_quantile(sorted: &[u64], q: f64) -> f64 {
        let n = sorted.len();
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        sorted[rank - 1] as f64
    }

    fn check_quantiles(mut xs: Vec<u64>) {
        let mut h = Histogram::new();
        xs.iter().for_each(|&x| h.record(x));
        xs.sort_unstable();
        for q in [
            0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0,
        ] {
            let want = exact_quantile(&xs, q);
            let got = h.quantile(q).unwrap();
            let err = (got - want).abs() / want.max(1.0);
            assert!(err <= 0.01, "q {q}: histogram {got}, exact {want}");
            assert!(
                err <= Histogram::MAX_RELATIVE_ERROR,
                "q {q}: error {err} above the bound"
            );
        }
    }

    #[test]
    fn bucket_layout_is_contiguous_and_monotone() {
        assert_eq!(BUCKETS, 2_497);
        assert!(core::mem::size_of::<Histogram>() < 10 * 1024);
        // Every value maps to the bucket whose range holds it, buckets are in
        // value order, and each bucket's midpoint is within the bound.
        let mut previous = 0;
        for v in
            (0..70_000u64).chain((40..44).flat_map(|e| [(1u64 << e) - 1, 1 << e, (1 << e) + 1]))
        {
            let b = bucket(v);
            assert!(b >= previous, "{v}");
            // Consecutive values never skip a bucket.
            assert!(v >= 70_000 || b <= previous + 1, "{v}");
            previous = b;
            if b != OVERFLOW {
                let rel = (representative(b) - v as f64).abs() / (v as f64).max(1.0);
                assert!(rel <= Histogram::MAX_RELATIVE_ERROR, "{v}: {rel}");
            }
        }
        assert_eq!(bucket(127), 127);
        assert_eq!(bucket(128), 128);
        assert_eq!(bucket(129), 128);
        assert_eq!(bucket(130), 129);
        assert_eq!(bucket(255), 191);
        assert_eq!(bucket(256), 192);
        assert_eq!(bucket(Histogram::RESOLVED_BELOW - 1), OVERFLOW - 1);
        assert_eq!(bucket(Histogram::RESOLVED_BELOW), OVERFLOW);
        assert_eq!(bucket(u64::MAX), OVERFLOW);
        // Ten thousand seconds is resolved, not in the overflow bucket.
        assert!(bucket(10_000 * 1_000_000_000) < OVERFLOW);
    }

    #[test]
    fn exponential_quantiles_within_one_percent() {
        let mut s = Stream::numbered(202403);
        check_quantiles((0..200_000).map(|_| s.exponential(12_000_000)).collect());
    }

    #[test]
    fn small_exponential_values_hit_the_exact_range() {
        let mut s = Stream::numbered(503);
        check_quantiles((0..50_000).map(|_| s.exponential(300)).collect());
    }

    #[test]
    fn uniform_quantiles_within_one_percent() {
        let mut s = Stream::numbered(202413);
        check_quantiles(
            (0..200_000)
                .map(|_| s.uniform_between(1_000, 40_000_000))
                .collect(),
        );
        // Spread over thirteen decades: 1 ns to 10⁴ s, log-uniform.
        check_quantiles(
            (0..200_000)
                .map(|_| 10f64.powf(13.0 * s.uniform()) as u64)
                .collect(),
        );
    }

    #[test]
    fn exact_below_128_and_overflow_reports_the_maximum() {
        let mut h = Histogram::new();
        for v in [3, 5, 5, 100, 127] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(5.0));
        assert_eq!(h.quantile(0.8), Some(100.0));
        let mut h = Histogram::new();
        h.record(10);
        h.record(Histogram::RESOLVED_BELOW + 5);
        h.record(Histogram::RESOLVED_BELOW + 9);
        assert_eq!(
            h.quantile(0.6),
            Some((Histogram::RESOLVED_BELOW + 9) as f64)
        );
        assert_eq!(h.quantile(0.0), Some(10.0));
    }

    #[test]
    fn empty_and_bad_requests_give_none() {
        let mut h = Histogram::new();
        assert_eq!(h.quantile(0.5), None);
        h.record(1_000);
        assert_eq!(h.quantile(-0.1), None);
        assert_eq!(h.quantile(1.5), None);
        assert_eq!(h.quantile(f64::NAN), None);
        assert_eq!(h.quantile(0.5), Some(1_000.0));
    }

    #[test]
    fn merge_equals_single_stream_exactly() {
        let mut s = Stream::numbered(903);
        let xs: Vec<u64> = (0..30_000).map(|_| s.exponential(2_000_000)).collect();
        let mut whole = Histogram::new();
        xs.iter().for_each(|&x| whole.record(x));
        let (mut a, mut b) = (Histogram::new(), Histogram::new());
        xs[..12_345].iter().for_each(|&x| a.record(x));
        xs[12_345..].iter().for_each(|&x| b.record(x));
        b.merge(&a);
        assert_eq!(b, whole);
        let mut d = Distribution::new();
        xs.iter().for_each(|&x| d.record(x));
        assert_eq!(d.histogram(), &whole);
    }

    #[test]
    fn a_full_bucket_saturates_instead_of_wrapping() {
        let mut h = Histogram::new();
        h.record(7);
        h.counts[7] = u32::MAX;
        assert!(!h.saturated());
        h.record(7);
        assert!(h.saturated());
        assert_eq!(h.count(), 2);
        assert_eq!(h.quantile(0.5), None);
        let mut other = Histogram::new();
        other.merge(&h);
        assert!(other.saturated());
        assert!(
            Distribution {
                histogram: h,
                sum: 0,
                sum_sq: 0,
            }
            .report()
            .p50
            .is_nan()
        );
    }

    #[test]
    fn distribution_report_combines_exact_moments_and_percentiles() {
        let mut d = Distribution::new();
        for v in 1..=100u64 {
            d.record(v);
        }
        let r = d.report();
        assert_eq!(r.count, 100);
        assert_eq!(r.mean, 50.5);
        assert_eq!(
            (r.min, r.p50, r.p90, r.p95, r.p99, r.max),
            (1.0, 50.0, 90.0, 95.0, 99.0, 100.0)
        );
        assert!((r.std_dev - 29.011_491_975_882_016).abs() < 1e-12);
    }
}
