//! Draws a [`RunSheet`] with the figures' engine ([`crate::plot`]'s SVG
//! writer and axes), where [`layout`] puts each part: one way to draw
//! every picture the tool makes.

use crate::plot::{ASCENT, text_width, tick_label};
use crate::plot::{AXIS_INK, Anchor, Axis, GRID, INK, MINOR_GRID, Rgb, Stroke, Svg, Tick};

use super::{
    BarPanel, HeadLane, MARKED_PERCENTILES, Rect, RunSheet, bar_value, layout, legend_lines,
};

const TITLE_SIZE: f64 = 18.0;
const CAPTION_SIZE: f64 = 13.0;
const LABEL_SIZE: f64 = 13.0;
const TICK_SIZE: f64 = 12.0;
const TICK_LEN: f64 = 5.0;
const TICK_GAP: f64 = 4.0;
/// Room above a chart's plot for its caption.
const CAPTION_ROOM: f64 = 26.0;
/// From a chart's left edge to its rotated y description's baseline.
const DESCRIPTION_X: f64 = 18.0;
/// Blank room between the y description and the widest tick label.
const DESCRIPTION_GAP: f64 = 10.0;
const RIGHT_ROOM: f64 = 16.0;
const BLACK: Rgb = Rgb(0, 0, 0);

/// Where a chart's data go: the plot's rectangle (left, top, width,
/// height, in pixels) and the axes mapping values into it.
struct Chart {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    x: Axis,
    y: Axis,
}

impl Chart {
    fn px(&self, v: f64) -> f64 {
        self.left + self.x.fraction(v).unwrap_or(0.0).clamp(0.0, 1.0) * self.width
    }

    fn py(&self, v: f64) -> f64 {
        self.top + self.height - self.y.fraction(v).unwrap_or(0.0).clamp(0.0, 1.0) * self.height
    }

    fn at(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (self.px(x), self.py(y))
    }

    fn bottom(&self) -> f64 {
        self.top + self.height
    }
}

/// How far left of its area's edge a chart's plot starts, for y tick
/// labels as wide as `widest`: the rotated description, a gap, the labels,
/// the tick marks.
fn plot_left(widest: f64) -> f64 {
    DESCRIPTION_X + 3.0 + DESCRIPTION_GAP + widest + TICK_GAP + TICK_LEN
}

fn widest_label(axis: &Axis) -> f64 {
    axis.labels()
        .map(|(_, l)| text_width(l, TICK_SIZE))
        .fold(0.0, f64::max)
}

/// A chart in `area`: its caption on top, the plot below with `left`
/// pixels of room for the y axis and `below` for the x axis's labels.
fn chart(area: Rect, left: f64, below: f64, x: Axis, y: Axis) -> Chart {
    let (ax, ay, aw, ah) = (
        f64::from(area.0),
        f64::from(area.1),
        f64::from(area.2),
        f64::from(area.3),
    );
    // The axes, one pixel wide, on pixel centres: a line between two rows
    // of pixels would be drawn as two rows of pale grey.
    let crisp = |v: f64| v.round() + 0.5;
    let (left, top, bottom) = (
        crisp(ax + left),
        crisp(ay + CAPTION_ROOM),
        crisp(ay + ah - below),
    );
    Chart {
        left,
        top,
        width: ax + aw - RIGHT_ROOM - left,
        height: bottom - top,
        x,
        y,
    }
}

fn caption(svg: &mut Svg, area: Rect, chart: &Chart, text: &str) {
    svg.text(
        (chart.left + chart.width / 2.0, f64::from(area.1) + 17.0),
        text,
        CAPTION_SIZE,
        Anchor::Middle,
        INK,
        false,
    );
}

