//! Every figure the tool draws other than a run's sheet (`repro`'s papers,
//! `analyze`, `validate`), drawn from small runs, rendered to pixels and
//! looked at as a reader would: the legend lists the policies run and
//! covers no data, every curve shows in its colour, the axes cover the
//! data without wasting the plot, tick labels carry no needless decimals
//! (whole numbers on integral axes), and no text runs into other text, a
//! tick or the data. The text checks use the renderer's own layout of the
//! text and are skipped, saying so, where the system has no font.

use std::process::Command;

mod support;
use support::{spindle, stdout};

use resvg::tiny_skia::Pixmap;
use resvg::usvg;
use spindle::plot::{self, Drawing, Panel, Rect, Rgb, Scales, Source, TextRole};
use spindle::repro::{
    ReproOptions, chen_towsley91, ivy, towsley91, towsley91_analysis, tsai04, zhang02,
};

/// Distance between two colours, per channel.
fn distance(a: [u8; 3], b: Rgb) -> f64 {
    let d = |x: u8, y: u8| (f64::from(x) - f64::from(y)).powi(2);
    (d(a[0], b.0) + d(a[1], b.1) + d(a[2], b.2)).sqrt()
}

fn pixel(pixmap: &Pixmap, (x, y): (f64, f64)) -> [u8; 3] {
    let p = pixmap
        .pixel(x.round() as u32, y.round() as u32)
        .expect("inside the picture");
    // The background is opaque white, so every pixel is opaque.
    assert_eq!(p.alpha(), 255);
    [p.red(), p.green(), p.blue()]
}

/// `colour` at `opacity` over white.
fn over_white(colour: Rgb, opacity: f64) -> Rgb {
    let mix = |c: u8| (f64::from(c) * opacity + 255.0 * (1.0 - opacity)).round() as u8;
    Rgb(mix(colour.0), mix(colour.1), mix(colour.2))
}

/// Whether `pixel` is `colour` laid over white at `min_opacity` or more
/// (an edge smoothed by the renderer, a thin line, or the colour itself),
/// rather than white, grey or another colour.
fn tint_of(pixel: [u8; 3], colour: Rgb, min_opacity: f64) -> bool {
    let p = pixel.map(|v| 255.0 - f64::from(v));
    let c = [colour.0, colour.1, colour.2].map(|v| 255.0 - f64::from(v));
    let norm = c.iter().map(|v| v * v).sum::<f64>();
    let t = p.iter().zip(&c).map(|(a, b)| a * b).sum::<f64>() / norm;
    let off: f64 = p
        .iter()
        .zip(&c)
        .map(|(a, b)| (a - t * b).powi(2))
        .sum::<f64>()
        .sqrt();
    t >= min_opacity && t <= 1.15 && off < 25.0
}

/// Pixels within `rect` showing `colour` at `min_opacity` or more.
fn count_tint(pixmap: &Pixmap, rect: &Rect, colour: Rgb, min_opacity: f64) -> usize {
    let x0 = rect.x.max(0.0).floor() as u32;
    let y0 = rect.y.max(0.0).floor() as u32;
    let x1 = (rect.right().ceil() as u32).min(pixmap.width());
    let y1 = (rect.bottom().ceil() as u32).min(pixmap.height());
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = pixmap.pixel(x, y).expect("inside");
            tint_of([p.red(), p.green(), p.blue()], colour, min_opacity)
        })
        .count()
}

/// Pixels within `rect` close to `colour`.
fn count(pixmap: &Pixmap, rect: &Rect, colour: Rgb) -> usize {
    let x0 = rect.x.max(0.0).floor() as u32;
    let y0 = rect.y.max(0.0).floor() as u32;
    let x1 = (rect.right().ceil() as u32).min(pixmap.width());
    let y1 = (rect.bottom().ceil() as u32).min(pixmap.height());
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = pixmap.pixel(x, y).expect("inside");
            distance([p.red(), p.green(), p.blue()], colour) < 40.0
        })
        .count()
}

