//! The rig: skeletons and clips, shared by every target that animates.
//!
//! - [`skeleton`]: the exported skin (first one a scene node uses), its joint hierarchy
//!   with non-joint ancestors folded into each joint's offset, and per-vertex influences.
//! - [`sample`]: the one channel sampler (glTF spec: STEP, LINEAR with slerp,
//!   CUBICSPLINE Hermite) and node poses at a time; [`sample::linear_keys`] gives the same
//!   curves as keys for formats that store linear tracks.
//! - [`timeline`]: clip timing repairs applied on import (negative key times).
//! - [`hanim`]: clips for `.hanim`; BMD1 resamples poses in `targets::bmd1::clips`;
//!   [`keyframes`]: per-node TRS tracks for targets that keyframe nodes (Qt).
//!
//! Every function returns its warnings; callers prefix them with the source and report
//! them.

pub mod hanim;
pub mod keyframes;
pub mod sample;
pub mod skeleton;
pub mod timeline;
