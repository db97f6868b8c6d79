//! The analytic series of Towsley, Chen & Yu's figures (§3 of the paper),
//! alone: `spindle analyze towsley91`, and the model curves drawn by
//! `spindle repro towsley91`.
//!
//! Figure 1: the stability limits in closed form and by Neuts' test on each
//! chain. Figures 2–3: M/G/1 for S-PSSQ and MR-ESQ, the quasi-birth-death
//! chains of C-PSSQ, CR-ESQ and CRU-ESQ, M/M/1 reads and fork-join update
//! bounds for R-DMQ, read and update bounds for CMQ. Figures 4–5: the CMQ
//! model (bounds) with exponential service of the disk's mean, which the
//! paper draws against simulations with real service. Figure 6 is
//! simulation only in the paper.

use std::time::Instant;

use anyhow::{Context, Result};
use queueing::chains;
use queueing::closed_form::{Policy, r_dmq_read_response, serial_response};
use queueing::forkjoin::{self, Bounds};

use super::Figure;
use crate::output::{Cell, Table};
use crate::plot::{Panel, Series, Source};

/// The figures with analytic series.
pub const FIGURES: std::ops::RangeInclusive<u8> = 1..=5;

/// μ of the paper's numerical results, per second.
pub const MU: f64 = 45.0;
/// p_r of Figures 2, 3, 5 and 6.
pub const P_R: f64 = 0.75;

/// The mean IBM 3330 service time with sequential-access probability `p_s`, s:
/// (1 − p_s)·30 ms + 8 ms + 2 ms.
pub fn ibm3330_mean_service(p_s: f64) -> f64 {
    ((1.0 - p_s) * 30.0 + 10.0) / 1e3
}

/// The two panels of Figures 2–6, simulated or analytic: mean read and mean
/// update response time against the arrival rate, their captions ending
/// in `qualifier` (", p_r = 0.25" where a figure has a pair per p_r).
pub(super) fn response_panels(
    reads: Vec<Series>,
    updates: Vec<Series>,
    qualifier: &str,
) -> Vec<Panel> {
    let panel = |title: &str, series| Panel {
        series,
        ..Panel::new(
            format!("{title}{qualifier}"),
            "arrival rate λ (requests/s)",
            "response time (ms)",
        )
    };
    vec![
        panel("mean read response time", reads),
        panel("mean update response time", updates),
    ]
}

/// Which model a curve comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// M/G/1, Pollaczek–Khinchine (§3.1).
    Mg1,
    /// Quasi-birth-death chain, matrix-geometric (§3.2).
    Qbd,
    /// M/M/1 reads, fork-join bounds on updates (§3.3).
    ForkJoinDmq,
    /// Truncated-backlog bounds (§3.3).
    ForkJoinCmq,
}

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Mg1 => "M/G/1",
            Model::Qbd => "QBD",
            Model::ForkJoinDmq => "M/M/1 + fork-join bounds",
            Model::ForkJoinCmq => "fork-join bounds",
        }
    }

    /// The model the paper uses for `policy`.
    pub fn of(policy: Policy) -> Model {
        match policy {
            Policy::SPssq | Policy::MrEsq => Model::Mg1,
            Policy::CPssq | Policy::CrEsq | Policy::CruEsq => Model::Qbd,
            Policy::Dmq => Model::ForkJoinDmq,
            Policy::Cmq => Model::ForkJoinCmq,
        }
    }
}

/// Mean response times at one arrival rate, ms: exact values have equal
/// bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Arrival rate, per second.
    pub lambda: f64,
    /// Reads.
    pub read: Bounds,
    /// Updates.
    pub update: Bounds,
    /// All requests.
    pub overall: Bounds,
    /// Truncation B of a bound.
    pub truncation: Option<usize>,
}