/// Grid lines at the ticks (light), then the two axes with their tick
/// marks and labels, and the y axis's description turned upright.
fn axes(svg: &mut Svg, area: Rect, chart: &Chart, y_description: &str, vertical_grid: bool) {
    for minor in [true, false] {
        let grid = Stroke::solid(if minor { MINOR_GRID } else { GRID }, 1.0);
        if vertical_grid {
            for t in chart.x.ticks.iter().filter(|t| t.label.is_none() == minor) {
                let x = chart.px(t.value);
                svg.line((x, chart.top), (x, chart.bottom()), &grid);
            }
        }
        for t in chart.y.ticks.iter().filter(|t| t.label.is_none() == minor) {
            let y = chart.py(t.value);
            svg.line((chart.left, y), (chart.left + chart.width, y), &grid);
        }
    }
    let ink = Stroke::solid(AXIS_INK, 1.0);
    svg.line((chart.left, chart.top), (chart.left, chart.bottom()), &ink);
    svg.line(
        (chart.left, chart.bottom()),
        (chart.left + chart.width, chart.bottom()),
        &ink,
    );
    for (value, label) in chart.x.labels() {
        let x = chart.px(value);
        svg.line((x, chart.bottom()), (x, chart.bottom() + TICK_LEN), &ink);
        svg.text(
            (x, chart.bottom() + TICK_LEN + TICK_GAP + ASCENT * TICK_SIZE),
            label,
            TICK_SIZE,
            Anchor::Middle,
            INK,
            false,
        );
    }
    for (value, label) in chart.y.labels() {
        y_tick(svg, chart, value, label);
    }
    svg.text(
        (
            f64::from(area.0) + DESCRIPTION_X,
            chart.top + chart.height / 2.0,
        ),
        y_description,
        LABEL_SIZE,
        Anchor::Middle,
        INK,
        true,
    );
}

/// A y tick's mark and label, left of the axis.
fn y_tick(svg: &mut Svg, chart: &Chart, value: f64, label: &str) {
    let y = chart.py(value);
    svg.line(
        (chart.left - TICK_LEN, y),
        (chart.left, y),
        &Stroke::solid(AXIS_INK, 1.0),
    );
    svg.text(
        (chart.left - TICK_LEN - TICK_GAP, y + 0.35 * TICK_SIZE),
        label,
        TICK_SIZE,
        Anchor::End,
        INK,
        false,
    );
}

fn x_description(svg: &mut Svg, chart: &Chart, text: &str) {
    svg.text(
        (
            chart.left + chart.width / 2.0,
            chart.bottom() + TICK_LEN + TICK_GAP + TICK_SIZE + 8.0 + ASCENT * LABEL_SIZE,
        ),
        text,
        LABEL_SIZE,
        Anchor::Middle,
        INK,
        false,
    );
}

/// Room under a plot for tick labels alone, and for them and a
/// description.
const BELOW_TICKS: f64 = 24.0;
const BELOW_DESCRIBED: f64 = 46.0;

