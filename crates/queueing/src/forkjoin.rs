//! Bounds on the multiple-queue policies (§3.3), whose updates fork into
//! two writes that join when both are done.
//!
//! Both chains have two unbounded queues; each bound truncates one of them
//! at B, leaving a quasi-birth-death chain with B + 1 (or about 8·B) phases,
//! and B is raised until the update bounds are within 2 % (the paper's
//! accuracy, after Towsley & Yu's 1987 report, which we do not have; the
//! constructions below are ours and documented where they are made).
//!
//! **R-DMQ.** Each disk is an M/M/1 queue at rate λ(1 − p_r/2), so reads are
//! exact. For updates, the lower chain rejects arrivals at disk 2 when it
//! holds B requests (the paper's modified system). Coupled with the real
//! system on the same arrivals and service events, disk 1 is identical and
//! disk 2 holds N₂ᴸ ≤ N₂ requests. A tagged update that finds (n₁, n₂) has
//! mean response f(n₁, n₂) = E max(Erlang(n₁+1, μ), Erlang(n₂+1, μ)) (FCFS,
//! exponential service, Poisson arrivals see time averages), f grows in n₂,
//! and adding z stages to the second Erlang adds at most z/μ; so
//! E f(N₁, N₂ᴸ) ≤ E(T_u) ≤ E f(N₁, N₂ᴸ) + (E N₂ − E N₂ᴸ)/μ, where both means
//! are closed forms (M/M/1 and M/M/1/B). The upper bound is the lower plus
//! that gap, so B is chosen from the closed forms.
//!
//! **CMQ.** Level = requests in the common queue; phase = the backlog k of
//! the lagging disk's auxiliary queue (truncated at B) and what each disk is
//! doing. The lower chain drops the second write of an update that would
//! make the backlog exceed B (less work for the lagging disk, so everything
//! finishes no later); the upper chain makes the leading disk wait, idle,
//! with the update at the head of the common queue until the backlog falls
//! below B (the same work, started no earlier). Both change nothing while
//! the backlog stays below B, so they meet as B grows. Mean read and update
//! responses follow from Little's law on the number of reads and of
//! unfinished updates in the system; waiting requests whose class the chain
//! does not record are reads with probability p_r (the class of a queued
//! request is not looked at until it reaches the head).

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::closed_form::{Policy, check_stable};
use crate::error::{AnalysisError, positive};
use crate::qbd::{Qbd, QbdSolution, SolveOptions};

/// The bounds must be this close: (upper − lower)/lower.
pub const TARGET_GAP: f64 = 0.02;

/// The largest truncation tried for R-DMQ (B + 1 phases).
pub const DMQ_MAX_TRUNCATION: usize = 600;

/// The largest auxiliary backlog tried for CMQ (about 8·B phases).
pub const CMQ_MAX_TRUNCATION: usize = 64;

/// A lower and an upper bound, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bounds {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

impl Bounds {
    /// Both bounds equal (an exact value).
    pub fn exact(x: f64) -> Bounds {
        Bounds { lower: x, upper: x }
    }

    /// (upper − lower)/lower.
    pub fn gap(&self) -> f64 {
        (self.upper - self.lower) / self.lower
    }

    /// Whether `x` lies within the bounds.
    pub fn contains(&self, x: f64) -> bool {
        self.lower <= x && x <= self.upper
    }

    fn mix(p: f64, a: Bounds, b: Bounds) -> Bounds {
        Bounds {
            lower: p * a.lower + (1.0 - p) * b.lower,
            upper: p * a.upper + (1.0 - p) * b.upper,
        }
    }
}

/// Bounds on an MQ policy's mean response times.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ForkJoinAnalysis {
    /// R-DMQ or CMQ.
    pub policy: &'static str,
    /// Arrival rate, per second.
    pub lambda: f64,
    /// Mean read response (exact for R-DMQ), s.
    pub read: Bounds,
    /// Mean update response, s.
    pub update: Bounds,
    /// Mean over all requests, s.
    pub overall: Bounds,
    /// The truncation B used.
    pub truncation: usize,
}

fn check_mix(p_r: f64) -> Result<(), AnalysisError> {
    if p_r > 0.0 && p_r < 1.0 {
        Ok(())
    } else {
        Err(AnalysisError::InvalidParameter {
            name: "read probability p_r",
            value: p_r,
            expected: "strictly between 0 and 1 (the bounds are of reads and updates)",
        })
    }
}

