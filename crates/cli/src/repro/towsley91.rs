//! Towsley, Chen & Yu, *Performance Analysis of a Fault Tolerant Mirrored
//! Disk System* (UMass COINS TR 91-14): the six figures.
//!
//! Figures 1–3 assume Poisson arrivals, a read probability p_r, and
//! exponential service with μ = 45/s at each disk; they are simulated here
//! with that service and drawn next to the paper's models (stability
//! limits; M/G/1 for S-PSSQ and MR-ESQ; the matrix-geometric chains of
//! C-PSSQ, CR-ESQ and CRU-ESQ; M/M/1 reads and fork-join update bounds for
//! R-DMQ; bounds for CMQ), whose series and table come from
//! [`super::towsley91_analysis`]. Figures 4–6 use the paper's IBM 3330-11
//! service (seek with probability 1 − p_s, latency, transfer); Figures 4–5
//! draw the CMQ model against it, as the paper does.

use anyhow::Result;
use disk_emu::disk::{DiskSpec, SeekSpec, presets};
use experiments::{
    Arrivals, MetricTable, MirrorExperiment, Placement, RequestMix, RunError, mirror_table,
};
use queueing::chains;
use queueing::closed_form::{Policy, r_dmq_read_response, serial_response};
use sched_core::array::ArraySpec;

use super::towsley91_analysis::{
    self, EXPONENTIAL_CMQ, EXPONENTIAL_SERVICE, MU, P_R, ibm3330_legend, ibm3330_mean_service,
    response_panels, throughput_panel,
};
use super::{Figure, ReproOptions};
use crate::common::estimate;
use crate::output::{Cell, Table};
use crate::plot::{Panel, Series, Source};

/// Closed population used to hold a policy at saturation (Figure 1).
pub const SATURATION_CLIENTS: u32 = 100;

/// A policy as drawn in a figure.
#[derive(Clone, Debug)]
pub struct Curve {
    /// The curve's name in the tables.
    pub label: String,
    /// Its name in the figure's legend.
    pub legend: String,
    /// The array policy.
    pub spec: ArraySpec,
    /// Its disks' service model.
    pub disk: DiskSpec,
    /// The closed-form policy, when the analysis covers it.
    pub analysis: Option<Policy>,
    /// Largest arrival rate to simulate (below the stability limit).
    pub max_rate: f64,
}

fn spec(name: &str) -> ArraySpec {
    name.parse().expect("built-in array policy names parse")
}

/// The seven policies of Tables I–II, with exponential service.
pub fn seven() -> Vec<Curve> {
    [
        ("S-PSSQ", "s-pssq", Policy::SPssq),
        ("C-PSSQ", "c-pssq", Policy::CPssq),
        ("CR-ESQ", "cr-esq", Policy::CrEsq),
        ("CRU-ESQ", "cru-esq", Policy::CruEsq),
        ("MR-ESQ", "mr-esq", Policy::MrEsq),
        ("R-DMQ", "r-dmq", Policy::Dmq),
        ("CMQ", "cmq", Policy::Cmq),
    ]
    .into_iter()
    .map(|(label, name, policy)| Curve {
        label: label.to_string(),
        legend: label.to_string(),
        spec: spec(name),
        disk: presets::exponential(MU),
        analysis: Some(policy),
        max_rate: policy.max_throughput(P_R, MU),
    })
    .collect()
}

