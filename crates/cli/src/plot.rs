//! SVG plots of reproduced figures: one panel per quantity, one line per
//! policy, simulated points with 95 % error bars, analysis as dashed lines.

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;

/// How a series was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Simulation: points with confidence intervals.
    Simulation,
    /// Closed-form analysis: a dashed line.
    Analysis,
}

/// One line of a panel.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Simulation or analysis.
    pub source: Source,
    /// (x, y, half-width of the 95 % interval; 0 for analysis).
    pub points: Vec<(f64, f64, f64)>,
}

/// One chart.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Chart title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
}

const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Writes `panels` side by side into an SVG file (nothing while results are
/// thrown away: [`discarding_results`](crate::output::discarding_results)).
///
/// # Errors
/// When the file cannot be written.
pub fn write_svg(path: &Path, title: &str, panels: &[Panel]) -> Result<()> {
    if crate::output::results_discarded() {
        return Ok(());
    }
    let width = 620 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 18))?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        draw_panel(panel, area).with_context(|| format!("drawing {}", panel.title))?;
    }
    root.present()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn draw_panel(
    panel: &Panel,
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
) -> Result<()> {
    let points = panel.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, y, hw) in points {
        if y.is_finite() {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y + hw);
        }
    }
    if !x0.is_finite() {
        return Ok(());
    }
    let pad = ((x1 - x0) * 0.03).max(1e-9);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(38)
        .y_label_area_size(56)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..(y1 * 1.05).max(1e-9))?;
    chart
        .configure_mesh()
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .draw()?;
    // An analysis line ("POLICY (analysis)", "POLICY (lower bound)") takes
    // the colour of the policy it models.
    let base = |s: &Series| match s.source {
        Source::Analysis => s
            .label
            .rsplit_once(" (")
            .map_or(s.label.as_str(), |(b, _)| b)
            .to_string(),
        Source::Simulation => s.label.clone(),
    };
    let mut names: Vec<String> = Vec::new();
    for s in &panel.series {
        let b = base(s);
        if !names.contains(&b) {
            names.push(b);
        }
    }
    for s in &panel.series {
        let i = names.iter().position(|n| *n == base(s)).unwrap_or(0);
        let colour = COLOURS[i % COLOURS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|p| (p.0, p.1))
            .collect();
        match s.source {
            Source::Simulation => {
                chart
                    .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?
                    .label(s.label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                    });
                chart.draw_series(
                    pts.iter()
                        .map(|&(x, y)| Circle::new((x, y), 3, colour.filled())),
                )?;
                chart.draw_series(
                    s.points
                        .iter()
                        .filter(|p| p.1.is_finite() && p.2 > 0.0)
                        .map(|&(x, y, hw)| {
                            PathElement::new(vec![(x, y - hw), (x, y + hw)], colour.stroke_width(1))
                        }),
                )?;
            }
            Source::Analysis => {
                chart
                    .draw_series(DashedLineSeries::new(pts, 6, 4, colour.stroke_width(1)))?
                    .label(s.label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(1))
                    });
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 12))
        .draw()?;
    Ok(())
}
