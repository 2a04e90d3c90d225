//! Processing stages.
