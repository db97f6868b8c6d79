//! The tool's pictures, in one style. Every figure is panels of curves
//! ([`Panel`], [`Series`]) drawn by [`draw_panels`]: each curve keeps its
//! policy's colour in every picture ([`policy_colour`], [`curve_colours`]);
//! simulations are solid lines with dots and 95 % error bars, models dashed
//! lines, a model's bounds thin dashed lines with the band between them
//! shaded, measurements wide pale lines beneath the rest, so that no style
//! hides another; one legend for the figure stands beside the panels,
//! where it covers no data, with a curve's entries grouped under one name
//! and a key of the styles; axes carry their units, integral axes whole
//! ticks, tick labels no needless decimals; either axis may be
//! logarithmic ([`Scales`]). A run's sheet is in [`crate::sheet`]. Every
//! picture is drawn as SVG text and reaches its file through [`crate::report::save`].

mod axis;
mod figure;
mod svg;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub use axis::{Axis, Tick};
pub(crate) use figure::{AXIS_INK, GRID, INK, MINOR_GRID};
pub use figure::{
    CurveLayout, Drawing, Layout, LegendEntry, LegendLayout, PanelLayout, Rect, TextBox, TextRole,
};
pub use svg::text_width;
pub(crate) use svg::{ASCENT, Anchor, Stroke, Svg, escape};

/// A colour, as red, green and blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// How a series was obtained, which decides how it is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Simulation: a solid line through dots, with 95 % error bars.
    Simulation,
    /// A measurement of a real device: a wide pale line, beneath the rest.
    Measurement,
    /// A model's value (closed form, chain, a model's prediction): a dashed
    /// line.
    Model,
    /// A model's lower bound: a thin dashed line, the band up to the upper
    /// bound of the same curve shaded.
    LowerBound,
    /// A model's upper bound.
    UpperBound,
}

/// One series of a panel.
#[derive(Clone, Debug)]
pub struct Series {
    /// The curve it belongs to: its legend entry and colour. A model's
    /// series carry the name of the simulated curve they model, so that the
    /// legend lists each policy once.
    pub curve: String,
    /// How it was obtained.
    pub source: Source,
    /// (x, y, half-width of the 95 % interval; 0 where there is none).
    pub points: Vec<(f64, f64, f64)>,
}

/// One chart of a figure.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Its caption; left out when empty or when the figure's title says it.
    pub title: String,
    /// X axis label, with its unit.
    pub x_label: String,
    /// Y axis label, with its unit.
    pub y_label: String,
    /// The x axis is logarithmic unless told otherwise ([`Scales`]).
    pub log_x: bool,
    /// The y axis is logarithmic unless told otherwise ([`Scales`]).
    pub log_y: bool,
    /// The series.
    pub series: Vec<Series>,
}

impl Panel {
    /// A panel with linear axes and no series yet.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Panel {
        Panel {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_x: false,
            log_y: false,
            series: Vec::new(),
        }
    }
}

/// Scales the command line asks for, over each panel's own choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scales {
    /// Logarithmic x axes (`Some(true)`), linear (`Some(false)`), or as
    /// each panel says.
    pub log_x: Option<bool>,
    /// The same for the y axes.
    pub log_y: Option<bool>,
}

/// The palette, in the policy registry's order (FCFS, SSTF, SCAN, LOOK,
/// C-SCAN, C-LOOK, ...; an index past the end wraps). Slots are placed so
/// that the policies a picture compares stand apart: the default
/// experiment's six, the mirrored policies with Linux's, Chen & Towsley's
/// with Linux's, the deadline policies (the test
/// `compared_policies_stand_apart`). A policy added to the registry moves
/// those after it: that test says when the slots need placing again.
const COLOURS: [Rgb; 20] = [
    Rgb(31, 119, 180),
    Rgb(255, 127, 14),
    Rgb(44, 160, 44),
    Rgb(214, 39, 40),
    Rgb(0, 128, 128),
    Rgb(0, 100, 60),
    Rgb(227, 119, 194),
    Rgb(148, 103, 189),
    Rgb(188, 189, 34),
    Rgb(23, 190, 207),
    Rgb(123, 65, 115),
    Rgb(140, 86, 75),
    Rgb(82, 84, 163),
    Rgb(140, 109, 49),
    Rgb(200, 60, 140),
    Rgb(57, 59, 121),
    Rgb(173, 73, 74),
    Rgb(99, 121, 57),
    Rgb(107, 110, 207),
    Rgb(214, 97, 107),
];

/// The policy a label names: the place in the policy registry
/// ([`sched_core::registry::POLICIES`]) of the longest policy name the
/// label starts with, in any case, followed by nothing or by a parameter,
/// qualifier or variant ("fd-scan:drop=true", "SSTF (analysis)",
/// "RT-DMQ(FD-SCAN)", "WRR-SCAN-R", "CMQ, exponential service").
fn policy_index(label: &str) -> Option<usize> {
    let label = label.to_ascii_lowercase();
    sched_core::registry::POLICIES
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            label
                .strip_prefix(p.name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', ' ', '(', ',', '-']))
        })
        .max_by_key(|(_, p)| p.name.len())
        .map(|(i, _)| i)
}

