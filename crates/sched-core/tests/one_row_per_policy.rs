//! Adding a policy is one file plus one row of the policy table
//! (`src/policy_table/mod.rs`): nothing else in the crate names it.
//!
//! The rule, checked on the crate's sources (`src/**/*.rs`, read when the
//! test runs, comments and doc comments left out) for every policy of the
//! registry:
//!
//! 1. Its canonical name appears as a string literal (`"sstf"`) in no file
//!    but the table; there, once as the name in its own row's header, and
//!    otherwise only as the default of another row's parameter (`queue =
//!    "fcfs"`: a policy used as another's default discipline).
//! 2. The type a row is headed by (`disk Sstf "sstf"`: the policy, start
//!    rule alias or read routing it stands for) appears in no file but the
//!    one that defines it and the table, and in the table only within its
//!    own row: no hand-written `match`, re-export, constructor call or
//!    registry entry names it anywhere else.
//!
//! Module files declare each policy file with a `mod` line and re-export
//! it whole (`pub use sstf::*;`), naming neither. The second test shows the
//! check failing on an extra mention. The third keeps the hand-written
//! policy tables of the crate's documentation in step with the rows (the
//! registry's own documentation is generated from them).

use std::collections::BTreeMap;
use std::path::Path;

use sched_core::registry::POLICIES;

/// The table's path among the sources.
const TABLE: &str = "policy_table/mod.rs";

/// The kinds of row whose header names a type.
const TYPED_ROWS: [&str; 5] = ["disk", "rate_based", "single_queue", "dmq", "queue_sets"];

/// Every `.rs` file under `dir`, by path relative to `root`.
fn read_sources(root: &Path, dir: &Path, into: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("a readable source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            read_sources(root, &path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            into.insert(
                name,
                std::fs::read_to_string(&path).expect("a readable file"),
            );
        }
    }
}

/// `text` with every comment blanked out (line comments, doc comments and
/// block comments), strings and characters kept, lines kept in place.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '"' {
            // A string literal, escapes and all.
            out.push(c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(chars[i]);
                    i += 1;
                }
                out.push(chars[i]);
                i += 1;
            }
            if i < chars.len() {
                out.push('"');
                i += 1;
            }
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal such as '"' or '\n'.
            let end = (i + 1..chars.len())
                .find(|&j| chars[j] == '\'' && j > i + 1)
                .unwrap_or(i);
            out.extend(&chars[i..=end]);
            i = end + 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The lines (1-based) of `code` holding `word` as a whole identifier.
fn lines_with_word(code: &str, word: &str) -> Vec<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            line.match_indices(word).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + word.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            })
        })
        .map(|(n, _)| n + 1)
        .collect()
}

/// A row of the table: its kind, the type its header names (if any), its
/// name, and the lines (1-based, inclusive) it spans.
struct Row {
    kind: String,
    ty: Option<String>,
    name: String,
    lines: (usize, usize),
}

/// The rows of the table, read from its code.
fn rows(table: &str) -> Vec<Row> {
    let lines: Vec<&str> = table.lines().collect();
    let mut rows: Vec<Row> = Vec::new();
    let open_end = |rows: &mut Vec<Row>, at: usize| {
        if let Some(last) = rows.last_mut()
            && last.lines.1 == 0
        {
            last.lines.1 = at;
        }
    };
    for (n, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let header = match words.as_slice() {
            [kind, ty, name, ..] if TYPED_ROWS.contains(kind) && name.starts_with('"') => Some((
                kind.to_string(),
                Some(ty.to_string()),
                name.trim_matches('"').to_string(),
            )),
            ["composition", name, "=", ..] => Some((
                "composition".to_string(),
                None,
                name.trim_matches('"').to_string(),
            )),
            ["dmq_family", ..] | ["}"] => {
                open_end(&mut rows, n);
                None
            }
            _ => None,
        };
        if let Some((kind, ty, name)) = header {
            open_end(&mut rows, n);
            rows.push(Row {
                kind,
                ty,
                name,
                lines: (n + 1, 0),
            });
        }
    }
    open_end(&mut rows, lines.len());
    rows
}

