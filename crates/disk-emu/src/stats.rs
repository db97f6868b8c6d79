//! Statistics, computed once and in one place.