/// One mirrored run at `rate` (or saturated when `rate` is `None`).
///
/// # Errors
/// Any failure other than an overload, which gives `Ok(None)`.
pub fn simulate(
    curve: &Curve,
    p_r: f64,
    rate: Option<f64>,
    opts: &ReproOptions,
) -> Result<Option<MetricTable>> {
    let experiment = MirrorExperiment {
        disks: [curve.disk.clone(), curve.disk.clone()],
        placement: Placement::MIRROR,
        policy: curve.spec,
        arrivals: match rate {
            Some(rate) => Arrivals::Poisson { rate },
            None => Arrivals::Closed {
                clients: SATURATION_CLIENTS,
                think_ms: 0.0,
            },
        },
        mix: RequestMix {
            read_fraction: p_r,
            ..RequestMix::default()
        },
        requests: opts.requests,
        warmup: opts.warmup,
        seed: opts.seed,
        allow_overload: false,
    };
    match experiment.run_replications(opts.replications, opts.jobs) {
        Ok(reports) => Ok(Some(mirror_table(&reports))),
        Err(RunError::QueueOverflow { .. } | RunError::Overload { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Figure 1: maximum throughput against p_r, analysis and saturated simulation.
pub fn figure1(opts: &ReproOptions) -> Result<Figure> {
    let p_values: Vec<f64> = (0..=10).map(|i| f64::from(i) / 10.0).collect();
    let mut table = Table::new(
        "Figure 1 — maximum throughput (requests/s) vs read probability, μ = 45/s",
        &["policy", "p_r", "analysis", "simulated", "difference %"],
    );
    let (mut analytic, mut simulated) = (Vec::new(), Vec::new());
    let bar = crate::common::progress((seven().len() * p_values.len()) as u64, "figure 1");
    for curve in seven() {
        let policy = curve
            .analysis
            .expect("the seven policies have closed forms");
        let mut a = Vec::new();
        let mut s = Vec::new();
        for &p in &p_values {
            let limit = policy.max_throughput(p, MU);
            let m = simulate(&curve, p, None, opts)?.expect("a closed population cannot overflow");
            let sim = m.interval("throughput_per_s", 0.95)?;
            let diff = (sim.mean / limit - 1.0) * 100.0;
            table.row(vec![
                Cell::text(&curve.label),
                Cell::num(p, 1),
                Cell::num(limit, 2),
                estimate(&m, "throughput_per_s", 1.0, 2),
                Cell::num(diff, 2),
            ]);
            a.push((p, limit, 0.0));
            s.push((p, sim.mean, sim.half_width.unwrap_or(0.0)));
            bar.inc(1);
        }
        analytic.push(Series {
            curve: curve.legend.clone(),
            source: Source::Model,
            points: a,
        });
        simulated.push(Series {
            curve: curve.legend.clone(),
            source: Source::Simulation,
            points: s,
        });
    }
    bar.finish_and_clear();
    table.note(format!(
        "Simulation: {SATURATION_CLIENTS} requests always outstanding (closed, no think time), exponential service; analysis: SPEC §5 stability limits."
    ));
    let mut series = simulated;
    series.extend(analytic);
    Ok(Figure {
        number: 1,
        title: "Towsley, Chen & Yu 1991, Figure 1: maximum throughput, μ = 45/s".into(),
        tables: vec![table],
        panels: vec![throughput_panel(series)],
    })
}

/// The models' mean (read, update) response times in ms where they are
/// single values (not bounds); the per-class values of the chains are the
/// paper's split.
fn analysis_ms(policy: Option<Policy>, rate: f64) -> (Option<f64>, Option<f64>) {
    match policy {
        Some(p @ (Policy::CPssq | Policy::CrEsq | Policy::CruEsq)) => {
            match chains::analyse(p, rate, P_R, MU) {
                Ok(a) => (Some(a.response.read * 1e3), Some(a.response.update * 1e3)),
                Err(_) => (None, None),
            }
        }
        Some(p @ (Policy::SPssq | Policy::MrEsq)) => match serial_response(p, rate, P_R, MU) {
            Ok(r) => (Some(r.read * 1e3), Some(r.update * 1e3)),
            Err(_) => (None, None),
        },
        Some(Policy::Dmq) => (
            r_dmq_read_response(rate, P_R, MU, 0.5)
                .ok()
                .map(|w| w * 1e3),
            None,
        ),
        _ => (None, None),
    }
}

/// Mean read and update response against the arrival rate, for `curves` at
/// read probability `p_r`; analysis columns appear when some curve has a
/// closed form.
fn response_figure(
    number: u8,
    title: &str,
    p_r: f64,
    curves: &[Curve],
    rates: &[f64],
    opts: &ReproOptions,
) -> Result<Figure> {
    let with_analysis = curves.iter().any(|c| c.analysis.is_some());
    let columns: &[&str] = if with_analysis {
        &[
            "policy",
            "λ/s",
            "read ms",
            "read analysis",
            "update ms",
            "update analysis",
            "util disk 1",
            "util disk 2",
        ]
    } else {
        &[
            "policy",
            "λ/s",
            "read ms",
            "update ms",
            "util disk 1",
            "util disk 2",
        ]
    };
    let mut table = Table::new(format!("Figure {number} — {title}"), columns);
    let analysed = |row: Vec<Cell>| -> Vec<Cell> {
        if with_analysis {
            row
        } else {
            // Drop the two analysis cells (positions 3 and 5).
            row.into_iter()
                .enumerate()
                .filter(|(i, _)| *i != 3 && *i != 5)
                .map(|(_, c)| c)
                .collect()
        }
    };
    let mut read_panel = Vec::new();
    let mut update_panel = Vec::new();
    let points: Vec<(usize, f64)> = curves
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            rates
                .iter()
                .filter(move |&&r| r < c.max_rate)
                .map(move |&r| (i, r))
        })
        .collect();
    let bar = crate::common::progress(points.len() as u64, &format!("figure {number}"));
    for (i, curve) in curves.iter().enumerate() {
        let (mut rs, mut us) = (Vec::new(), Vec::new());
        for &(_, rate) in points.iter().filter(|p| p.0 == i) {
            let (read_a, update_a) = analysis_ms(curve.analysis, rate);
            let m = simulate(curve, p_r, Some(rate), opts)?;
            bar.inc(1);
            let Some(m) = m else {
                table.row(analysed(vec![
                    Cell::text(&curve.label),
                    Cell::num(rate, 1),
                    Cell::text("overload"),
                    read_a.map_or(Cell::Missing, |v| Cell::num(v, 2)),
                    Cell::text("overload"),
                    update_a.map_or(Cell::Missing, |v| Cell::num(v, 2)),
                    Cell::Missing,
                    Cell::Missing,
                ]));
                continue;
            };
            table.row(analysed(vec![
                Cell::text(&curve.label),
                Cell::num(rate, 1),
                estimate(&m, "read_ms", 1.0, 2),
                read_a.map_or(Cell::Missing, |v| Cell::num(v, 2)),
                estimate(&m, "update_ms", 1.0, 2),
                update_a.map_or(Cell::Missing, |v| Cell::num(v, 2)),
                estimate(&m, "util_disk1", 1.0, 3),
                estimate(&m, "util_disk2", 1.0, 3),
            ]));
            let point = |name: &str| {
                m.interval(name, 0.95)
                    .map(|i| (rate, i.mean, i.half_width.unwrap_or(0.0)))
                    .ok()
            };
            rs.extend(point("read_ms"));
            us.extend(point("update_ms"));
        }
        read_panel.push(Series {
            curve: curve.legend.clone(),
            source: Source::Simulation,
            points: rs,
        });
        update_panel.push(Series {
            curve: curve.legend.clone(),
            source: Source::Simulation,
            points: us,
        });
    }
    bar.finish_and_clear();
    table.note(format!(
        "p_r = {p_r}; {} replications × {} requests (+{} warm-up) per point; ± 95 % CI. Rates at or beyond a policy's stability limit are not simulated.",
        opts.replications, opts.requests, opts.warmup
    ));
    Ok(Figure {
        number,
        title: format!("Towsley, Chen & Yu 1991, Figure {number}: {title}"),
        tables: vec![table],
        panels: response_panels(read_panel, update_panel, ""),
    })
}

fn rates(step: f64, max: f64) -> Vec<f64> {
    let mut v = vec![2.0];
    let mut r = step;
    while r < max {
        v.push(r);
        r += step;
    }
    v
}

/// Figure 2: the single-queue policies.
pub fn figure2(opts: &ReproOptions) -> Result<Figure> {
    let curves: Vec<Curve> = seven().into_iter().take(5).collect();
    response_figure(
        2,
        "mean response time of the SQ policies (p_r = 0.75, μ = 45)",
        P_R,
        &curves,
        &rates(5.0, 60.0),
        opts,
    )
}

/// Figure 3: the best two SQ policies against the two MQ policies.
pub fn figure3(opts: &ReproOptions) -> Result<Figure> {
    let curves: Vec<Curve> = seven()
        .into_iter()
        .filter(|c| {
            matches!(
                c.analysis,
                Some(Policy::CruEsq | Policy::MrEsq | Policy::Dmq | Policy::Cmq)
            )
        })
        .collect();
    response_figure(
        3,
        "SQ vs MQ policies (p_r = 0.75, μ = 45)",
        P_R,
        &curves,
        &rates(5.0, 72.0),
        opts,
    )
}

fn cmq(label: &str, legend: &str, disk: DiskSpec, p_r: f64, mu: f64) -> Curve {
    Curve {
        label: label.to_string(),
        legend: legend.to_string(),
        spec: spec("cmq"),
        disk,
        analysis: None,
        max_rate: Policy::Cmq.max_throughput(p_r, mu),
    }
}

/// Whose seek a mirrored IBM 3330 service draws (§4 does not say).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SeekDraw {
    /// Each disk draws its own (the default): a duplicated read finishes
    /// at the shorter of two independent seeks.
    #[default]
    PerDisk,
    /// The seek belongs to the request, as when both disks follow the same
    /// request stream: the copies of a request share their seek and differ
    /// only in latency. The reading under which Figure 6's finding holds
    /// (CMQ best except MR-DMQA's reads at low load).
    PerRequest,
}

impl std::str::FromStr for SeekDraw {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "per-disk" => Ok(SeekDraw::PerDisk),
            "per-request" => Ok(SeekDraw::PerRequest),
            _ => anyhow::bail!("--seek: `{s}` is neither per-disk nor per-request"),
        }
    }
}