/// Every text of a picture as the renderer set it: (text, ink box).
fn rendered_texts(svg: &str) -> Vec<(String, Rect)> {
    fn walk(group: &usvg::Group, out: &mut Vec<(String, Rect)>) {
        for node in group.children() {
            match node {
                usvg::Node::Group(g) => walk(g, out),
                usvg::Node::Text(t) => {
                    let text: String = t.chunks().iter().map(|c| c.text()).collect();
                    let b = t.flattened().abs_bounding_box();
                    out.push((
                        text,
                        Rect {
                            x: f64::from(b.left()),
                            y: f64::from(b.top()),
                            w: f64::from(b.width()),
                            h: f64::from(b.height()),
                        },
                    ));
                }
                _ => {}
            }
        }
    }
    let tree = plot::svg_tree(svg).expect("the picture parses");
    let mut out = Vec::new();
    walk(tree.root(), &mut out);
    out
}

/// Whether a tick label is a plain number without needless decimals.
fn plain_number(label: &str) -> bool {
    let Ok(_) = label.parse::<f64>() else {
        return label.contains('e') && label.replace('e', "").parse::<f64>().is_ok();
    };
    !label.contains('.') || !(label.ends_with('0') || label.ends_with('.'))
}

/// Draws a figure and checks what a reader would see; returns the drawing
/// and its pixels.
fn look(name: &str, title: &str, panels: &[Panel], scales: Scales, curves: &[&str]) -> Drawing {
    let drawing = plot::draw_panels(title, panels, scales);
    // Self-contained, and no ids to clash when a page holds several.
    assert!(!drawing.svg.contains("url(") && !drawing.svg.contains(" id="));
    let layout = &drawing.layout;
    let pixmap = plot::rasterise(&drawing.svg).expect("the picture renders");
    assert_eq!(
        (pixmap.width(), pixmap.height()),
        (layout.width.ceil() as u32, layout.height.ceil() as u32),
        "{name}: size"
    );
    let picture = Rect {
        x: 0.0,
        y: 0.0,
        w: layout.width,
        h: layout.height,
    };

    // The legend lists the curves run, once each, beside the data.
    let legend = &layout.legend;
    let listed: Vec<&str> = legend.curves.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(listed, curves, "{name}: legend entries");
    assert!(
        legend.frame.x >= 0.0
            && legend.frame.right() <= layout.width
            && legend.frame.bottom() <= layout.height,
        "{name}: legend inside the picture"
    );
    for (i, p) in layout.panels.iter().enumerate() {
        assert!(
            !legend.frame.overlaps(&p.plot),
            "{name}: the legend overlaps panel {i}"
        );
        for c in &p.curves {
            for &point in c.points.iter().chain(&c.off_scale) {
                assert!(
                    !legend.frame.grown(5.0).contains(point),
                    "{name}: a point of {} under the legend",
                    c.curve
                );
            }
        }
    }

    let all_colours: Vec<Rgb> = legend.curves.iter().filter_map(|e| e.colour).collect();
    for (i, colour) in all_colours.iter().enumerate() {
        assert!(
            !all_colours[..i].contains(colour),
            "{name}: two curves in one colour"
        );
    }
    for entry in &legend.curves {
        let colour = entry.colour.expect("a curve has a colour");
        // A curve drawn only as a measurement is pale; its sample too.
        let measured_only = layout
            .panels
            .iter()
            .flat_map(|p| &p.curves)
            .filter(|c| c.curve == entry.text)
            .all(|c| c.source == Source::Measurement);
        // A curve with the same values as one drawn over it is hidden, and
        // its entry says so.
        if let Some(over) = &entry.hidden_under {
            for p in &layout.panels {
                let points = |curve: &str| -> Vec<&Vec<(f64, f64)>> {
                    p.curves
                        .iter()
                        .filter(|c| c.curve == curve)
                        .map(|c| &c.points)
                        .collect()
                };
                assert_eq!(points(&entry.text), points(over), "{name}: {}", entry.text);
            }
            continue;
        }
        let opacity = if measured_only { 0.3 } else { 0.5 };
        assert!(
            count_tint(&pixmap, &entry.swatch, colour, opacity) >= 6,
            "{name}: the legend's sample of {}",
            entry.text
        );
        let in_plots: usize = layout
            .panels
            .iter()
            .map(|p| count_tint(&pixmap, &p.plot, colour, opacity))
            .sum();
        assert!(
            in_plots >= 40,
            "{name}: {} shows in {in_plots} pixels",
            entry.text
        );
    }

    for (i, p) in layout.panels.iter().enumerate() {
        let plot_area = p.plot.grown(1.0);
        let points: Vec<(f64, f64)> = p
            .curves
            .iter()
            .flat_map(|c| c.points.iter().chain(&c.off_scale).copied())
            .collect();
        // Inside the axes...
        for c in &p.curves {
            for &q in c.points.iter().chain(&c.off_scale) {
                assert!(
                    plot_area.contains(q),
                    "{name}: panel {i}: a point of {} at {q:?} outside {:?}",
                    c.curve,
                    p.plot
                );
            }
            for &(x, top, bottom) in &c.bars {
                assert!(plot_area.contains((x, top)) && plot_area.contains((x, bottom)));
            }
        }
        // ...which do not waste the plot: the data reach from end to end
        // across, and to the top (with the axes' room of a few per cent).
        if !points.is_empty() {
            let left = points.iter().map(|q| q.0).fold(f64::INFINITY, f64::min);
            let right = points.iter().map(|q| q.0).fold(0.0, f64::max);
            let level = points.iter().all(|q| (q.1 - points[0].1).abs() < 0.5)
                && p.curves.iter().all(|c| c.bars.is_empty());
            let top = p
                .curves
                .iter()
                .flat_map(|c| {
                    c.points
                        .iter()
                        .map(|q| q.1)
                        .chain(c.bars.iter().map(|b| b.1))
                })
                .fold(f64::INFINITY, f64::min);
            let room = 0.08;
            assert!(
                left <= p.plot.x + room * p.plot.w && right >= p.plot.right() - room * p.plot.w,
                "{name}: panel {i}: data span {left}..{right} of {:?}",
                p.plot
            );
            // (All points level: the axis is the room around them.)
            assert!(
                level || top <= p.plot.y + room * p.plot.h,
                "{name}: panel {i}: highest point at {top}, plot from {}",
                p.plot.y
            );
        }
        // A simulated point shows a curve's colour (its own, or that of a
        // curve drawn over it): nothing else covers it.
        for c in p.curves.iter().filter(|c| c.source == Source::Simulation) {
            for &(x, y) in &c.points {
                let around: Vec<[u8; 3]> = (-2..=2)
                    .flat_map(|dx| (-2..=2).map(move |dy| (x + f64::from(dx), y + f64::from(dy))))
                    .map(|q| pixel(&pixmap, q))
                    .collect();
                assert!(
                    around
                        .iter()
                        .any(|&seen| all_colours.iter().any(|&k| distance(seen, k) < 40.0)),
                    "{name}: panel {i}: the point of {} at {:?} shows {:?}",
                    c.curve,
                    (x, y),
                    around[12]
                );
            }
        }
        // Ticks: increasing, plain numbers, whole on integral axes.
        for axis in [&p.x, &p.y] {
            let labels: Vec<(f64, &str)> = axis.labels().collect();
            assert!(labels.len() >= 2, "{name}: panel {i}: {labels:?}");
            assert!(labels.windows(2).all(|w| w[0].0 < w[1].0));
            for (value, label) in labels {
                assert!(plain_number(label), "{name}: tick label {label}");
                if !axis.log {
                    let shown: f64 = label.parse().expect("a number");
                    assert!((shown - value).abs() <= 1e-9 * value.abs().max(1.0));
                }
                if axis.integral {
                    assert!(label.parse::<i64>().is_ok(), "{name}: tick {label}");
                }
            }
        }
    }

    if !plot::fonts_available() {
        eprintln!("{name}: text not checked: the system has no font to set it in");
        return drawing;
    }
    // Each text is drawn inside the box the layout gave it...
    let rendered = rendered_texts(&drawing.svg);
    assert_eq!(rendered.len(), layout.texts.len(), "{name}: texts");
    for ((text, ink), laid) in rendered.iter().zip(&layout.texts) {
        assert_eq!(text, &laid.text);
        let room = laid.rect.grown(1.5);
        assert!(
            ink.x >= room.x
                && ink.right() <= room.right()
                && ink.y >= room.y
                && ink.bottom() <= room.bottom(),
            "{name}: {text:?} drawn at {ink:?}, outside {:?}",
            laid.rect
        );
    }
    // ...and the boxes keep apart: from each other, the ticks, the data
    // and the legend (legend text inside it).
    let ticks: Vec<Rect> = layout
        .panels
        .iter()
        .flat_map(|p| p.tick_marks.iter().copied())
        .collect();
    for (i, t) in layout.texts.iter().enumerate() {
        assert!(
            picture.grown(0.5).contains((t.rect.x, t.rect.y))
                && picture
                    .grown(0.5)
                    .contains((t.rect.right(), t.rect.bottom())),
            "{name}: {:?} leaves the picture",
            t.text
        );
        for other in &layout.texts[..i] {
            assert!(
                !t.rect.overlaps(&other.rect),
                "{name}: {:?} runs into {:?}",
                t.text,
                other.text
            );
        }
        for tick in &ticks {
            assert!(
                !t.rect.overlaps(tick),
                "{name}: {:?} runs into a tick",
                t.text
            );
        }
        if t.role != TextRole::Note {
            for p in &layout.panels {
                assert!(
                    !t.rect.overlaps(&p.plot),
                    "{name}: {:?} runs into the data",
                    t.text
                );
            }
        }
        let in_legend = legend.frame.contains((t.rect.x, t.rect.y))
            && legend.frame.contains((t.rect.right(), t.rect.bottom()));
        if t.role == TextRole::Legend {
            assert!(in_legend, "{name}: {:?} outside the legend", t.text);
        } else {
            assert!(
                !t.rect.overlaps(&legend.frame),
                "{name}: {:?} under the legend",
                t.text
            );
        }
    }
    drawing
}

