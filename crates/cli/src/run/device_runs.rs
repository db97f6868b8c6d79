//! The one sweep `spindle run` drives over its load points and policies,
//! and what each kind of run brings to it ([`DeviceRun`]): one disk under
//! single-disk policies ([`OneDisk`]), or a mirrored pair under array
//! policies ([`MirroredPair`]).

use anyhow::{Context, Result, bail};
use disk_emu::DiskReport;
use disk_emu::disk::{DiskModel, DiskSpec};
use experiments::{
    ArrayTrace, Arrivals, DiskExperiment, HeadTrace, Load, MetricTable, MirrorExperiment,
    MirrorReport, RunError, SampleSink, metric_table, mirror_table,
};
use sched_core::PolicySpec;
use sched_core::array::ArraySpec;

use super::{Plan, Point, describe_mix};
use crate::common::{array_label, describe_placement, estimate, policy_label, progress};
use crate::output::{Cell, Table};
use crate::samples::{Layout, SamplesFile};

/// What one kind of run brings to [`execute`]: its policies, how it builds,
/// checks and runs one experiment, and how its replications' reports
/// become a row of figures.
pub(super) trait DeviceRun {
    type Policy: Copy;
    type Experiment: std::fmt::Debug + Sync;
    /// The built disk model(s), built once per experiment and cloned into
    /// each replication.
    type Models: Clone + Sync;
    type Report: serde::Serialize + serde::de::DeserializeOwned + Send;
    /// What a traced replication records (the data behind a sheet).
    type Trace;
    /// The figures' columns, after the policy and the point's two.
    const FIGURES: &'static [&'static str];
    /// The layout of its `--samples` rows.
    const SAMPLES: Layout;
    /// Whose capacity an overloaded point exceeds, in the warning.
    const CAPACITY: &'static str;

    fn policies(plan: &Plan) -> &[Self::Policy];
    fn label(policy: &Self::Policy) -> String;
    /// The table's title.
    fn title(plan: &Plan) -> String;
    /// What the load column is relative to, for the note under the table.
    const LOAD_IS: &'static str;
    /// Requests per second for an open load.
    fn rate_for(plan: &Plan, load: Load) -> Result<f64>;
    fn experiment(plan: &Plan, policy: Self::Policy, arrivals: Arrivals) -> Self::Experiment;
    /// The offered load, or the refusal of an overload.
    fn check(experiment: &Self::Experiment) -> Result<f64, RunError>;
    fn models(experiment: &Self::Experiment) -> Result<Self::Models, RunError>;
    /// Replication `r`, handing each measured request to `sink` if given.
    fn run(
        experiment: &Self::Experiment,
        models: Self::Models,
        r: u64,
        sink: Option<SampleSink<'_>>,
    ) -> Result<Self::Report, RunError>;
    /// Replication 0, recording its first `followed` requests.
    fn trace(
        experiment: &Self::Experiment,
        models: Self::Models,
        followed: u64,
    ) -> Result<Self::Trace, RunError>;
    fn metrics(reports: &[Self::Report]) -> Result<MetricTable>;
    /// The cells under [`FIGURES`](Self::FIGURES).
    fn figures(m: &MetricTable) -> Vec<Cell>;
    fn deadlines(report: &Self::Report) -> Deadlines;
}

/// One disk under single-disk policies.
pub(super) struct OneDisk;