/// The model's mean responses (ms) for `policy` at `lambda`, read probability
/// `p_r` and exponential service at rate `mu`.
///
/// # Errors
/// The model's error, e.g. beyond the stability limit.
pub fn point(policy: Policy, lambda: f64, p_r: f64, mu: f64) -> Result<Point> {
    let ms = |b: Bounds| Bounds {
        lower: b.lower * 1e3,
        upper: b.upper * 1e3,
    };
    let exact = |read: f64, update: f64, overall: f64| Point {
        lambda,
        read: Bounds::exact(read * 1e3),
        update: Bounds::exact(update * 1e3),
        overall: Bounds::exact(overall * 1e3),
        truncation: None,
    };
    Ok(match Model::of(policy) {
        Model::Mg1 => {
            let r = serial_response(policy, lambda, p_r, mu)?;
            exact(r.read, r.update, r.overall)
        }
        Model::Qbd => {
            let r = chains::analyse(policy, lambda, p_r, mu)?.response;
            exact(r.read, r.update, r.overall)
        }
        Model::ForkJoinDmq | Model::ForkJoinCmq => {
            let f = forkjoin::analyse(policy, lambda, p_r, mu)?;
            if policy == Policy::Dmq {
                // The same M/M/1 reads as the closed form (to rounding: the
                // two compute it in different orders).
                let closed = r_dmq_read_response(lambda, p_r, mu, 0.5)?;
                debug_assert!(
                    (f.read.lower - closed).abs() <= 1e-12 * closed.abs(),
                    "{} against {closed}",
                    f.read.lower
                );
            }
            Point {
                lambda,
                read: ms(f.read),
                update: ms(f.update),
                overall: ms(f.overall),
                truncation: Some(f.truncation),
            }
        }
    })
}

/// One analytic curve: a policy at a read probability and service rate.
#[derive(Clone, Debug)]
pub struct Curve {
    /// The curve's name in the tables.
    pub label: String,
    /// Its name in the figure's legend: the simulated curve's it models, so
    /// that the legend lists the two as one.
    pub legend: String,
    /// The policy.
    pub policy: Policy,
    /// Read probability.
    pub p_r: f64,
    /// Service rate, per second.
    pub mu: f64,
    /// Largest arrival rate drawn.
    pub max_rate: f64,
}

/// Figure 4's curve of CMQ with exponential service, in the legend.
pub(super) const EXPONENTIAL_CMQ: &str = "CMQ, exponential service";
/// Figure 5's curve of exponential service, in the legend.
pub(super) const EXPONENTIAL_SERVICE: &str = "exponential service, μ = 45/s";

/// Figure 5's curve of the IBM 3330 with sequential-access probability
/// `p_s`, in the legend.
pub(super) fn ibm3330_legend(p_s: f64) -> String {
    format!("IBM 3330, p_s = {p_s}")
}

/// How close to the stability limit the curves go: further on, the
/// response times dwarf the rest of the figure, as in the paper.
pub const TOP_OF_RANGE: f64 = 0.9;

/// Arrival rates 2, 4, … below both `max_rate` and [`TOP_OF_RANGE`] of the
/// stability limit, then that fraction of the limit when below `max_rate`.
fn grid(curve: &Curve) -> Vec<f64> {
    let limit = curve.policy.max_throughput(curve.p_r, curve.mu);
    let top = TOP_OF_RANGE * limit;
    let mut rates: Vec<f64> = (1..)
        .map(|i| 2.0 * f64::from(i))
        .take_while(|&r| r < top.min(curve.max_rate) - 0.5)
        .collect();
    if top <= curve.max_rate {
        rates.push(top);
    }
    rates
}

/// The points of a curve.
///
/// # Errors
/// A failed model, with the curve and rate.
pub fn solve(curve: &Curve) -> Result<Vec<Point>> {
    grid(curve)
        .into_iter()
        .map(|rate| {
            point(curve.policy, rate, curve.p_r, curve.mu)
                .with_context(|| format!("{} at λ = {rate:.2}/s", curve.label))
        })
        .collect()
}

/// A model's bounds as the lower and upper cells (none when exact).
pub(crate) fn bounds_cells(b: Bounds) -> [Cell; 2] {
    if b.lower == b.upper {
        [Cell::Missing, Cell::Missing]
    } else {
        [Cell::num(b.lower, 3), Cell::num(b.upper, 3)]
    }
}

/// A model's exact value (none when it is bounded only).
pub(crate) fn exact_cell(b: Bounds) -> Cell {
    if b.lower == b.upper {
        Cell::num(b.lower, 3)
    } else {
        Cell::Missing
    }
}