/// The §4 disk (`presets::ibm3330`) with its seek drawn as `seek` says.
pub fn ibm3330(p_s: f64, seek: SeekDraw) -> DiskSpec {
    let mut disk = presets::ibm3330(p_s);
    if let SeekSpec::Random { per_request, .. } = &mut disk.seek {
        *per_request = seek == SeekDraw::PerRequest;
    }
    disk
}

/// Figure 4: CMQ with realistic service against the exponential model, at p_r = 0.25 and 0.75.
pub fn figure4(opts: &ReproOptions, seek: SeekDraw) -> Result<Figure> {
    let mut tables = Vec::new();
    let mut panels = Vec::new();
    for p_r in [0.25, 0.75] {
        let curves = [
            cmq(
                "CMQ, exponential (model)",
                EXPONENTIAL_CMQ,
                presets::exponential(MU),
                p_r,
                MU,
            ),
            cmq(
                "CMQ, IBM 3330 p_s = 0.6 (simulation)",
                "CMQ, IBM 3330 service, p_s = 0.6",
                ibm3330(0.6, seek),
                p_r,
                MU,
            ),
        ];
        let f = response_figure(
            4,
            &format!("CMQ at p_r = {p_r}"),
            p_r,
            &curves,
            &rates(5.0, 72.0),
            opts,
        )?;
        tables.extend(f.tables);
        let mut pair = f.panels;
        for p in &mut pair {
            p.title = format!("{}, p_r = {p_r}", p.title);
        }
        panels.extend(pair);
    }
    Ok(Figure {
        number: 4,
        title: "Towsley, Chen & Yu 1991, Figure 4: CMQ, exponential model vs seek/latency/transfer service".into(),
        tables,
        panels,
    })
}