/// Bounds on R-DMQ's mean update response (reads are exact M/M/1).
///
/// # Errors
/// [`AnalysisError::Unstable`] at or beyond λ = 2μ/(2 − p_r);
/// [`AnalysisError::BoundsNotTight`] if even B = [`DMQ_MAX_TRUNCATION`]
/// leaves the bounds more than 2 % apart; numerical errors.
pub fn r_dmq(lambda: f64, p_r: f64, mu: f64) -> Result<ForkJoinAnalysis, AnalysisError> {
    check_stable(Policy::Dmq, lambda, p_r, mu)?;
    check_mix(p_r)?;
    let p_w = 1.0 - p_r;
    let per_disk = lambda * (p_w + 0.5 * p_r);
    let rho = per_disk / mu;
    let sojourn = 1.0 / (mu - per_disk);
    // E N₂ − E N₂ᴸ for M/M/1 against M/M/1/B.
    let lost = |b: usize| {
        let t = rho.powi(b as i32 + 1);
        (b as f64 + 1.0) * t / (1.0 - t)
    };
    // The lower bound is at least disk 1's sojourn, so this B guarantees
    // the target gap.
    let truncation = (1..=DMQ_MAX_TRUNCATION)
        .find(|&b| lost(b) / mu <= TARGET_GAP * sojourn)
        .ok_or(AnalysisError::BoundsNotTight {
            policy: "R-DMQ",
            lambda,
            gap_percent: 100.0 * lost(DMQ_MAX_TRUNCATION) / mu / sojourn,
            truncation: DMQ_MAX_TRUNCATION,
            target_percent: 100.0 * TARGET_GAP,
        })?;
    let solution = dmq_chain(lambda, p_r, mu, truncation)?.solve(&SolveOptions::default())?;
    let lower = mean_fork_join(&solution, mu);
    let update = Bounds {
        lower,
        upper: lower + lost(truncation) / mu,
    };
    let read = Bounds::exact(sojourn);
    Ok(ForkJoinAnalysis {
        policy: "R-DMQ",
        lambda,
        read,
        update,
        overall: Bounds::mix(p_r, read, update),
        truncation,
    })
}

/// The truncated R-DMQ chain: level n₁, phase n₂ ∈ 0..=B.
fn dmq_chain(lambda: f64, p_r: f64, mu: f64, b: usize) -> Result<Qbd, AnalysisError> {
    let m = b + 1;
    let (update, read_each) = (lambda * (1.0 - p_r), 0.5 * lambda * p_r);
    let mut a0 = DMatrix::zeros(m, m);
    let mut local = DMatrix::zeros(m, m);
    for n2 in 0..m {
        a0[(n2, (n2 + 1).min(b))] += update;
        a0[(n2, n2)] += read_each;
        if n2 < b {
            local[(n2, n2 + 1)] += read_each;
        }
        if n2 > 0 {
            local[(n2, n2 - 1)] += mu;
        }
    }
    let out = |extra: f64| -> DMatrix<f64> {
        let mut blk = local.clone();
        for i in 0..m {
            let total: f64 = local.row(i).sum() + a0.row(i).sum() + extra;
            blk[(i, i)] = -total;
        }
        blk
    };
    let (b1, a1) = (out(0.0), out(mu));
    let down = DMatrix::identity(m, m) * mu;
    Qbd::new(b1, a0.clone(), down.clone(), a0, a1, down)
}

