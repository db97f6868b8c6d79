//! A figure's layout and drawing: its panels in a grid of at most two
//! columns, each with its axes, and one legend in a column of its own
//! beside them, so that no legend covers data. The layout is returned with
//! the SVG text, so that tests can check what a reader would see.

use super::axis::Axis;
use super::svg::{ASCENT, Anchor, DESCENT, Stroke, Svg, text_width};
use super::{Panel, Rgb, Scales, Series, Source, curve_colours};

const TITLE_SIZE: f64 = 18.0;
const CAPTION_SIZE: f64 = 14.0;
const LABEL_SIZE: f64 = 13.0;
const TICK_SIZE: f64 = 12.0;
const LEGEND_SIZE: f64 = 12.0;
/// The plot area of every panel, pixels.
const PLOT_W: f64 = 460.0;
const PLOT_H: f64 = 300.0;
const MARGIN: f64 = 16.0;
const TICK_LEN: f64 = 5.0;
/// Between a tick mark and its label.
const TICK_GAP: f64 = 4.0;
/// Between a group of labels and the next thing.
const GAP: f64 = 8.0;
/// The widest line of legend text before it wraps.
const LEGEND_TEXT_MAX: f64 = 230.0;
const SWATCH_W: f64 = 28.0;
const LINE_SPACING: f64 = 1.3;

pub(crate) const INK: Rgb = Rgb(34, 34, 34);
pub(crate) const AXIS_INK: Rgb = Rgb(85, 85, 85);
pub(crate) const GRID: Rgb = Rgb(222, 222, 222);
pub(crate) const MINOR_GRID: Rgb = Rgb(241, 241, 241);
const KEY_INK: Rgb = Rgb(90, 90, 90);
const LEGEND_BORDER: Rgb = Rgb(190, 190, 190);

/// A rectangle, pixels from the picture's top left corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }

    /// Whether `(x, y)` lies inside or on the edge.
    pub fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.x && x <= self.right() && y >= self.y && y <= self.bottom()
    }

    /// Whether the two share some area (touching edges do not count).
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.bottom()
            && other.y < self.bottom()
    }

    /// Grown by `d` on every side.
    pub fn grown(&self, d: f64) -> Rect {
        Rect {
            x: self.x - d,
            y: self.y - d,
            w: self.w + 2.0 * d,
            h: self.h + 2.0 * d,
        }
    }

    fn parts(&self) -> (f64, f64, f64, f64) {
        (self.x, self.y, self.w, self.h)
    }
}

/// What a piece of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextRole {
    /// The figure's title.
    Title,
    /// A panel's caption.
    Caption,
    /// The x axis's label.
    XLabel,
    /// The y axis's label (turned).
    YLabel,
    /// A tick label of the x axis.
    XTick,
    /// A tick label of the y axis.
    YTick,
    /// A legend entry.
    Legend,
    /// A note in an empty panel.
    Note,
}

/// A piece of text and the box it is drawn in.
#[derive(Clone, Debug, PartialEq)]
pub struct TextBox {
    /// The text.
    pub text: String,
    /// What it is.
    pub role: TextRole,
    /// Where its ink can be: the font's advance widths across, ascent and
    /// descent up and down.
    pub rect: Rect,
}

/// One series as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveLayout {
    /// The curve (legend entry) it belongs to.
    pub curve: String,
    /// How it was obtained, which sets its style.
    pub source: Source,
    /// Its colour.
    pub colour: Rgb,
    /// Its points on the axes' scales, pixels.
    pub points: Vec<(f64, f64)>,
    /// Markers at the plot's edge for points a log axis cannot show (zero
    /// or below), pixels.
    pub off_scale: Vec<(f64, f64)>,
    /// Error bars: (x, top, bottom), pixels, cut to the plot area.
    pub bars: Vec<(f64, f64, f64)>,
}

/// A panel as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct PanelLayout {
    /// The plot area (inside the axes).
    pub plot: Rect,
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    /// The tick marks, outside the plot area.
    pub tick_marks: Vec<Rect>,
    /// The series, in the panel's order.
    pub curves: Vec<CurveLayout>,
}

/// A legend entry: a curve (with its colour) or a style of the key.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// Its text.
    pub text: String,
    /// The curve's colour; `None` for an entry of the style key.
    pub colour: Option<Rgb>,
    /// Where its sample line is.
    pub swatch: Rect,
    /// The curve drawn over this one with the very same values, which
    /// hides it (said in the entry: "under CMQ: the same values").
    pub hidden_under: Option<String>,
}

/// The legend, beside the panels.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendLayout {
    /// Its frame.
    pub frame: Rect,
    /// One entry per curve, in order of first appearance.
    pub curves: Vec<LegendEntry>,
    /// One entry per style drawn (simulation, measurement, model, bounds,
    /// off-scale markers).
    pub key: Vec<LegendEntry>,
}