/// Draws a run's sheet as SVG text, its parts where [`layout`] puts them:
/// each lane with the arm's cylinder against time (hollow circles at each
/// arrival's instant and cylinder; a dotted line where the followed
/// requests have all left); under them the queue of each series as steps
/// in a strip of its own on the same time axis and the same count scale
/// (small multiples: overlaid, queues of policies that differ little hide
/// each other); the response-time distributions on a log axis with
/// p50/p95/p99 marked; the per-class bars with their intervals; and the
/// legend in a column of its own, beside the data.
pub fn render_run_sheet(sheet: &RunSheet) -> String {
    let at = layout(sheet);
    let mut svg = Svg::new(f64::from(at.size.0), f64::from(at.size.1));
    svg.text(
        (f64::from(at.size.0) / 2.0, 12.0 + ASCENT * TITLE_SIZE),
        &sheet.title,
        TITLE_SIZE,
        Anchor::Middle,
        INK,
        false,
    );
    // The lanes and the queue share the time axis, so their plots share a
    // left edge.
    let (t0, t1) = sheet.time_axis_ms();
    let (unit, unit_name) = sheet.time_unit();
    let time = Axis::linear(t0 / unit, t1 / unit, false, 8);
    let lane_axes: Vec<Axis> = sheet
        .lanes
        .iter()
        .map(|l| {
            Axis::linear(
                0.0,
                f64::from(l.cylinders.saturating_sub(1).max(1)),
                true,
                5,
            )
        })
        .collect();
    let queue_top = sheet.queue_axis();
    let left = plot_left(
        lane_axes
            .iter()
            .map(widest_label)
            .fold(text_width(&queue_top.to_string(), TICK_SIZE), f64::max),
    );
    for ((lane, &area), y) in sheet.lanes.iter().zip(&at.lanes).zip(lane_axes) {
        draw_lane(
            &mut svg,
            sheet,
            lane,
            area,
            chart(area, left, BELOW_TICKS, time.clone(), y),
        );
    }
    draw_queue(&mut svg, sheet, at.queue, left, &time, unit, unit_name);
    draw_cdfs(&mut svg, sheet, at.cdf);
    for (panel, &area) in sheet.bars.iter().zip(&at.bars) {
        draw_bars(&mut svg, sheet, panel, area);
    }
    draw_legend(&mut svg, sheet, at.legend);
    svg.finish()
}

fn colour(sheet: &RunSheet, series: usize) -> Rgb {
    sheet.series.get(series).map_or(BLACK, |s| s.colour)
}

fn draw_lane(svg: &mut Svg, sheet: &RunSheet, lane: &HeadLane, area: Rect, chart: Chart) {
    let (unit, _) = sheet.time_unit();
    caption(svg, area, &chart, &lane.caption);
    axes(svg, area, &chart, "cylinder", false);
    let path: Vec<(f64, f64)> = lane
        .path
        .iter()
        .map(|&(t, c)| chart.at((t / unit, f64::from(c))))
        .collect();
    svg.polyline(&path, &Stroke::solid(colour(sheet, lane.series), 2.0));
    let ring = Stroke {
        opacity: 0.6,
        ..Stroke::solid(BLACK, 1.0)
    };
    for &(t, c) in &lane.arrivals {
        svg.ring(chart.at((t / unit, f64::from(c))), 3.0, &ring);
    }
    let end = chart.px(lane.span_end_ms / unit);
    svg.line(
        (end, chart.top),
        (end, chart.bottom()),
        &Stroke {
            dash: Some((2.0, 3.0, 0.0)),
            opacity: 0.5,
            ..Stroke::solid(BLACK, 1.0)
        },
    );
}