/// E f(N₁, N₂) with f(n₁, n₂) = E max(Erlang(n₁+1, μ), Erlang(n₂+1, μ)),
/// level by level. With a = n₁ + 1, b = n₂ + 1: f = a/μ + g(a, b), where
/// g(a, b) = E(Y − X)⁺ obeys g(a, b) = ½g(a−1, b) + ½g(a, b−1) (the first of
/// two rate-μ stages to end), g(0, b) = b/μ, g(a, 0) = 0.
fn mean_fork_join(s: &QbdSolution, mu: f64) -> f64 {
    let m = s.y1.len();
    // g(0, ·), then g(1, ·) for level 0.
    let mut g: Vec<f64> = (0..=m).map(|b| b as f64 / mu).collect();
    let advance = |g: &mut Vec<f64>| {
        let mut next = vec![0.0; g.len()];
        for b in 1..g.len() {
            next[b] = 0.5 * g[b] + 0.5 * next[b - 1];
        }
        *g = next;
    };
    advance(&mut g);
    let excess = |y: &DVector<f64>, g: &[f64]| {
        y.iter()
            .enumerate()
            .map(|(n2, p)| p * g[n2 + 1])
            .sum::<f64>()
    };
    let mut total = excess(&s.y0, &g);
    let mut mass = s.y0.sum();
    let mut level = s.y1.clone();
    loop {
        advance(&mut g);
        total += excess(&level, &g);
        mass += level.sum();
        // What the remaining levels can add is below (1 − mass)·g(a, B + 1).
        if (1.0 - mass).max(0.0) * g[m] < 1e-13 / mu || g[m] < 1e-16 / mu {
            break;
        }
        level = (level.transpose() * &s.r).transpose();
    }
    (s.mean_level() + 1.0) / mu + total
}

/// What one disk of CMQ is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Job {
    Idle,
    Read,
    /// A write whose twin runs at the same time on the other disk.
    Paired,
    /// The last write of its update.
    Final,
    /// A write whose twin waits in the other disk's auxiliary queue.
    Sent,
    /// (Upper chain) idle, holding the update at the head of the common
    /// queue until the full auxiliary queue has room.
    Blocked,
}

impl Job {
    fn busy(self) -> bool {
        !matches!(self, Job::Idle | Job::Blocked)
    }
}

/// CMQ phase: backlog `k` of the lagging disk `lag`; `lead` is the other
/// disk. With k = 0 neither lags and the pair is stored sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct CmqPhase {
    k: usize,
    lead: Job,
    lag: Job,
}

impl CmqPhase {
    fn canonical(self) -> CmqPhase {
        if self.k == 0 && self.lead > self.lag {
            CmqPhase {
                lead: self.lag,
                lag: self.lead,
                ..self
            }
        } else {
            self
        }
    }
}

/// Which bound a truncated CMQ chain gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Truncation {
    /// Drop the second write of an update when the backlog is full.
    Drop,
    /// Hold the update at the head of the queue until there is room.
    Block,
}

struct CmqModel {
    lambda: f64,
    p_r: f64,
    mu: f64,
    b: usize,
    mode: Truncation,
}

impl CmqModel {
    /// Starts work on free disks after an event: the lagging disk takes its
    /// backlog first; a free disk takes the head of the common queue.
    /// Returns the outcomes with their probabilities.
    fn settle(&self, n: usize, ph: CmqPhase, p: f64, out: &mut Vec<(f64, usize, CmqPhase)>) {
        let CmqPhase { k, lead, lag } = ph;
        if k > 0 && lag == Job::Idle {
            let next = if k == 1 && lead == Job::Sent {
                CmqPhase {
                    k: 0,
                    lead: Job::Paired,
                    lag: Job::Paired,
                }
            } else {
                CmqPhase {
                    k: k - 1,
                    lead,
                    lag: Job::Final,
                }
            };
            return self.settle(n, next.canonical(), p, out);
        }
        if lead == Job::Blocked && k < self.b {
            let next = self.start_update(lag, k);
            return self.settle(n - 1, next, p, out);
        }
        // A free disk with no backlog of its own takes the head.
        let free = if lead == Job::Idle {
            Some((lag, false))
        } else if lag == Job::Idle && k == 0 {
            Some((lead, true))
        } else {
            None
        };
        match free {
            Some((other, swapped)) if n > 0 => {
                let read = if swapped {
                    CmqPhase {
                        k,
                        lead: other,
                        lag: Job::Read,
                    }
                } else {
                    CmqPhase {
                        k,
                        lead: Job::Read,
                        lag: other,
                    }
                };
                self.settle(n - 1, read.canonical(), p * self.p_r, out);
                let p_update = p * (1.0 - self.p_r);
                // A full backlog (k ≥ B ≥ 1) means the free disk leads.
                if k >= self.b && other.busy() {
                    match self.mode {
                        Truncation::Drop => {
                            let ph = CmqPhase {
                                k,
                                lead: Job::Final,
                                lag: other,
                            };
                            self.settle(n - 1, ph, p_update, out);
                        }
                        Truncation::Block => {
                            out.push((
                                p_update,
                                n,
                                CmqPhase {
                                    k,
                                    lead: Job::Blocked,
                                    lag: other,
                                },
                            ));
                        }
                    }
                } else {
                    self.settle(n - 1, self.start_update(other, k), p_update, out);
                }
            }
            _ => out.push((p, n, ph)),
        }
    }