/// Where everything of a figure was drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Picture width, pixels.
    pub width: f64,
    /// Picture height, pixels.
    pub height: f64,
    /// The panels.
    pub panels: Vec<PanelLayout>,
    /// The legend.
    pub legend: LegendLayout,
    /// Every piece of text.
    pub texts: Vec<TextBox>,
}

/// A figure drawn: its SVG text and its layout.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// The picture.
    pub svg: String,
    /// Where its parts are.
    pub layout: Layout,
}

/// `text` broken at spaces into lines no wider than `max` where possible.
fn wrap(text: &str, max: f64, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(&candidate, size) > max {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The height one line of text takes.
fn line_height(size: f64) -> f64 {
    size * LINE_SPACING
}

/// The ink box of `text` with its baseline at `y` (before turning).
fn text_rect(x: f64, y: f64, text: &str, size: f64, anchor: Anchor, vertical: bool) -> Rect {
    let w = text_width(text, size);
    let start = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => w / 2.0,
        Anchor::End => w,
    };
    if vertical {
        // Turned a quarter anticlockwise about (x, y): the text runs up,
        // its ascent is to the left of x.
        Rect {
            x: x - ASCENT * size,
            y: y - (w - start),
            w: (ASCENT + DESCENT) * size,
            h: w,
        }
    } else {
        Rect {
            x: x - start,
            y: y - ASCENT * size,
            w,
            h: (ASCENT + DESCENT) * size,
        }
    }
}

/// The figure being drawn: the SVG and the text boxes so far.
struct Canvas {
    svg: Svg,
    texts: Vec<TextBox>,
}

impl Canvas {
    fn text(
        &mut self,
        at: (f64, f64),
        text: &str,
        size: f64,
        anchor: Anchor,
        role: TextRole,
        vertical: bool,
    ) {
        self.svg.text(at, text, size, anchor, INK, vertical);
        self.texts.push(TextBox {
            text: text.to_string(),
            role,
            rect: text_rect(at.0, at.1, text, size, anchor, vertical),
        });
    }
}

/// What a panel needs before it is placed: its axes and text.
struct Plan<'a> {
    panel: &'a Panel,
    x: Axis,
    y: Axis,
    caption: Vec<String>,
    x_label: Vec<String>,
    y_label: Vec<String>,
    y_tick_width: f64,
    /// Room left of the plot area.
    left: f64,
    /// Room above it (the caption).
    top: f64,
    /// Room right of it (the last x tick label's overhang).
    right: f64,
}

/// Room below every plot area: tick marks, tick labels, the x label.
fn bottom_room(x_label_lines: usize) -> f64 {
    TICK_LEN
        + TICK_GAP
        + (ASCENT + DESCENT) * TICK_SIZE
        + GAP
        + x_label_lines as f64 * line_height(LABEL_SIZE)
        + GAP
}

/// The smallest and largest of `values` (positive ones only on a log
/// axis), if any.
fn extent(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// The x axis of a panel: the data's range with a little room at both
/// ends; whole-number ticks when every x is whole; as many ticks as fit
/// their labels.
fn x_axis(panel: &Panel, log: bool) -> Axis {
    let xs = || {
        panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter(|p| p.1.is_finite()).map(|p| p.0))
    };
    let Some((lo, hi)) = extent(xs(), log) else {
        return Axis::linear(0.0, 1.0, false, 4);
    };
    if log {
        let room = (hi / lo).powf(0.03);
        return Axis::logarithmic(lo / room, hi * room);
    }
    let integral = xs().filter(|v| v.is_finite()).all(|v| v.fract() == 0.0);
    let room = (hi - lo) * 0.03;
    (2..=10)
        .rev()
        .map(|n| Axis::linear(lo - room, hi + room, integral, n))
        .find(|axis| {
            let labels: Vec<(f64, &str)> = axis.labels().collect();
            let widest = labels
                .iter()
                .map(|(_, l)| text_width(l, TICK_SIZE))
                .fold(0.0, f64::max);
            labels.windows(2).all(|w| {
                let spacing = (w[1].0 - w[0].0) / (axis.hi - axis.lo) * PLOT_W;
                spacing >= widest + 14.0
            })
        })
        .unwrap_or_else(|| Axis::linear(lo - room, hi + room, integral, 2))
}

