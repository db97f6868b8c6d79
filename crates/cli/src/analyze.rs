//! `spindle analyze PAPER`: a paper's analytic models alone, without
//! simulation (tables, CSV/JSON, SVG).

use std::path::PathBuf;

use anyhow::Result;

use crate::output::Format;
use crate::plot::write_svg;
use crate::repro::{plot_path, towsley91_analysis};

/// Which paper.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Subcommand))]
pub enum AnalyzePaper {
    /// Towsley, Chen & Yu 1991: the analytic series of Figures 1–5
    /// (stability limits; M/G/1, quasi-birth-death and fork-join models).
    Towsley91 {
        /// Figure (1–5; Figure 6 is simulation only); all five when omitted.
        #[cfg_attr(feature = "cli", arg(long, value_parser = clap::value_parser!(u8).range(1..=5)))]
        figure: Option<u8>,
        /// Also draw the figure(s) as SVG; with several figures, FILE gets a
        /// `-figN` suffix before its extension.
        #[cfg_attr(feature = "cli", arg(long, value_name = "FILE.svg", value_parser = crate::bounds::svg_path))]
        plot: Option<PathBuf>,
    },
}

/// `spindle analyze ...`.
///
/// # Errors
/// A failed model or an unwritable plot.
pub fn run(paper: &AnalyzePaper, format: Format) -> Result<()> {
    let AnalyzePaper::Towsley91 { figure, plot } = paper;
    let started = std::time::Instant::now();
    let figures = match figure {
        Some(n) => vec![towsley91_analysis::figure(*n)?],
        None => towsley91_analysis::all()?.0,
    };
    let solved = started.elapsed();
    let mut tables = Vec::new();
    for f in figures {
        if let Some(base) = plot {
            let path = plot_path(base, f.number, figure.is_none());
            write_svg(&path, &f.title, &f.panels)?;
            eprintln!("wrote {}", path.display());
        }
        tables.extend(f.tables);
    }
    crate::output::emit_tables(&tables, format)?;
    eprintln!("analysis time: {:.1} ms", solved.as_secs_f64() * 1e3);
    Ok(())
}
