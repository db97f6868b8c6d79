//! The run sheets looked at as a reader looks at them: rendered to pixels
//! with the tool's own renderer (`spindle::plot::rasterise`, resvg) and
//! checked region by region, where [`spindle::sheet::layout`] says each
//! part lies. Every lane shows its policy's arm in its colour and no
//! other's, inside its axes, across the time axis and the cylinders the
//! arm visited; the queue panel and the bars are drawn; the legend has one
//! swatch per policy, in order, and nothing of the data in its column.
//! Checks of the text (the legend's labels) need a font; without one they
//! are skipped, saying so.

mod support;

use resvg::tiny_skia::Pixmap;
use spindle::run::RunArgs;
use spindle::sheet::{Rect, RunSheet, layout, render_run_sheet};

fn args(policies: &[&str]) -> RunArgs {
    support::run_args(policies, 1000, 3)
}

fn render(sheet: &RunSheet) -> Pixmap {
    spindle::plot::rasterise(&render_run_sheet(sheet)).unwrap()
}

type Rgb = (u8, u8, u8);

fn rgb(pixels: &Pixmap, x: u32, y: u32) -> Rgb {
    let p = pixels.pixel(x, y).unwrap().demultiply();
    (p.red(), p.green(), p.blue())
}

fn near(a: Rgb, b: Rgb) -> bool {
    let d = |x: u8, y: u8| i32::from(x.abs_diff(y));
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2) <= 30
}

/// Ink of the axes, whiskers and text: grey or black (a one-pixel line
/// falling between two rows of pixels is drawn as two rows of mid grey).
fn dark(c: Rgb) -> bool {
    let (lo, hi) = (c.0.min(c.1).min(c.2), c.0.max(c.1).max(c.2));
    hi < 160 && hi - lo <= 12
}

fn series_colour(sheet: &RunSheet, s: usize) -> Rgb {
    let c = sheet.series[s].colour;
    (c.0, c.1, c.2)
}

/// The pixels of `rect` that `pick` accepts.
fn find(pixels: &Pixmap, rect: Rect, pick: impl Fn(Rgb) -> bool) -> Vec<(u32, u32)> {
    let (x0, y0, w, h) = rect;
    let mut found = Vec::new();
    for y in y0..(y0 + h).min(pixels.height()) {
        for x in x0..(x0 + w).min(pixels.width()) {
            if pick(rgb(pixels, x, y)) {
                found.push((x, y));
            }
        }
    }
    found
}

/// The plotting frame of a chart in `rect`: the column of its y axis and
/// the row of its x axis, the longest dark lines there.
fn frame(pixels: &Pixmap, rect: Rect) -> (u32, u32) {
    let dark_pixels = find(pixels, rect, dark);
    let longest = |key: &dyn Fn(&(u32, u32)) -> u32| {
        let mut counts = std::collections::BTreeMap::new();
        for p in &dark_pixels {
            *counts.entry(key(p)).or_insert(0) += 1;
        }
        counts
            .into_iter()
            .max_by_key(|&(at, n)| (n, std::cmp::Reverse(at)))
            .unwrap()
            .0
    };
    (longest(&|p| p.0), longest(&|p| p.1))
}

/// Left of a chart's y axis, the runs of columns holding ink between the
/// chart's top and its x axis: the axis description (rotated, one run
/// about a line high), then the tick labels (the tick marks, the 8 columns
/// next to the axis, left out).
fn label_columns(pixels: &Pixmap, rect: Rect, axis: (u32, u32)) -> Vec<(u32, u32)> {
    let (axis_x, axis_y) = axis;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for x in rect.0..axis_x.saturating_sub(8) {
        let inked = (rect.1 + 20..axis_y).any(|y| dark(rgb(pixels, x, y)));
        match runs.last_mut() {
            Some(run) if inked && run.1 + 1 == x => run.1 = x,
            _ if inked => runs.push((x, x)),
            _ => {}
        }
    }
    runs
}