fn repro_options() -> ReproOptions {
    ReproOptions {
        replications: 2,
        requests: 300,
        warmup: 30,
        seed: 1,
        jobs: 1,
    }
}

#[test]
fn towsley91_figures() {
    let seven = [
        "S-PSSQ", "C-PSSQ", "CR-ESQ", "CRU-ESQ", "MR-ESQ", "R-DMQ", "CMQ",
    ];
    let curves: [&[&str]; 6] = [
        &seven,
        &seven[..5],
        &["CRU-ESQ", "MR-ESQ", "R-DMQ", "CMQ"],
        &[
            "CMQ, exponential service",
            "CMQ, IBM 3330 service, p_s = 0.6",
        ],
        &[
            "exponential service, μ = 45/s",
            "IBM 3330, p_s = 0",
            "IBM 3330, p_s = 0.3",
            "IBM 3330, p_s = 0.6",
            "IBM 3330, p_s = 0.9",
        ],
        &[
            "R-DMQ",
            "SQ-DMQ",
            "MR-DMQ",
            "MR-DMQA (abort at start)",
            "MR-DMQA (abort at completion)",
            "CMQ",
        ],
    ];
    for n in 1..=6u8 {
        let f =
            towsley91::figure(n, &repro_options(), towsley91::SeekDraw::PerDisk, false).unwrap();
        let name = format!("towsley91 figure {n}");
        let d = look(
            &name,
            &f.title,
            &f.panels,
            Scales::default(),
            curves[usize::from(n) - 1],
        );
        // The model is drawn beside the simulation, not as more entries:
        // dashed models, and bounds as a band, listed once in the key.
        let key: Vec<&str> = d
            .layout
            .legend
            .key
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        if n <= 3 {
            assert!(key.contains(&"model"), "{name}: {key:?}");
        }
        if matches!(n, 4 | 5) {
            assert!(
                key.contains(&"model's lower and upper bounds"),
                "{name}: {key:?}"
            );
            assert!(
                d.svg.contains("stroke-dasharray=\"3 3\""),
                "{name}: bounds dashed"
            );
        }
        if n == 4 {
            assert_eq!(d.layout.panels.len(), 4);
        }
        assert_eq!(d.layout.panels[0].y.log, n == 6, "{name}: y scale");
    }
}

