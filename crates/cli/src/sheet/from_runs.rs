//! Sheets from what the runs recorded: the traced replication's arms,
//! queue and response times ([`experiments::HeadTrace`],
//! [`experiments::ArrayTrace`]) and every replication's reports for the
//! per-class bars.

use disk_emu::{DiskReport, Histogram};
use experiments::{ArrayTrace, Fate, HeadTrace, Interval, MirrorReport, QueueSteps};
use sched_core::Nanos;

use super::{
    Bar, BarPanel, HeadLane, MARKED_PERCENTILES, QueueLine, ResponseCdf, RunSheet, SheetSeries,
};
use crate::plot::curve_colours;

fn ms(ns: Nanos) -> f64 {
    ns as f64 / 1e6
}

/// What one class measured in one replication (NaN where it has nothing
/// to say: no completions, no deadlines).
#[derive(Clone, Debug)]
pub struct ClassFigures {
    /// The class's name ("read", "update").
    pub name: String,
    /// Mean response time, ms.
    pub response_ms: f64,
    /// Deadlines missed, % of the requests judged against one.
    pub missed_pct: f64,
    /// Requests dropped unserved.
    pub dropped: f64,
}

/// The classes of a single-disk report: those with completions or drops.
pub fn disk_classes(report: &DiskReport) -> Vec<ClassFigures> {
    report
        .classes
        .iter()
        .filter(|c| c.response.count > 0 || c.dropped > 0)
        .map(|c| {
            let judged = c.with_deadline + c.dropped;
            ClassFigures {
                name: c.name.clone(),
                response_ms: if c.response.count > 0 {
                    c.response.mean / 1e6
                } else {
                    f64::NAN
                },
                missed_pct: if judged > 0 {
                    100.0 * c.missed as f64 / judged as f64
                } else {
                    f64::NAN
                },
                dropped: if judged > 0 {
                    c.dropped as f64
                } else {
                    f64::NAN
                },
            }
        })
        .collect()
}

/// The classes of a mirrored run's report: reads and updates (its
/// deadlines are counted over both, as "all").
pub fn mirror_classes(report: &MirrorReport) -> Vec<ClassFigures> {
    let mut classes: Vec<ClassFigures> = [("read", &report.read), ("update", &report.update)]
        .into_iter()
        .filter(|(_, k)| k.response.count > 0)
        .map(|(name, k)| ClassFigures {
            name: name.to_string(),
            response_ms: k.response.mean / 1e6,
            missed_pct: f64::NAN,
            dropped: f64::NAN,
        })
        .collect();
    let d = &report.deadlines;
    let judged = d.with_deadline + d.dropped;
    if judged > 0 {
        classes.push(ClassFigures {
            name: "all".to_string(),
            response_ms: f64::NAN,
            missed_pct: 100.0 * d.missed as f64 / judged as f64,
            dropped: d.dropped as f64,
        });
    }
    classes
}

