//! Result tables rendered as aligned text, CSV or JSON.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{Map, Value, json};

thread_local! {
    static DISCARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `command` with its results (tables on standard output, plot files)
/// thrown away: a shard of a sweep computes a share of the units, and its
/// results go to its part file instead ([`experiments::sharding`]).
pub fn discarding_results<R>(command: impl FnOnce() -> R) -> R {
    let before = DISCARDED.with(|d| d.replace(true));
    let result = command();
    DISCARDED.with(|d| d.set(before));
    result
}

/// Whether results are being thrown away ([`discarding_results`]).
pub fn results_discarded() -> bool {
    DISCARDED.with(std::cell::Cell::get)
}

/// Announces a file a command wrote: `wrote PATH` on standard error, the
/// one way every command says so (standard output holds only results),
/// unless results are being thrown away.
pub fn announce_written(path: &std::path::Path) {
    if !results_discarded() {
        eprintln!("wrote {}", path.display());
    }
}

/// Prints a command's results on standard output, unless they are being
/// thrown away.
pub fn emit(text: &str) {
    if !results_discarded() {
        let mut out = std::io::stdout().lock();
        // A closed pipe (`spindle ... | head`) is not an error of the run.
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    }
}

/// Significant digits a number keeps in CSV: more than any estimate here
/// is known to (a confidence interval's width shows how many count), few
/// enough that a sum's rounding error (`100.99999999999999`) disappears.
const CSV_SIGNIFICANT_DIGITS: i32 = 12;

/// `value` with `digits` decimals, a value that rounds to zero without a
/// minus sign (`-0.00` is not how anyone writes nothing).
fn fixed(value: f64, digits: usize) -> String {
    let text = format!("{value:.digits$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

/// `value` as a reader writes it in CSV: [`CSV_SIGNIFICANT_DIGITS`]
/// significant digits, no trailing zeros, no negative zero; non-finite
/// values as `inf`, `-inf`, `NaN`.
pub(crate) fn csv_number(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    if value == 0.0 {
        return "0".to_string();
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (CSV_SIGNIFICANT_DIGITS - 1 - magnitude).clamp(0, 300) as usize;
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    match text {
        "-0" => "0".to_string(),
        t => t.to_string(),
    }
}

/// Free text longer than this many characters wraps within its column in
/// the aligned-table format.
const WRAP_AT: usize = 30;

/// The widths notes under a table wrap at: the table's own width, but no
/// narrower than the first figure and no wider than the second.
const NOTE_WIDTH: std::ops::Range<usize> = 60..100;

/// `text` in lines of at most `width` characters, broken at spaces or
/// after commas (a piece longer than `width` keeps a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    if text.chars().count() <= width {
        return vec![text.to_string()];
    }
    // Pieces end after a comma or before a space (the space is dropped at a
    // break).
    let mut pieces: Vec<(String, bool)> = Vec::new();
    let mut piece = String::new();
    for c in text.chars() {
        match c {
            ' ' => {
                pieces.push((std::mem::take(&mut piece), true));
            }
            ',' => {
                piece.push(c);
                pieces.push((std::mem::take(&mut piece), false));
            }
            _ => piece.push(c),
        }
    }
    pieces.push((piece, false));
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut space_before = false;
    for (piece, space_after) in pieces {
        let joiner = usize::from(space_before);
        if !current.is_empty() && current.chars().count() + joiner + piece.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        } else if space_before && !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&piece);
        space_before = space_after;
    }
    lines.push(current);
    lines
}

/// Output format of every command that prints results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Aligned columns for a terminal, with ± 95 % confidence half-widths.
    Table,
    /// Comma-separated values; an estimate becomes two columns, `x` and `x_ci95`.
    Csv,
    /// One JSON document; an estimate becomes `{"mean": .., "ci95": ..}`.
    Json,
}