/// Figure 6's slow curves reach seconds: on a linear axis the other four
/// lie along its foot; on the log axis the figure takes they spread out.
#[test]
fn towsley91_figure6_is_logarithmic_so_its_low_curves_separate() {
    let options = ReproOptions {
        requests: 2000,
        ..repro_options()
    };
    let f = towsley91::figure(6, &options, towsley91::SeekDraw::PerDisk, false).unwrap();
    let spread = |scales: Scales| {
        let d = plot::draw_panels(&f.title, &f.panels, scales);
        let p = &d.layout.panels[0];
        let sixty = p.plot.x + p.x.fraction(60.0).unwrap() * p.plot.w;
        let ys: Vec<f64> = p
            .curves
            .iter()
            .filter(|c| {
                ["R-DMQ", "SQ-DMQ", "CMQ", "MR-DMQA (abort at start)"].contains(&c.curve.as_str())
            })
            .flat_map(|c| c.points.iter().filter(|q| q.0 <= sixty).map(|q| q.1))
            .collect();
        assert!(ys.len() >= 40, "{}", ys.len());
        let hi = ys.iter().copied().fold(0.0, f64::max);
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        (hi - lo) / p.plot.h
    };
    let log = spread(Scales::default());
    let linear = spread(Scales {
        log_x: None,
        log_y: Some(false),
    });
    eprintln!(
        "the low curves up to 60/s span {log:.3} of the log axis, {linear:.3} of the linear one"
    );
    assert!(linear < 0.1, "linear: {linear}");
    assert!(
        log > 2.5 * linear && log < 0.6,
        "log {log}, linear {linear}"
    );
}