/// Every breach of the rule in `sources` (path → text), one line each.
fn violations(sources: &BTreeMap<String, String>) -> Vec<String> {
    let code: BTreeMap<&str, String> = sources
        .iter()
        .map(|(path, text)| (path.as_str(), code_only(text)))
        .collect();
    let table = &code[TABLE];
    let rows = rows(table);
    let table_lines: Vec<&str> = table.lines().collect();
    let mut found = Vec::new();
    for info in POLICIES {
        let own: Vec<&Row> = rows.iter().filter(|r| r.name == info.name).collect();
        let [row] = own.as_slice() else {
            found.push(format!(
                "{}: {} rows in the table, not one",
                info.name,
                own.len()
            ));
            continue;
        };
        let within = |line: usize| (row.lines.0..=row.lines.1).contains(&line);
        // 1. The name as a string literal.
        let literal = format!("\"{}\"", info.name);
        for (path, text) in &code {
            for (n, line) in text.lines().enumerate() {
                if !line.contains(&literal) {
                    continue;
                }
                let allowed =
                    *path == TABLE && (within(n + 1) || line.contains(&format!("= {literal}")));
                if !allowed {
                    found.push(format!(
                        "{}: {path}:{} names it: {}",
                        info.name,
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
        // 2. The type its row is headed by.
        let Some(ty) = &row.ty else { continue };
        let defines = |text: &str| {
            ["struct", "enum", "type", "trait"]
                .iter()
                .any(|k| !lines_with_word(text, &format!("pub {k} {ty}")).is_empty())
        };
        let homes: Vec<&str> = code
            .iter()
            .filter(|(_, text)| defines(text))
            .map(|(path, _)| *path)
            .collect();
        let [home] = homes.as_slice() else {
            found.push(format!(
                "{}: {ty} is defined in {homes:?}, not one file",
                info.name
            ));
            continue;
        };
        for (path, text) in &code {
            if path == home {
                continue;
            }
            for n in lines_with_word(text, ty) {
                if !(*path == TABLE && within(n)) {
                    let line = text.lines().nth(n - 1).unwrap_or("").trim();
                    found.push(format!(
                        "{} ({} row): {path}:{n} names {ty}: {line}",
                        info.name, row.kind
                    ));
                }
            }
        }
        assert!(row.lines.1 >= row.lines.0 && row.lines.1 <= table_lines.len());
    }
    found
}

fn crate_sources() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = BTreeMap::new();
    read_sources(&src, &src, &mut sources);
    sources
}

#[test]
fn adding_a_policy_is_one_file_and_one_row() {
    let sources = crate_sources();
    assert!(sources.contains_key(TABLE));
    let found = violations(&sources);
    assert!(found.is_empty(), "{}", found.join("\n"));
    // Every registered policy was looked at: 17 single-disk, 1 rate-based,
    // 13 array base policies and 15 compositions.
    assert_eq!(POLICIES.len(), 46);
    let typed = rows(&code_only(&sources[TABLE]))
        .iter()
        .filter(|r| r.ty.is_some())
        .count();
    assert_eq!(typed, 31);
}

/// The check fails when a policy is named outside its row: a re-export of
/// its type and its name as a literal in another file are caught, one line
/// each, while the same words in comments are not.
#[test]
fn an_extra_mention_is_caught() {
    let mut sources = crate_sources();
    sources.insert(
        "extra.rs".to_string(),
        [
            "// Sstf and \"sstf\" in a comment do not count.",
            "pub use crate::policy::Sstf;",
            "pub(crate) const DEFAULT: &str = \"sstf\";",
        ]
        .join("\n"),
    );
    let found = violations(&sources);
    assert_eq!(found.len(), 2, "{}", found.join("\n"));
    assert!(
        found[0].starts_with("sstf: extra.rs:3 names it"),
        "{}",
        found[0]
    );
    assert!(
        found[1].starts_with("sstf (disk row): extra.rs:2 names Sstf"),
        "{}",
        found[1]
    );
}

/// The `[`Type`]` links of `text`.
fn links(text: &str) -> Vec<&str> {
    text.match_indices("[`")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let end = rest.find("`]")?;
            Some(&rest[..end])
        })
        .collect()
}

/// The documentation's tables list exactly the policies of the table: the
/// single-disk and rate-based ones in `policy/mod.rs` (one table line each),
/// the array ones in `array/mod.rs`, and the README names every one.
#[test]
fn the_documented_policy_tables_agree_with_the_rows() {
    let sources = crate_sources();
    let rows = rows(&code_only(&sources[TABLE]));
    let typed = |kinds: &[&str]| -> Vec<String> {
        rows.iter()
            .filter(|r| kinds.contains(&r.kind.as_str()))
            .filter_map(|r| r.ty.clone())
            .collect()
    };
    // policy/mod.rs: the lines of its table link the policies, and only them.
    let policy_docs = &sources["policy/mod.rs"];
    let mut listed: Vec<&str> = policy_docs
        .lines()
        .filter(|l| l.starts_with("//! | [`"))
        .flat_map(|l| links(l.split(" | ").nth(1).unwrap_or("")))
        .collect();
    listed.sort_unstable();
    let mut single = typed(&["disk", "rate_based"]);
    single.sort_unstable();
    assert_eq!(listed, single, "the table of policy/mod.rs");
    // array/mod.rs: its account of the families links every array row.
    let array_docs = &sources["array/mod.rs"];
    for ty in typed(&["single_queue", "dmq", "queue_sets"]) {
        assert!(
            links(array_docs).contains(&ty.as_str()),
            "array/mod.rs does not link {ty}"
        );
    }
    // The README's lists name every policy but the compositions, as the
    // papers write them (upper case; `-`, `_` and spaces aside).
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .unwrap()
        .to_ascii_uppercase()
        .replace([' ', '-', '_'], "");
    for row in rows.iter().filter(|r| r.ty.is_some()) {
        let name = row.name.to_ascii_uppercase().replace('-', "");
        assert!(
            readme.contains(&name),
            "README.md does not name {}",
            row.name
        );
    }
    // lib.rs points to the registry, whose table is made from the rows.
    assert!(sources["lib.rs"].contains("[`registry`]"));
}
