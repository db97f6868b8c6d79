//! A run's sheet, in the style of [`crate::plot`]: (a) the arm moving,
//! one lane per policy over the same arrivals (per disk of an array, per
//! device of a replay); (b) the response-time distributions; (c) the
//! queue over the lanes' span; (d) per-class bars with 95 % intervals
//! where the run has classes (reads and writes, deadline misses and
//! drops). [`RunSheet`] holds the data drawn, [`layout`] where each part
//! goes, so that tests can look at both.

use crate::plot::Rgb;

mod draw;
mod from_runs;

pub use draw::render_run_sheet;

pub use from_runs::{
    ClassFigures, array_sheet, class_bars, disk_classes, disk_sheet, mirror_classes,
    replay_array_sheet, replay_sheet, response_cdf,
};

/// A drive's name for a title: a preset's human name, the opening words of
/// its description in `spindle presets` ("HP 97560" for hp97560, "Seagate
/// Cheetah 9LP" for cheetah9lp), else the spec's own name.
pub fn drive_name(name: &str) -> String {
    disk_emu::disk::PRESETS
        .iter()
        .find(|(preset, _)| *preset == name)
        .and_then(|(_, description)| description.split([':', ',', '(']).next())
        .map(str::trim)
        .filter(|human| human.starts_with(|c: char| c.is_alphabetic()))
        .map_or_else(|| name.to_string(), str::to_string)
}

/// An entry of the sheet's legend: a policy (or, in a replay of several
/// devices, a device), with its colour in every part of the sheet.
#[derive(Clone, Debug)]
pub struct SheetSeries {
    /// The legend text.
    pub label: String,
    /// Its colour ([`crate::plot::policy_colour`] for a policy).
    pub colour: Rgb,
}

/// One lane of a run sheet: where one disk's arm was over time.
#[derive(Clone, Debug)]
pub struct HeadLane {
    /// The series (index into [`RunSheet::series`]) the lane belongs to.
    pub series: usize,
    /// The lane's caption ("sstf: arm position, first 40 requests").
    pub caption: String,
    /// Cylinders of the disk (the lane's height).
    pub cylinders: u32,
    /// The arm's path: (ms from the run's start, cylinder), joined by lines.
    pub path: Vec<(f64, u32)>,
    /// Arrivals: (ms, the cylinder the request addresses on this disk).
    pub arrivals: Vec<(f64, u32)>,
    /// When the followed requests had all left, ms.
    pub span_end_ms: f64,
}

/// One series' response-time distribution.
#[derive(Clone, Debug)]
pub struct ResponseCdf {
    /// The series (index into [`RunSheet::series`]).
    pub series: usize,
    /// (response ms, cumulative fraction), increasing.
    pub points: Vec<(f64, f64)>,
    /// The 50th, 95th and 99th percentiles, ms.
    pub percentiles: [f64; 3],
}

/// The percentiles marked on a [`ResponseCdf`].
pub const MARKED_PERCENTILES: [(f64, &str); 3] = [(0.50, "p50"), (0.95, "p95"), (0.99, "p99")];

/// One series' queue over the lanes' span, a step function.
#[derive(Clone, Debug)]
pub struct QueueLine {
    /// The series (index into [`RunSheet::series`]).
    pub series: usize,
    /// (ms, count from that instant on), from (0, 0), one entry per change.
    pub steps: Vec<(f64, u32)>,
}

/// One bar of a [`BarPanel`]: a series' mean over replications in one
/// group, with the half-width of its 95 % interval (0 when there is no
/// interval: one replay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// The series (index into [`RunSheet::series`]).
    pub series: usize,
    /// The group (index into [`BarPanel::groups`]).
    pub group: usize,
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95 % interval.
    pub half_width: f64,
}

/// A panel of grouped bars: one group per class, one bar per series.
#[derive(Clone, Debug)]
pub struct BarPanel {
    /// What the bars measure.
    pub title: String,
    /// The y axis, with its unit.
    pub y_label: String,
    /// The groups' names (the classes).
    pub groups: Vec<String>,
    /// The bars.
    pub bars: Vec<Bar>,
}

/// A run's sheet: the data drawn.
#[derive(Clone, Debug)]
pub struct RunSheet {
    /// The title: the drive's name, the workload.
    pub title: String,
    /// How many requests the lanes follow.
    pub followed: u64,
    /// The legend's entries, each with its colour.
    pub series: Vec<SheetSeries>,
    /// The lanes, top to bottom.
    pub lanes: Vec<HeadLane>,
    /// One distribution per series.
    pub cdfs: Vec<ResponseCdf>,
    /// What the queue panel counts, with its unit ("requests waiting").
    pub queue_label: String,
    /// One queue per series, over the lanes' span.
    pub queues: Vec<QueueLine>,
    /// Per-class bars; none when the run has one class.
    pub bars: Vec<BarPanel>,
}

impl RunSheet {
    /// The time axis the lanes and the queue share, ms: from 0 to a little
    /// past the last followed request's end.
    pub fn time_axis_ms(&self) -> (f64, f64) {
        let end = self
            .lanes
            .iter()
            .map(|l| l.span_end_ms)
            .chain(self.queues.iter().flat_map(|q| q.steps.last().map(|s| s.0)))
            .fold(0.0f64, f64::max)
            .max(1e-3);
        (0.0, end * 1.02)
    }

