//! Qt Quick 3D target (being written).