/// The y axis of a panel: from zero (on a linear axis, when nothing is
/// negative) to the highest mean or interval end, with a little room. A
/// log axis spans the positive values (zeros are marked at its foot); a
/// panel with none is drawn linear, and its label does not say log.
fn y_axis(panel: &Panel, log: bool) -> Axis {
    let ys = || {
        panel.series.iter().flat_map(|s| {
            s.points
                .iter()
                .filter(|p| p.1.is_finite())
                .flat_map(|&(_, y, hw)| [y, y - hw, y + hw])
        })
    };
    let Some((lo, hi)) = extent(ys(), log) else {
        return Axis::linear(0.0, 1.0, false, 4);
    };
    if log {
        // Interval ends at or below zero are drawn to the axis's foot.
        let room = (hi / lo).powf(0.04);
        return Axis::logarithmic(lo / room, hi * room);
    }
    let means = extent(
        panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1)),
        false,
    )
    .unwrap_or((lo, hi));
    // A mean that cannot be negative may still have an interval reaching
    // below zero; the axis starts at zero all the same.
    let lo = if means.0 >= 0.0 { 0.0 } else { lo };
    let room = (hi - lo) * 0.05;
    let integral = ys().all(|v| v.fract() == 0.0);
    let top = hi + room;
    let bottom = if lo == 0.0 { 0.0 } else { lo - room };
    Axis::linear(bottom, top, integral, 6)
}

fn plan<'a>(panel: &'a Panel, scales: Scales, figure_title: &str) -> Plan<'a> {
    let x = x_axis(panel, scales.log_x.unwrap_or(panel.log_x));
    let y = y_axis(panel, scales.log_y.unwrap_or(panel.log_y));
    // A caption the title already says is left out.
    let caption = if panel.title.is_empty()
        || figure_title
            .to_lowercase()
            .contains(&panel.title.to_lowercase())
    {
        Vec::new()
    } else {
        wrap(&panel.title, PLOT_W + 40.0, CAPTION_SIZE)
    };
    let x_label = wrap(&axis_label(&panel.x_label, &x), PLOT_W, LABEL_SIZE);
    let y_label = wrap(&axis_label(&panel.y_label, &y), PLOT_H - 10.0, LABEL_SIZE);
    let y_tick_width = y
        .labels()
        .map(|(_, l)| text_width(l, TICK_SIZE))
        .fold(0.0, f64::max);
    let left = 4.0
        + y_label.len() as f64 * line_height(LABEL_SIZE)
        + GAP
        + y_tick_width
        + TICK_GAP
        + TICK_LEN;
    let top = if caption.is_empty() {
        GAP
    } else {
        caption.len() as f64 * line_height(CAPTION_SIZE) + GAP
    };
    let overhang = x
        .labels()
        .last()
        .map_or(0.0, |(v, l)| {
            let at = x.fraction(v).unwrap_or(1.0) * PLOT_W;
            at + text_width(l, TICK_SIZE) / 2.0 - PLOT_W
        })
        .max(0.0);
    Plan {
        panel,
        x,
        y,
        caption,
        x_label,
        y_label,
        y_tick_width,
        left,
        top,
        right: overhang + 14.0,
    }
}

/// An axis label saying when the axis is logarithmic.
fn axis_label(label: &str, axis: &Axis) -> String {
    if axis.log {
        format!("{label}, log scale")
    } else {
        label.to_string()
    }
}

/// The styles of the key, in the order they are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyStyle {
    Simulation,
    Measurement,
    Model,
    Bounds,
    OffScale,
}

impl KeyStyle {
    /// In the order the key lists them.
    const ALL: [KeyStyle; 5] = [
        KeyStyle::Simulation,
        KeyStyle::Measurement,
        KeyStyle::Model,
        KeyStyle::Bounds,
        KeyStyle::OffScale,
    ];

    fn text(self) -> &'static str {
        match self {
            KeyStyle::Simulation => "simulation: mean, 95 % CI",
            KeyStyle::Measurement => "measurement",
            KeyStyle::Model => "model",
            KeyStyle::Bounds => "model's lower and upper bounds",
            KeyStyle::OffScale => "zero or below (off the log scale)",
        }
    }
}