#[test]
fn towsley91_analysis_figures() {
    let (figures, _) = towsley91_analysis::all().unwrap();
    let curves: [&[&str]; 5] = [
        &[
            "S-PSSQ", "C-PSSQ", "CR-ESQ", "CRU-ESQ", "MR-ESQ", "R-DMQ", "CMQ",
        ],
        &["S-PSSQ", "C-PSSQ", "CR-ESQ", "CRU-ESQ", "MR-ESQ"],
        &["CRU-ESQ", "MR-ESQ", "R-DMQ", "CMQ"],
        &["CMQ, exponential service"],
        &[
            "exponential service, μ = 45/s",
            "IBM 3330, p_s = 0",
            "IBM 3330, p_s = 0.3",
            "IBM 3330, p_s = 0.6",
            "IBM 3330, p_s = 0.9",
        ],
    ];
    for (f, expected) in figures.iter().zip(curves) {
        look(
            &format!("analyze towsley91 figure {}", f.number),
            &f.title,
            &f.panels,
            Scales::default(),
            expected,
        );
        look(
            &format!("analyze towsley91 figure {}, log y", f.number),
            &f.title,
            &f.panels,
            Scales {
                log_x: None,
                log_y: Some(true),
            },
            expected,
        );
    }
}

#[test]
fn tsai04_figures() {
    let options = tsai04::Tsai04Options {
        sets: 2,
        seconds: 4,
        step: 30,
        jobs: 1,
        ..tsai04::Tsai04Options::default()
    };
    let sweep = tsai04::sweep(&options).unwrap();
    // The same pictures whatever --jobs says.
    let other = tsai04::sweep(&tsai04::Tsai04Options { jobs: 3, ..options }).unwrap();
    for n in 5..=12 {
        let [a, b] = [&sweep, &other].map(|s| {
            let f = tsai04::figure(n, s).unwrap();
            plot::draw_panels(&f.title, &f.panels, Scales::default()).svg
        });
        assert!(a == b, "figure {n}: the picture depends on --jobs");
    }
    for n in 5..=12 {
        let f = tsai04::figure(n, &sweep).unwrap();
        let d = look(
            &format!("tsai04 figure {n}"),
            &f.title,
            &f.panels,
            Scales::default(),
            &["WRR-SCAN-R", "WRR-SCAN-C", "WRR-SCAN-CA", "SCAN-EDF"],
        );
        assert!(d.layout.panels[0].x.integral, "tasks are whole");
        assert!(f.title.starts_with("Tsai, Chu & Huang 2004, Figure"));
        // The title is not repeated above the panel.
        assert!(
            d.layout.texts.iter().all(|t| t.role != TextRole::Caption),
            "figure {n}"
        );
    }
}

