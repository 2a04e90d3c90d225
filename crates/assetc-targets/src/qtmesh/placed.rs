//! Lights and cameras as Qt Quick 3D elements, with the values Balsam 6.12 writes for
//! them (through assimp): a light's `brightness` is its glTF intensity (at least 1, the
//! colour scaled down when a channel of `color * intensity` exceeds 1); point and spot
//! lights fall off with the inverse square of the distance (`quadraticFade: 10000`,
//! Qt's scale for assimp's quadratic attenuation 1); spot cone angles are full angles
//! in degrees. A perspective camera keeps glTF's vertical field of view (Balsam turns
//! it into a horizontal one for the source's aspect ratio: the same view at that
//! aspect). glTF's `range` has no Qt counterpart and is left out, as Balsam does.

use super::literals::num;
use crate::scene::{Camera, Light, LightKind, Projection};
use std::fmt::Write;

/// The element type and its property lines (unindented) for a light.
pub fn light(l: &Light) -> (&'static str, String) {
    let kind = match l.kind {
        LightKind::Directional => "DirectionalLight",
        LightKind::Point => "PointLight",
        LightKind::Spot { .. } => "SpotLight",
    };
    let scaled = l.color.map(|c| c * l.intensity);
    let brightness = scaled.iter().fold(1.0f32, |m, &c| m.max(c));
    let color = scaled.map(|c| (c / brightness).clamp(0.0, 1.0));
    let mut s = String::new();
    if color != [1.0; 3] {
        let hex = |c: f32| (c * 255.0).round() as u8;
        let _ = writeln!(
            s,
            "color: \"#{:02x}{:02x}{:02x}\"",
            hex(color[0]),
            hex(color[1]),
            hex(color[2])
        );
    }
    let _ = writeln!(s, "brightness: {}", num(brightness));
    if let LightKind::Spot {
        inner_cone,
        outer_cone,
    } = l.kind
    {
        let _ = writeln!(s, "coneAngle: {}", num(2.0 * outer_cone.to_degrees()));
        let _ = writeln!(s, "innerConeAngle: {}", num(2.0 * inner_cone.to_degrees()));
    }
    if l.kind != LightKind::Directional {
        s.push_str("quadraticFade: 10000\n");
    }
    (kind, s)
}

/// The element type and its property lines (unindented) for a camera.
pub fn camera(c: &Camera) -> (&'static str, String) {
    let mut s = String::new();
    match c.projection {
        Projection::Perspective {
            yfov, znear, zfar, ..
        } => {
            let _ = writeln!(s, "fieldOfView: {}", num(yfov.to_degrees()));
            let _ = writeln!(s, "clipNear: {}", num(znear));
            if let Some(far) = zfar {
                let _ = writeln!(s, "clipFar: {}", num(far));
            }
            ("PerspectiveCamera", s)
        }
        Projection::Orthographic {
            xmag,
            ymag,
            znear,
            zfar,
        } => {
            let _ = writeln!(s, "clipNear: {}", num(znear));
            let _ = writeln!(s, "clipFar: {}", num(zfar));
            let _ = writeln!(s, "horizontalMagnification: {}", num(2.0 * xmag));
            let _ = writeln!(s, "verticalMagnification: {}", num(2.0 * ymag));
            ("OrthographicCamera", s)
        }
    }
}