/// Draws `panels` under `title` with one legend for all (see the module's
/// documentation).
pub(super) fn draw(title: &str, panels: &[Panel], scales: Scales) -> Drawing {
    let plans: Vec<Plan<'_>> = panels.iter().map(|p| plan(p, scales, title)).collect();
    let columns = plans.len().clamp(1, 2);
    let rows = plans.len().div_ceil(columns).max(1);
    let column_left: Vec<f64> = (0..columns)
        .map(|c| {
            plans
                .iter()
                .skip(c)
                .step_by(columns)
                .map(|p| p.left)
                .fold(0.0, f64::max)
        })
        .collect();
    let column_right: Vec<f64> = (0..columns)
        .map(|c| {
            plans
                .iter()
                .skip(c)
                .step_by(columns)
                .map(|p| p.right)
                .fold(0.0, f64::max)
        })
        .collect();
    let row_top: Vec<f64> = (0..rows)
        .map(|r| {
            plans
                .iter()
                .skip(r * columns)
                .take(columns)
                .map(|p| p.top)
                .fold(0.0, f64::max)
        })
        .collect();
    let row_bottom: Vec<f64> = (0..rows)
        .map(|r| {
            plans
                .iter()
                .skip(r * columns)
                .take(columns)
                .map(|p| bottom_room(p.x_label.len()))
                .fold(0.0, f64::max)
        })
        .collect();

    // The curves, in order of first appearance, and their colours.
    let mut curves: Vec<&str> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !curves.contains(&s.curve.as_str()) {
            curves.push(&s.curve);
        }
    }
    let colours = curve_colours(&curves);
    let colour_of = |curve: &str| {
        curves
            .iter()
            .position(|c| *c == curve)
            .map_or(INK, |i| colours[i])
    };

    // What the key lists: the styles drawn; each curve's sample takes the
    // style of its foremost series (a simulation before a measurement, a
    // measurement before a model, a model before its bounds).
    let style_of = |source: Source| match source {
        Source::Simulation => KeyStyle::Simulation,
        Source::Measurement => KeyStyle::Measurement,
        Source::Model => KeyStyle::Model,
        Source::LowerBound | Source::UpperBound => KeyStyle::Bounds,
    };
    let mut styles: Vec<KeyStyle> = Vec::new();
    for (p, plan) in panels.iter().zip(&plans) {
        for s in &p.series {
            styles.push(style_of(s.source));
            let off = s.points.iter().any(|&(x, y, _)| {
                y.is_finite() && ((plan.x.log && x <= 0.0) || (plan.y.log && y <= 0.0))
            });
            if off {
                styles.push(KeyStyle::OffScale);
            }
        }
    }
    let curve_entries: Vec<Entry> = curves
        .iter()
        .zip(&colours)
        .enumerate()
        .map(|(i, (&curve, &colour))| {
            let style = KeyStyle::ALL
                .into_iter()
                .find(|&k| {
                    panels
                        .iter()
                        .flat_map(|p| &p.series)
                        .any(|s| s.curve == curve && style_of(s.source) == k)
                })
                .unwrap_or(KeyStyle::Simulation);
            // A curve with the very same values as one drawn after it is
            // hidden under it: the entry says so.
            let hidden_under = curves[i + 1..]
                .iter()
                .find(|&&later| same_values(panels, curve, later))
                .map(|later| (*later).to_string());
            let mut lines = wrap(curve, LEGEND_TEXT_MAX, LEGEND_SIZE);
            if let Some(later) = &hidden_under {
                lines.extend(wrap(
                    &format!("under {later}: the same values"),
                    LEGEND_TEXT_MAX,
                    LEGEND_SIZE,
                ));
            }
            Entry {
                text: curve.to_string(),
                lines,
                colour: Some(colour),
                style,
                marker: Marker::of(i),
                hidden_under,
            }
        })
        .collect();

    // The key lists the styles the curves' samples do not show (a curve's
    // model or bounds beside its simulation), the simulation's always (its
    // interval bars), and the markers of values off a log scale.
    let shown = |style: KeyStyle| {
        panels.iter().flat_map(|p| &p.series).all(|s| {
            style_of(s.source) != style
                || curve_entries
                    .iter()
                    .any(|e| e.text == s.curve && e.style == style)
        })
    };
    let key: Vec<Entry> = KeyStyle::ALL
        .into_iter()
        .filter(|&k| {
            styles.contains(&k)
                && (matches!(k, KeyStyle::Simulation | KeyStyle::OffScale) || !shown(k))
        })
        .map(|style| Entry {
            text: style.text().to_string(),
            lines: wrap(style.text(), LEGEND_TEXT_MAX, LEGEND_SIZE),
            colour: None,
            style,
            marker: Marker::Circle,
            hidden_under: None,
        })
        .collect();

    // The legend's size.
    let widest = curve_entries
        .iter()
        .chain(&key)
        .flat_map(|e| &e.lines)
        .map(|l| text_width(l, LEGEND_SIZE))
        .fold(0.0, f64::max);
    let legend_w = 10.0 + SWATCH_W + 8.0 + widest + 10.0;
    let entry_h = |e: &Entry| e.lines.len() as f64 * line_height(LEGEND_SIZE) + 5.0;
    let legend_h = 8.0
        + curve_entries.iter().map(entry_h).sum::<f64>()
        + if key.is_empty() { 0.0 } else { 10.0 }
        + key.iter().map(entry_h).sum::<f64>()
        + 6.0;

    let panels_w: f64 = (0..columns)
        .map(|c| column_left[c] + PLOT_W + column_right[c])
        .sum();
    let width = (MARGIN + panels_w + 16.0 + legend_w + MARGIN).ceil();
    let title_lines = wrap(title, width - 2.0 * MARGIN, TITLE_SIZE);
    let title_h = MARGIN / 2.0 + title_lines.len() as f64 * line_height(TITLE_SIZE) + GAP;
    let panels_h: f64 = (0..rows).map(|r| row_top[r] + PLOT_H + row_bottom[r]).sum();
    let legend_x = MARGIN + panels_w + 16.0;
    let legend_y = title_h + row_top[0];
    let height = (title_h + panels_h).max(legend_y + legend_h).ceil() + MARGIN;

    let mut canvas = Canvas {
        svg: Svg::new(width, height),
        texts: Vec::new(),
    };
    for (i, line) in title_lines.iter().enumerate() {
        let baseline = MARGIN / 2.0 + ASCENT * TITLE_SIZE + i as f64 * line_height(TITLE_SIZE);
        canvas.text(
            (width / 2.0, baseline),
            line,
            TITLE_SIZE,
            Anchor::Middle,
            TextRole::Title,
            false,
        );
    }

    let mut laid_out = Vec::new();
    for (i, plan) in plans.iter().enumerate() {
        let (row, column) = (i / columns, i % columns);
        let x = MARGIN
            + (0..column)
                .map(|c| column_left[c] + PLOT_W + column_right[c])
                .sum::<f64>()
            + column_left[column];
        let y = title_h
            + (0..row)
                .map(|r| row_top[r] + PLOT_H + row_bottom[r])
                .sum::<f64>()
            + row_top[row];
        let plot = Rect {
            x,
            y,
            w: PLOT_W,
            h: PLOT_H,
        };
        let cell_left = x - column_left[column];
        laid_out.push(draw_panel(
            &mut canvas,
            plan,
            plot,
            cell_left,
            &curves,
            &colour_of,
        ));
    }

    let legend = draw_legend(
        &mut canvas,
        Rect {
            x: legend_x,
            y: legend_y,
            w: legend_w,
            h: legend_h,
        },
        &curve_entries,
        &key,
    );
    Drawing {
        svg: canvas.svg.finish(),
        layout: Layout {
            width,
            height,
            panels: laid_out,
            legend,
            texts: canvas.texts,
        },
    }
}