impl DeviceRun for OneDisk {
    type Policy = PolicySpec;
    type Experiment = DiskExperiment;
    type Models = DiskModel;
    type Report = DiskReport;
    type Trace = HeadTrace;
    const FIGURES: &'static [&'static str] = &[
        "response ms",
        "p95 ms",
        "wait ms",
        "service ms",
        "seek ms",
        "rotation ms",
        "seek cyl",
        "util",
        "queue",
    ];
    const SAMPLES: Layout = Layout::SingleDisk;
    const CAPACITY: &'static str = "the disk's capacity";
    const LOAD_IS: &'static str =
        "Load is relative to the mean service of one request served alone.";

    fn policies(plan: &Plan) -> &[PolicySpec] {
        &plan.policies
    }

    fn label(policy: &PolicySpec) -> String {
        policy_label(policy)
    }

    fn title(plan: &Plan) -> String {
        format!(
            "{} — {} replications × {} requests (+{} warm-up), {}",
            plan.disk.name,
            plan.replications,
            plan.requests,
            plan.warmup,
            describe_mix(&plan.mix)
        )
    }

    fn rate_for(plan: &Plan, load: Load) -> Result<f64> {
        Ok(DiskExperiment::rate_for(&plan.disk, &plan.mix, load)?)
    }

    fn experiment(plan: &Plan, policy: PolicySpec, arrivals: Arrivals) -> DiskExperiment {
        DiskExperiment {
            disk: plan.disk.clone(),
            policy,
            arrivals,
            mix: plan.mix,
            requests: plan.requests,
            warmup: plan.warmup,
            seed: plan.seed,
            allow_overload: plan.allow_overload,
        }
    }

    fn check(experiment: &DiskExperiment) -> Result<f64, RunError> {
        experiment.check()
    }

    fn models(experiment: &DiskExperiment) -> Result<DiskModel, RunError> {
        experiment.model()
    }

    fn run(
        experiment: &DiskExperiment,
        model: DiskModel,
        r: u64,
        sink: Option<SampleSink<'_>>,
    ) -> Result<DiskReport, RunError> {
        match sink {
            Some(sink) => experiment.sample_on(model, r, sink),
            None => experiment.run_on(model, r),
        }
    }

    fn trace(
        experiment: &DiskExperiment,
        model: DiskModel,
        followed: u64,
    ) -> Result<HeadTrace, RunError> {
        experiment.trace_on(model, 0, followed)
    }

    fn metrics(reports: &[DiskReport]) -> Result<MetricTable> {
        Ok(metric_table(reports)?)
    }

    fn figures(m: &MetricTable) -> Vec<Cell> {
        vec![
            estimate(m, "response_ms", 1.0, 2),
            estimate(m, "response_p95_ms", 1.0, 1),
            estimate(m, "waiting_ms", 1.0, 2),
            estimate(m, "service_ms", 1.0, 2),
            estimate(m, "seek_ms", 1.0, 2),
            estimate(m, "rotation_ms", 1.0, 2),
            estimate(m, "seek_cylinders", 1.0, 0),
            estimate(m, "utilisation", 1.0, 3),
            estimate(m, "queue_mean", 1.0, 2),
        ]
    }

    fn deadlines(r: &DiskReport) -> Deadlines {
        let (mut judged, mut missed, mut dropped, mut tardy_sum, mut tardy_count) =
            (0, 0, 0, 0.0, 0);
        for c in &r.classes {
            judged += c.with_deadline + c.dropped;
            missed += c.missed;
            dropped += c.dropped;
            if c.tardiness.count > 0 {
                tardy_sum += c.tardiness.mean * c.tardiness.count as f64;
                tardy_count += c.tardiness.count;
            }
        }
        let tardiness = if tardy_count > 0 {
            tardy_sum / tardy_count as f64
        } else {
            f64::NAN
        };
        (judged, missed, dropped, tardiness)
    }
}

/// Array policies on a mirrored pair of `plan.disk`, laid out by
/// `plan.placement`: reads and updates (writes of both copies) measured
/// apart, each disk's utilisation, and the deadlines.
pub(super) struct MirroredPair;

impl MirroredPair {
    fn disks(plan: &Plan) -> [DiskSpec; 2] {
        [plan.disk.clone(), plan.disk.clone()]
    }
}