/// Whether text is drawn at all: a font is installed for resvg.
fn fonts() -> bool {
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="30"><rect width="60" height="30" fill="white"/><text x="4" y="22" font-family="sans-serif" font-size="18">Hg</text></svg>"#;
    let pixels = spindle::plot::rasterise(svg).unwrap();
    let inked = find(&pixels, (0, 0, 60, 30), dark).len();
    if inked < 10 {
        eprintln!(
            "skipping the text checks: no font for resvg (install fonts-dejavu-core, as .ci/run does)"
        );
    }
    inked >= 10
}

/// Everything a reader checks on a sheet (see the module documentation).
fn look_at(sheet: &RunSheet) {
    let at = layout(sheet);
    let pixels = render(sheet);
    assert_eq!((pixels.width(), pixels.height()), at.size);
    let (t0, t1) = sheet.time_axis_ms();
    for (lane, &rect) in sheet.lanes.iter().zip(&at.lanes) {
        // The data lie within the axes...
        assert!(
            lane.path
                .iter()
                .all(|&(t, c)| (t0..=t1).contains(&t) && c < lane.cylinders)
        );
        assert!(
            lane.arrivals
                .iter()
                .all(|&(t, c)| (t0..=t1).contains(&t) && c < lane.cylinders)
        );
        // ...and on the picture the lane is its policy's colour alone.
        let own = series_colour(sheet, lane.series);
        let drawn = find(&pixels, rect, |c| near(c, own));
        assert!(
            drawn.len() >= 150,
            "{}: {} pixels",
            lane.caption,
            drawn.len()
        );
        // (A few pixels where a line crosses an arrival's grey circle may
        // blend to another policy's colour; another policy's path would be
        // hundreds.)
        for other in (0..sheet.series.len()).filter(|&s| s != lane.series) {
            let colour = series_colour(sheet, other);
            let stray = find(&pixels, rect, |c| near(c, colour)).len();
            assert!(
                stray * 50 <= drawn.len(),
                "{}: {stray} pixels of series {other}",
                lane.caption
            );
        }
        // Inside its frame: right of the y axis, above the x axis, below
        // the caption.
        let (axis_x, axis_y) = frame(&pixels, rect);
        assert!(
            axis_x > rect.0 + 30 && axis_x < rect.0 + 120,
            "{}: y axis at {axis_x}",
            lane.caption
        );
        assert!(
            axis_y > rect.1 + rect.3 / 2,
            "{}: x axis at {axis_y}",
            lane.caption
        );
        let (min_x, max_x) = (
            drawn.iter().map(|p| p.0).min().unwrap(),
            drawn.iter().map(|p| p.0).max().unwrap(),
        );
        let (min_y, max_y) = (
            drawn.iter().map(|p| p.1).min().unwrap(),
            drawn.iter().map(|p| p.1).max().unwrap(),
        );
        assert!(
            min_x + 2 >= axis_x && max_y <= axis_y + 2,
            "{}: drawn outside its axes",
            lane.caption
        );
        assert!(
            min_y >= rect.1 + 18,
            "{}: drawn over its caption",
            lane.caption
        );
        // The axes fit the data: the arm's path spans most of the time axis
        // and the cylinders it visited most of the lane's height.
        let plot_width = f64::from(rect.0 + rect.2 - axis_x);
        let last = lane.path.iter().map(|p| p.0).fold(0.0, f64::max);
        let wide = f64::from(max_x - min_x) / plot_width;
        assert!(
            wide >= 0.8 * last / t1 && wide <= 1.0,
            "{}: {wide:.2} of the width",
            lane.caption
        );
        let visited = lane.path.iter().map(|p| p.1).max().unwrap()
            - lane.path.iter().map(|p| p.1).min().unwrap();
        let plot_height = f64::from(axis_y - rect.1 - 24);
        let tall = f64::from(max_y - min_y) / plot_height;
        let expected = f64::from(visited) / f64::from(lane.cylinders);
        assert!(
            tall >= 0.8 * expected && tall <= 1.05,
            "{}: {tall:.2} of the height for {expected:.2}",
            lane.caption
        );
    }
    // The queue, the distributions and the bars: each series drawn in each.
    for queue in &sheet.queues {
        let own = series_colour(sheet, queue.series);
        let drawn = find(&pixels, at.queue, |c| near(c, own));
        assert!(
            drawn.len() >= 100,
            "queue of series {}: {}",
            queue.series,
            drawn.len()
        );
        let rows: std::collections::BTreeSet<u32> = drawn.iter().map(|p| p.1).collect();
        assert!(
            rows.len() >= 10,
            "queue of series {}: a flat line",
            queue.series
        );
        let cdf = find(&pixels, at.cdf, |c| near(c, own)).len();
        assert!(cdf >= 200, "distribution of series {}: {cdf}", queue.series);
    }
    for (panel, &rect) in sheet.bars.iter().zip(&at.bars) {
        let top = panel
            .bars
            .iter()
            .map(|b| b.mean + b.half_width)
            .fold(0.0, f64::max);
        for s in 0..sheet.series.len() {
            let colour = series_colour(sheet, s);
            let filled = find(&pixels, rect, |c| near(c, colour)).len();
            let tallest = panel
                .bars
                .iter()
                .filter(|b| b.series == s)
                .map(|b| b.mean)
                .fold(0.0, f64::max);
            if tallest > 0.05 * top {
                assert!(
                    filled >= 200,
                    "{}: series {s} has {filled} pixels",
                    panel.title
                );
            } else if tallest == 0.0 {
                assert_eq!(filled, 0, "{}: series {s} has bars of 0", panel.title);
            }
        }
        // The intervals: black whiskers above the bars.
        if panel.bars.iter().any(|b| b.half_width > 0.0) {
            let (axis_x, axis_y) = frame(&pixels, rect);
            let inside = (
                axis_x + 3,
                rect.1 + 20,
                rect.0 + rect.2 - axis_x - 13,
                axis_y - rect.1 - 23,
            );
            assert!(
                find(&pixels, inside, dark).len() >= 20,
                "{}: no whiskers",
                panel.title
            );
        }
    }
    // The legend: one swatch per series, in order, and nothing else of the
    // data's colours in its column; the data end left of it.
    let legend = at.legend;
    let mut swatches = Vec::new();
    for s in 0..sheet.series.len() {
        let colour = series_colour(sheet, s);
        let drawn = find(&pixels, legend, |c| near(c, colour));
        assert!(drawn.len() >= 40, "legend swatch {s}: {}", drawn.len());
        let (x0, x1) = (
            drawn.iter().map(|p| p.0).min().unwrap(),
            drawn.iter().map(|p| p.0).max().unwrap(),
        );
        let (y0, y1) = (
            drawn.iter().map(|p| p.1).min().unwrap(),
            drawn.iter().map(|p| p.1).max().unwrap(),
        );
        assert!(
            x0 >= legend.0 + 6 && x1 <= legend.0 + 36 && y1 - y0 <= 5,
            "legend entry {s}: ({x0}, {y0})–({x1}, {y1}) is more than a swatch"
        );
        swatches.push((y0 + y1) / 2);
    }
    assert!(
        swatches.windows(2).all(|w| w[0] + 12 < w[1]),
        "{swatches:?}"
    );
    // The legend's column is apart from every panel, and no data spill
    // into it: every pixel of a series' colour lies in a panel or is its
    // swatch.
    let inside =
        |r: Rect, p: (u32, u32)| p.0 >= r.0 && p.0 < r.0 + r.2 && p.1 >= r.1 && p.1 < r.1 + r.3;
    let mut panels: Vec<Rect> = at.lanes.clone();
    panels.extend([at.queue, at.cdf]);
    panels.extend(&at.bars);
    for r in &panels {
        assert!(
            r.0 + r.2 <= legend.0,
            "a panel reaches into the legend: {r:?}"
        );
    }
    for (s, y) in swatches.iter().enumerate() {
        let colour = series_colour(sheet, s);
        let swatch = (legend.0 + 6, y - 4, 30, 9);
        for p in find(&pixels, (0, 0, at.size.0, at.size.1), |c| near(c, colour)) {
            assert!(
                panels.iter().any(|&r| inside(r, p)) || inside(swatch, p),
                "series {s} drawn at {p:?}, outside every panel"
            );
        }
    }
    if fonts() {
        // Each chart's y description stands apart from its tick labels:
        // blank columns between them, wider than the gaps between the
        // characters of a label.
        let mut charts: Vec<(String, Rect)> = sheet
            .lanes
            .iter()
            .zip(&at.lanes)
            .map(|(l, &r)| (l.caption.clone(), r))
            .collect();
        charts.push(("queue".to_string(), at.queue));
        charts.push(("distributions".to_string(), at.cdf));
        charts.extend(
            sheet
                .bars
                .iter()
                .zip(&at.bars)
                .map(|(p, &r)| (p.title.clone(), r)),
        );
        for (name, rect) in charts {
            let runs = label_columns(&pixels, rect, frame(&pixels, rect));
            assert!(
                runs.len() >= 2,
                "{name}: no description or no tick labels: {runs:?}"
            );
            let (description, ticks) = (runs[0], runs[1]);
            assert!(
                description.1 - description.0 <= 16 && ticks.0 >= description.1 + 5,
                "{name}: the axis description touches the tick labels: {runs:?}"
            );
        }
        for (s, y) in swatches.iter().enumerate() {
            let label = (legend.0 + 40, y - 9, legend.2 - 40, 18);
            let ink = find(&pixels, label, dark).len();
            assert!(
                ink >= 20,
                "legend entry {s} ({}) has no text: {ink}",
                sheet.series[s].label
            );
        }
    }
}

