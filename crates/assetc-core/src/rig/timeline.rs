//! Clip timing repairs applied when a source is imported, so every target sees the same
//! clips.
//!
//! glTF requires key times >= 0, but real exporters write clips whose keys start below
//! zero (a clip cut from a longer take). Such a clip is shifted as a whole, every channel
//! by the same amount, so that its earliest key is at 0: the motion and the channels'
//! relative timing are kept, only the clip's start moves.

use crate::code::{DiagnosticCode, Warning};
use crate::scene::Animation;

/// Shifts each animation whose earliest key time is negative so that it starts at 0.
/// Returns one warning for all of them (`None` when nothing moved); morph weight
/// channels are shifted too, so they stay in step with the others.
pub fn start_clips_at_zero(animations: &mut [Animation]) -> Option<Warning> {
    let mut shifted: Vec<String> = Vec::new();
    for (ai, animation) in animations.iter_mut().enumerate() {
        let earliest = earliest_time(animation);
        if earliest >= 0.0 || earliest.is_nan() {
            continue;
        }
        for channel in &mut animation.channels {
            for t in &mut channel.times {
                // Rounding is monotonic, so increasing times stay in order; the max keeps
                // a key at `earliest` exactly at 0.
                *t = (*t - earliest).max(0.0);
            }
        }
        shifted.push(format!("animations[{ai}] by {}", -earliest));
    }
    if shifted.is_empty() {
        return None;
    }
    Some(Warning::new(
        DiagnosticCode::Repaired,
        format!(
            "{} clip(s) had key times below zero (glTF requires >= 0); shifted to start at 0 s: {}",
            shifted.len(),
            shifted.join(", ")
        ),
    ))
}

/// Earliest finite key time of any channel (weights included); 0 without keys.
fn earliest_time(animation: &Animation) -> f32 {
    animation
        .channels
        .iter()
        .flat_map(|c| c.times.first().copied())
        .filter(|t| t.is_finite())
        .fold(0.0, f32::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Channel, ChannelPath, Interpolation};

    fn channel(times: &[f32]) -> Channel {
        Channel {
            gltf_path: "animations[0].channels[0]".into(),
            node: 0,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: times.to_vec(),
            values: vec![0.0; 3 * times.len()],
            components: 3,
        }
    }

    #[test]
    fn negative_clips_are_shifted_together_and_warned_once() {
        let mut animations = vec![
            Animation {
                name: None,
                channels: vec![channel(&[-0.5, 0.0, 1.0]), channel(&[-0.25, 2.0])],
            },
            Animation {
                name: None,
                channels: vec![channel(&[0.5, 1.0])],
            },
            Animation {
                name: None,
                channels: vec![channel(&[-2.0, -1.0])],
            },
        ];
        let warning = start_clips_at_zero(&mut animations).unwrap();
        // Both channels of the first clip move by 0.5, keeping their relative timing.
        assert_eq!(animations[0].channels[0].times, [0.0, 0.5, 1.5]);
        assert_eq!(animations[0].channels[1].times, [0.25, 2.5]);
        // A clip already within glTF's rules keeps its late start.
        assert_eq!(animations[1].channels[0].times, [0.5, 1.0]);
        assert_eq!(animations[2].channels[0].times, [0.0, 1.0]);
        assert!(warning.message.starts_with("2 clip(s)"), "{warning}");
        assert!(
            warning.message.contains("animations[0] by 0.5"),
            "{warning}"
        );
        assert!(warning.message.contains("animations[2] by 2"), "{warning}");
        assert_eq!(start_clips_at_zero(&mut animations), None);
    }
}
