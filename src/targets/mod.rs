//! Target writers.