/// Figure 5: CMQ with different sequential-access probabilities (p_r = 0.75).
pub fn figure5(opts: &ReproOptions, seek: SeekDraw) -> Result<Figure> {
    let mut curves = vec![cmq(
        "exponential model, μ = 45",
        EXPONENTIAL_SERVICE,
        presets::exponential(MU),
        P_R,
        MU,
    )];
    for p_s in [0.0, 0.3, 0.6, 0.9] {
        let mu = 1.0 / ibm3330_mean_service(p_s);
        curves.push(cmq(
            &format!("IBM 3330, p_s = {p_s}"),
            &ibm3330_legend(p_s),
            ibm3330(p_s, seek),
            P_R,
            mu,
        ));
    }
    let mut f = response_figure(
        5,
        "CMQ with sequential-access probability p_s (p_r = 0.75)",
        P_R,
        &curves,
        &rates(5.0, 80.0),
        opts,
    )?;
    f.title =
        "Towsley, Chen & Yu 1991, Figure 5: CMQ with different sequential access probabilities"
            .into();
    Ok(f)
}

/// Figure 6: the DMQ variations and CMQ with IBM 3330 service (p_s = 0.6,
/// p_r = 0.75); `with_linux` adds Linux's mirror, md RAID-1's read
/// balancing over mq-deadline queues (`linux-raid1`), limited like the DMQ
/// policies it belongs among.
pub fn figure6(opts: &ReproOptions, seek: SeekDraw, with_linux: bool) -> Result<Figure> {
    let disk = ibm3330(0.6, seek);
    let mu = 1.0 / ibm3330_mean_service(0.6);
    let dmq_limit = Policy::Dmq.max_throughput(P_R, mu);
    let curves: Vec<Curve> = [
        ("R-DMQ", "r-dmq", dmq_limit),
        ("SQ-DMQ", "sq-dmq", dmq_limit),
        // Without abort every read is served by both disks: each disk sees every request.
        ("MR-DMQ", "mr-dmq", mu),
        ("MR-DMQA (abort at start)", "mr-dmqa:abort=start", dmq_limit),
        (
            "MR-DMQA (abort at completion)",
            "mr-dmqa:abort=complete",
            dmq_limit,
        ),
        ("CMQ", "cmq", dmq_limit),
    ]
    .into_iter()
    .chain(with_linux.then_some(("md-raid1 (mq-deadline)", "linux-raid1", dmq_limit)))
    .map(|(label, name, max_rate)| Curve {
        label: label.to_string(),
        legend: label.to_string(),
        spec: spec(name),
        disk: disk.clone(),
        analysis: None,
        max_rate,
    })
    .collect();
    let mut f = response_figure(
        6,
        "DMQ variations and CMQ, IBM 3330 service with p_s = 0.6 (p_r = 0.75)",
        P_R,
        &curves,
        &rates(5.0, 80.0),
        opts,
    )?;
    // MR-DMQ's and MR-DMQA's means reach seconds near their limits, a
    // hundred times the others' at low load: on a linear axis the four
    // other curves lie flat along the bottom.
    for p in &mut f.panels {
        p.log_y = true;
    }
    Ok(f)
}