/// One value in a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Free text.
    Text(String),
    /// A count.
    Int(u64),
    /// A measured or computed number, printed with `digits` decimals.
    Num { value: f64, digits: usize },
    /// A mean over replications with the half-width of its 95 % interval
    /// (not finite where one replication alone defined the figure: the
    /// mean is shown as of one run, CSV leaves the width empty and JSON
    /// writes `null`).
    Estimate {
        mean: f64,
        half_width: f64,
        digits: usize,
    },
    /// No value (not applicable, or beyond a stability limit).
    Missing,
    /// No value, for the reason given (`overload`), which the aligned table
    /// shows; CSV leaves the cell empty and JSON writes `null`, so that a
    /// column of numbers holds numbers only.
    Absent(&'static str),
    /// Yes or no: `yes`/`no` in the aligned table, `true`/`false` in CSV,
    /// a JSON boolean.
    Flag(bool),
}

impl Cell {
    /// Text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// Number with `digits` decimals.
    pub fn num(value: f64, digits: usize) -> Cell {
        Cell::Num { value, digits }
    }

    /// Estimate with `digits` decimals.
    pub fn estimate(mean: f64, half_width: f64, digits: usize) -> Cell {
        Cell::Estimate {
            mean,
            half_width,
            digits,
        }
    }

    /// The cell as the aligned format prints it ("25.12 ± 0.46", "—").
    pub(crate) fn text_form(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => n.to_string(),
            Cell::Num { value, digits } => fixed(*value, *digits),
            Cell::Estimate {
                mean,
                half_width,
                digits,
            } if half_width.is_finite() => {
                format!(
                    "{} ± {}",
                    fixed(*mean, *digits),
                    fixed(*half_width, *digits)
                )
            }
            // One replication defined the figure: it has no interval.
            Cell::Estimate { mean, digits, .. } => format!("{} (1 run)", fixed(*mean, *digits)),
            Cell::Missing => "—".to_string(),
            Cell::Absent(why) => (*why).to_string(),
            Cell::Flag(yes) => if *yes { "yes" } else { "no" }.to_string(),
        }
    }

    /// The cell's value as CSV writes it (an estimate: its mean).
    pub fn csv_value(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => n.to_string(),
            Cell::Num { value, .. } => csv_number(*value),
            Cell::Estimate { mean, .. } => csv_number(*mean),
            Cell::Missing | Cell::Absent(_) => String::new(),
            Cell::Flag(yes) => yes.to_string(),
        }
    }

    fn is_text(&self) -> bool {
        matches!(self, Cell::Text(_))
    }
}

/// A titled table with named columns.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// What the table shows.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// Lines printed under the table (parameters, sources, caveats).
    pub notes: Vec<String>,
}

impl Table {
    /// An empty table. Column names are unique (a JSON row is an object
    /// keyed by them).
    pub fn new(title: impl Into<String>, columns: &[&str]) -> Table {
        debug_assert!(
            columns
                .iter()
                .enumerate()
                .all(|(i, c)| !columns[..i].contains(c)),
            "a column named twice in {columns:?}"
        );
        Table {
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            ..Table::default()
        }
    }

    /// Appends a row (one cell per column).
    pub fn row(&mut self, cells: Vec<Cell>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }

