//! `--html FILE`: a command's results as one self-contained HTML page —
//! every table it prints and every picture it draws, inline, readable
//! offline in a browser.
//!
//! While [`writing_to`] runs a command, the tables it emits (through
//! [`crate::report::emit_table`]) and the pictures it draws (through
//! [`crate::report::save`], or [`picture`] when no `--plot` file is given)
//! are collected, in order; when the command succeeds they are written as
//! one page. The page fetches nothing: the pictures are inline SVG, the
//! style sheet is in the page, there is no script, and a
//! Content-Security-Policy forbids any request, so it reads the same on a
//! machine without a network and cannot leak where it was opened. It holds
//! nothing that varies between runs of the same command (no date, no
//! timing), so it is byte-identical whatever `--jobs` says.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::output::{Cell, Format, Table};
use crate::plot::escape;

/// What a page collects.
#[derive(Debug, Default)]
struct Report {
    tables: Vec<Table>,
    pictures: Vec<Picture>,
    notes: Vec<String>,
}

/// A picture of the page.
#[derive(Debug)]
struct Picture {
    /// What it shows, for the contents and its caption.
    title: Option<String>,
    /// The file it was also written to.
    file: Option<String>,
    /// The SVG text.
    svg: String,
}

thread_local! {
    static REPORT: RefCell<Option<Report>> = const { RefCell::new(None) };
}

/// The policy of every page: nothing may be fetched (no image, font,
/// script, frame or connection), styles only from the page itself.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// Runs `command`, collecting its tables and pictures, and when it
/// succeeds writes them to `path` as one page headed `heading` (the
/// command line).
///
/// # Errors
/// The command's, or a page that cannot be written.
pub fn writing_to<R>(path: &Path, heading: &str, command: impl FnOnce() -> Result<R>) -> Result<R> {
    let before = REPORT.with(|r| r.replace(Some(Report::default())));
    let result = command();
    let report = REPORT.with(|r| r.replace(before)).unwrap_or_default();
    let value = result?;
    std::fs::write(path, render(heading, &report))
        .with_context(|| format!("--html: writing {}", path.display()))?;
    crate::output::announce_written(path);
    Ok(value)
}

/// Whether a page is being collected: a command then draws its pictures
/// even without `--plot`.
pub fn collecting() -> bool {
    REPORT.with(|r| r.borrow().is_some())
}

/// Adds tables to the page being collected, if any.
pub(crate) fn add_tables(tables: &[Table]) {
    REPORT.with(|r| {
        if let Some(report) = r.borrow_mut().as_mut() {
            report.tables.extend_from_slice(tables);
        }
    });
}

/// Adds a picture (SVG text) to the page being collected, if any, with its
/// title and the file it was also written to.
pub(crate) fn add_picture(title: Option<&str>, file: Option<&Path>, svg: &str) {
    REPORT.with(|r| {
        if let Some(report) = r.borrow_mut().as_mut() {
            report.pictures.push(Picture {
                title: title.map(str::to_string),
                file: file.map(|f| f.display().to_string()),
                svg: svg.to_string(),
            });
        }
    });
}

/// Adds a remark to the page being collected, if any (what the command
/// could not draw for it, and why).
pub fn note(text: impl Into<String>) {
    REPORT.with(|r| {
        if let Some(report) = r.borrow_mut().as_mut() {
            report.notes.push(text.into());
        }
    });
}

/// Delivers a picture titled `title`: drawn by `render` (SVG text),
/// written to `path` when one is given ([`crate::report::write_picture`]) and
/// put in the page being collected; not drawn at all when neither wants
/// it, or while results are thrown away.
///
/// # Errors
/// `render`'s, or a file that cannot be written.
pub fn picture(
    path: Option<&Path>,
    title: &str,
    render: impl FnOnce() -> Result<String>,
) -> Result<()> {
    if crate::output::results_discarded() || (path.is_none() && !collecting()) {
        return Ok(());
    }
    let svg = render()?;
    if let Some(path) = path {
        write_picture(path, &svg)?;
    }
    add_picture(Some(title), path, &svg);
    Ok(())
}

/// A page of one picture (`--plot FILE.html`), titled `title`.
pub fn picture_page(title: &str, svg: &str) -> String {
    let report = Report {
        pictures: vec![Picture {
            title: None,
            file: None,
            svg: svg.to_string(),
        }],
        ..Report::default()
    };
    render(title, &report)
}