impl DeviceRun for MirroredPair {
    type Policy = ArraySpec;
    type Experiment = MirrorExperiment;
    type Models = Vec<DiskModel>;
    type Report = MirrorReport;
    type Trace = ArrayTrace;
    const FIGURES: &'static [&'static str] = &[
        "read ms",
        "update ms",
        "all ms",
        "read wait ms",
        "util disk 1",
        "util disk 2",
        "throughput/s",
    ];
    const SAMPLES: Layout = Layout::Mirror;
    const CAPACITY: &'static str = "the pair's capacity";
    const LOAD_IS: &'static str = "Load is the work offered (a read one operation, an update two) over what the two disks serve, each request taking the disk's mean service alone.";

    fn policies(plan: &Plan) -> &[ArraySpec] {
        &plan.arrays
    }

    fn label(policy: &ArraySpec) -> String {
        array_label(policy)
    }

    fn title(plan: &Plan) -> String {
        format!(
            "{} ×2 ({}) — {} replications × {} requests (+{} warm-up), {}",
            plan.disk.name,
            describe_placement(plan.placement),
            plan.replications,
            plan.requests,
            plan.warmup,
            describe_mix(&plan.mix)
        )
    }

    fn rate_for(plan: &Plan, load: Load) -> Result<f64> {
        match load {
            Load::Utilisation(u) => Ok(MirrorExperiment::rate_for(
                &Self::disks(plan),
                &plan.mix,
                u,
            )?),
            Load::Rate(r) => Ok(r),
        }
    }

    fn experiment(plan: &Plan, policy: ArraySpec, arrivals: Arrivals) -> MirrorExperiment {
        MirrorExperiment {
            disks: Self::disks(plan),
            placement: plan.placement,
            policy,
            arrivals,
            mix: plan.mix,
            requests: plan.requests,
            warmup: plan.warmup,
            seed: plan.seed,
            allow_overload: plan.allow_overload,
        }
    }

    fn check(experiment: &MirrorExperiment) -> Result<f64, RunError> {
        experiment.check()
    }

    fn models(experiment: &MirrorExperiment) -> Result<Vec<DiskModel>, RunError> {
        experiment.models()
    }

    fn run(
        experiment: &MirrorExperiment,
        models: Vec<DiskModel>,
        r: u64,
        sink: Option<SampleSink<'_>>,
    ) -> Result<MirrorReport, RunError> {
        match sink {
            Some(sink) => experiment.sample_on(models, r, sink),
            None => experiment.run_on(models, r),
        }
    }

    fn trace(
        experiment: &MirrorExperiment,
        models: Vec<DiskModel>,
        followed: u64,
    ) -> Result<ArrayTrace, RunError> {
        experiment.trace_on(models, 0, followed)
    }

    fn metrics(reports: &[MirrorReport]) -> Result<MetricTable> {
        Ok(mirror_table(reports))
    }

    fn figures(m: &MetricTable) -> Vec<Cell> {
        vec![
            estimate(m, "read_ms", 1.0, 2),
            estimate(m, "update_ms", 1.0, 2),
            estimate(m, "all_ms", 1.0, 2),
            estimate(m, "read_wait_ms", 1.0, 2),
            estimate(m, "util_disk1", 1.0, 3),
            estimate(m, "util_disk2", 1.0, 3),
            estimate(m, "throughput_per_s", 1.0, 1),
        ]
    }

    fn deadlines(r: &MirrorReport) -> Deadlines {
        let d = &r.deadlines;
        (
            d.with_deadline + d.dropped,
            d.missed,
            d.dropped,
            d.tardiness_mean,
        )
    }
}

/// Each run's replications' reports, in the table's row order; `None`
/// where the run failed.
pub(super) type RunReports<R> = Vec<Option<Vec<R>>>;

/// Runs every policy of `K` at every point of the plan: the table (one row
/// per run, a failed run's row marked and warned of) and each run's
/// reports (`None` where it failed). Every run is built and checked before
/// any runs.
pub(super) fn execute<K: DeviceRun>(plan: &Plan) -> Result<(Table, RunReports<K::Report>)> {
    let [point_column, rate_column] = Point::columns(&plan.points);
    let mut columns = vec!["policy", point_column, rate_column];
    columns.extend(K::FIGURES);
    let deadlines = plan.mix.deadline.is_some();
    if deadlines {
        columns.extend(DEADLINE_COLUMNS);
    }
    let mut table = Table::new(K::title(plan), &columns);
    let policies = K::policies(plan);
    let bar = progress(
        (policies.len() * plan.points.len()) as u64 * plan.replications,
        "replications",
    );
    let digits = Point::load_digits(&plan.points);
    let mut runs = Vec::new();
    for point in &plan.points {
        let (arrivals, load_label) = point.arrivals(|load| K::rate_for(plan, load))?;
        for policy in policies {
            let label = K::label(policy);
            let experiment = K::experiment(plan, *policy, arrivals);
            let load = K::check(&experiment)
                .map_err(overload_hint)
                .with_context(|| format!("{label}, {load_label}"))?;
            if load >= 1.0 {
                eprintln!(
                    "warning: {label}, {load_label}: the offered load is {load:.3} of {}; the queues grow without bound and the figures depend on the run length",
                    K::CAPACITY
                );
            }
            let cells = point.cells(arrivals, load, digits);
            runs.push((experiment, label, load_label.clone(), cells));
        }
    }
    let mut samples = open_samples(plan, runs.len(), K::SAMPLES)?;
    let mut failed = 0;
    let mut all = Vec::new();
    for (experiment, label, load_label, [point_cell, rate]) in &runs {
        let models = K::models(experiment)?;
        let context = [label.clone(), point_cell.csv_value(), rate.csv_value()];
        let reports = crate::samples::replicate(
            experiment,
            plan.replications,
            plan.jobs,
            samples.as_mut().map(|f| (f, &context[..])),
            |r, sink| {
                let out = K::run(experiment, models.clone(), r, sink);
                bar.inc(1);
                out
            },
        )?;
        let mut row = vec![Cell::text(label.clone()), point_cell.clone(), rate.clone()];
        let reports = match reports {
            Ok(r) => r,
            Err(e) => {
                failed += 1;
                bar.suspend(|| eprintln!("warning: {label}, {load_label}: {e}"));
                row.resize(table.columns.len(), Cell::Absent("overload"));
                table.row(row);
                all.push(None);
                continue;
            }
        };
        let mut m = K::metrics(&reports)?;
        if deadlines {
            record_deadlines(&mut m, reports.iter().map(K::deadlines))?;
        }
        row.extend(K::figures(&m));
        if deadlines {
            row.extend(deadline_cells(&m));
        }
        table.row(row);
        all.push(Some(reports));
    }
    bar.finish_and_clear();
    if failed > 0 && failed == runs.len() {
        bail!("every run failed (the warnings above say why); lower the load or the population");
    }
    table.note(format!(
        "Means over replications ± half-width of the 95 % Student-t interval; seed {}. {}",
        plan.seed,
        K::LOAD_IS
    ));
    note_samples(&mut table, samples)?;
    Ok((table, all))
}