/// How a series's points are drawn in one panel.
struct Mapped {
    /// Runs of points on the scale, pixels: broken where a point is off it.
    runs: Vec<Vec<(f64, f64)>>,
    on_scale: Vec<(f64, f64)>,
    off_scale: Vec<(f64, f64)>,
    /// (x, y, interval's lower end, upper end), pixels, for points on the scale.
    bars: Vec<(f64, f64, f64, f64)>,
}

fn map_points(points: &[(f64, f64, f64)], plot: Rect, x: &Axis, y: &Axis) -> Mapped {
    let px = |v: f64| x.fraction(v).map(|f| plot.x + f * plot.w);
    let py = |v: f64| y.fraction(v).map(|f| plot.bottom() - f * plot.h);
    let clamp = |v: f64| v.clamp(plot.y, plot.bottom());
    let mut m = Mapped {
        runs: vec![Vec::new()],
        on_scale: Vec::new(),
        off_scale: Vec::new(),
        bars: Vec::new(),
    };
    for &(vx, vy, hw) in points.iter().filter(|p| p.1.is_finite()) {
        match (px(vx), py(vy)) {
            (Some(cx), Some(cy)) => {
                m.runs.last_mut().expect("one run at least").push((cx, cy));
                m.on_scale.push((cx, cy));
                if hw > 0.0 {
                    let low = py(vy - hw).map_or(plot.bottom(), clamp);
                    let high = py(vy + hw).map_or(plot.bottom(), clamp);
                    m.bars.push((cx, cy, low, high));
                }
            }
            (cx, cy) => {
                m.off_scale.push((
                    cx.unwrap_or(plot.x + 5.0),
                    cy.unwrap_or(plot.bottom() - 5.0),
                ));
                if !m.runs.last().expect("one run at least").is_empty() {
                    m.runs.push(Vec::new());
                }
            }
        }
    }
    m
}

/// The shape of a simulation's dots: curves of a figure take the shapes in
/// turn, so that a curve drawn over another's points leaves their edges
/// showing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    Diamond,
    Triangle,
}

impl Marker {
    fn of(curve_index: usize) -> Marker {
        [
            Marker::Circle,
            Marker::Square,
            Marker::Diamond,
            Marker::Triangle,
        ][curve_index % 4]
    }

    fn draw(self, svg: &mut Svg, (x, y): (f64, f64), colour: Rgb) {
        match self {
            Marker::Circle => svg.circle((x, y), 3.2, colour),
            Marker::Square => svg.polygon(
                &[
                    (x - 3.0, y - 3.0),
                    (x + 3.0, y - 3.0),
                    (x + 3.0, y + 3.0),
                    (x - 3.0, y + 3.0),
                ],
                colour,
                1.0,
            ),
            Marker::Diamond => svg.polygon(
                &[(x, y - 4.3), (x + 4.3, y), (x, y + 4.3), (x - 4.3, y)],
                colour,
                1.0,
            ),
            Marker::Triangle => svg.polygon(
                &[(x, y - 4.5), (x + 4.2, y + 3.0), (x - 4.2, y + 3.0)],
                colour,
                1.0,
            ),
        }
    }
}

