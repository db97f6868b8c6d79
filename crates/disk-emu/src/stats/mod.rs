//! Statistics, computed once and in one place.
//!
//! Every experiment reports through this module, so every number in the
//! project is computed the same way. Three rules shape it:
//!
//! - **Constant memory per run.** Nothing is stored per request: moments are
//!   streamed (Welford), percentiles come from a fixed log-linear histogram,
//!   time averages are exact integrals. A [`DiskStats`] is about 32 KB plus a
//!   few hundred bytes per request class, whether it sees ten requests or
//!   ten billion.
//! - **Determinism.** Integer nanoseconds in, `f64` out, by a fixed sequence
//!   of operations: the same events give the same bits. Replication results
//!   are aggregated in replication order, never in the order threads finish.
//! - **Honesty.** An undefined statistic is `None` (NaN in reports, `null` in
//!   JSON), never a plausible-looking zero.
//!
//! The pieces, bottom up:
//!
//! | type | measures |
//! |---|---|
//! | [`Moments`] | count, mean, variance, min, max of a stream; mergeable |
//! | [`Histogram`], [`Distribution`] | quantiles within 0.78 %, 1 ns to 2⁴⁴ ns, 10 KB; mergeable |
//! | [`TimeWeighted`] | time average and maximum of a piecewise-constant signal |
//! | [`QueueAccumulator`] | one queue: time average, maximum, lengths found by arrivals |
//! | [`ClassStats`] → [`ClassReport`] | response, waiting, deadline misses, lateness, tardiness per `u16` class |
//! | [`DiskStats`] → [`DiskReport`] | everything about one disk over a measured window |
//! | [`Interval`], [`MetricTable`] → [`MetricRow`] | Student-t confidence intervals over independent replications |
//! | [`BatchMeans`], [`Regenerative`] | intervals from one long run |

mod accumulators;
mod array;
mod batch;
mod classes;
mod confidence;
mod disk;
mod histogram;
mod moments;
mod time_weighted;

pub use accumulators::{FOUND_BINS, QueueAccumulator, QueueReport};
pub use array::{ArrayQueueReport, ArrayReport, ArrayStats, DiskUsageReport};
pub use batch::{BatchMeans, Regenerative};
pub use classes::{ClassReport, ClassStats};
pub use confidence::{
    Interval, MetricRow, MetricTable, StatsError, normal_quantile, student_t_quantile,
};
pub use disk::{BreakdownReport, Completion, DiskReport, DiskStats, WarmUp};
pub use histogram::{Distribution, DistributionReport, Histogram};
pub use moments::{Moments, MomentsReport};
pub use time_weighted::TimeWeighted;
