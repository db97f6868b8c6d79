//! A run's sheet: the arm moving under each policy over the same arrivals,
//! and the response-time distributions, in the style of [`crate::plot`].

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;

use crate::plot::{one_two_five, policy_colour, save, tick_label};

/// One policy's lane of a run sheet: where the arm was over time.
#[derive(Clone, Debug)]
pub struct HeadLane {
    /// The policy's label.
    pub policy: String,
    /// The arm's path: (ms from the run's start, cylinder), joined by lines.
    pub path: Vec<(f64, u32)>,
    /// Arrivals: (ms, the cylinder the request addresses).
    pub arrivals: Vec<(f64, u32)>,
    /// When the followed requests had all left, ms.
    pub span_end_ms: f64,
}

/// One policy's response-time distribution.
#[derive(Clone, Debug)]
pub struct ResponseCdf {
    /// The policy's label.
    pub policy: String,
    /// (response ms, cumulative fraction), increasing.
    pub points: Vec<(f64, f64)>,
    /// The 50th, 95th and 99th percentiles, ms.
    pub percentiles: [f64; 3],
}

/// The percentiles marked on a [`ResponseCdf`].
pub const MARKED_PERCENTILES: [(f64, &str); 3] = [(0.50, "p50"), (0.95, "p95"), (0.99, "p99")];

/// A run's sheet.
#[derive(Clone, Debug)]
pub struct RunSheet {
    /// The title: the drive's name, the workload.
    pub title: String,
    /// Cylinders of the disk (the lanes' height).
    pub cylinders: u32,
    /// How many requests the lanes follow.
    pub followed: u64,
    /// One lane per policy.
    pub lanes: Vec<HeadLane>,
    /// One distribution per policy, in the lanes' order.
    pub cdfs: Vec<ResponseCdf>,
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Writes a run's sheet: on the left one lane per policy with the arm's
/// cylinder against time over the same arrivals (hollow circles at each
/// arrival's instant and cylinder; a dotted line where the followed requests
/// have all left), on the right the response-time distributions on a log
/// axis with p50/p95/p99 marked, and the legend in its own column beside
/// the data. Nothing is written while results are thrown away.
///
/// # Errors
/// When the file cannot be written.
pub fn write_run_sheet(path: &Path, sheet: &RunSheet) -> Result<()> {
    if crate::output::results_discarded() {
        return Ok(());
    }
    save(path, &render_run_sheet(sheet)?)
}

/// Draws a run's sheet (see [`write_run_sheet`]) as SVG text.
///
/// # Errors
/// When plotters fails to draw.
pub fn render_run_sheet(sheet: &RunSheet) -> Result<String> {
    let mut svg = String::new();
    {
        let lanes = sheet.lanes.len().max(1) as u32;
        let height = (150 * lanes + 60).max(560);
        let root = SVGBackend::with_string(&mut svg, (1400, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(&sheet.title, ("sans-serif", 18))?;
        let (left, right) = root.split_horizontally(760);
        let (chart_area, legend_area) = right.split_horizontally(470);
        let end = sheet
            .lanes
            .iter()
            .map(|l| l.span_end_ms)
            .fold(0.0f64, f64::max)
            .max(1e-3);
        for (i, (lane, area)) in sheet
            .lanes
            .iter()
            .zip(left.split_evenly((sheet.lanes.len().max(1), 1)).iter())
            .enumerate()
        {
            let last = i + 1 == sheet.lanes.len();
            draw_lane(lane, i, sheet, end, last, area)
                .with_context(|| format!("drawing the lane of {}", lane.policy))?;
        }
        draw_cdfs(sheet, &chart_area).context("drawing the response-time distributions")?;
        draw_legend(sheet, &legend_area).context("drawing the legend")?;
        root.present().context("drawing the sheet")?;
    }
    Ok(svg)
}

fn draw_lane(
    lane: &HeadLane,
    index: usize,
    sheet: &RunSheet,
    end_ms: f64,
    last: bool,
    area: &Area<'_>,
) -> Result<()> {
    let colour = policy_colour(&lane.policy, index);
    let top = sheet.cylinders.saturating_sub(1).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "{}: arm position, first {} requests",
                lane.policy, sheet.followed
            ),
            ("sans-serif", 13),
        )
        .margin(6)
        .x_label_area_size(if last { 34 } else { 18 })
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..end_ms * 1.02, 0u32..top)?;
    let mut mesh = chart.configure_mesh();
    mesh.y_desc("cylinder")
        .y_labels(4)
        .x_labels(8)
        .x_label_formatter(&|v| tick_label(*v))
        .light_line_style(WHITE);
    if last {
        mesh.x_desc("time since the run started (ms)");
    }
    mesh.draw()?;
    chart.draw_series(LineSeries::new(lane.path.clone(), colour.stroke_width(2)))?;
    chart.draw_series(
        lane.arrivals
            .iter()
            .map(|&(t, c)| Circle::new((t, c), 3, BLACK.mix(0.6).stroke_width(1))),
    )?;
    chart.draw_series(DashedLineSeries::new(
        [(lane.span_end_ms, 0), (lane.span_end_ms, top)],
        2,
        3,
        BLACK.mix(0.5).stroke_width(1),
    ))?;
    Ok(())
}

fn draw_cdfs(sheet: &RunSheet, area: &Area<'_>) -> Result<()> {
    let values = sheet.cdfs.iter().flat_map(|c| c.points.iter().map(|p| p.0));
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values.filter(|v| *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return Ok(());
    }
    let mut chart = ChartBuilder::on(area)
        .caption("response time distribution", ("sans-serif", 13))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d((lo * 0.9..hi * 1.1).log_scale(), 0.0..1.0)?;
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
            [(lo * 0.9, q), (hi * 1.1, q)],
            3,
            3,
            BLACK.mix(0.3).stroke_width(1),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            name,
            (lo * 0.92, q - 0.035),
            ("sans-serif", 11),
        )))?;
    }
    for (i, cdf) in sheet.cdfs.iter().enumerate() {
        let colour = policy_colour(&cdf.policy, i);
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

/// The legend, in its own column: one entry per policy, in its colour.
fn draw_legend(sheet: &RunSheet, area: &Area<'_>) -> Result<()> {
    for (i, lane) in sheet.lanes.iter().enumerate() {
        let colour = policy_colour(&lane.policy, i);
        let y = 70 + 24 * i as i32;
        area.draw(&PathElement::new(
            vec![(8, y), (34, y)],
            colour.stroke_width(3),
        ))?;
        area.draw(&Text::new(
            lane.policy.clone(),
            (42, y - 7),
            ("sans-serif", 13),
        ))?;
    }
    let y = 80 + 24 * sheet.lanes.len() as i32;
    area.draw(&Circle::new((21, y), 3, BLACK.mix(0.6).stroke_width(1)))?;
    area.draw(&Text::new("arrival", (42, y - 7), ("sans-serif", 13)))?;
    area.draw(&Circle::new((21, y + 24), 4, BLACK.filled()))?;
    area.draw(&Text::new(
        "p50, p95, p99",
        (42, y + 17),
        ("sans-serif", 13),
    ))?;
    Ok(())
}