    /// A free disk starts an update whose other disk is doing `other` with
    /// backlog `k` (room for one more).
    fn start_update(&self, other: Job, k: usize) -> CmqPhase {
        if other == Job::Idle {
            CmqPhase {
                k: 0,
                lead: Job::Paired,
                lag: Job::Paired,
            }
        } else {
            CmqPhase {
                k: k + 1,
                lead: Job::Sent,
                lag: other,
            }
        }
    }

    /// Transitions out of (n, phase): (rate, level, phase).
    fn transitions(&self, n: usize, ph: CmqPhase) -> Vec<(f64, usize, CmqPhase)> {
        let mut out = Vec::new();
        let mut arrivals = Vec::new();
        self.settle(n + 1, ph, 1.0, &mut arrivals);
        out.extend(
            arrivals
                .into_iter()
                .map(|(p, l, q)| (p * self.lambda, l, q)),
        );
        for lead_done in [true, false] {
            let (done, twin) = if lead_done {
                (ph.lead, ph.lag)
            } else {
                (ph.lag, ph.lead)
            };
            if !done.busy() {
                continue;
            }
            let twin = if done == Job::Paired {
                Job::Final
            } else {
                twin
            };
            let after = if lead_done {
                CmqPhase {
                    k: ph.k,
                    lead: Job::Idle,
                    lag: twin,
                }
            } else {
                CmqPhase {
                    k: ph.k,
                    lead: twin,
                    lag: Job::Idle,
                }
            };
            let mut ends = Vec::new();
            self.settle(n, after.canonical(), 1.0, &mut ends);
            out.extend(ends.into_iter().map(|(p, l, q)| (p * self.mu, l, q)));
        }
        out
    }

    /// Reads and unfinished updates in (n, phase), as (slope, intercept) in n.
    fn counts(&self, ph: CmqPhase) -> ((f64, f64), (f64, f64)) {
        let blocked = f64::from(u8::from(ph.lead == Job::Blocked));
        let count = |j: Job| [ph.lead, ph.lag].iter().filter(|&&x| x == j).count() as f64;
        let reads = (self.p_r, -self.p_r * blocked + count(Job::Read));
        let p_w = 1.0 - self.p_r;
        let paired = f64::from(u8::from(ph.lead == Job::Paired));
        let updates = (
            p_w,
            -p_w * blocked + blocked + ph.k as f64 + count(Job::Final) + paired,
        );
        (reads, updates)
    }

    /// The chain's blocks, by exploring the states reachable from empty.
    fn build(&self) -> Result<(Qbd, Vec<CmqPhase>, Vec<CmqPhase>), AnalysisError> {
        let empty = CmqPhase {
            k: 0,
            lead: Job::Idle,
            lag: Job::Idle,
        };
        let top = 3;
        let mut seen = BTreeSet::from([(0, empty)]);
        let mut stack = vec![(0, empty)];
        while let Some((n, ph)) = stack.pop() {
            for (_, l, q) in self.transitions(n, ph) {
                if l <= top && seen.insert((l, q)) {
                    stack.push((l, q));
                }
            }
        }
        let level0: Vec<CmqPhase> = seen.iter().filter(|s| s.0 == 0).map(|s| s.1).collect();
        let upper: Vec<CmqPhase> = seen
            .iter()
            .filter(|s| s.0 >= 1)
            .map(|s| s.1)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let index0: BTreeMap<CmqPhase, usize> =
            level0.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let index: BTreeMap<CmqPhase, usize> =
            upper.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let (m0, m) = (level0.len(), upper.len());
        let missing = || AnalysisError::InvalidGenerator("CMQ state space not closed".into());
        let blocks = |n: usize,
                      phases: &[CmqPhase],
                      rows: usize|
         -> Result<[DMatrix<f64>; 3], AnalysisError> {
            let below = if n == 1 { &index0 } else { &index };
            let width_below = if n == 1 { m0 } else { m };
            let here = if n == 0 { &index0 } else { &index };
            let width_here = if n == 0 { m0 } else { m };
            let mut down = DMatrix::zeros(rows, width_below.max(1));
            let mut local = DMatrix::zeros(rows, width_here);
            let mut up = DMatrix::zeros(rows, m);
            for (i, ph) in phases.iter().enumerate() {
                for (rate, l, q) in self.transitions(n, *ph) {
                    if l + 1 == n {
                        down[(i, *below.get(&q).ok_or_else(missing)?)] += rate;
                    } else if l == n {
                        let j = *here.get(&q).ok_or_else(missing)?;
                        if j != i {
                            local[(i, j)] += rate;
                        }
                    } else {
                        up[(i, *index.get(&q).ok_or_else(missing)?)] += rate;
                    }
                }
                let total = down.row(i).sum() + local.row(i).sum() + up.row(i).sum();
                local[(i, i)] -= total;
            }
            Ok([down, local, up])
        };
        let [_, b1, b0] = blocks(0, &level0, m0)?;
        let [b2, a1, a0] = blocks(1, &upper, m)?;
        let [a2, a1_again, a0_again] = blocks(2, &upper, m)?;
        if (&a1 - &a1_again).amax() > 1e-9 || (&a0 - &a0_again).amax() > 1e-9 {
            return Err(AnalysisError::InvalidGenerator(
                "CMQ levels 1 and 2 differ".into(),
            ));
        }
        Ok((Qbd::new(b1, b0, b2, a0, a1, a2)?, level0, upper))
    }

