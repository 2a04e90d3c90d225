//! BMD1 target (being written).
