//! A run's sheet, in the style of [`crate::plot`]: (a) the arm moving,
//! one lane per policy over the same arrivals (per disk of an array, per
//! device of a replay); (b) the response-time distributions; (c) the
//! queue over the lanes' span; (d) per-class bars with 95 % intervals
//! where the run has classes (reads and writes, deadline misses and
//! drops). [`RunSheet`] holds the data drawn, [`layout`] where each part
//! goes, so that tests can look at both.

use anyhow::{Context, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::plot::{one_two_five, tick_label};

mod from_runs;

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
    pub colour: RGBColor,
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
    let left = LANE * lanes + QUEUE;
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
        queue: (0, TITLE + LANE * lanes, LEFT, QUEUE),
        cdf: (LEFT, TITLE, MIDDLE, CDF),
        bars: (0..sheet.bars.len() as u32)
            .map(|i| (LEFT, TITLE + CDF + BARS * i, MIDDLE, BARS))
            .collect(),
        legend: (LEFT + MIDDLE, TITLE, legend, height - TITLE),
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Draws a run's sheet as SVG text, its parts where [`layout`] puts them:
/// each lane with the arm's cylinder against time (hollow circles at each
/// arrival's instant and cylinder; a dotted line where the followed
/// requests have all left); under them the queue as steps on the same time
/// axis; the response-time distributions on a log axis with p50/p95/p99
/// marked; the per-class bars with their intervals; and the legend in a
/// column of its own, beside the data.
///
/// # Errors
/// When plotters fails to draw.
pub fn render_run_sheet(sheet: &RunSheet) -> Result<String> {
    let at = layout(sheet);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, at.size).into_drawing_area();
        root.fill(&WHITE)?;
        root.draw(&Text::new(
            sheet.title.clone(),
            (at.size.0 as i32 / 2, 12),
            ("sans-serif", 18)
                .into_font()
                .into_text_style(&root)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
        let part = |r: Rect| root.clone().shrink((r.0, r.1), (r.2, r.3));
        for (i, (lane, &r)) in sheet.lanes.iter().zip(&at.lanes).enumerate() {
            draw_lane(sheet, lane, &part(r))
                .with_context(|| format!("drawing lane {} ({})", i + 1, lane.caption))?;
        }
        draw_queue(sheet, &part(at.queue)).context("drawing the queue")?;
        draw_cdfs(sheet, &part(at.cdf)).context("drawing the response-time distributions")?;
        for (panel, &r) in sheet.bars.iter().zip(&at.bars) {
            draw_bars(sheet, panel, &part(r))
                .with_context(|| format!("drawing {}", panel.title))?;
        }
        draw_legend(sheet, &part(at.legend)).context("drawing the legend")?;
        root.present().context("drawing the sheet")?;
    }
    Ok(svg)
}

fn colour(sheet: &RunSheet, series: usize) -> RGBColor {
    sheet.series.get(series).map_or(BLACK, |s| s.colour)
}

fn draw_lane(sheet: &RunSheet, lane: &HeadLane, area: &Area<'_>) -> Result<()> {
    let colour = colour(sheet, lane.series);
    let top = lane.cylinders.saturating_sub(1).max(1);
    let (t0, t1) = sheet.time_axis_ms();
    let (unit, _) = sheet.time_unit();
    let (t0, t1) = (t0 / unit, t1 / unit);
    let mut chart = ChartBuilder::on(area)
        .caption(&lane.caption, ("sans-serif", 13))
        .margin(6)
        .margin_right(16)
        .x_label_area_size(18)
        .y_label_area_size(64)
        .build_cartesian_2d(t0..t1, 0u32..top)?;
    chart
        .configure_mesh()
        .y_desc("cylinder")
        .y_labels(5)
        .x_labels(8)
        .x_label_formatter(&|v| tick_label(*v))
        .light_line_style(WHITE)
        .draw()?;
    chart.draw_series(LineSeries::new(
        lane.path.iter().map(|&(t, c)| (t / unit, c)),
        colour.stroke_width(2),
    ))?;
    chart.draw_series(
        lane.arrivals
            .iter()
            .map(|&(t, c)| Circle::new((t / unit, c), 3, BLACK.mix(0.6).stroke_width(1))),
    )?;
    let end = lane.span_end_ms / unit;
    chart.draw_series(DashedLineSeries::new(
        [(end, 0), (end, top)],
        2,
        3,
        BLACK.mix(0.5).stroke_width(1),
    ))?;
    Ok(())
}

fn draw_queue(sheet: &RunSheet, area: &Area<'_>) -> Result<()> {
    let (t0, t1) = sheet.time_axis_ms();
    let (unit, unit_name) = sheet.time_unit();
    let (t0, t1) = (t0 / unit, t1 / unit);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{} over the lanes' span", sheet.queue_label),
            ("sans-serif", 13),
        )
        .margin(6)
        .margin_right(16)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(t0..t1, 0u32..sheet.queue_axis())?;
    chart
        .configure_mesh()
        .y_desc(sheet.queue_label.as_str())
        .x_desc(format!("time since the run started ({unit_name})"))
        .x_labels(8)
        .y_labels((sheet.queue_axis() as usize + 1).min(8))
        .x_label_formatter(&|v| tick_label(*v))
        .light_line_style(WHITE)
        .draw()?;
    for line in &sheet.queues {
        let mut path = Vec::with_capacity(line.steps.len() * 2 + 1);
        for (k, &(t, count)) in line.steps.iter().enumerate() {
            if k > 0 {
                path.push((t / unit, line.steps[k - 1].1));
            }
            path.push((t / unit, count));
        }
        if let (Some(&(_, last)), Some(lane)) = (
            line.steps.last(),
            sheet.lanes.iter().find(|l| l.series == line.series),
        ) {
            path.push((lane.span_end_ms / unit, last));
        }
        chart.draw_series(LineSeries::new(
            path,
            colour(sheet, line.series).stroke_width(2),
        ))?;
    }
    Ok(())
}

