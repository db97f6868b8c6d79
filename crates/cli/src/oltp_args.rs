//! The OLTP workload's options, shared by `spindle array` and `spindle
//! repro zhang02`.

use experiments::oltp::{OltpWorkload, Popularity, READ_FRACTION};

/// The shape of the OLTP workload (see [`experiments::oltp`] for the
/// defaults and their sources).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct OltpArgs {
    /// Fraction of reads.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = READ_FRACTION, value_parser = crate::bounds::fraction()))]
    pub read_fraction: f64,
    /// Which blocks reads go to: uniform, zipf:ALPHA (0..=4) or
    /// hot:FRACTION:SHARE (FRACTION of the blocks take SHARE of the reads).
    #[cfg_attr(feature = "cli", arg(long, default_value = "uniform", value_parser = crate::bounds::popularity))]
    pub read_skew: Popularity,
    /// Which blocks writes go to (as --read-skew); the default models
    /// TPC-C's hot-page write-backs.
    #[cfg_attr(feature = "cli", arg(long, default_value = "zipf:1", value_parser = crate::bounds::popularity))]
    pub write_skew: Popularity,
    /// A request's size, KB (whole 4 KB blocks, 4 to 1024).
    #[cfg_attr(feature = "cli", arg(long = "request-kb", default_value = "4", value_parser = crate::bounds::request_kb()))]
    pub request_blocks: u32,
    /// Squared coefficient of variation of the gaps between requests, 1
    /// (Poisson) to 100.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0, value_parser = crate::bounds::burstiness()))]
    pub burstiness: f64,
}

impl Default for OltpArgs {
    fn default() -> Self {
        let w = OltpWorkload::tpcc_like(1.0, 1);
        OltpArgs {
            read_fraction: w.read_fraction,
            read_skew: w.read_popularity,
            write_skew: w.write_popularity,
            request_blocks: w.request_blocks,
            burstiness: w.burstiness,
        }
    }
}

impl OltpArgs {
    /// The uniform workload of earlier versions (uniform reads and writes).
    pub fn uniform() -> Self {
        OltpArgs {
            write_skew: Popularity::Uniform,
            ..OltpArgs::default()
        }
    }

    /// The workload at `base_rate` requests/s over `database_blocks`.
    pub fn workload(&self, base_rate: f64, database_blocks: u64) -> OltpWorkload {
        OltpWorkload {
            base_rate,
            read_fraction: self.read_fraction,
            database_blocks,
            read_popularity: self.read_skew,
            write_popularity: self.write_skew,
            request_blocks: self.request_blocks,
            burstiness: self.burstiness,
        }
    }

    /// One line describing the workload, for a table's note.
    pub fn describe(&self) -> String {
        format!(
            "{} KB requests, {:.0} % reads, reads {}, writes {}, {}",
            4 * self.request_blocks,
            100.0 * self.read_fraction,
            self.read_skew,
            self.write_skew,
            if self.burstiness == 1.0 {
                "Poisson arrivals".to_string()
            } else {
                format!("arrival gaps of squared variation {}", self.burstiness)
            }
        )
    }
}
