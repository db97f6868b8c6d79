//! The tool's pictures, in one style: each policy keeps its colour in every
//! picture ([`policy_colour`]). Reproduced figures are panels with one line
//! per policy, simulated points with 95 % error bars, analysis as dashed
//! lines ([`write_svg`]); a run's sheet is in [`crate::sheet`]. Every
//! picture is drawn as SVG text and reaches its file through [`save`].

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

const COLOURS: [RGBColor; 20] = [
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
    RGBColor(57, 59, 121),
    RGBColor(173, 73, 74),
    RGBColor(99, 121, 57),
    RGBColor(140, 109, 49),
    RGBColor(123, 65, 115),
    RGBColor(82, 84, 163),
    RGBColor(181, 207, 107),
    RGBColor(231, 150, 156),
    RGBColor(107, 110, 207),
    RGBColor(214, 97, 107),
];

/// The colour of a policy in every picture: fixed by the policy's place in
/// the policy table, so FCFS is the same blue in a run's sheet and in a
/// paper's figure. `label` may carry parameters ("fd-scan:drop=true") or a
/// qualifier ("SSTF (analysis)"); only the name counts, in any case.
/// Labels that name no policy take the colour of their place in the
/// picture (`fallback`).
pub fn policy_colour(label: &str, fallback: usize) -> RGBColor {
    let name = label
        .split([':', ' ', '('])
        .next()
        .unwrap_or(label)
        .to_ascii_lowercase();
    let index = sched_core::PolicySpec::DEFAULTS
        .iter()
        .position(|p| p.name() == name)
        .unwrap_or(fallback);
    COLOURS[index % COLOURS.len()]
}

/// A tick label without needless decimals: "1000000", "4", "0.25".
pub(crate) fn tick_label(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// `v` if it is 1, 2 or 5 times a power of ten (to rounding): the only
/// ticks a log axis labels, so that its labels do not crowd each other.
pub(crate) fn one_two_five(v: f64) -> Option<f64> {
    if !(v > 0.0 && v.is_finite()) {
        return None;
    }
    let decade = 10f64.powf(v.log10().floor());
    let lead = v / decade;
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (lead - m).abs() < 1e-6 * m)
        .then_some(v)
}

/// Writes `panels` side by side into an SVG file (nothing while results are
/// thrown away: [`discarding_results`](crate::output::discarding_results)).
///
/// # Errors
/// When the file cannot be written.
pub fn write_svg(path: &Path, title: &str, panels: &[Panel]) -> Result<()> {
    if crate::output::results_discarded() {
        return Ok(());
    }
    save(path, &render_panels(title, panels)?)
}

/// Draws `panels` side by side under `title`, as SVG text.
///
/// # Errors
/// When plotters fails to draw.
pub fn render_panels(title: &str, panels: &[Panel]) -> Result<String> {
    let mut svg = String::new();
    {
        let width = 620 * panels.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (width, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(title, ("sans-serif", 18))?;
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (panel, area) in panels.iter().zip(areas.iter()) {
            draw_panel(panel, area).with_context(|| format!("drawing {}", panel.title))?;
        }
        root.present().context("drawing the picture")?;
    }
    Ok(svg)
}

/// Writes a picture drawn as SVG text to `path`, in the format the path's
/// extension names (checked beforehand by [`crate::bounds::svg_path`]):
/// the one place a picture reaches a file.
///
/// # Errors
/// When the file cannot be written.
pub fn save(path: &Path, svg: &str) -> Result<()> {
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes = if png {
        rasterise(svg)?.encode_png().context("encoding the PNG")?
    } else {
        svg.as_bytes().to_vec()
    };
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Renders a picture drawn as SVG text to pixels, one pixel per SVG unit,
/// with the system's fonts ("sans-serif" is DejaVu Sans where installed,
/// as on Debian; without fonts the text is left out and the rest drawn).
///
/// # Errors
/// When the SVG text does not parse or has no area.
pub fn rasterise(svg: &str) -> Result<resvg::tiny_skia::Pixmap> {
    static FONTS: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> =
        std::sync::OnceLock::new();
    let fonts = FONTS.get_or_init(|| {
        let mut fonts = resvg::usvg::fontdb::Database::new();
        fonts.load_system_fonts();
        fonts.set_sans_serif_family("DejaVu Sans");
        std::sync::Arc::new(fonts)
    });
    let options = resvg::usvg::Options {
        fontdb: fonts.clone(),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options).context("reading the SVG drawing")?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .context("the picture has no area")?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
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
        let colour = policy_colour(&base(s), i);
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