/// Series of one bounded or exact quantity of the curve `legend`: one
/// model line, or a lower and an upper bound.
fn series(legend: &str, points: &[Point], pick: impl Fn(&Point) -> Bounds) -> Vec<Series> {
    let exact = points.iter().all(|p| pick(p).lower == pick(p).upper);
    let line = |source: Source, f: &dyn Fn(Bounds) -> f64| Series {
        curve: legend.to_string(),
        source,
        points: points.iter().map(|p| (p.lambda, f(pick(p)), 0.0)).collect(),
    };
    if exact {
        vec![line(Source::Model, &|b| b.lower)]
    } else {
        vec![
            line(Source::LowerBound, &|b| b.lower),
            line(Source::UpperBound, &|b| b.upper),
        ]
    }
}

/// The response-time table and read/update panels of `curves`.
fn response_analysis(number: u8, title: &str, curves: &[Curve]) -> Result<Figure> {
    let mut table = Table::new(
        format!("Figure {number} — analysis: {title}"),
        &[
            "policy",
            "p_r",
            "μ/s",
            "λ/s",
            "model",
            "read ms",
            "update ms",
            "all ms",
            "read lower",
            "read upper",
            "update lower",
            "update upper",
            "B",
        ],
    );
    // A pair of panels per read probability, in the curves' order.
    let mut read_probabilities: Vec<f64> = Vec::new();
    for curve in curves {
        if !read_probabilities.contains(&curve.p_r) {
            read_probabilities.push(curve.p_r);
        }
    }
    let mut reads = vec![Vec::new(); read_probabilities.len()];
    let mut updates = vec![Vec::new(); read_probabilities.len()];
    for curve in curves {
        let pair = read_probabilities
            .iter()
            .position(|&p| p == curve.p_r)
            .expect("every curve's p_r is listed");
        let points = solve(curve)?;
        for p in &points {
            let [rl, ru] = bounds_cells(p.read);
            let [ul, uu] = bounds_cells(p.update);
            table.row(vec![
                Cell::text(&curve.label),
                Cell::num(curve.p_r, 2),
                Cell::num(curve.mu, 2),
                Cell::num(p.lambda, 2),
                Cell::text(Model::of(curve.policy).name()),
                exact_cell(p.read),
                exact_cell(p.update),
                exact_cell(p.overall),
                rl,
                ru,
                ul,
                uu,
                p.truncation.map_or(Cell::Missing, |b| Cell::Int(b as u64)),
            ]);
        }
        reads[pair].extend(series(&curve.legend, &points, |p| p.read));
        updates[pair].extend(series(&curve.legend, &points, |p| p.update));
    }
    table.note(
        "Exponential service. C-PSSQ, CR-ESQ, CRU-ESQ: W_q = E[N]/λ from the chain plus each class's service time, the paper's split (exact for all ms, approximate per class). Exact values are in the read/update/all columns, bounds in the lower/upper ones: one queue truncated at B, B raised until the update bounds are within 2 %.",
    );
    Ok(Figure {
        number,
        title: format!("Towsley, Chen & Yu 1991, Figure {number} (analysis): {title}"),
        tables: vec![table],
        panels: read_probabilities
            .iter()
            .zip(reads.into_iter().zip(updates))
            .flat_map(|(p_r, (reads, updates))| {
                let qualifier = if read_probabilities.len() > 1 {
                    format!(", p_r = {p_r}")
                } else {
                    String::new()
                };
                response_panels(reads, updates, &qualifier)
            })
            .collect(),
    })
}

fn curve(label: &str, legend: &str, policy: Policy, p_r: f64, mu: f64, max_rate: f64) -> Curve {
    Curve {
        label: label.to_string(),
        legend: legend.to_string(),
        policy,
        p_r,
        mu,
        max_rate,
    }
}