    /// The unit the time axis is labelled in, for its span: (ms per unit,
    /// name): milliseconds up to 10 s, then seconds up to 10 minutes,
    /// minutes up to 10 hours, then hours (a trace's first requests may
    /// come in bursts half an hour apart).
    pub fn time_unit(&self) -> (f64, &'static str) {
        let (_, end) = self.time_axis_ms();
        match end {
            e if e < 1e4 => (1.0, "ms"),
            e if e < 6e5 => (1e3, "s"),
            e if e < 3.6e7 => (6e4, "min"),
            _ => (3.6e6, "h"),
        }
    }

    /// The response-time axis of the distributions, ms (log scale). A log
    /// axis is ticked from its first power of ten, so one whose data start
    /// low in a decade (below half of it) starts at that decade's power of
    /// ten, for its ticks to reach the data.
    pub fn response_axis_ms(&self) -> Option<(f64, f64)> {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for v in self
            .cdfs
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.0))
            .filter(|v| *v > 0.0)
        {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return None;
        }
        let lo = lo * 0.9;
        let decade = 10f64.powf(lo.log10().floor());
        let lo = if lo / decade < 5.0 { decade } else { lo };
        Some((lo, hi * 1.1))
    }

    /// The queue axis: 0 to one above the longest queue.
    pub fn queue_axis(&self) -> u32 {
        self.queues
            .iter()
            .flat_map(|q| q.steps.iter().map(|s| s.1))
            .max()
            .unwrap_or(0)
            + 1
    }
}

/// A rectangle of the sheet, in pixels from its top left corner: x, y,
/// width, height.
pub type Rect = (u32, u32, u32, u32);

/// Where each part of a sheet is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetLayout {
    /// The whole picture: width, height.
    pub size: (u32, u32),
    /// Each lane's area (caption, axes and data), top to bottom.
    pub lanes: Vec<Rect>,
    /// The queue panel's area.
    pub queue: Rect,
    /// The distributions' area.
    pub cdf: Rect,
    /// Each bar panel's area.
    pub bars: Vec<Rect>,
    /// The legend's column: nothing else is drawn there.
    pub legend: Rect,
}

const TITLE: u32 = 40;
const LEFT: u32 = 760;
const MIDDLE: u32 = 470;
const LANE: u32 = 150;
const QUEUE: u32 = 210;
/// The queue panel grows with its strips: its caption and time axis, and
/// a strip per series.
const QUEUE_BASE: u32 = 72;
const QUEUE_STRIP: u32 = 44;
const CDF: u32 = 360;
const BARS: u32 = 250;
/// The legend's narrowest column, and the room for one character of its
/// 13-pixel text (DejaVu Sans averages about 7.5 pixels).
const LEGEND: u32 = 170;
const LEGEND_CHAR: f64 = 7.6;
/// Legend labels longer than this wrap after a comma or a colon.
const LEGEND_WRAP: usize = 24;

/// A legend label in lines of at most [`LEGEND_WRAP`] characters, broken
/// after commas and colons ("sq-dmq:queue=sstf,modified=true" is three
/// lines); a piece longer than that keeps a line of its own.
fn legend_lines(label: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut piece = String::new();
    for c in label.chars() {
        piece.push(c);
        if c == ',' || c == ':' {
            if !line.is_empty() && line.chars().count() + piece.chars().count() > LEGEND_WRAP {
                lines.push(std::mem::take(&mut line));
            }
            line.push_str(&std::mem::take(&mut piece));
        }
    }
    if !line.is_empty() && line.chars().count() + piece.chars().count() > LEGEND_WRAP {
        lines.push(std::mem::take(&mut line));
    }
    line.push_str(&piece);
    lines.push(line);
    lines
}

/// Where the parts of `sheet` go: lanes stacked on the left above the
/// queue panel (sharing its time axis), the distributions and then the
/// bar panels in the middle, the legend in its own column on the right.
pub fn layout(sheet: &RunSheet) -> SheetLayout {
    let lanes = sheet.lanes.len() as u32;
    let queue = QUEUE.max(QUEUE_BASE + QUEUE_STRIP * sheet.queues.len() as u32);
    let left = LANE * lanes + queue;
    let middle = CDF + BARS * sheet.bars.len() as u32;
    let height = TITLE + left.max(middle).max(520);
    let longest = sheet
        .series
        .iter()
        .flat_map(|s| legend_lines(&s.label))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let legend = LEGEND.max(56 + (longest as f64 * LEGEND_CHAR).ceil() as u32);
    SheetLayout {
        size: (LEFT + MIDDLE + legend, height),
        lanes: (0..lanes)
            .map(|i| (0, TITLE + LANE * i, LEFT, LANE))
            .collect(),
        queue: (0, TITLE + LANE * lanes, LEFT, queue),
        cdf: (LEFT, TITLE, MIDDLE, CDF),
        bars: (0..sheet.bars.len() as u32)
            .map(|i| (LEFT, TITLE + CDF + BARS * i, MIDDLE, BARS))
            .collect(),
        legend: (LEFT + MIDDLE, TITLE, legend, height - TITLE),
    }
}

/// A bar's value with three significant digits at most ("362", "57.6",
/// "0.41"), without needless decimals.
fn bar_value(v: f64) -> String {
    let digits = match v.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        _ => 2,
    };
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}
