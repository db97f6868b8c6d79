//! The real-time transaction system of Chen & Towsley (1991): closed users,
//! two-phase locking, EDF CPU scheduling and deadlines, over `disk-emu`.
//! Filled by a later issue.