    /// Appends a note.
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// The table in the given format.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => self.render_text(),
            Format::Csv => self.render_csv(),
            Format::Json => {
                serde_json::to_string_pretty(&self.to_json()).expect("tables serialise") + "\n"
            }
        }
    }

    fn render_text(&self) -> String {
        // Text columns (left-aligned, wrapped): free text, with no value
        // where a row has none.
        let text_column = |c: usize| {
            self.rows.is_empty()
                || self.rows.iter().any(|r| r[c].is_text())
                    && self
                        .rows
                        .iter()
                        .all(|r| matches!(r[c], Cell::Text(_) | Cell::Missing | Cell::Absent(_)))
        };
        // Each row as lines of cells: long free text wraps within its column,
        // so a table of descriptions stays as wide as a terminal.
        let rows: Vec<Vec<Vec<String>>> = self
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<Vec<String>> = r
                    .iter()
                    .enumerate()
                    .map(|(c, cell)| {
                        let text = cell.text_form();
                        if text_column(c) {
                            wrap(&text, WRAP_AT)
                        } else {
                            vec![text]
                        }
                    })
                    .collect();
                let height = cells.iter().map(Vec::len).max().unwrap_or(1);
                (0..height)
                    .map(|k| {
                        cells
                            .iter()
                            .map(|lines| lines.get(k).cloned().unwrap_or_default())
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|c| {
                rows.iter()
                    .flatten()
                    .map(|line| line[c].chars().count())
                    .chain(std::iter::once(self.columns[c].chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        if !self.title.is_empty() {
            let _ = writeln!(out, "{}", self.title);
        }
        let line = |out: &mut String, texts: &[String], left: &dyn Fn(usize) -> bool| {
            let parts: Vec<String> = texts
                .iter()
                .enumerate()
                .map(|(c, t)| {
                    let pad = widths[c].saturating_sub(t.chars().count());
                    if left(c) {
                        format!("{t}{}", " ".repeat(pad))
                    } else {
                        format!("{}{t}", " ".repeat(pad))
                    }
                })
                .collect();
            let _ = writeln!(out, "{}", parts.join("  ").trim_end());
        };
        line(&mut out, &self.columns, &text_column);
        let _ = writeln!(
            out,
            "{}",
            widths
                .iter()
                .map(|w| "─".repeat(*w))
                .collect::<Vec<_>>()
                .join("  ")
        );
        for row_lines in &rows {
            for l in row_lines {
                line(&mut out, l, &text_column);
            }
        }
        // Notes wrap as the cells do, at the table's width (within
        // NOTE_WIDTH), so that no line of the output is wider than the table
        // or a terminal.
        let table_width = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
        let note_width = table_width.clamp(NOTE_WIDTH.start, NOTE_WIDTH.end);
        for n in &self.notes {
            for l in wrap(n, note_width) {
                let _ = writeln!(out, "{l}");
            }
        }
        out
    }

    fn render_csv(&self) -> String {
        let estimate_columns: Vec<bool> = (0..self.columns.len())
            .map(|c| {
                self.rows
                    .iter()
                    .any(|r| matches!(r[c], Cell::Estimate { .. }))
            })
            .collect();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = Vec::new();
        for (c, name) in self.columns.iter().enumerate() {
            header.push(name.clone());
            if estimate_columns[c] {
                header.push(format!("{name}_ci95"));
            }
        }
        w.write_record(&header).expect("writing to memory");
        for row in &self.rows {
            let mut rec = Vec::new();
            for (c, cell) in row.iter().enumerate() {
                let hw = match cell {
                    Cell::Estimate { half_width, .. } if half_width.is_finite() => {
                        csv_number(*half_width)
                    }
                    _ => String::new(),
                };
                let value = cell.csv_value();
                rec.push(value);
                if estimate_columns[c] {
                    rec.push(hw);
                }
            }
            w.write_record(&rec).expect("writing to memory");
        }
        String::from_utf8(w.into_inner().expect("flushing memory")).expect("csv of UTF-8 is UTF-8")
    }

    /// The table as a JSON object: title, rows as objects, notes.
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut m = Map::new();
                for (name, cell) in self.columns.iter().zip(r) {
                    let v = match cell {
                        Cell::Text(s) => json!(s),
                        Cell::Int(n) => json!(n),
                        Cell::Num { value, .. } => json!(value),
                        Cell::Estimate {
                            mean, half_width, ..
                        } => json!({"mean": mean, "ci95": half_width}),
                        Cell::Missing | Cell::Absent(_) => Value::Null,
                        Cell::Flag(yes) => json!(yes),
                    };
                    m.insert(name.clone(), v);
                }
                Value::Object(m)
            })
            .collect();
        json!({"title": self.title, "rows": rows, "notes": self.notes})
    }
}

/// Renders several tables: text tables separated by a blank line, CSV tables
/// each preceded by a `# title` line, JSON as one array.
pub fn render_all(tables: &[Table], format: Format) -> String {
    match format {
        Format::Json => {
            let all: Vec<Value> = tables.iter().map(Table::to_json).collect();
            serde_json::to_string_pretty(&all).expect("tables serialise") + "\n"
        }
        Format::Csv => tables
            .iter()
            .map(|t| format!("# {}\n{}", t.title, t.render(Format::Csv)))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Table => tables
            .iter()
            .map(|t| t.render(Format::Table))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("demo", &["policy", "response ms", "n"]);
        t.row(vec![
            Cell::text("fcfs"),
            Cell::estimate(25.123, 0.456, 2),
            Cell::Int(10),
        ]);
        t.row(vec![Cell::text("sstf"), Cell::Missing, Cell::Int(3)]);
        t.note("load 0.8");
        t
    }

    #[test]
    fn text_aligns_and_shows_intervals() {
        let s = sample().render(Format::Table);
        assert!(s.contains("fcfs    25.12 ± 0.46  10"), "{s}");
        assert!(s.contains("sstf               —   3"), "{s}");
        assert!(s.ends_with("load 0.8\n"));
    }

    #[test]
    fn long_text_wraps_at_spaces_and_commas() {
        assert_eq!(wrap("short", 10), ["short"]);
        assert_eq!(wrap("a few words here", 8), ["a few", "words", "here"]);
        assert_eq!(
            wrap("m=3,beta=2,window=4", 9),
            ["m=3,", "beta=2,", "window=4"]
        );
        let mut t = Table::new("t", &["name", "what"]);
        t.row(vec![Cell::text("x"), Cell::text("word ".repeat(30).trim())]);
        let text = t.render(Format::Table);
        assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
        assert!(t.render(Format::Csv).lines().count() == 2);
    }

    #[test]
    fn notes_wrap_at_the_tables_width() {
        let mut t = Table::new("t", &["name", "what"]);
        t.row(vec![Cell::text("x"), Cell::text("y")]);
        let note = "a note of many words, ".repeat(20);
        t.note(note.trim());
        let text = t.render(Format::Table);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= NOTE_WIDTH.start, "{text}");
        assert!(text.lines().count() > 5, "{text}");
        // CSV and JSON keep the note whole.
        let json: Value = serde_json::from_str(&t.render(Format::Json)).unwrap();
        assert_eq!(json["notes"][0], json!(note.trim()));
    }

    #[test]
    fn absent_values_and_flags_are_typed() {
        let mut t = Table::new("t", &["run", "ms", "sustained"]);
        t.row(vec![Cell::text("a"), Cell::num(1.5, 1), Cell::Flag(true)]);
        t.row(vec![
            Cell::text("b"),
            Cell::Absent("overload"),
            Cell::Flag(false),
        ]);
        let text = t.render(Format::Table);
        assert!(text.contains("overload") && text.contains("yes"), "{text}");
        assert_eq!(
            t.render(Format::Csv),
            "run,ms,sustained\na,1.5,true\nb,,false\n"
        );
        let json: Value = serde_json::from_str(&t.render(Format::Json)).unwrap();
        assert_eq!(json["rows"][1]["ms"], Value::Null);
        assert_eq!(json["rows"][1]["sustained"], json!(false));
    }

    #[test]
    fn csv_numbers_read_as_written() {
        assert_eq!(csv_number(100.99999999999999), "101");
        assert_eq!(csv_number(-0.0), "0");
        assert_eq!(csv_number(-1e-15), "-0.000000000000001");
        assert_eq!(csv_number(23.514876354380537), "23.5148763544");
        assert_eq!(csv_number(0.00016795193512522666), "0.000167951935125");
        assert_eq!(csv_number(1_234_567_890_123_456.0), "1234567890123456");
        assert_eq!(csv_number(2.0), "2");
        assert_eq!(csv_number(f64::INFINITY), "inf");
        assert_eq!(fixed(-0.0001, 2), "0.00");
        assert_eq!(fixed(-0.01, 2), "-0.01");
    }

    #[test]
    fn csv_splits_estimates() {
        let s = sample().render(Format::Csv);
        assert_eq!(
            s.lines().next(),
            Some("policy,response ms,response ms_ci95,n")
        );
        assert_eq!(s.lines().nth(1), Some("fcfs,25.123,0.456,10"));
        assert_eq!(s.lines().nth(2), Some("sstf,,,3"));
    }

    #[test]
    fn json_keeps_means_and_intervals() {
        let v: Value = serde_json::from_str(&sample().render(Format::Json)).unwrap();
        assert_eq!(v["rows"][0]["response ms"]["ci95"], json!(0.456));
        assert_eq!(v["rows"][1]["response ms"], Value::Null);
    }
}