/// Figure 1: stability limits, closed form and by Neuts' test.
fn figure1() -> Result<Figure> {
    let mut table = Table::new(
        "Figure 1 — analysis: maximum throughput (requests/s), μ = 45/s",
        &["policy", "p_r", "closed form", "Neuts' test", "difference"],
    );
    let mut panel = Vec::new();
    for policy in Policy::ALL {
        let mut points = Vec::new();
        for i in 0..=20 {
            let p_r = f64::from(i) / 20.0;
            let limit = policy.max_throughput(p_r, MU);
            let by_chain = match Model::of(policy) {
                Model::Mg1 | Model::Qbd => Some(chains::max_throughput(policy, p_r, MU)?),
                _ => None,
            };
            table.row(vec![
                Cell::text(label(policy)),
                Cell::num(p_r, 2),
                Cell::num(limit, 4),
                by_chain.map_or(Cell::Missing, |x| Cell::num(x, 4)),
                by_chain.map_or(Cell::Missing, |x| Cell::num(x - limit, 12)),
            ]);
            points.push((p_r, limit, 0.0));
        }
        panel.push(Series {
            curve: label(policy).to_string(),
            source: Source::Model,
            points,
        });
    }
    table.note("Neuts' test: the λ at which π·A2·e = π·A0·e for the policy's chain (S-PSSQ and MR-ESQ as phase-type M/PH/1 chains); DMQ and CMQ: each disk saturates at λ(1 − p_r/2) = μ.");
    Ok(Figure {
        number: 1,
        title: "Towsley, Chen & Yu 1991, Figure 1 (analysis): maximum throughput, μ = 45/s".into(),
        tables: vec![table],
        panels: vec![throughput_panel(panel)],
    })
}

/// The panel of Figure 1: the series of maximum throughput against p_r.
pub(super) fn throughput_panel(series: Vec<Series>) -> Panel {
    Panel {
        series,
        ..Panel::new(
            "",
            "read probability p_r",
            "maximum throughput (requests/s)",
        )
    }
}

/// The label `spindle repro` gives the policy.
fn label(policy: Policy) -> &'static str {
    match policy {
        Policy::Dmq => "R-DMQ",
        p => p.name(),
    }
}

/// The analytic series of figure `n` (1–5).
///
/// # Errors
/// For `n` outside 1–5, or a failed model.
pub fn figure(n: u8) -> Result<Figure> {
    let sq = |policies: &[Policy], max: f64| -> Vec<Curve> {
        policies
            .iter()
            .map(|&p| curve(label(p), label(p), p, P_R, MU, max))
            .collect()
    };
    match n {
        1 => figure1(),
        2 => response_analysis(
            2,
            "mean response time of the SQ policies (p_r = 0.75, μ = 45)",
            &sq(
                &[
                    Policy::SPssq,
                    Policy::CPssq,
                    Policy::CrEsq,
                    Policy::CruEsq,
                    Policy::MrEsq,
                ],
                60.0,
            ),
        ),
        3 => response_analysis(
            3,
            "SQ vs MQ policies (p_r = 0.75, μ = 45)",
            &sq(
                &[Policy::CruEsq, Policy::MrEsq, Policy::Dmq, Policy::Cmq],
                72.0,
            ),
        ),
        4 => response_analysis(
            4,
            "CMQ model, exponential service (μ = 45) at p_r = 0.25 and 0.75",
            &[0.25, 0.75].map(|p_r| {
                curve(
                    &format!("CMQ model, p_r = {p_r}"),
                    EXPONENTIAL_CMQ,
                    Policy::Cmq,
                    p_r,
                    MU,
                    72.0,
                )
            }),
        ),
        5 => {
            let mut curves = vec![curve(
                "exponential model, μ = 45",
                EXPONENTIAL_SERVICE,
                Policy::Cmq,
                P_R,
                MU,
                80.0,
            )];
            for p_s in [0.0, 0.3, 0.6, 0.9] {
                let mu = 1.0 / ibm3330_mean_service(p_s);
                curves.push(curve(
                    &format!("IBM 3330, p_s = {p_s}"),
                    &ibm3330_legend(p_s),
                    Policy::Cmq,
                    P_R,
                    mu,
                    80.0,
                ));
            }
            response_analysis(
                5,
                "CMQ model with the IBM 3330 mean service for each p_s (p_r = 0.75)",
                &curves,
            )
        }
        6 => anyhow::bail!(
            "Towsley, Chen & Yu 1991 draw no analysis in Figure 6 (simulation only); analytic figures are 1 to 5"
        ),
        _ => anyhow::bail!("Towsley, Chen & Yu 1991 has analytic figures 1 to 5, not {n}"),
    }
}

/// Solves every analytic figure and returns them with the time taken.
///
/// # Errors
/// As [`figure`].
pub fn all() -> Result<(Vec<Figure>, std::time::Duration)> {
    let started = Instant::now();
    let figures = FIGURES.map(figure).collect::<Result<Vec<_>>>()?;
    Ok((figures, started.elapsed()))
}