    /// Mean read and update responses, seconds.
    fn solve(&self) -> Result<(f64, f64), AnalysisError> {
        let (qbd, level0, upper) = self.build()?;
        let s = qbd.solve(&SolveOptions::default())?;
        let zero: Vec<_> = level0.iter().map(|p| self.counts(*p)).collect();
        let rest: Vec<_> = upper.iter().map(|p| self.counts(*p)).collect();
        let read0: Vec<f64> = zero.iter().map(|c| c.0.1).collect();
        let update0: Vec<f64> = zero.iter().map(|c| c.1.1).collect();
        let reads = s.expectation(
            &read0,
            &rest.iter().map(|c| c.0.0).collect::<Vec<_>>(),
            &rest.iter().map(|c| c.0.1).collect::<Vec<_>>(),
        );
        let updates = s.expectation(
            &update0,
            &rest.iter().map(|c| c.1.0).collect::<Vec<_>>(),
            &rest.iter().map(|c| c.1.1).collect::<Vec<_>>(),
        );
        Ok((
            reads / (self.p_r * self.lambda),
            updates / ((1.0 - self.p_r) * self.lambda),
        ))
    }
}

/// Bounds on CMQ's mean read and update responses.
///
/// # Errors
/// [`AnalysisError::Unstable`] at or beyond λ = 2μ/(2 − p_r);
/// [`AnalysisError::BoundsNotTight`] if the update bounds are more than 2 %
/// apart at B = [`CMQ_MAX_TRUNCATION`]; numerical errors.
pub fn cmq(lambda: f64, p_r: f64, mu: f64) -> Result<ForkJoinAnalysis, AnalysisError> {
    check_stable(Policy::Cmq, lambda, p_r, mu)?;
    check_mix(p_r)?;
    positive("service rate μ", mu)?;
    let mut b = 4;
    let mut last_gap = f64::INFINITY;
    loop {
        let model = |mode| CmqModel {
            lambda,
            p_r,
            mu,
            b,
            mode,
        };
        let (read_lo, update_lo) = model(Truncation::Drop).solve()?;
        // The blocking chain is unstable when B is too small for the load:
        // then B must grow.
        match model(Truncation::Block).solve() {
            Ok((read_hi, update_hi)) => {
                let read = Bounds {
                    lower: read_lo,
                    upper: read_hi,
                };
                let update = Bounds {
                    lower: update_lo,
                    upper: update_hi,
                };
                last_gap = update.gap();
                if last_gap <= TARGET_GAP {
                    return Ok(ForkJoinAnalysis {
                        policy: "CMQ",
                        lambda,
                        read,
                        update,
                        overall: Bounds::mix(p_r, read, update),
                        truncation: b,
                    });
                }
            }
            Err(AnalysisError::QbdUnstable { .. }) => {}
            Err(e) => return Err(e),
        }
        if b >= CMQ_MAX_TRUNCATION {
            return Err(AnalysisError::BoundsNotTight {
                policy: "CMQ",
                lambda,
                gap_percent: 100.0 * last_gap,
                truncation: b,
                target_percent: 100.0 * TARGET_GAP,
            });
        }
        b = (b * 3 / 2).min(CMQ_MAX_TRUNCATION);
    }
}

