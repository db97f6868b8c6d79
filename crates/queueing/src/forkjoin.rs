//! Fork-join bounds (in progress).