fn draw_cdfs(sheet: &RunSheet, area: &Area<'_>) -> Result<()> {
    let Some((lo, hi)) = sheet.response_axis_ms() else {
        return Ok(());
    };
    let mut chart = ChartBuilder::on(area)
        .caption(
            "response time distribution (completed requests)",
            ("sans-serif", 13),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.0)?;
    chart
        .configure_mesh()
        .x_desc("response time (ms, log scale)")
        .y_desc("fraction of requests")
        .max_light_lines(1)
        .x_label_formatter(&|v| one_two_five(*v).map_or_else(String::new, tick_label))
        .y_label_formatter(&|v| tick_label(*v))
        .draw()?;
    for &(q, name) in &MARKED_PERCENTILES {
        chart.draw_series(DashedLineSeries::new(
            [(lo, q), (hi, q)],
            3,
            3,
            BLACK.mix(0.3).stroke_width(1),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            name,
            (lo * 1.02, q - 0.035),
            ("sans-serif", 11),
        )))?;
    }
    for cdf in &sheet.cdfs {
        let colour = colour(sheet, cdf.series);
        let points = cdf.points.iter().copied().filter(|p| p.0 > 0.0);
        chart.draw_series(LineSeries::new(points, colour.stroke_width(2)))?;
        chart.draw_series(
            cdf.percentiles
                .iter()
                .zip(MARKED_PERCENTILES)
                .filter(|(v, _)| **v > 0.0)
                .map(|(&v, (q, _))| Circle::new((v, q), 4, colour.filled())),
        )?;
    }
    Ok(())
}

/// Grouped bars: group g spans g − 0.4 .. g + 0.4, split among the series;
/// each bar carries its interval as a whisker with caps.
fn draw_bars(sheet: &RunSheet, panel: &BarPanel, area: &Area<'_>) -> Result<()> {
    let groups = panel.groups.len().max(1);
    let top = panel
        .bars
        .iter()
        .map(|b| b.mean + b.half_width)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 13))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(48)
        .build_cartesian_2d(-0.5..(groups as f64 - 0.5), 0.0..top)?;
    let names = panel.groups.clone();
    chart
        .configure_mesh()
        .y_desc(panel.y_label.as_str())
        .x_labels(groups)
        .x_label_formatter(&move |v| {
            let g = v.round();
            if (v - g).abs() < 1e-6 && g >= 0.0 {
                names.get(g as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| tick_label(*v))
        .disable_x_mesh()
        .light_line_style(WHITE)
        .draw()?;
    let per_group = sheet.series.len().max(1) as f64;
    let width = 0.8 / per_group;
    for bar in panel.bars.iter().filter(|b| b.mean.is_finite()) {
        let left = bar.group as f64 - 0.4 + width * bar.series as f64;
        let (x0, x1) = (left + width * 0.1, left + width * 0.9);
        let colour = colour(sheet, bar.series);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x0, 0.0), (x1, bar.mean)],
            colour.filled(),
        )))?;
        let mid = (x0 + x1) / 2.0;
        if bar.half_width > 0.0 {
            let cap = width * 0.2;
            let (lo, hi) = (
                (bar.mean - bar.half_width).max(0.0),
                bar.mean + bar.half_width,
            );
            let whisker = BLACK.stroke_width(1);
            chart.draw_series([
                PathElement::new(vec![(mid, lo), (mid, hi)], whisker),
                PathElement::new(vec![(mid - cap, hi), (mid + cap, hi)], whisker),
                PathElement::new(vec![(mid - cap, lo), (mid + cap, lo)], whisker),
            ])?;
        }
        // The value over the bar (and its interval): a bar of 0 says so.
        chart.draw_series(std::iter::once(Text::new(
            bar_value(bar.mean),
            (mid, bar.mean + bar.half_width.max(0.0)),
            ("sans-serif", 10)
                .into_font()
                .color(&BLACK.mix(0.8))
                .pos(Pos::new(HPos::Center, VPos::Bottom)),
        )))?;
    }
    Ok(())
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

/// The legend, in its own column: one entry per series in its colour, then
/// the marks.
fn draw_legend(sheet: &RunSheet, area: &Area<'_>) -> Result<()> {
    let style = ("sans-serif", 13);
    let mut y = 40;
    for series in &sheet.series {
        area.draw(&PathElement::new(
            vec![(8, y), (34, y)],
            series.colour.stroke_width(3),
        ))?;
        let lines = legend_lines(&series.label);
        let more = lines.len() as i32 - 1;
        for (k, line) in (0..).zip(lines) {
            area.draw(&Text::new(line, (42, y - 7 + 16 * k), style))?;
        }
        y += 24 + 16 * more;
    }
    y += 10;
    area.draw(&Circle::new((21, y), 3, BLACK.mix(0.6).stroke_width(1)))?;
    area.draw(&Text::new("arrival", (42, y - 7), style))?;
    y += 24;
    area.draw(&Circle::new((21, y), 4, BLACK.filled()))?;
    area.draw(&Text::new("p50, p95, p99", (42, y - 7), style))?;
    if sheet
        .bars
        .iter()
        .any(|p| p.bars.iter().any(|b| b.half_width > 0.0))
    {
        y += 24;
        area.draw(&PathElement::new(
            vec![(21, y - 7), (21, y + 7)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&PathElement::new(
            vec![(17, y - 7), (25, y - 7)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&PathElement::new(
            vec![(17, y + 7), (25, y + 7)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&Text::new("95 % interval", (42, y - 7), style))?;
    }
    Ok(())
}