/// Bounds for R-DMQ or CMQ.
///
/// # Errors
/// As [`r_dmq`] and [`cmq`]; [`AnalysisError::NoModel`] for other policies.
pub fn analyse(
    policy: Policy,
    lambda: f64,
    p_r: f64,
    mu: f64,
) -> Result<ForkJoinAnalysis, AnalysisError> {
    match policy {
        Policy::Dmq => r_dmq(lambda, p_r, mu),
        Policy::Cmq => cmq(lambda, p_r, mu),
        _ => Err(AnalysisError::NoModel {
            policy: policy.name(),
            model: "fork-join",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_join_excess_matches_its_closed_form() {
        // E max of two independent exp(μ) = 1.5/μ: a = b = 1.
        let q = dmq_chain(1e-9, 0.5, 45.0, 3).unwrap();
        let s = q.solve(&SolveOptions::default()).unwrap();
        assert!((mean_fork_join(&s, 45.0) - 1.5 / 45.0).abs() < 1e-9);
    }

    #[test]
    fn dmq_levels_are_disk_1_an_mm1_queue() {
        let (lambda, p_r, mu) = (50.0, 0.75, 45.0);
        let s = dmq_chain(lambda, p_r, mu, 40)
            .unwrap()
            .solve(&SolveOptions::default())
            .unwrap();
        let rho = lambda * 0.625 / mu;
        assert!((s.mean_level() / (rho / (1.0 - rho)) - 1.0).abs() < 1e-9);
        // And disk 2 is M/M/1/B.
        let b = 40;
        let pn = s.y0.clone() + s.upper_levels_by_phase();
        let norm = (1.0 - rho) / (1.0 - rho.powi(b + 1));
        for n in 0..=b as usize {
            assert!((pn[n] - norm * rho.powi(n as i32)).abs() < 1e-9);
        }
    }

    #[test]
    fn bounds_tighten_monotonically_as_b_grows() {
        // p_r = 0.25 at 90 % of the limit, where the backlog matters.
        let (lambda, p_r, mu) = (0.9 * 90.0 / 1.75, 0.25, 45.0);
        let solve = |b, mode| {
            CmqModel {
                lambda,
                p_r,
                mu,
                b,
                mode,
            }
            .solve()
        };
        let mut last: Option<(f64, f64)> = None;
        for b in [8, 12, 16, 24, 32] {
            let lower = solve(b, Truncation::Drop).unwrap().1;
            let upper = solve(b, Truncation::Block).unwrap().1;
            assert!(lower < upper, "B = {b}: {lower} ≥ {upper}");
            if let Some((l, u)) = last {
                assert!(lower >= l - 1e-12 && upper <= u + 1e-12, "B = {b}");
            }
            last = Some((lower, upper));
        }
        let (lower, upper) = last.unwrap();
        assert!((upper - lower) / lower < 1e-3, "{lower} {upper}");
        // R-DMQ: the lower bound grows with B and stays below the upper.
        let mut previous = 0.0;
        for b in [2, 8, 32, 128] {
            let s = dmq_chain(60.0, 0.75, 45.0, b)
                .unwrap()
                .solve(&SolveOptions::default())
                .unwrap();
            let lower = mean_fork_join(&s, 45.0);
            assert!(lower > previous, "B = {b}");
            previous = lower;
        }
        let exact = r_dmq(60.0, 0.75, 45.0).unwrap().update;
        assert!(exact.lower <= previous + 1e-9 && previous <= exact.upper + 1e-9);
    }

    #[test]
    fn cmq_chain_is_consistent() {
        for mode in [Truncation::Drop, Truncation::Block] {
            let m = CmqModel {
                lambda: 40.0,
                p_r: 0.75,
                mu: 45.0,
                b: 6,
                mode,
            };
            let (read, update) = m.solve().unwrap();
            // No faster than a lone service; reads wait less than updates.
            assert!(
                read > 1.0 / 45.0 && update > 1.5 / 45.0 && update > read,
                "{read} {update}"
            );
        }
    }
}