/// The per-class bar panels of a sheet: `figures[s]` holds series `s`'s
/// classes in each replication. Mean response time per class, and where
/// requests carry deadlines, the share missed and the drops; each bar the
/// mean over the replications with its 95 % Student-t interval. None
/// when the run has one class and no deadlines (the table says it all).
pub fn class_bars(figures: &[Vec<Vec<ClassFigures>>]) -> Vec<BarPanel> {
    let mut groups: Vec<String> = Vec::new();
    for class in figures.iter().flatten().flatten() {
        if !groups.contains(&class.name) {
            groups.push(class.name.clone());
        }
    }
    let has = |pick: fn(&ClassFigures) -> f64| {
        figures
            .iter()
            .flatten()
            .flatten()
            .any(|c| pick(c).is_finite())
    };
    let deadlines = has(|c| c.missed_pct);
    let responses_by_class = figures
        .iter()
        .flatten()
        .flatten()
        .filter(|c| c.response_ms.is_finite())
        .map(|c| c.name.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if responses_by_class < 2 && !deadlines {
        return Vec::new();
    }
    let panel = |title: &str, y_label: &str, pick: fn(&ClassFigures) -> f64| {
        let mut bars = Vec::new();
        let mut single = true;
        for (series, replications) in figures.iter().enumerate() {
            for (group, name) in groups.iter().enumerate() {
                let values: Vec<f64> = replications
                    .iter()
                    .flat_map(|classes| classes.iter().filter(|c| c.name == *name))
                    .map(pick)
                    .filter(|v| v.is_finite())
                    .collect();
                let Ok(interval) = Interval::from_values(&values, 0.95) else {
                    continue;
                };
                single &= interval.n < 2;
                bars.push(Bar {
                    series,
                    group,
                    mean: interval.mean,
                    half_width: interval.half_width.unwrap_or(0.0),
                });
            }
        }
        let used: Vec<usize> = (0..groups.len())
            .filter(|g| bars.iter().any(|b| b.group == *g))
            .collect();
        let bars = bars
            .into_iter()
            .map(|b| Bar {
                group: used.iter().position(|g| *g == b.group).unwrap_or(0),
                ..b
            })
            .collect();
        let suffix = if single {
            " (one run: no interval)"
        } else {
            ", 95 % intervals"
        };
        BarPanel {
            title: format!("{title}{suffix}"),
            y_label: y_label.to_string(),
            groups: used.iter().map(|&g| groups[g].clone()).collect(),
            bars,
        }
    };
    let mut panels = vec![panel(
        "mean response time by class",
        "response time (ms)",
        |c| c.response_ms,
    )];
    if deadlines {
        panels.push(panel(
            "deadlines missed by class",
            "missed (% of requests with a deadline)",
            |c| c.missed_pct,
        ));
        panels.push(panel("requests dropped by class", "dropped per run", |c| {
            c.dropped
        }));
    }
    panels.retain(|p| !p.bars.is_empty());
    panels
}

/// Points of a response-time distribution from its histogram: the value
/// at each of up to 500 evenly spaced ranks (a smooth curve with far fewer
/// points than requests) and the percentiles the sheet marks, each within
/// the histogram's 0.78 %.
pub fn response_cdf(series: usize, responses: &Histogram) -> ResponseCdf {
    const STEPS: u64 = 500;
    let n = responses.count();
    let steps = STEPS.min(n);
    let points = (1..=steps)
        .filter_map(|i| {
            let q = i as f64 / steps as f64;
            Some((responses.quantile(q)? / 1e6, q))
        })
        .collect();
    ResponseCdf {
        series,
        points,
        percentiles: MARKED_PERCENTILES
            .map(|(q, _)| responses.quantile(q).map_or(0.0, |v| v / 1e6)),
    }
}

fn queue_line(series: usize, steps: &[(Nanos, u32)]) -> QueueLine {
    QueueLine {
        series,
        steps: steps.iter().map(|&(t, c)| (ms(t), c)).collect(),
    }
}

/// One disk's lane from a single-disk trace: the arm's path (a ramp over
/// each seek, level through the rest of the service) and the arrivals of
/// the requests that came before `span_end`, when the followed ones had all
/// left.
fn disk_lane(series: usize, caption: String, trace: &HeadTrace, span_end: Nanos) -> HeadLane {
    let mut path = vec![(0.0, trace.initial)];
    for visit in trace.visits() {
        if let Fate::Served {
            from,
            start,
            seek_end,
            finish,
        } = visit.fate
        {
            path.extend([
                (ms(start), from),
                (ms(seek_end), visit.cylinder),
                (ms(finish), visit.cylinder),
            ]);
        }
    }
    HeadLane {
        series,
        caption,
        cylinders: trace.cylinders,
        path,
        arrivals: trace
            .requests
            .iter()
            .filter(|r| r.arrival <= span_end)
            .map(|r| (ms(r.arrival), r.cylinder))
            .collect(),
        span_end_ms: ms(span_end),
    }
}

/// The sheet of a single-disk run: `traces` holds each policy's traced
/// replication (label, trace), `reports` every replication's report of
/// each policy in the same order (`None` for a run that failed).
pub fn disk_sheet(
    title: String,
    followed: u64,
    traces: &[(String, HeadTrace)],
    reports: &[Option<&[DiskReport]>],
) -> RunSheet {
    let series = series_of(traces.iter().map(|(label, _)| label.clone()));
    let lanes = traces
        .iter()
        .enumerate()
        .map(|(i, (label, trace))| {
            disk_lane(
                i,
                format!("{label}: arm position, first {followed} requests"),
                trace,
                trace.span_end(),
            )
        })
        .collect();
    let figures: Vec<Vec<Vec<ClassFigures>>> = reports
        .iter()
        .map(|r| r.map_or_else(Vec::new, |r| r.iter().map(disk_classes).collect()))
        .collect();
    sheet(
        title,
        followed,
        series,
        lanes,
        traces.iter().map(|(_, t)| (&t.responses, &t.queue)),
        "requests",
        &figures,
    )
}

/// The sheet of a mirrored run: one lane per disk of each policy, each
/// arrival marked on every disk at the cylinder its copy lies on there.
pub fn array_sheet(
    title: String,
    followed: u64,
    traces: &[(String, ArrayTrace)],
    reports: &[Option<&[MirrorReport]>],
) -> RunSheet {
    let series = series_of(traces.iter().map(|(label, _)| label.clone()));
    let lanes = traces
        .iter()
        .enumerate()
        .flat_map(|(i, (label, trace))| {
            array_lanes(i, trace, trace.span_end(), |disk| {
                format!("{label}, disk {disk}: arm position, first {followed} requests")
            })
        })
        .collect();
    let figures: Vec<Vec<Vec<ClassFigures>>> = reports
        .iter()
        .map(|r| r.map_or_else(Vec::new, |r| r.iter().map(mirror_classes).collect()))
        .collect();
    sheet(
        title,
        followed,
        series,
        lanes,
        traces.iter().map(|(_, t)| (&t.responses, &t.queue)),
        "operations",
        &figures,
    )
}

/// One lane per disk of a traced mirrored pair (series `series`): each
/// arm's path, and the arrivals before `span_end` marked at the cylinder
/// their copy lies on there; `caption` names the lane of disk 1, 2.
fn array_lanes(
    series: usize,
    trace: &ArrayTrace,
    span_end: Nanos,
    caption: impl Fn(usize) -> String,
) -> Vec<HeadLane> {
    trace
        .disks
        .iter()
        .enumerate()
        .map(|(d, arm)| {
            let mut path = vec![(0.0, arm.initial)];
            for op in &arm.operations {
                path.extend([
                    (ms(op.start), op.from),
                    (ms(op.seek_end), op.cylinder),
                    (ms(op.end), op.cylinder),
                ]);
            }
            let arrivals = trace
                .requests
                .iter()
                .filter(|r| r.arrival <= span_end)
                .flat_map(|r| {
                    r.copies
                        .iter()
                        .filter(|(disk, _)| *disk == d)
                        .map(|&(_, cylinder)| (ms(r.arrival), cylinder))
                })
                .collect();
            HeadLane {
                series,
                caption: caption(d + 1),
                cylinders: arm.cylinders,
                path,
                arrivals,
                span_end_ms: ms(span_end),
            }
        })
        .collect()
}

/// The legend of a replay under `policy` of `devices`: the policy alone
/// for one device, else each device.
fn replay_series(policy: &str, devices: impl ExactSizeIterator<Item = u32>) -> Vec<SheetSeries> {
    let several = devices.len() > 1;
    series_of(devices.map(|device| {
        if several {
            format!("device {device}")
        } else {
            policy.to_string()
        }
    }))
}

/// The sheet of a replay under `policy`: one lane per device (each its
/// own disk, under its own arrivals); the legend names the policy, or with
/// several devices each device.
pub fn replay_sheet(
    title: String,
    followed: u64,
    policy: &str,
    traces: &[(u32, HeadTrace)],
) -> RunSheet {
    let series = replay_series(policy, traces.iter().map(|(device, _)| *device));
    // The devices share the trace's clock: every lane spans the time until
    // the trace's first requests had all left.
    let span_end = traces.iter().map(|(_, t)| t.span_end()).max().unwrap_or(0);
    let lanes = traces
        .iter()
        .enumerate()
        .map(|(i, (device, trace))| {
            disk_lane(
                i,
                format!(
                    "device {device} ({policy}): arm position, {} of the trace's first {followed} requests",
                    trace.followed
                ),
                trace,
                span_end,
            )
        })
        .collect();
    let figures: Vec<Vec<Vec<ClassFigures>>> = traces
        .iter()
        .map(|(_, t)| vec![disk_classes(&t.report)])
        .collect();
    sheet(
        title,
        followed,
        series,
        lanes,
        traces.iter().map(|(_, t)| (&t.responses, &t.queue)),
        "requests",
        &figures,
    )
}

/// The sheet of a replay on mirrored pairs under the array policy
/// `policy`: a lane per disk of each device's pair (arrivals marked on
/// each disk at their copy's cylinder), over the span until the trace's
/// first `followed` requests had all left; the legend as
/// [`replay_sheet`]'s; reads against updates per device.
pub fn replay_array_sheet(
    title: String,
    followed: u64,
    policy: &str,
    traces: &[(u32, ArrayTrace)],
) -> RunSheet {
    let series = replay_series(policy, traces.iter().map(|(device, _)| *device));
    let span_end = traces.iter().map(|(_, t)| t.span_end()).max().unwrap_or(0);
    let lanes = traces
        .iter()
        .enumerate()
        .flat_map(|(i, (device, trace))| {
            array_lanes(i, trace, span_end, |disk| {
                format!(
                    "device {device} ({policy}), disk {disk}: arm position, {} of the trace's first {followed} requests",
                    trace.followed
                )
            })
        })
        .collect();
    let figures: Vec<Vec<Vec<ClassFigures>>> = traces
        .iter()
        .map(|(_, t)| vec![mirror_classes(&t.report)])
        .collect();
    sheet(
        title,
        followed,
        series,
        lanes,
        traces.iter().map(|(_, t)| (&t.responses, &t.queue)),
        "operations",
        &figures,
    )
}

/// What every sheet holds besides its lanes: the response-time
/// distribution and the queue of each series' traced run (`traced`, in
/// the series' order; the queue counts `queued`, requests or copy
/// operations), and the per-class bars of `figures`.
fn sheet<'t>(
    title: String,
    followed: u64,
    series: Vec<SheetSeries>,
    lanes: Vec<HeadLane>,
    traced: impl Iterator<Item = (&'t Histogram, &'t QueueSteps)> + Clone,
    queued: &str,
    figures: &[Vec<Vec<ClassFigures>>],
) -> RunSheet {
    RunSheet {
        title,
        followed,
        series,
        lanes,
        cdfs: traced
            .clone()
            .enumerate()
            .map(|(i, (responses, _))| response_cdf(i, responses))
            .collect(),
        queue_label: format!("{queued} waiting"),
        queues: traced
            .enumerate()
            .map(|(i, (_, queue))| queue_line(i, queue))
            .collect(),
        bars: class_bars(figures),
    }
}

/// The legend of runs labelled `labels`: each in its policy's colour, two
/// runs never in colours alike ([`curve_colours`]).
fn series_of(labels: impl Iterator<Item = String>) -> Vec<SheetSeries> {
    let labels: Vec<String> = labels.collect();
    let names: Vec<&str> = labels.iter().map(String::as_str).collect();
    curve_colours(&names)
        .into_iter()
        .zip(labels.iter().cloned())
        .map(|(colour, label)| SheetSeries { colour, label })
        .collect()
}
