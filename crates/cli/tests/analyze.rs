//! `spindle analyze towsley91`: the analytic series alone, in every format,
//! with plots, and clear errors.

mod support;
use support::{spindle, stdout};

#[test]
fn figure_3_csv_has_every_model_and_tight_bounds() {
    let out = stdout(&spindle(&[
        "analyze",
        "towsley91",
        "--figure",
        "3",
        "--format",
        "csv",
    ]));
    let mut lines = out.lines();
    assert!(lines.next().unwrap().starts_with("# Figure 3 — analysis"));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    for (policy, model) in [
        ("CRU-ESQ", "QBD"),
        ("MR-ESQ", "M/G/1"),
        ("R-DMQ", "M/M/1 + fork-join bounds"),
        ("CMQ", "fork-join bounds"),
    ] {
        let mine: Vec<_> = rows.iter().filter(|r| r[0] == policy).collect();
        assert!(mine.len() > 20, "{policy}: {} rows", mine.len());
        assert!(mine.iter().all(|r| r[col("model")] == model));
        if policy.ends_with("MQ") {
            for r in mine {
                let lo: f64 = r[col("update lower")].parse().unwrap();
                let hi: f64 = r[col("update upper")].parse().unwrap();
                assert!(lo <= hi && hi <= 1.02 * lo + 1e-9, "{policy}: {lo} {hi}");
            }
        }
    }
}

#[test]
fn json_and_plots_of_every_figure() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let plot = dir.join("t91.svg");
    let out = stdout(&spindle(&[
        "analyze",
        "towsley91",
        "--format",
        "json",
        "--plot",
        plot.to_str().unwrap(),
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v.as_array().unwrap().len(),
        5,
        "one table per analytic figure"
    );
    // Figure 1: Neuts' test gives the closed-form limits.
    for row in v[0]["rows"].as_array().unwrap() {
        if let Some(d) = row["difference"].as_f64() {
            assert!(d.abs() < 1e-6, "{row}");
        }
    }
    for n in 1..=5 {
        let svg = std::fs::read_to_string(dir.join(format!("t91-fig{n}.svg"))).unwrap();
        assert!(
            svg.contains("<svg") && svg.contains("analysis"),
            "figure {n}"
        );
    }
}

#[test]
fn figure_6_and_out_of_range_figures_are_refused() {
    for bad in ["6", "0"] {
        let o = spindle(&["analyze", "towsley91", "--figure", bad]);
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("1..=5") || e.contains("not in"), "{e}");
    }
}

#[test]
fn repro_draws_the_models_after_the_simulation() {
    let out = stdout(&spindle(&[
        "repro",
        "towsley91",
        "--figure",
        "2",
        "--replications",
        "2",
        "--requests",
        "400",
        "--warmup",
        "40",
        "--format",
        "csv",
    ]));
    let tables: Vec<&str> = out.split("# ").filter(|t| !t.is_empty()).collect();
    assert_eq!(tables.len(), 2, "{out}");
    assert!(tables[0].starts_with("Figure 2 — mean response time"));
    assert!(tables[1].starts_with("Figure 2 — analysis"));
    // The chains fill the analysis columns of the simulation table.
    let cru = tables[0]
        .lines()
        .find(|l| l.starts_with("CRU-ESQ,10,"))
        .expect("CRU-ESQ at λ = 10");
    let cells: Vec<&str> = cru.split(',').collect();
    assert!(
        cells[4].parse::<f64>().is_ok() && cells[7].parse::<f64>().is_ok(),
        "{cru}"
    );
}