/// The colour of a policy in every picture: fixed by the policy's place in
/// the policy registry, so FCFS is the same blue in a run's sheet and in a
/// paper's figure and CMQ the same colour in each of Towsley's figures
/// (see `policy_index` for the labels that name a policy). Labels that
/// name no policy take the colour of their place in the picture
/// (`fallback`).
pub fn policy_colour(label: &str, fallback: usize) -> Rgb {
    COLOURS[policy_index(label).unwrap_or(fallback) % COLOURS.len()]
}

/// The colours of a picture's curves, in order: each its
/// [`policy_colour`] (curves naming no policy counted by their place among
/// such curves), except that no two curves share one. When two would (two
/// variants of a policy, as RT-DMQ(SSEDO) and RT-DMQ(FD-SCAN); or policies
/// the palette's length apart in the registry), the later takes the next
/// colour of the palette not yet taken.
pub fn curve_colours(labels: &[&str]) -> Vec<Rgb> {
    let mut taken: Vec<usize> = Vec::new();
    let mut unnamed = 0;
    for label in labels {
        let mut k = policy_index(label).unwrap_or_else(|| {
            unnamed += 1;
            unnamed - 1
        }) % COLOURS.len();
        while taken.contains(&k) && taken.len() < COLOURS.len() {
            k = (k + 1) % COLOURS.len();
        }
        taken.push(k);
    }
    taken.into_iter().map(|k| COLOURS[k]).collect()
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

/// Draws `panels` under `title` as one figure: the panels in a grid of at
/// most two columns, one legend beside them. Returns the SVG text with the
/// layout it was drawn to (plot areas, axes, points in pixels, legend,
/// every text's box).
pub fn draw_panels(title: &str, panels: &[Panel], scales: Scales) -> Drawing {
    figure::draw(title, panels, scales)
}

/// The file of figure `number` when a command draws `count` figures to
/// `base` (as `--plot` names it): `{N}` in the file's name stands for the
/// number (`fig{N}.svg` → `fig3.svg`); without it, one figure is drawn to
/// `base` itself and several get `-figN` before the extension
/// (`out.svg` → `out-fig1.svg`, `out-fig2.svg`, …).
pub fn figure_path(base: &Path, number: u8, count: usize) -> PathBuf {
    let name = base
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if name.contains(FIGURE_NUMBER) {
        return base.with_file_name(name.replace(FIGURE_NUMBER, &number.to_string()));
    }
    if count <= 1 {
        return base.to_path_buf();
    }
    let stem = base
        .file_stem()
        .map_or_else(|| "figure".into(), |s| s.to_string_lossy().into_owned());
    let ext = base
        .extension()
        .map_or_else(|| "svg".into(), |s| s.to_string_lossy().into_owned());
    base.with_file_name(format!("{stem}-fig{number}.{ext}"))
}

/// What stands for a figure's number in `--plot`'s file name.
pub const FIGURE_NUMBER: &str = "{N}";

/// The system's fonts, loaded once; "sans-serif" is DejaVu Sans.
fn fonts() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static FONTS: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> =
        std::sync::OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut fonts = resvg::usvg::fontdb::Database::new();
            fonts.load_system_fonts();
            fonts.set_sans_serif_family("DejaVu Sans");
            std::sync::Arc::new(fonts)
        })
        .clone()
}

/// Whether the system has a font to set text in (without one, pictures
/// rendered to pixels have no text).
pub fn fonts_available() -> bool {
    fonts().faces().next().is_some()
}

/// A picture drawn as SVG text, parsed and laid out as [`rasterise`] draws
/// it (its text set in the system's fonts), for looking into what was
/// drawn where.
///
/// # Errors
/// When the SVG text does not parse.
pub fn svg_tree(svg: &str) -> Result<resvg::usvg::Tree> {
    let options = resvg::usvg::Options {
        fontdb: fonts(),
        ..Default::default()
    };
    resvg::usvg::Tree::from_str(svg, &options).context("reading the SVG drawing")
}