#[test]
fn chen_towsley91_figures() {
    let options = chen_towsley91::TxnReproOptions {
        replications: 2,
        transactions: 60,
        warmup: 10,
        jobs: 1,
        ..chen_towsley91::TxnReproOptions::default()
    };
    for n in 2..=13 {
        let f = chen_towsley91::figure(n, &options, false).unwrap();
        let spec = chen_towsley91::spec(n).unwrap();
        let curves: Vec<&str> = spec.curves.iter().map(|c| c.0).collect();
        let d = look(
            &format!("chen-towsley91 figure {n}"),
            &f.title,
            &f.panels,
            Scales::default(),
            &curves,
        );
        // On log axes, zeros (RT-CMQ's empty per-disk queues in Figure 4,
        // no losses at p_r = 1) are marked at the axis's foot and keyed.
        let log = look(
            &format!("chen-towsley91 figure {n}, log y"),
            &f.title,
            &f.panels,
            Scales {
                log_x: None,
                log_y: Some(true),
            },
            &curves,
        );
        // (A panel with nothing above zero stays linear.)
        let zeros = f
            .panels
            .iter()
            .zip(&log.layout.panels)
            .filter(|(_, drawn)| drawn.y.log)
            .flat_map(|(p, _)| &p.series)
            .flat_map(|s| &s.points)
            .filter(|p| p.1 <= 0.0)
            .count();
        let marked: usize = log
            .layout
            .panels
            .iter()
            .flat_map(|p| &p.curves)
            .map(|c| c.off_scale.len())
            .sum();
        assert_eq!(marked, zeros, "figure {n}");
        let keyed = log
            .layout
            .legend
            .key
            .iter()
            .any(|e| e.text.contains("off the log scale"));
        assert_eq!(keyed, zeros > 0, "figure {n}");
        if n == 4 {
            assert!(zeros >= 9, "RT-CMQ's per-disk queue is empty");
        }
        if spec.axis == chen_towsley91::Axis::Users {
            let x = &d.layout.panels[0].x;
            assert!(x.integral);
            let labels: Vec<&str> = x.labels().map(|(_, l)| l).collect();
            assert_eq!(labels, ["4", "6", "8", "10", "12", "14", "16", "18", "20"]);
        }
    }
}

#[test]
fn zhang02_figure() {
    let options = zhang02::Zhang02Options {
        replications: 1,
        requests: 1000,
        warmup: 300,
        jobs: 1,
        ..zhang02::Zhang02Options::default()
    };
    let f = zhang02::figure(&options).unwrap();
    let curves: Vec<&str> = zhang02::configurations().iter().map(|c| c.label).collect();
    look(
        "zhang02 figure 11",
        &f.title,
        &f.panels,
        Scales::default(),
        &curves,
    );
}

