//! `--html FILE`: one self-contained page per command, holding every table
//! it prints and every picture it draws, fetching nothing; the same bytes
//! (pictures and page) whatever `--jobs` says; and the page as a browser
//! shows it: headless Chromium (Debian's `chromium` package, which `.ci/run`
//! installs; the test says so and skips where it is absent) renders it,
//! and its DOM, its console and a screenshot are checked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod support;
use support::{data, spindle_in};

/// `spindle ARGS`, run in `dir`.
fn spindle(dir: &Path, args: &[&str]) -> Output {
    let out = spindle_in(dir, args);
    assert!(
        out.status.success(),
        "spindle {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// How many tables the command prints (its `--format json` output: one
/// table, or an array of them).
fn tables_printed(dir: &Path, args: &[&str]) -> usize {
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let out = spindle(dir, &with_json);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json.as_array().map_or(1, Vec::len)
}

/// The values of every `name="..."` attribute in `html`.
fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let key = format!(" {name}=\"");
    html.match_indices(&key)
        .map(|(at, _)| {
            let rest = &html[at + key.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// What a page must be: `tables` tables, each with its caption, `pictures`
/// inline SVGs with something drawn in them, the policy that forbids
/// fetching, and no address that would fetch (no `src`, no `url(`, every
/// link within the page).
fn check_page(page: &str, tables: usize, pictures: usize) {
    assert_eq!(page.matches("<table").count(), tables);
    assert_eq!(page.matches("<caption>").count(), tables);
    assert_eq!(page.matches("<svg").count(), pictures);
    assert_eq!(page.matches("</svg>").count(), pictures);
    for svg in page.split("<svg").skip(1) {
        let svg = &svg[..svg.find("</svg>").unwrap()];
        assert!(svg.contains("viewBox") && svg.contains("<text") && svg.contains("<polyline"));
    }
    assert!(page.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">"
    ));
    assert!(attributes(page, "src").is_empty());
    assert!(!page.contains("url("));
    assert!(!page.contains("<script") && !page.contains("<link") && !page.contains("<img"));
    for href in attributes(page, "href") {
        assert!(href.starts_with('#'), "a link out of the page: {href}");
    }
}

#[test]
fn each_command_writes_its_tables_and_pictures_into_one_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let trace = data("hp_c2247a.trace");
    let commands: [(&str, Vec<&str>); 5] = [
        (
            "run",
            vec![
                "run",
                "--policy",
                "fcfs",
                "--policy",
                "sstf",
                "--read-fraction",
                "0.7",
                "--requests",
                "500",
                "--replications",
                "2",
            ],
        ),
        (
            "replay",
            vec!["replay", &trace, "--disk", "hp-c2247a", "--policy", "sstf"],
        ),
        (
            "validate",
            vec!["validate", "--disk", "hp-c2247a", "--trace", &trace],
        ),
        (
            "repro",
            vec![
                "repro",
                "towsley91",
                "--figure",
                "1",
                "--replications",
                "2",
                "--requests",
                "300",
                "--warmup",
                "30",
            ],
        ),
        ("analyze", vec!["analyze", "towsley91", "--figure", "1"]),
    ];
    for (name, args) in commands {
        let tables = tables_printed(d, &args);
        let page = d.join(format!("{name}.html"));
        let mut with_page = args.clone();
        with_page.extend(["--html", page.to_str().unwrap()]);
        spindle(d, &with_page);
        let page = std::fs::read_to_string(&page).unwrap();
        // Without --plot, each draws its one picture into the page anyway.
        check_page(&page, tables, 1);
        assert!(
            page.contains(&format!("<h1>spindle {}", args.join(" "))),
            "{name}"
        );
    }
    // A sweep has no sheet, and its page says why.
    let page = d.join("sweep.html");
    spindle(
        d,
        &[
            "run",
            "--load",
            "0.5",
            "--load",
            "0.8",
            "--requests",
            "300",
            "--replications",
            "2",
            "--html",
            page.to_str().unwrap(),
        ],
    );
    let page = std::fs::read_to_string(&page).unwrap();
    check_page(&page, 1, 0);
    assert!(page.contains("No run sheet: it is drawn for one load point, and this run swept 2."));
}

#[test]
fn the_page_shows_the_pictures_the_plot_files_hold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "run",
        "--policy",
        "look",
        "--requests",
        "400",
        "--replications",
        "2",
    ];
    let mut both = args.to_vec();
    both.extend(["--plot", "sheet.svg", "--html", "r.html"]);
    spindle(d, &both);
    let svg = std::fs::read_to_string(d.join("sheet.svg")).unwrap();
    let page = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(page.contains(svg.trim()));
    assert!(page.contains("(also written to sheet.svg)</figcaption>"));
    // --plot FILE.html: the picture alone on a page of its own.
    let mut alone = args.to_vec();
    alone.extend(["--plot", "sheet.html"]);
    spindle(d, &alone);
    let picture = std::fs::read_to_string(d.join("sheet.html")).unwrap();
    check_page(&picture, 0, 1);
    assert!(picture.contains(svg.trim()));
}

#[test]
fn pictures_and_pages_are_the_same_bytes_whatever_jobs_says() {
    let files = |jobs: &str| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let run = [
            "run",
            "--policy",
            "sstf",
            "--policy",
            "c-look",
            "--read-fraction",
            "0.8",
            "--deadline-ms",
            "40..120",
            "--requests",
            "600",
            "--replications",
            "4",
            "--jobs",
            jobs,
        ];
        let mut svg = run.to_vec();
        svg.extend(["--plot", "sheet.svg", "--html", "run.html"]);
        spindle(d, &svg);
        let mut png = run.to_vec();
        png.extend(["--plot", "sheet.png"]);
        spindle(d, &png);
        spindle(
            d,
            &[
                "repro",
                "towsley91",
                "--figure",
                "1",
                "--replications",
                "3",
                "--requests",
                "300",
                "--warmup",
                "30",
                "--jobs",
                jobs,
                "--plot",
                "fig.svg",
                "--html",
                "repro.html",
            ],
        );
        [
            "sheet.svg",
            "run.html",
            "sheet.png",
            "fig.svg",
            "repro.html",
        ]
        .map(|f| std::fs::read(d.join(f)).unwrap())
    };
    let (one, three) = (files("1"), files("3"));
    for (k, name) in [
        "sheet.svg",
        "run.html",
        "sheet.png",
        "fig.svg",
        "repro.html",
    ]
    .iter()
    .enumerate()
    {
        assert!(one[k].len() > 1000, "{name}");
        assert!(one[k] == three[k], "{name} depends on --jobs");
    }
}