/// The queue panel: a strip per series, top to bottom in the legend's
/// order, each from 0 to the longest queue of any series, its count
/// labelled at 0 and at the top.
fn draw_queue(
    svg: &mut Svg,
    sheet: &RunSheet,
    area: Rect,
    left: f64,
    time: &Axis,
    unit: f64,
    unit_name: &str,
) {
    let top = f64::from(sheet.queue_axis());
    // The whole panel's frame: its time axis labelled, its y axis not (each
    // strip labels its own counts).
    let whole = chart(
        area,
        left,
        BELOW_DESCRIBED,
        time.clone(),
        Axis {
            ticks: Vec::new(),
            ..Axis::linear(0.0, 1.0, false, 1)
        },
    );
    caption(
        svg,
        area,
        &whole,
        &format!(
            "{} over the lanes' span, a strip per series",
            sheet.queue_label
        ),
    );
    let strips = sheet.queues.len().max(1);
    let pitch = whole.height / strips as f64;
    let count_axis = || Axis {
        ticks: [0.0, top - 1.0]
            .into_iter()
            .filter(|v| *v >= 0.0)
            .map(|value| Tick {
                value,
                label: Some(tick_label(value)),
            })
            .collect(),
        ..Axis::linear(0.0, top, true, 1)
    };
    let strip = |k: usize| Chart {
        top: whole.top + pitch * k as f64 + 7.0,
        height: pitch - 14.0,
        y: count_axis(),
        x: time.clone(),
        ..whole
    };
    // Grid and labels first, then the axes over the whole panel, then the
    // steps.
    let grid = Stroke::solid(GRID, 1.0);
    for k in 0..strips {
        let s = strip(k);
        for t in s.x.ticks.iter().filter(|t| t.label.is_some()) {
            let x = s.px(t.value);
            svg.line((x, s.top), (x, s.bottom()), &grid);
        }
        for (value, label) in s.y.labels() {
            let y = s.py(value);
            svg.line((s.left, y), (s.left + s.width, y), &grid);
            y_tick(svg, &s, value, label);
        }
    }
    axes(svg, area, &whole, &sheet.queue_label, false);
    x_description(
        svg,
        &whole,
        &format!("time since the run started ({unit_name})"),
    );
    for (k, line) in sheet.queues.iter().enumerate() {
        let s = strip(k);
        let mut path = Vec::with_capacity(line.steps.len() * 2 + 1);
        for (i, &(t, count)) in line.steps.iter().enumerate() {
            if i > 0 {
                path.push(s.at((t / unit, f64::from(line.steps[i - 1].1))));
            }
            path.push(s.at((t / unit, f64::from(count))));
        }
        if let (Some(&(_, last)), Some(lane)) = (
            line.steps.last(),
            sheet.lanes.iter().find(|l| l.series == line.series),
        ) {
            path.push(s.at((lane.span_end_ms / unit, f64::from(last))));
        }
        svg.polyline(&path, &Stroke::solid(colour(sheet, line.series), 2.0));
    }
}

fn draw_cdfs(svg: &mut Svg, sheet: &RunSheet, area: Rect) {
    let Some((lo, hi)) = sheet.response_axis_ms() else {
        return;
    };
    let y = Axis::linear(0.0, 1.0, false, 5);
    let c = chart(
        area,
        plot_left(widest_label(&y)),
        BELOW_DESCRIBED,
        Axis::logarithmic(lo, hi),
        y,
    );
    caption(
        svg,
        area,
        &c,
        "response time distribution (completed requests)",
    );
    axes(svg, area, &c, "fraction of requests", true);
    x_description(svg, &c, "response time (ms, log scale)");
    let marker = Stroke {
        dash: Some((3.0, 3.0, 0.0)),
        opacity: 0.3,
        ..Stroke::solid(BLACK, 1.0)
    };
    for &(q, name) in &MARKED_PERCENTILES {
        let y = c.py(q);
        svg.line((c.left, y), (c.left + c.width, y), &marker);
        svg.text(
            (c.left + 4.0, y - 4.0),
            name,
            11.0,
            Anchor::Start,
            INK,
            false,
        );
    }
    for cdf in &sheet.cdfs {
        let colour = colour(sheet, cdf.series);
        let points: Vec<(f64, f64)> = cdf
            .points
            .iter()
            .filter(|p| p.0 > 0.0)
            .map(|&p| c.at(p))
            .collect();
        svg.polyline(&points, &Stroke::solid(colour, 2.0));
        for (&v, (q, _)) in cdf.percentiles.iter().zip(MARKED_PERCENTILES) {
            if v > 0.0 {
                svg.circle(c.at((v, q)), 4.0, colour);
            }
        }
    }
}