const STYLE: &str = "body{font-family:'DejaVu Sans',sans-serif;margin:1.5em auto;max-width:1500px;padding:0 1em;color:#222}\
h1{font-size:1.25em;font-family:'DejaVu Sans Mono',monospace;word-break:break-all}\
h2{font-size:1.1em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\
nav p{margin:.6em 0 .2em;font-weight:bold;font-size:.9em}nav ul{columns:2;font-size:.9em;margin-top:0}\
table{border-collapse:collapse;margin:1.5em 0 .3em;font-size:.85em}\
caption{text-align:left;font-weight:bold;padding:.3em 0}\
th,td{border:1px solid #ddd;padding:.2em .5em;vertical-align:top}\
th{background:#f3f3f3}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
ul.notes{font-size:.85em;color:#444;margin-top:.2em}\
figure{margin:1.5em 0}\
figure svg{max-width:100%;height:auto;border:1px solid #eee}\
figcaption{font-size:.85em;color:#444}";

/// The page: the heading, a contents list, the pictures (what a reader
/// looks at first), then the tables (each with its notes under it).
fn render(heading: &str, report: &Report) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"spindle {}\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        CONTENT_SECURITY_POLICY,
        env!("CARGO_PKG_VERSION"),
        escape(heading),
        escape(heading)
    );
    for note in &report.notes {
        let _ = writeln!(html, "<p class=\"remark\">{}</p>", escape(note));
    }
    let _ = writeln!(
        html,
        "<p>{} picture{} and {} table{}; written by spindle {} (no network needed to read it).</p>",
        report.pictures.len(),
        if report.pictures.len() == 1 { "" } else { "s" },
        report.tables.len(),
        if report.tables.len() == 1 { "" } else { "s" },
        env!("CARGO_PKG_VERSION")
    );
    if report.tables.len() + report.pictures.len() > 1 {
        html.push_str("<nav>\n");
        let pictures = report.pictures.iter().enumerate();
        let tables = report.tables.iter().enumerate();
        let lists: [(&str, &str, Vec<String>); 2] = [
            (
                "Pictures",
                "picture",
                pictures.map(|(k, p)| picture_title(p, k)).collect(),
            ),
            (
                "Tables",
                "table",
                tables.map(|(k, t)| table_title(t, k)).collect(),
            ),
        ];
        for (heading, anchor, titles) in lists {
            if titles.is_empty() {
                continue;
            }
            let _ = writeln!(html, "<p>{heading}</p>\n<ul>");
            for (k, title) in titles.iter().enumerate() {
                let _ = writeln!(
                    html,
                    "<li><a href=\"#{anchor}-{}\">{}</a></li>",
                    k + 1,
                    escape(title)
                );
            }
            html.push_str("</ul>\n");
        }
        html.push_str("</nav>\n");
    }
    if !report.pictures.is_empty() {
        html.push_str("<section id=\"pictures\">\n<h2>Pictures</h2>\n");
        for (k, picture) in report.pictures.iter().enumerate() {
            let _ = writeln!(html, "<figure id=\"picture-{}\">", k + 1);
            html.push_str(svg_element(&picture.svg));
            html.push('\n');
            let mut caption = escape(&picture_title(picture, k));
            if let Some(file) = &picture.file {
                let _ = write!(caption, " (also written to {})", escape(file));
            }
            let _ = writeln!(html, "<figcaption>{caption}</figcaption>\n</figure>");
        }
        html.push_str("</section>\n");
    }
    if !report.tables.is_empty() {
        html.push_str("<section id=\"tables\">\n<h2>Tables</h2>\n");
        for (k, table) in report.tables.iter().enumerate() {
            push_table(&mut html, table, k);
        }
        html.push_str("</section>\n");
    }
    html.push_str("</body>\n</html>\n");
    html
}

fn picture_title(picture: &Picture, k: usize) -> String {
    picture
        .title
        .clone()
        .unwrap_or_else(|| format!("Picture {}", k + 1))
}

fn table_title(table: &Table, k: usize) -> String {
    if table.title.is_empty() {
        format!("Table {}", k + 1)
    } else {
        table.title.clone()
    }
}

fn push_table(html: &mut String, table: &Table, k: usize) {
    let _ = writeln!(
        html,
        "<table id=\"table-{}\">\n<caption>{}</caption>",
        k + 1,
        escape(&table_title(table, k))
    );
    html.push_str("<thead><tr>");
    for column in &table.columns {
        let _ = write!(html, "<th scope=\"col\">{}</th>", escape(column));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        html.push_str("<tr>");
        for cell in row {
            let class = if matches!(cell, Cell::Text(_)) {
                ""
            } else {
                " class=\"num\""
            };
            let _ = write!(html, "<td{class}>{}</td>", escape(&cell.text_form()));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n");
    if !table.notes.is_empty() {
        html.push_str("<ul class=\"notes\">\n");
        for note in &table.notes {
            let _ = writeln!(html, "<li>{}</li>", escape(note));
        }
        html.push_str("</ul>\n");
    }
}

/// The `<svg>` element of a picture's SVG text (without an XML
/// declaration, which has no place inside HTML).
fn svg_element(svg: &str) -> &str {
    let svg = svg.trim();
    svg.find("<svg").map_or(svg, |start| &svg[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("a <b> & \"c\"", &["policy", "response ms"]);
        t.row(vec![Cell::text("fcfs"), Cell::estimate(25.123, 0.456, 2)]);
        t.note("seed 1");
        t
    }

    #[test]
    fn a_page_holds_its_tables_and_pictures_and_fetches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.html");
        writing_to(&path, "spindle run", || {
            add_tables(&[sample()]);
            picture(None, "a square", || {
                Ok("<svg viewBox=\"0 0 1 1\"></svg>".to_string())
            })?;
            Ok(())
        })
        .unwrap();
        let page = std::fs::read_to_string(&path).unwrap();
        assert!(page.contains("<caption>a &lt;b&gt; &amp; &quot;c&quot;</caption>"));
        assert!(page.contains("<td class=\"num\">25.12 ± 0.46</td>"));
        assert!(page.contains("<li>seed 1</li>"));
        assert!(page.contains("<figcaption>a square</figcaption>"));
        assert_eq!(page.matches("<svg").count(), 1);
        assert!(page.contains(CONTENT_SECURITY_POLICY));
        assert!(!page.contains("http:") && !page.contains("https:"));
        // Nothing collected outside `writing_to`, and no page after a failure.
        assert!(!collecting());
        let failed = dir.path().join("failed.html");
        assert!(writing_to(&failed, "x", || -> Result<()> { anyhow::bail!("no") }).is_err());
        assert!(!failed.exists());
    }

    #[test]
    fn no_picture_is_drawn_when_nobody_wants_it() {
        let mut drawn = false;
        picture(None, "nothing", || {
            drawn = true;
            Ok(String::new())
        })
        .unwrap();
        assert!(!drawn);
    }
}

thread_local! {
    static OUT_DIR: RefCell<Option<std::path::PathBuf>> = const { RefCell::new(None) };
}

/// Runs `command` with its tables written one per file into `dir` (global
/// `--out-dir`): `NN-title.csv` (or `.json`, `.txt` as `--format` says),
/// numbered in the order the command prints them, so a command of several
/// tables gives each its own parseable CSV. Standard output lists the files.
pub fn tables_into<R>(dir: std::path::PathBuf, command: impl FnOnce() -> R) -> R {
    let before = OUT_DIR.with(|d| d.replace(Some(dir)));
    let result = command();
    OUT_DIR.with(|d| d.replace(before));
    result
}

/// Prints a command's one result table (as [`Table::render`]), or writes it
/// to its own file under the `--out-dir` ([`tables_into`]).
///
/// # Errors
/// A file that cannot be written.
pub fn emit_table(table: &Table, format: Format) -> anyhow::Result<()> {
    if OUT_DIR.with(|d| d.borrow().is_none()) {
        add_tables(std::slice::from_ref(table));
        crate::output::emit(&table.render(format));
        return Ok(());
    }
    emit_tables(std::slice::from_ref(table), format)
}

/// Prints a command's result tables (as [`crate::output::render_all`]), or writes each to
/// its own file under the `--out-dir` ([`tables_into`]).
///
/// # Errors
/// A file that cannot be written.
pub fn emit_tables(tables: &[Table], format: Format) -> anyhow::Result<()> {
    // The page of `--html` gets them too.
    add_tables(tables);
    let Some(dir) = OUT_DIR.with(|d| d.borrow().clone()) else {
        crate::output::emit(&crate::output::render_all(tables, format));
        return Ok(());
    };
    if crate::output::results_discarded() {
        return Ok(());
    }
    let extension = match format {
        Format::Table => "txt",
        Format::Csv => "csv",
        Format::Json => "json",
    };
    for (k, table) in tables.iter().enumerate() {
        let slug: String = table
            .title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect::<String>()
            .split('-')
            .filter(|w| !w.is_empty())
            .take(8)
            .collect::<Vec<_>>()
            .join("-");
        let path = dir.join(format!("{:02}-{slug}.{extension}", k + 1));
        let text = match format {
            Format::Json => serde_json::to_string_pretty(&table.to_json())? + "\n",
            other => table.render(other),
        };
        std::fs::write(&path, text)
            .map_err(|e| anyhow::anyhow!("--out-dir: writing {}: {e}", path.display()))?;
        crate::output::announce_written(&path);
    }
    Ok(())
}

/// Writes a picture drawn as SVG text to `path` ([`write_picture`]); the
/// page of `--html` gets it too.
///
/// # Errors
/// When the file cannot be written.
pub fn save(path: &Path, svg: &str) -> Result<()> {
    write_picture(path, svg)?;
    add_picture(None, Some(path), svg);
    Ok(())
}

/// Writes a picture drawn as SVG text to `path`, in the format the path's
/// extension names (checked beforehand by [`crate::bounds::svg_path`]):
/// `.png` rendered to pixels, `.html` a self-contained page of the picture
/// alone ([`picture_page`]), anything else the SVG. The one
/// place a picture reaches a file.
///
/// # Errors
/// When the file cannot be written.
pub fn write_picture(path: &Path, svg: &str) -> Result<()> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let bytes = match extension.as_deref() {
        Some("png") => crate::plot::rasterise(svg)?
            .encode_png()
            .context("encoding the PNG")?,
        Some("html") => {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            picture_page(name.as_deref().unwrap_or("picture"), svg).into_bytes()
        }
        _ => svg.as_bytes().to_vec(),
    };
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
    crate::output::announce_written(path);
    Ok(())
}