/// The traced replication 0 of each policy of `K` at the plan's first
/// point, following its first `followed` requests, labelled as the table
/// labels them.
pub(super) fn traces<K: DeviceRun>(plan: &Plan, followed: u64) -> Result<Vec<(String, K::Trace)>> {
    let Some(point) = plan.points.first() else {
        bail!("nothing to trace");
    };
    let (arrivals, _) = point.arrivals(|load| K::rate_for(plan, load))?;
    K::policies(plan)
        .iter()
        .map(|policy| {
            let label = K::label(policy);
            let experiment = K::experiment(plan, *policy, arrivals);
            K::check(&experiment).map_err(overload_hint)?;
            let trace = K::trace(&experiment, K::models(&experiment)?, followed)
                .with_context(|| format!("tracing {label}"))?;
            Ok((label, trace))
        })
        .collect()
}

/// The `--samples` file of a plan of `runs` runs, created (with its
/// header) once every run has been checked and before any runs; refused
/// when it would take more rows than a file takes.
fn open_samples(plan: &Plan, runs: usize, layout: Layout) -> Result<Option<SamplesFile>> {
    let Some(path) = &plan.samples else {
        return Ok(None);
    };
    crate::samples::check_rows(
        runs as u128 * u128::from(plan.replications) * u128::from(plan.requests),
    )?;
    let [point, rate] = Point::columns(&plan.points).map(|c| match c {
        "rate/s" => "rate_per_s",
        "think ms" => "think_ms",
        other => other,
    });
    let context = ["policy", point, rate, "replication"];
    SamplesFile::create(path, &context, layout, plan.mix.deadline.is_some()).map(Some)
}

/// Closes the `--samples` file and counts its rows under the table (the
/// file itself is announced on standard error, as every written file is).
fn note_samples(table: &mut Table, samples: Option<SamplesFile>) -> Result<()> {
    if let Some(file) = samples {
        let rows = file.finish()?;
        table.note(format!("Per-request samples: {rows} rows."));
    }
    Ok(())
}

/// A refusal of an overloaded run, with the option that runs it anyway.
pub(super) fn overload_hint(e: RunError) -> anyhow::Error {
    match e {
        RunError::Overload { load } => anyhow::anyhow!(
            "the offered load is {load:.3} of the capacity, at or above saturation: the queue would grow without bound and every figure would depend on the run's length; lower --load or --rate, or pass --allow-overload to run it anyway"
        ),
        other => other.into(),
    }
}

/// The columns of a run whose requests carry deadlines.
const DEADLINE_COLUMNS: [&str; 3] = ["missed %", "dropped", "tardiness ms"];

/// (requests judged against a deadline, missed, dropped, mean tardiness in
/// ns) of one replication, over its classes.
pub(super) type Deadlines = (u64, u64, u64, f64);

/// Adds the deadline metrics of each replication to `m`.
fn record_deadlines(m: &mut MetricTable, each: impl Iterator<Item = Deadlines>) -> Result<()> {
    for (r, (judged, missed, dropped, tardiness)) in (0..).zip(each) {
        if judged > 0 {
            m.record(r, "missed_pct", 100.0 * missed as f64 / judged as f64)?;
        }
        m.record(r, "dropped", dropped as f64)?;
        if tardiness.is_finite() {
            m.record(r, "tardiness_ms", tardiness / 1e6)?;
        }
    }
    Ok(())
}

fn deadline_cells(m: &MetricTable) -> [Cell; 3] {
    [
        estimate(m, "missed_pct", 1.0, 2),
        estimate(m, "dropped", 1.0, 0),
        estimate(m, "tardiness_ms", 1.0, 2),
    ]
}