#[test]
fn a_single_disk_sheet_shows_every_policy_in_every_part() {
    let mut a = args(&["fcfs", "sstf", "look", "c-look"]);
    a.read_fraction = 0.7;
    a.deadline_ms = Some((50.0, 150.0));
    let sheet = spindle::run::sheet(&a).unwrap();
    let labels: Vec<&str> = sheet.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["fcfs", "sstf", "look", "c-look"]);
    assert_eq!(sheet.lanes.len(), 4);
    assert_eq!(sheet.bars.len(), 3);
    look_at(&sheet);
}

#[test]
fn a_mirrored_sheet_has_a_lane_per_disk_of_each_policy() {
    let mut a = args(&["dmq", "cmq"]);
    a.disks = Some(2);
    a.placement = Some(experiments::Placement::MIRROR);
    a.read_fraction = 0.7;
    let sheet = spindle::run::sheet(&a).unwrap();
    let lanes: Vec<(usize, bool)> = sheet
        .lanes
        .iter()
        .map(|l| (l.series, l.caption.contains("disk 2")))
        .collect();
    assert_eq!(lanes, [(0, false), (0, true), (1, false), (1, true)]);
    // Reads and updates, with their intervals.
    assert_eq!(sheet.bars.len(), 1);
    assert_eq!(sheet.bars[0].groups, ["read", "update"]);
    look_at(&sheet);
}

#[test]
fn a_replay_sheet_has_a_lane_per_device() {
    let args = spindle::replay::ReplayArgs {
        trace: support::data("ascii.trace").into(),
        disk: "hp97560".to_string(),
        policy: "sstf".parse().unwrap(),
        disks: None,
        placement: None,
        trace_format: None,
        devices: vec![10, 11, 14],
        block_size: 512,
        speed: 1.0,
        seed: 1,
        plot: None,
        plot_requests: 40,
        fit: experiments::Fit::Refuse,
        samples: None,
    };
    let (report, sheet) = spindle::replay::sheet(&args).unwrap();
    assert_eq!(report.devices(), [10, 11, 14]);
    let labels: Vec<&str> = sheet.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["device 10", "device 11", "device 14"]);
    assert_eq!(sheet.lanes.len(), 3);
    // One replay: reads against writes, without intervals.
    assert!(sheet.bars[0].title.contains("no interval"));
    assert!(sheet.bars[0].bars.iter().all(|b| b.half_width == 0.0));
    look_at(&sheet);
}