/// A small triangle pointing off the scale, at `at`.
fn off_scale_marker(svg: &mut Svg, (x, y): (f64, f64), colour: Rgb) {
    svg.polygon(
        &[(x - 4.5, y - 4.0), (x + 4.5, y - 4.0), (x, y + 4.0)],
        colour,
        1.0,
    );
}

/// The dash pattern of a model's line: curves drawn over one another show
/// their colours in turn, each dash shifted by a third of the pattern.
fn model_stroke(colour: Rgb, phase: usize) -> Stroke {
    Stroke {
        colour,
        width: 2.0,
        dash: Some((7.0, 4.0, (phase % 3) as f64 * 11.0 / 3.0)),
        opacity: 1.0,
    }
}

fn bound_stroke(colour: Rgb, phase: usize) -> Stroke {
    Stroke {
        colour,
        width: 1.3,
        dash: Some((3.0, 3.0, (phase % 2) as f64 * 3.0)),
        opacity: 1.0,
    }
}

fn measurement_stroke(colour: Rgb) -> Stroke {
    Stroke {
        colour,
        width: 7.0,
        dash: None,
        opacity: 0.35,
    }
}

fn draw_panel(
    canvas: &mut Canvas,
    plan: &Plan<'_>,
    plot: Rect,
    cell_left: f64,
    curves: &[&str],
    colour_of: &dyn Fn(&str) -> Rgb,
) -> PanelLayout {
    let panel = plan.panel;
    let (x, y) = (&plan.x, &plan.y);
    // Grid: minor lines first, then the labelled ones.
    for minor in [true, false] {
        let colour = if minor { MINOR_GRID } else { GRID };
        for t in x.ticks.iter().filter(|t| t.label.is_none() == minor) {
            if let Some(f) = x.fraction(t.value) {
                let px = plot.x + f * plot.w;
                canvas.svg.line(
                    (px, plot.y),
                    (px, plot.bottom()),
                    &Stroke::solid(colour, 1.0),
                );
            }
        }
        for t in y.ticks.iter().filter(|t| t.label.is_none() == minor) {
            if let Some(f) = y.fraction(t.value) {
                let py = plot.bottom() - f * plot.h;
                canvas.svg.line(
                    (plot.x, py),
                    (plot.right(), py),
                    &Stroke::solid(colour, 1.0),
                );
            }
        }
    }

    // The data: inside the axes, which cover every value and interval
    // (bars cut at the foot of a log axis); not clipped, so that a page
    // holding several pictures needs no ids.
    let phase = |curve: &str| curves.iter().position(|c| *c == curve).unwrap_or(0);
    let mapped: Vec<Mapped> = panel
        .series
        .iter()
        .map(|s| map_points(&s.points, plot, x, y))
        .collect();
    // Bands between a curve's lower and upper bounds.
    for (s, m) in panel.series.iter().zip(&mapped) {
        if s.source != Source::LowerBound || !m.off_scale.is_empty() {
            continue;
        }
        let upper = panel.series.iter().zip(&mapped).find(|(u, um)| {
            u.source == Source::UpperBound
                && u.curve == s.curve
                && um.off_scale.is_empty()
                && u.points.len() == s.points.len()
                && u.points.iter().zip(&s.points).all(|(a, b)| a.0 == b.0)
        });
        if let Some((_, um)) = upper {
            let mut outline = m.on_scale.clone();
            outline.extend(um.on_scale.iter().rev());
            canvas.svg.polygon(&outline, colour_of(&s.curve), 0.12);
        }
    }
    let draw_order = [
        Source::Measurement,
        Source::LowerBound,
        Source::UpperBound,
        Source::Model,
        Source::Simulation,
    ];
    for source in draw_order {
        for (s, m) in panel
            .series
            .iter()
            .zip(&mapped)
            .filter(|(s, _)| s.source == source)
        {
            let colour = colour_of(&s.curve);
            let stroke = match source {
                Source::Measurement => measurement_stroke(colour),
                Source::LowerBound | Source::UpperBound => bound_stroke(colour, phase(&s.curve)),
                Source::Model => model_stroke(colour, phase(&s.curve)),
                Source::Simulation => Stroke::solid(colour, 2.0),
            };
            if source == Source::Simulation {
                for &(bx, _, low, high) in &m.bars {
                    let bar = Stroke::solid(colour, 1.2);
                    canvas.svg.line((bx, low), (bx, high), &bar);
                    for end in [low, high] {
                        canvas.svg.line((bx - 3.0, end), (bx + 3.0, end), &bar);
                    }
                }
            }
            for run in &m.runs {
                canvas.svg.polyline(run, &stroke);
            }
            if source == Source::Simulation {
                for &p in &m.on_scale {
                    Marker::of(phase(&s.curve)).draw(&mut canvas.svg, p, colour);
                }
            }
            for &p in &m.off_scale {
                off_scale_marker(&mut canvas.svg, p, colour);
            }
        }
    }
    canvas
        .svg
        .rect(plot.parts(), None, Some(&Stroke::solid(AXIS_INK, 1.0)));

    // Ticks and their labels.
    let mut tick_marks = Vec::new();
    let axis_stroke = Stroke::solid(AXIS_INK, 1.0);
    for (value, label) in x.labels() {
        let Some(f) = x.fraction(value) else { continue };
        let px = plot.x + f * plot.w;
        canvas.svg.line(
            (px, plot.bottom()),
            (px, plot.bottom() + TICK_LEN),
            &axis_stroke,
        );
        tick_marks.push(Rect {
            x: px - 0.5,
            y: plot.bottom(),
            w: 1.0,
            h: TICK_LEN,
        });
        canvas.text(
            (px, plot.bottom() + TICK_LEN + TICK_GAP + ASCENT * TICK_SIZE),
            label,
            TICK_SIZE,
            Anchor::Middle,
            TextRole::XTick,
            false,
        );
    }
    for (value, label) in y.labels() {
        let Some(f) = y.fraction(value) else { continue };
        let py = plot.bottom() - f * plot.h;
        canvas
            .svg
            .line((plot.x - TICK_LEN, py), (plot.x, py), &axis_stroke);
        tick_marks.push(Rect {
            x: plot.x - TICK_LEN,
            y: py - 0.5,
            w: TICK_LEN,
            h: 1.0,
        });
        // Centred on the tick: half the digits' height below the middle.
        canvas.text(
            (plot.x - TICK_LEN - TICK_GAP, py + 0.36 * TICK_SIZE),
            label,
            TICK_SIZE,
            Anchor::End,
            TextRole::YTick,
            false,
        );
    }

    // Axis labels and the caption.
    let x_label_top = plot.bottom() + TICK_LEN + TICK_GAP + (ASCENT + DESCENT) * TICK_SIZE + GAP;
    for (i, line) in plan.x_label.iter().enumerate() {
        canvas.text(
            (
                plot.x + plot.w / 2.0,
                x_label_top + ASCENT * LABEL_SIZE + i as f64 * line_height(LABEL_SIZE),
            ),
            line,
            LABEL_SIZE,
            Anchor::Middle,
            TextRole::XLabel,
            false,
        );
    }
    let y_label_right = plot.x - TICK_LEN - TICK_GAP - plan.y_tick_width - GAP;
    let lines = plan.y_label.len();
    for (i, line) in plan.y_label.iter().enumerate() {
        // The last line nearest the ticks; each line's baseline is its
        // right-hand edge less the descent.
        let from_right = (lines - 1 - i) as f64 * line_height(LABEL_SIZE);
        let baseline_x = y_label_right - from_right - DESCENT * LABEL_SIZE;
        canvas.text(
            (
                baseline_x.max(cell_left + ASCENT * LABEL_SIZE),
                plot.y + plot.h / 2.0,
            ),
            line,
            LABEL_SIZE,
            Anchor::Middle,
            TextRole::YLabel,
            true,
        );
    }
    let caption_top = plot.y - GAP - plan.caption.len() as f64 * line_height(CAPTION_SIZE);
    for (i, line) in plan.caption.iter().enumerate() {
        canvas.text(
            (
                plot.x + plot.w / 2.0,
                caption_top + ASCENT * CAPTION_SIZE + i as f64 * line_height(CAPTION_SIZE),
            ),
            line,
            CAPTION_SIZE,
            Anchor::Middle,
            TextRole::Caption,
            false,
        );
    }
    if mapped
        .iter()
        .all(|m| m.on_scale.is_empty() && m.off_scale.is_empty())
    {
        canvas.text(
            (plot.x + plot.w / 2.0, plot.y + plot.h / 2.0),
            "no points to draw",
            LABEL_SIZE,
            Anchor::Middle,
            TextRole::Note,
            false,
        );
    }

    PanelLayout {
        plot,
        x: x.clone(),
        y: y.clone(),
        tick_marks,
        curves: panel
            .series
            .iter()
            .zip(mapped)
            .map(|(s, m)| CurveLayout {
                curve: s.curve.clone(),
                source: s.source,
                colour: colour_of(&s.curve),
                points: m.on_scale,
                off_scale: m.off_scale,
                bars: m
                    .bars
                    .iter()
                    .map(|&(x, _, low, high)| (x, high, low))
                    .collect(),
            })
            .collect(),
    }
}