#[test]
fn ivy_figure() {
    let trace = shared_data::disksim_file("ajw.1week.srt");
    let options = ivy::IvyOptions {
        trace,
        policy: vec![
            experiments::ReplicationPolicy::Rnwn,
            experiments::ReplicationPolicy::Rnw1,
        ],
        routing: vec![experiments::CopySelection::LeastTurnaround],
        copies: vec![1, 2, 3],
        compare_discipline: ivy::ComparedDiscipline(None),
        replications: 1,
        jobs: 1,
        ..ivy::IvyOptions::default()
    };
    let r = ivy::reproduce(&options).unwrap();
    let d = look(
        "ivy",
        &r.title,
        &r.panels,
        Scales::default(),
        &["RNWN", "RNW1"],
    );
    assert!(d.layout.panels.iter().all(|p| p.x.integral));
    assert!(r.title.contains("ajw.1week.srt") && !r.title.contains("../"));
}

#[test]
fn validate_figure() {
    let data = shared_data::disksim_valid();
    let spec = disk_emu::disk::from_disksim(data.join("hp_c2247a.parv")).unwrap();
    let rng = experiments::seeds::Unit::new(1, 0, 0)
        .stream(experiments::seeds::Purpose::Service { disk: 0 });
    let run =
        disk_emu::disk::validation::validate(&spec, data.join("hp_c2247a.trace"), rng).unwrap();
    let (title, panels) = spindle::validate::figure(&run);
    // The drive's name, not its model's block name.
    assert_eq!(run.disk, "HP_C2247A_validate");
    assert!(title.starts_with("HP C2247A:"), "{title}");
    let curves = ["HP C2247A, measured (hp_c2247a.trace)", "spindle's model"];
    for scales in [
        Scales::default(),
        Scales {
            log_x: Some(true),
            log_y: Some(true),
        },
    ] {
        let d = look("validate", &title, &panels, scales, &curves);
        // The model is drawn over the measurement, and both show: the
        // measured line's pale band on either side of the model's dashes.
        let pixmap = plot::rasterise(&d.svg).unwrap();
        let p = &d.layout.panels[0];
        let [measured, model] = [0, 1].map(|i| p.curves[i].colour);
        assert_eq!(p.curves[0].source, Source::Measurement);
        assert_eq!(p.curves[1].source, Source::Model);
        let pale = count(&pixmap, &p.plot, over_white(measured, 0.35));
        let dashes = count(&pixmap, &p.plot, model);
        assert!(
            pale >= 1000 && dashes >= 300,
            "{pale} pale, {dashes} dashed"
        );
        assert_eq!(
            (p.x.log, p.y.log),
            (scales.log_x == Some(true), scales.log_y == Some(true))
        );
    }
}

/// `--plot` names files as its help says: one figure, exactly the file
/// named; several, `{N}` replaced by each number (or `-figN` added).
#[test]
fn plot_files_are_named_as_the_help_says() {
    let dir = tempfile::tempdir().unwrap();
    let run_ok = |args: &[&str]| {
        stdout(&spindle(args));
    };
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    run_ok(&[
        "analyze",
        "towsley91",
        "--figure",
        "2",
        "--plot",
        &path("one.svg"),
    ]);
    run_ok(&[
        "analyze",
        "towsley91",
        "--plot",
        &path("a{N}.png"),
        "--log-y",
    ]);
    run_ok(&[
        "analyze",
        "towsley91",
        "--plot",
        &path("out.svg"),
        "--log-y=false",
    ]);
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "a1.png",
            "a2.png",
            "a3.png",
            "a4.png",
            "a5.png",
            "one.svg",
            "out-fig1.svg",
            "out-fig2.svg",
            "out-fig3.svg",
            "out-fig4.svg",
            "out-fig5.svg"
        ]
    );
    let png = std::fs::read(dir.path().join("a3.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // The help says so, the placeholder intact (clap turns "{n}" into a
    // line break), whatever column the help wraps at.
    let help = stdout(&spindle(&["analyze", "towsley91", "--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("--plot 'fig{N}.png' writes fig1.png"),
        "{help}"
    );
    // --log-y shapes the pictures of --html's page too.
    let page = dir.path().join("page.html");
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args([
            "--html",
            page.to_str().unwrap(),
            "analyze",
            "towsley91",
            "--figure",
            "3",
            "--log-y",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .contains("response time (ms), log scale")
    );
}