/// Renders a picture drawn as SVG text to pixels, one pixel per SVG unit,
/// with the system's fonts ("sans-serif" is DejaVu Sans where installed,
/// as on Debian; without fonts the text is left out and the rest drawn).
///
/// # Errors
/// When the SVG text does not parse or has no area.
pub fn rasterise(svg: &str) -> Result<resvg::tiny_skia::Pixmap> {
    let tree = svg_tree(svg)?;
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

/// Where and how a command draws its figures: `--plot FILE`, `--log-y`.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct PlotArgs {
    /// Also draw the figures to FILE, an .svg or a .png. One figure is
    /// drawn to FILE itself. With several, {N} in FILE's name stands for
    /// each figure's number (--plot 'fig{N}.png' writes fig1.png,
    /// fig2.png, …); without it, FILE's name gets -figN before its
    /// extension (--plot out.svg writes out-fig1.svg, out-fig2.svg, …).
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE", value_parser = crate::bounds::svg_path))]
    pub plot: Option<PathBuf>,
    /// Logarithmic y axes, in --plot's files and --html's page
    /// (--log-y=false: linear). Without it, each figure
    /// takes its own: linear, except where curves span decades (towsley91
    /// Figure 6, whose 3000 ms tails would flatten the other curves).
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "BOOL",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "true"
        )
    )]
    pub log_y: Option<bool>,
}

impl PlotArgs {
    /// The scales asked for.
    pub fn scales(&self) -> Scales {
        Scales {
            log_x: None,
            log_y: self.log_y,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_their_policy() {
        let index = |name: &str| {
            sched_core::registry::POLICIES
                .iter()
                .position(|p| p.name == name)
        };
        assert_eq!(policy_index("fd-scan:drop=true"), index("fd-scan"));
        assert_eq!(policy_index("SSTF (analysis)"), index("sstf"));
        assert_eq!(policy_index("RT-DMQ(FD-SCAN)"), index("rt-dmq"));
        assert_eq!(policy_index("RT-DMQ-MR"), index("rt-dmq-mr"));
        assert_eq!(policy_index("WRR-SCAN-R"), index("wrr-scan"));
        assert_eq!(policy_index("CMQ, exponential service"), index("cmq"));
        assert!(index("cmq").is_some() && index("rt-dmq-mr").is_some());
        assert_eq!(policy_index("36-way stripe"), None);
        assert_eq!(policy_index("fcfsx"), None);
    }

    #[test]
    fn a_policy_keeps_its_colour_and_a_picture_has_no_two_alike() {
        let a = curve_colours(&["CRU-ESQ", "MR-ESQ", "R-DMQ", "CMQ"]);
        let b = curve_colours(&["S-PSSQ", "C-PSSQ", "CR-ESQ", "CRU-ESQ", "MR-ESQ"]);
        assert_eq!(a[0], b[3]);
        assert_eq!(a[1], b[4]);
        let variants =
            curve_colours(&["RT-DMQ(SSEDO)", "RT-DMQ(FD-SCAN)", "DMQ(SSTF)", "DMQ(FCFS)"]);
        for (i, c) in variants.iter().enumerate() {
            assert!(!variants[..i].contains(c), "{variants:?}");
        }
        assert_eq!(variants[0], policy_colour("rt-dmq", 0));
    }

    /// Whether two colours are hard to tell apart as thin lines: their
    /// "redmean" distance (a cheap approximation of perceived distance)
    /// under 150, a line drawn by eye (the palette's orange and red, which
    /// read apart, are 193).
    fn alike(a: Rgb, b: Rgb) -> bool {
        let mean_red = (f64::from(a.0) + f64::from(b.0)) / 2.0;
        let d = |x: u8, y: u8| f64::from(x) - f64::from(y);
        let (dr, dg, db) = (d(a.0, b.0), d(a.1, b.1), d(a.2, b.2));
        let distance = ((2.0 + mean_red / 256.0) * dr * dr
            + 4.0 * dg * dg
            + (2.0 + (255.0 - mean_red) / 256.0) * db * db)
            .sqrt();
        distance < 150.0
    }

    #[test]
    fn compared_policies_stand_apart() {
        let groups: [&[&str]; 5] = [
            &["fcfs", "sstf", "look", "c-look", "vscan", "sptf"],
            &["dmq", "cmq", "rt-dmq", "rt-cmq", "linux-raid1"],
            &[
                "ssedo",
                "fcfs",
                "rt-dmq",
                "rt-cmq",
                "mq-deadline",
                "bfq",
                "linux-raid1",
            ],
            &["mq-deadline", "bfq", "sstf", "ssedo"],
            &["edf", "ssedo", "fd-scan", "fcfs"],
        ];
        for group in groups {
            for (i, a) in group.iter().enumerate() {
                for b in &group[..i] {
                    let (ca, cb) = (policy_colour(a, 0), policy_colour(b, 0));
                    assert!(!alike(ca, cb), "{a} {ca:?} and {b} {cb:?}");
                }
            }
        }
    }

    #[test]
    fn figures_are_named_as_the_help_says() {
        let p = |base: &str, n, count| figure_path(Path::new(base), n, count);
        assert_eq!(p("out.svg", 3, 1), Path::new("out.svg"));
        assert_eq!(p("out.svg", 3, 6), Path::new("out-fig3.svg"));
        assert_eq!(p("dir/fig{N}.png", 12, 8), Path::new("dir/fig12.png"));
        assert_eq!(p("fig{N}.svg", 2, 1), Path::new("fig2.svg"));
    }
}