/// Draws a sample of `style` in `colour`, centred vertically on `cy`; a
/// simulation's with its error bar in the key (`with_bar`).
fn swatch(svg: &mut Svg, entry: &Entry, (x, cy): (f64, f64)) {
    let colour = entry.colour.unwrap_or(KEY_INK);
    let with_bar = entry.colour.is_none();
    let style = entry.style;
    let end = x + SWATCH_W;
    let mid = x + SWATCH_W / 2.0;
    match style {
        KeyStyle::Simulation => {
            svg.line((x, cy), (end, cy), &Stroke::solid(colour, 2.0));
            if with_bar {
                let bar = Stroke::solid(colour, 1.2);
                svg.line((mid, cy - 6.0), (mid, cy + 6.0), &bar);
                svg.line((mid - 3.0, cy - 6.0), (mid + 3.0, cy - 6.0), &bar);
                svg.line((mid - 3.0, cy + 6.0), (mid + 3.0, cy + 6.0), &bar);
            }
            entry.marker.draw(svg, (mid, cy), colour);
        }
        KeyStyle::Measurement => svg.line((x, cy), (end, cy), &measurement_stroke(colour)),
        KeyStyle::Model => svg.line((x, cy), (end, cy), &model_stroke(colour, 0)),
        KeyStyle::Bounds => {
            svg.rect((x, cy - 4.0, SWATCH_W, 8.0), Some((colour, 0.12)), None);
            svg.line((x, cy - 4.0), (end, cy - 4.0), &bound_stroke(colour, 0));
            svg.line((x, cy + 4.0), (end, cy + 4.0), &bound_stroke(colour, 0));
        }
        KeyStyle::OffScale => off_scale_marker(svg, (mid, cy), colour),
    }
}

