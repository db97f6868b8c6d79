//! `spindle analyze PAPER`: a paper's analytic models alone, without
//! simulation (tables, CSV/JSON, SVG).

use anyhow::Result;

use queueing::closed_form::Policy;

use crate::output::{Cell, Format, Table};
use crate::plot::{PlotArgs, draw_panels, figure_path};
use crate::repro::towsley91_analysis;
use crate::repro::towsley91_analysis::{bounds_cells, exact_cell};

/// Which paper.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Subcommand))]
pub enum AnalyzePaper {
    /// Towsley, Chen & Yu 1991: the analytic series of Figures 1–5
    /// (stability limits; M/G/1, quasi-birth-death and fork-join models).
    Towsley91 {
        /// Figure (1–5; Figure 6 is simulation only); all five when omitted.
        #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u8>::new("the figure", 1, 5)))]
        figure: Option<u8>,
        #[cfg_attr(feature = "cli", command(flatten))]
        plot: PlotArgs,
        /// Instead of a figure, the models at one arrival rate (requests/s).
        #[cfg_attr(feature = "cli", arg(long, conflicts_with_all = ["figure", "plot"], value_parser = crate::bounds::Real::new("the arrival rate (per second)", 1e-3, 1e6)))]
        lambda: Option<f64>,
        /// With --lambda: the probability that a request reads.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.5, requires = "lambda", allow_negative_numbers = true, value_parser = crate::bounds::fraction()))]
        p_read: f64,
        /// With --lambda: each disk's service rate, per second (exponential).
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 45.0, requires = "lambda", value_parser = crate::bounds::Real::new("the service rate (per second)", 1e-3, 1e6)))]
        mu: f64,
        /// With --lambda: the models to solve (repeat): s-pssq, c-pssq,
        /// cr-esq, cru-esq, mr-esq, dmq, cmq [default: all seven].
        #[cfg_attr(feature = "cli", arg(long = "model", requires = "lambda", value_parser = parse_model))]
        models: Vec<Policy>,
    },
}

#[cfg(feature = "cli")]
fn parse_model(s: &str) -> Result<Policy, String> {
    Policy::ALL
        .into_iter()
        .find(|p| p.name().eq_ignore_ascii_case(s))
        .ok_or_else(|| {
            let names: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
            format!("expected one of {}", names.join(", "))
        })
}

/// The models' mean responses at one configuration.
fn at_point(models: &[Policy], lambda: f64, p_r: f64, mu: f64) -> Table {
    let mut t = Table::new(
        format!("Towsley, Chen & Yu 1991 — analysis at λ = {lambda}/s, p_r = {p_r}, μ = {mu}/s"),
        &[
            "model",
            "limit λ/s",
            "read ms",
            "update ms",
            "all ms",
            "read lo",
            "read hi",
            "update lo",
            "update hi",
            "all lo",
            "all hi",
            "note",
        ],
    );
    for &policy in models {
        let limit = policy.max_throughput(p_r, mu);
        let mut row = vec![Cell::text(policy.name()), Cell::num(limit, 2)];
        match towsley91_analysis::point(policy, lambda, p_r, mu) {
            Ok(p) => {
                row.extend([p.read, p.update, p.overall].map(exact_cell));
                row.extend(
                    [p.read, p.update, p.overall]
                        .into_iter()
                        .flat_map(bounds_cells),
                );
                row.push(Cell::Missing);
            }
            Err(e) => {
                row.resize(11, Cell::Missing);
                row.push(Cell::text(format!("{e:#}")));
            }
        }
        t.row(row);
    }
    t.note(
        "Exponential service. Exact values are in the read/update/all columns; a model that is bounded only (truncated chains, fork-join bounds) gives its lower and upper bounds in the lo/hi ones.",
    );
    t
}

/// `spindle analyze ...`.
///
/// # Errors
/// A failed model or an unwritable plot.
pub fn run(paper: &AnalyzePaper, format: Format) -> Result<()> {
    let AnalyzePaper::Towsley91 {
        figure,
        plot,
        lambda,
        p_read,
        mu,
        models,
    } = paper;
    if let Some(lambda) = *lambda {
        let models = if models.is_empty() {
            Policy::ALL.to_vec()
        } else {
            models.clone()
        };
        return crate::report::emit_table(&at_point(&models, lambda, *p_read, *mu), format);
    }
    let started = std::time::Instant::now();
    let figures = match figure {
        Some(n) => vec![towsley91_analysis::figure(*n)?],
        None => towsley91_analysis::all()?.0,
    };
    let solved = started.elapsed();
    let mut tables = Vec::new();
    let count = figures.len();
    for f in figures {
        let path = plot
            .plot
            .as_deref()
            .map(|base| figure_path(base, f.number, count));
        crate::report::picture(path.as_deref(), &f.title, || {
            Ok(draw_panels(&f.title, &f.panels, plot.scales()).svg)
        })?;
        tables.extend(f.tables);
    }
    crate::report::emit_tables(&tables, format)?;
    eprintln!("analysis time: {:.1} ms", solved.as_secs_f64() * 1e3);
    Ok(())
}
