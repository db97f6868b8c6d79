//! The maximum sustainable throughput of an array: the highest speed-up of
//! its workload at which response times stay bounded (Zhang, Yu,
//! Krishnamurthy & Wang, FAST 2002, Figure 11).
//!
//! **The criterion.** A run at speed-up s is *sustained* when no stripe
//! group's queues overflow, the mean response of its measured requests is
//! at most [`Criterion::limit_ms`], and the number of user requests in the
//! array does not grow: its growth — the least-squares slope of its time
//! averages over ten batches of the measured arrivals — is at most
//! [`Criterion::max_drift`] of the arrival rate. That share is what the
//! array falls behind by: about 0 for a load it keeps up with, and
//! 1 − capacity/rate beyond its capacity, whatever the length of the run.
//! (Comparing the two halves of a run instead, as a ratio, finds a queue
//! that grows by a few percent of the arrivals only in runs long enough for
//! it to double, so its verdict moved with the run's length.)
//! A speed-up is sustained when every replication of it is.
//!
//! **The search.** Speed-ups `step, 2·step, …` up to the first that is not
//! sustained (or [`SearchOptions::max`]), then bisection between the last
//! sustained and the first unsustained down to
//! [`SearchOptions::resolution`]. The curve it searched — every speed-up
//! run, with its mean response — is returned with the result.

use serde::Serialize;

use crate::array_experiment::{ArrayError, ArrayExperiment, ArrayReport};
use crate::confidence::Interval;
use crate::parallel::parallel;

/// When a run counts as sustained (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Criterion {
    /// Largest mean response, ms.
    pub limit_ms: f64,
    /// Largest growth of the requests in the array, as a share of the
    /// arrival rate.
    pub max_drift: f64,
}

impl Default for Criterion {
    /// 50 ms (ten times the EW-Array's response at the paper's 9×); a
    /// growth of at most 1 % of the arrivals, well above the noise of a
    /// stable queue's slope over runs of 10,000 requests or more (below
    /// 0.2 % at the stripe's saturation, measured) and well below the
    /// share a load 5 % past capacity falls behind by.
    fn default() -> Self {
        Criterion {
            limit_ms: 50.0,
            max_drift: 0.01,
        }
    }
}

impl Criterion {
    /// Whether `report`'s run was sustained.
    pub fn sustained(&self, report: &ArrayReport) -> bool {
        report.mean_response_ms <= self.limit_ms && report.drift <= self.max_drift
    }
}

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SearchOptions {
    /// The criterion.
    pub criterion: Criterion,
    /// First speed-up and the stride of the upward scan (at least
    /// `resolution`: a smaller one is raised to it).
    pub step: f64,
    /// Bisection stops when the bracket is this narrow.
    pub resolution: f64,
    /// No speed-up above this is tried.
    pub max: f64,
    /// Replications per speed-up.
    pub replications: u64,
    /// Threads; the result does not depend on it.
    pub jobs: usize,
}

/// One speed-up the search ran.
#[derive(Clone, Debug, Serialize)]
pub struct CurvePoint {
    /// The speed-up.
    pub speedup: f64,
    /// Whether every replication was sustained.
    pub sustained: bool,
    /// Mean response across replications, ms, with its 95 % half-width
    /// (`None` when a replication overflowed or there was one replication).
    pub response_ms: Option<Interval>,
    /// The replications' reports (none when one overflowed).
    pub reports: Vec<ArrayReport>,
}

/// The result of a search.
#[derive(Clone, Debug, Serialize)]
pub struct Search {
    /// The highest sustained speed-up found (0 when even the first step is
    /// not sustained).
    pub max_sustainable: f64,
    /// Every speed-up run, in increasing order.
    pub curve: Vec<CurvePoint>,
}