/// Grouped bars: group g spans g − 0.4 .. g + 0.4, split among the series;
/// each bar carries its interval as a whisker with caps and its value
/// above.
fn draw_bars(svg: &mut Svg, sheet: &RunSheet, panel: &BarPanel, area: Rect) {
    let groups = panel.groups.len().max(1);
    let top = panel
        .bars
        .iter()
        .map(|b| b.mean + b.half_width)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let x = Axis {
        lo: -0.5,
        hi: groups as f64 - 0.5,
        log: false,
        integral: true,
        ticks: panel
            .groups
            .iter()
            .enumerate()
            .map(|(g, name)| Tick {
                value: g as f64,
                label: Some(name.clone()),
            })
            .collect(),
    };
    let y = Axis::linear(0.0, top, false, 5);
    let c = chart(area, plot_left(widest_label(&y)), BELOW_TICKS, x, y);
    caption(svg, area, &c, &panel.title);
    axes(svg, area, &c, &panel.y_label, false);
    let per_group = sheet.series.len().max(1) as f64;
    let width = 0.8 / per_group;
    let whisker = Stroke::solid(BLACK, 1.0);
    for bar in panel.bars.iter().filter(|b| b.mean.is_finite()) {
        let left = bar.group as f64 - 0.4 + width * bar.series as f64;
        let (x0, x1) = (c.px(left + width * 0.1), c.px(left + width * 0.9));
        // Standing on the x axis, not over it.
        let (base, height) = (c.py(0.0) - 0.5, c.py(bar.mean));
        svg.rect(
            (x0, height, x1 - x0, base - height),
            Some((colour(sheet, bar.series), 1.0)),
            None,
        );
        let mid = (x0 + x1) / 2.0;
        if bar.half_width > 0.0 {
            let cap = (x1 - x0) * 0.25;
            let (lo, hi) = (
                c.py((bar.mean - bar.half_width).max(0.0)),
                c.py(bar.mean + bar.half_width),
            );
            svg.line((mid, lo), (mid, hi), &whisker);
            svg.line((mid - cap, hi), (mid + cap, hi), &whisker);
            svg.line((mid - cap, lo), (mid + cap, lo), &whisker);
        }
        // The value over the bar (and its interval): a bar of 0 says so.
        svg.text(
            (mid, c.py(bar.mean + bar.half_width.max(0.0)) - 3.0),
            &bar_value(bar.mean),
            10.0,
            Anchor::Middle,
            Rgb(51, 51, 51),
            false,
        );
    }
}

/// The legend, in its own column: one entry per series in its colour, then
/// the marks.
fn draw_legend(svg: &mut Svg, sheet: &RunSheet, area: Rect) {
    let (x, mut y) = (f64::from(area.0), f64::from(area.1) + 40.0);
    let text = |svg: &mut Svg, y: f64, line: &str| {
        svg.text((x + 42.0, y + 4.5), line, 13.0, Anchor::Start, INK, false);
    };
    for series in &sheet.series {
        svg.line(
            (x + 8.0, y),
            (x + 34.0, y),
            &Stroke::solid(series.colour, 3.0),
        );
        let lines = legend_lines(&series.label);
        let more = lines.len() as f64 - 1.0;
        for (k, line) in lines.iter().enumerate() {
            text(svg, y + 16.0 * k as f64, line);
        }
        y += 24.0 + 16.0 * more;
    }
    y += 10.0;
    svg.ring(
        (x + 21.0, y),
        3.0,
        &Stroke {
            opacity: 0.6,
            ..Stroke::solid(BLACK, 1.0)
        },
    );
    text(svg, y, "arrival");
    y += 24.0;
    svg.circle((x + 21.0, y), 4.0, BLACK);
    text(svg, y, "p50, p95, p99");
    if sheet
        .bars
        .iter()
        .any(|p| p.bars.iter().any(|b| b.half_width > 0.0))
    {
        y += 24.0;
        let ink = Stroke::solid(BLACK, 1.0);
        svg.line((x + 21.0, y - 7.0), (x + 21.0, y + 7.0), &ink);
        svg.line((x + 17.0, y - 7.0), (x + 25.0, y - 7.0), &ink);
        svg.line((x + 17.0, y + 7.0), (x + 25.0, y + 7.0), &ink);
        text(svg, y, "95 % interval");
    }
}