#[test]
fn a_page_that_cannot_be_written_is_refused_before_anything_runs() {
    let refuse = |args: &[&str], expected: &str| {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(expected),
            "{args:?}: {err}"
        );
        // A hang bound, not a speed: the run refused would take hours, so
        // a refusal that came after it ran could not come within a minute
        // even on a loaded machine.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{args:?} ran first"
        );
    };
    let huge = ["run", "--requests", "1000000000", "--replications", "10000"];
    let with = |extra: &[&'static str]| {
        let mut a = huge.to_vec();
        a.extend(extra);
        a
    };
    refuse(&with(&["--html", "report.txt"]), "name the file FILE.html");
    refuse(
        &with(&["--html", "/nonexistent-dir/r.html"]),
        "does not exist",
    );
    refuse(&with(&["--plot", "sheet.pdf"]), "`.pdf` is not drawn");
    refuse(
        &with(&["--shard", "0/2", "--html", "r.html"]),
        "give --html to `spindle merge`",
    );
}

/// Chromium's executable, where it is installed.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|p| p.is_file())
}

/// Headless Chromium on `page`: (its DOM, its log, a screenshot). Killed
/// after a minute (a browser that hangs fails the test, it does not hang it).
fn browse(
    browser: &Path,
    page: &Path,
    profile: &Path,
) -> (String, String, resvg::tiny_skia::Pixmap) {
    let shot = profile.join("shot.png");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            // Root (as CI runs) has no sandbox to drop privileges into.
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1500,2400",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        // Into files, not pipes: a page's DOM outgrows a pipe's buffer.
        .stdout(std::fs::File::create(profile.join("dom.html")).unwrap())
        .stderr(std::fs::File::create(profile.join("log.txt")).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("chromium did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = std::fs::read_to_string(profile.join("dom.html")).unwrap();
    let log = std::fs::read_to_string(profile.join("log.txt")).unwrap();
    let pixels = resvg::tiny_skia::Pixmap::load_png(&shot)
        .unwrap_or_else(|e| panic!("no screenshot ({e}): {log}"));
    (dom, log, pixels)
}

#[test]
fn the_page_opens_in_a_browser_with_every_table_and_picture_and_no_request() {
    let Some(browser) = chromium() else {
        eprintln!(
            "skipping: Chromium is not installed (Debian's chromium package; .ci/run installs it)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Several tables and pictures: a reproduction's figures.
    let out = spindle(
        d,
        &[
            "repro",
            "tsai04",
            "--jobs",
            "2",
            "--format",
            "json",
            "--html",
            "tsai04.html",
        ],
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tables = printed.as_array().unwrap().len();
    let page = d.join("tsai04.html");
    let source = std::fs::read_to_string(&page).unwrap();
    assert!(tables >= 9);
    check_page(&source, tables, 8);
    let (dom, log, pixels) = browse(&browser, &page, d);
    // The browser built every table and picture from the page, and found
    // nothing to fetch: the DOM passes the page's own checks.
    check_page(&dom, tables, 8);
    // Nothing was requested: the policy blocks any request and Chromium
    // logs the block. A control page asking for an image shows that the
    // log would say so.
    assert!(!log.contains("Content Security Policy"), "{log}");
    let control = d.join("control.html");
    std::fs::write(
        &control,
        source.replacen(
            "<h1>",
            "<img src=\"https://example.invalid/x.png\" alt=\"\"><h1>",
            1,
        ),
    )
    .unwrap();
    let control_dir = d.join("control");
    std::fs::create_dir(&control_dir).unwrap();
    let (_, control_log, _) = browse(&browser, &control, &control_dir);
    if control_log.contains("violates the following Content Security Policy directive") {
        assert!(control_log.contains("https://example.invalid/x.png"));
    } else {
        eprintln!("note: this Chromium does not log blocked requests; the DOM checks stand alone");
    }
    // The screenshot is a page, not a blank: the heading inked, and the
    // pictures (first on the page) in their colours.
    assert_eq!((pixels.width(), pixels.height()), (1500, 2400));
    let coloured = pixels
        .pixels()
        .iter()
        .filter(|p| {
            let (lo, hi) = (
                p.red().min(p.green()).min(p.blue()),
                p.red().max(p.green()).max(p.blue()),
            );
            hi - lo > 80
        })
        .count();
    assert!(
        coloured > 5000,
        "{coloured} coloured pixels: no picture shown"
    );
    let inked = pixels
        .pixels()
        .iter()
        .filter(|p| p.red() < 200 || p.green() < 200 || p.blue() < 200)
        .count();
    let share = inked as f64 / pixels.pixels().len() as f64;
    assert!((0.02..0.6).contains(&share), "inked share {share}");
    let heading = (0..60u32)
        .flat_map(|y| (0..600u32).map(move |x| (x, y)))
        .filter(|&(x, y)| pixels.pixel(x, y).is_some_and(|p| p.red() < 100))
        .count();
    assert!(heading > 100, "no heading drawn: {heading}");
}

/// `validate`'s page is the same bytes from run to run: the wall time of
/// the simulation goes to standard error, not into the table.
#[test]
fn a_validation_page_is_the_same_bytes_each_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let trace = data("hp_c2247a.trace");
    let page = d.join("validate.html");
    let args = [
        "validate",
        "--disk",
        "hp-c2247a",
        "--trace",
        &trace,
        "--html",
        page.to_str().unwrap(),
    ];
    let first = spindle(d, &args);
    let bytes = std::fs::read(&page).unwrap();
    assert!(String::from_utf8_lossy(&first.stderr).contains("note: simulated in"));
    spindle(d, &args);
    assert!(bytes == std::fs::read(&page).unwrap(), "the page changed");
}