/// Runs `experiment` at `speedup` (every replication).
///
/// # Errors
/// Any [`ArrayError`] but an overflow, which makes the point unsustained.
pub fn point(
    experiment: &ArrayExperiment,
    speedup: f64,
    options: &SearchOptions,
) -> Result<CurvePoint, ArrayError> {
    let runs = parallel(
        options.replications.max(1),
        options.jobs,
        |r| match experiment.run(speedup, r) {
            Ok(report) => Ok(Some(report)),
            Err(ArrayError::Overflow { .. }) => Ok(None),
            Err(e) => Err(e),
        },
    )?;
    let reports: Option<Vec<ArrayReport>> = runs.into_iter().collect();
    Ok(match reports {
        Some(reports) => {
            let sustained = reports.iter().all(|r| options.criterion.sustained(r));
            let means: Vec<f64> = reports.iter().map(|r| r.mean_response_ms).collect();
            CurvePoint {
                speedup,
                sustained,
                response_ms: Interval::from_values(&means, 0.95).ok(),
                reports,
            }
        }
        None => CurvePoint {
            speedup,
            sustained: false,
            response_ms: None,
            reports: Vec::new(),
        },
    })
}

/// The highest speed-up `sustained` accepts: `step, 2·step, …` up to the
/// first it refuses (or `max`), then bisection down to `resolution` (see
/// the module documentation); 0 when it refuses the first step.
fn bracket(
    options: &SearchOptions,
    mut sustained: impl FnMut(f64) -> Result<bool, ArrayError>,
) -> Result<f64, ArrayError> {
    let mut good = 0.0;
    let mut bad = None;
    // A stride below the resolution is raised to it: the upward scan then
    // runs at most max / resolution points.
    let step = options.step.max(options.resolution);
    let mut s = step;
    while s <= options.max + 1e-9 {
        if sustained(s)? {
            good = s;
            s += step;
        } else {
            bad = Some(s);
            break;
        }
    }
    if let Some(mut hi) = bad {
        let mut lo = good;
        while hi - lo > options.resolution + 1e-9 {
            let mid = ((lo + hi) / 2.0 / options.resolution).round() * options.resolution;
            if mid <= lo || mid >= hi {
                break;
            }
            if sustained(mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        good = lo;
    }
    Ok(good)
}

/// Searches the maximum sustainable speed-up of `experiment`.
///
/// # Errors
/// Any [`ArrayError`] but an overflow.
pub fn search(experiment: &ArrayExperiment, options: &SearchOptions) -> Result<Search, ArrayError> {
    let mut curve = Vec::new();
    let max_sustainable = bracket(options, |s| {
        let p = point(experiment, s, options)?;
        let ok = p.sustained;
        curve.push(p);
        Ok(ok)
    })?;
    curve.sort_by(|a, b| a.speedup.total_cmp(&b.speedup));
    Ok(Search {
        max_sustainable,
        curve,
    })
}

/// One run of a [`ReplicationSearch`].
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    /// The speed-up.
    pub speedup: f64,
    /// The run's report; `None` when a group overflowed.
    pub report: Option<ArrayReport>,
}

/// The searches of one replication under several criteria, sharing their
/// runs: a speed-up two criteria both try runs once.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicationSearch {
    /// The replication.
    pub replication: u64,
    /// The maximum sustainable speed-up under each criterion, in the order
    /// given.
    pub maxima: Vec<f64>,
    /// Every speed-up run, in increasing order.
    pub probes: Vec<Probe>,
}

/// Searches the maximum sustainable speed-up of replication `replication`
/// of `experiment` alone under each of `criteria` (`options.criterion`
/// and `options.replications` are not used), so that the maxima of several
/// replications give an interval.
///
/// # Errors
/// Any [`ArrayError`] but an overflow.
pub fn search_replication(
    experiment: &ArrayExperiment,
    options: &SearchOptions,
    replication: u64,
    criteria: &[Criterion],
) -> Result<ReplicationSearch, ArrayError> {
    let mut probes: Vec<Probe> = Vec::new();
    let mut maxima = Vec::with_capacity(criteria.len());
    for criterion in criteria {
        maxima.push(bracket(options, |s| {
            let known = probes.iter().position(|p| p.speedup == s);
            let i = match known {
                Some(i) => i,
                None => {
                    let report = match experiment.run(s, replication) {
                        Ok(r) => Some(r),
                        Err(ArrayError::Overflow { .. }) => None,
                        Err(e) => return Err(e),
                    };
                    probes.push(Probe { speedup: s, report });
                    probes.len() - 1
                }
            };
            Ok(probes[i]
                .report
                .as_ref()
                .is_some_and(|r| criterion.sustained(r)))
        })?);
    }
    probes.sort_by(|a, b| a.speedup.total_cmp(&b.speedup));
    Ok(ReplicationSearch {
        replication,
        maxima,
        probes,
    })
}