/// A legend entry to draw: its text's lines, its colour (`None`: the
/// key's), the style of its sample.
struct Entry {
    text: String,
    lines: Vec<String>,
    colour: Option<Rgb>,
    style: KeyStyle,
    marker: Marker,
    hidden_under: Option<String>,
}

/// Whether curves `a` and `b` have the same series with the very same
/// values in every panel.
fn same_values(panels: &[Panel], a: &str, b: &str) -> bool {
    fn of<'a>(p: &'a Panel, curve: &str) -> Vec<&'a Series> {
        p.series.iter().filter(|s| s.curve == curve).collect()
    }
    panels.iter().any(|p| !of(p, a).is_empty())
        && panels.iter().all(|p| {
            let (sa, sb) = (of(p, a), of(p, b));
            sa.len() == sb.len()
                && sa
                    .iter()
                    .zip(&sb)
                    .all(|(x, y)| x.source == y.source && x.points == y.points)
        })
}

fn draw_legend(canvas: &mut Canvas, frame: Rect, curves: &[Entry], key: &[Entry]) -> LegendLayout {
    canvas.svg.rect(
        frame.parts(),
        Some((Rgb(255, 255, 255), 1.0)),
        Some(&Stroke::solid(LEGEND_BORDER, 1.0)),
    );
    let swatch_x = frame.x + 10.0;
    let text_x = swatch_x + SWATCH_W + 8.0;
    let mut y = frame.y + 8.0;
    let draw = |canvas: &mut Canvas, entry: &Entry, y: &mut f64| -> LegendEntry {
        // The sample is level with the entry's first line.
        let cy = *y + line_height(LEGEND_SIZE) / 2.0;
        for (i, line) in entry.lines.iter().enumerate() {
            let baseline = cy + 0.36 * LEGEND_SIZE + i as f64 * line_height(LEGEND_SIZE);
            canvas.text(
                (text_x, baseline),
                line,
                LEGEND_SIZE,
                Anchor::Start,
                TextRole::Legend,
                false,
            );
        }
        *y += entry.lines.len() as f64 * line_height(LEGEND_SIZE) + 5.0;
        swatch(&mut canvas.svg, entry, (swatch_x, cy));
        LegendEntry {
            text: entry.text.clone(),
            colour: entry.colour,
            hidden_under: entry.hidden_under.clone(),
            swatch: Rect {
                x: swatch_x,
                y: cy - 6.0,
                w: SWATCH_W,
                h: 12.0,
            },
        }
    };
    let curve_entries = curves.iter().map(|e| draw(canvas, e, &mut y)).collect();
    if !key.is_empty() {
        y += 4.0;
        canvas.svg.line(
            (swatch_x, y),
            (frame.right() - 10.0, y),
            &Stroke::solid(LEGEND_BORDER, 1.0),
        );
        y += 6.0;
    }
    let key_entries = key.iter().map(|e| draw(canvas, e, &mut y)).collect();
    LegendLayout {
        frame,
        curves: curve_entries,
        key: key_entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_at_spaces() {
        assert_eq!(wrap("one two three", 1e9, 12.0), ["one two three"]);
        let lines = wrap("one two three", text_width("one two", 12.0), 12.0);
        assert_eq!(lines, ["one two", "three"]);
        assert_eq!(wrap("", 10.0, 12.0), [""]);
    }

    #[test]
    fn turned_text_stands_on_its_anchor() {
        let r = text_rect(100.0, 200.0, "ms", 10.0, Anchor::Middle, true);
        let w = text_width("ms", 10.0);
        assert!((r.h - w).abs() < 1e-9);
        assert!((r.y - (200.0 - w / 2.0)).abs() < 1e-9);
        assert!(r.x < 100.0 && r.right() > 100.0);
    }
}
