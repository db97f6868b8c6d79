//! What a device measures, computed once and in one place.
//!
//! Every device records through this module, so every number in the
//! project is computed the same way (the intervals over independent
//! replications and from one long run, which combine these reports, are the
//! experiments crate's `confidence` and `batch_means`). Three rules shape it:
//!
//! - **Constant memory per run.** Nothing is stored per request: moments of
//!   whole numbers are exact integer sums (of values and of their squares),
//!   folded into a mean and a variance when a report is asked for; moments of
//!   real numbers are streamed (Welford); percentiles come from a fixed
//!   log-linear histogram; time averages are exact integrals. A [`DiskStats`] is about 32 KB plus a
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
//! | [`Tally`] | count, mean, variance, min, max of whole numbers, exactly; mergeable |
//! | [`Moments`] | the same of real numbers (Welford); mergeable |
//! | [`Histogram`], [`Distribution`] | quantiles within 0.78 %, 1 ns to 2⁴⁴ ns, 10 KB; mergeable |
//! | [`TimeWeighted`] | time average and maximum of a piecewise-constant signal |
//! | [`QueueAccumulator`] | one queue: time average, maximum, lengths found by arrivals |
//! | [`ClassStats`] → [`ClassReport`] | response, waiting, deadline misses, lateness, tardiness per `u16` class |
//! | [`DiskStats`] → [`DiskReport`] | everything about one disk over a measured window |

mod accumulators;
mod array_stats;
mod class_stats;
mod disk_stats;
mod histogram;
mod moments;
mod tally;
mod time_weighted;

pub use accumulators::{FOUND_BINS, QueueAccumulator, QueueReport};
pub use array_stats::{ArrayQueueReport, ArrayReport, ArrayStats, DiskUsageReport};
pub use class_stats::{ClassReport, ClassStats};
pub use disk_stats::{BreakdownReport, Completion, DiskReport, DiskStats, WarmUp};
pub use histogram::{Distribution, DistributionReport, Histogram};
pub use moments::{Moments, MomentsReport};
pub use tally::Tally;
pub use time_weighted::TimeWeighted;
