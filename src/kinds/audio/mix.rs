//! Down-mixing for positional sounds.

/// The mean of every channel, frame by frame: the mono a positional (3D) sound plays. A
/// plain mean rather than a loudness-keeping sum: it never clips, and a sound whose
/// channels are the same comes out unchanged.
pub fn mono(planes: &[Vec<f32>]) -> Vec<f32> {
    let frames = planes.first().map_or(0, Vec::len);
    let scale = 1.0 / planes.len().max(1) as f32;
    (0..frames)
        .map(|i| planes.iter().map(|p| p[i]).sum::<f32>() * scale)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mono_is_the_channel_mean() {
        let left = vec![1.0, 0.5, -1.0];
        let right = vec![0.0, 0.5, 1.0];
        assert_eq!(mono(&[left.clone(), right]), [0.5, 0.5, 0.0]);
        assert_eq!(
            mono(&[left.clone(), left.clone(), left.clone(), left.clone()]),
            left
        );
        assert_eq!(mono(std::slice::from_ref(&left)), left);
    }
}