/// Figure `n` (1–6): the simulation, and for Figures 1–5 the analysis
/// table after the simulation's and the model curves in its panels.
///
/// # Errors
/// For `n` outside 1–6, or a failed simulation or model.
pub fn figure(n: u8, opts: &ReproOptions, seek: SeekDraw, with_linux: bool) -> Result<Figure> {
    let mut f = match n {
        1 => figure1(opts),
        2 => figure2(opts),
        3 => figure3(opts),
        4 => figure4(opts, seek),
        5 => figure5(opts, seek),
        6 => figure6(opts, seek, with_linux),
        _ => anyhow::bail!("Towsley, Chen & Yu 1991 has figures 1 to 6, not {n}"),
    }?;
    if towsley91_analysis::FIGURES.contains(&n) {
        let analysis = towsley91_analysis::figure(n)?;
        f.tables.extend(analysis.tables);
        // Figure 1 already draws the closed-form limits.
        if n > 1 {
            add_model_curves(&mut f.panels, analysis.panels);
        }
    }
    Ok(f)
}

/// Adds the model's series to the simulation's panels: the model's figure
/// has the same panels in the same order (a read and an update panel per
/// read probability).
fn add_model_curves(panels: &mut [Panel], model: Vec<Panel>) {
    debug_assert_eq!(panels.len(), model.len());
    for (panel, model_panel) in panels.iter_mut().zip(model) {
        panel.series.extend(model_panel.series);
    }
}
