//! Every format reader and validator on arbitrary bytes. The first byte picks the
//! format, so one corpus covers all of them; seed it with real files prefixed by their
//! selector (README.md).
#![no_main]

use assetc::formats::{
    bmd1, hanim, hfont, hman, hmat, hmesh, hpack, ktx2, qtmesh, spirv, spk, vorbis, wav, wgsl,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    match which % 14 {
        0 => {
            let _ = hmesh::read(bytes);
            let _ = hmesh::validate(bytes);
        }
        1 => {
            let _ = hmat::read(bytes);
            let _ = hmat::validate(bytes);
        }
        2 => {
            let _ = hanim::read(bytes);
            let _ = hanim::validate(bytes, Some(4));
        }
        3 => {
            let _ = hman::read(bytes);
            let _ = hman::validate(bytes);
        }
        4 => {
            let options = ktx2::ReadOptions {
                budget: 16 << 20,
                keep_levels: true,
            };
            let _ = ktx2::read_with(bytes, &options);
            let _ = ktx2::validate(bytes);
        }
        5 => {
            let _ = qtmesh::read(bytes);
            let _ = qtmesh::validate(bytes);
        }
        6 => {
            let _ = bmd1::read(bytes);
            let _ = bmd1::validate(bytes);
        }
        7 => {
            if let Ok(archive) = spk::open(bytes) {
                for i in 0..archive.len().min(16) {
                    let _ = archive.read_entry(i);
                }
            }
            let _ = spk::validate(bytes);
        }
        8 => {
            let _ = hpack::read(bytes);
            let _ = hpack::validate(bytes);
        }
        9 => {
            let _ = hfont::read(bytes);
            let _ = hfont::validate(bytes);
        }
        10 => {
            let _ = spirv::read(bytes);
            let _ = spirv::validate(bytes);
        }
        12 => {
            let _ = vorbis::read(bytes);
            let _ = vorbis::validate(bytes);
        }
        13 => {
            let _ = wgsl::read(bytes);
            let _ = wgsl::validate(bytes);
        }
        _ => {
            if let Ok(info) = wav::read(bytes) {
                let _ = wav::samples_f32(&info, bytes);
            }
            let _ = wav::validate(bytes);
        }
    }
});
