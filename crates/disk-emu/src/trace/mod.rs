//! Trace readers: DiskSim ascii and validation, MSR Cambridge CSV, SPC (UMass).
