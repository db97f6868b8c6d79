//! Analytic queueing models of the mirrored-disk paper (Towsley, Chen & Yu
//! 1991): M/G/1 formulas, stability limits, matrix-geometric solutions.
