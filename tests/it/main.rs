//! The integration tests, as modules of one test binary: as a `tests/*.rs` each linked the
//! whole crate again (47 binaries, 18.6 GB in a debug build, four times the CPU time to
//! build); here it is linked once (docs/performance.md, "Test build").
//!
//! Every test shares this one process, so a test must not change process-wide state: the
//! working directory (`build_script` runs its body in a child process instead), the
//! environment (give a child process its variables with `Command::env`), fixed temporary
//! paths or ports (`remote_cache::free_port`). Two binaries stay apart: `tests/corpus/`
//! (the corpus tests, which `.ci/run` runs again against `ASSETC_CORPUS`) and
//! `tests/fuzz_readers.rs` (its `#[global_allocator]` counts allocations for the whole
//! process). Run one area with `cargo test --test it font_kind`.

#[path = "../common/mod.rs"]
mod common;

mod astc_format;
mod audio_formats;
mod audio_kind;
mod bc7_rdo;
mod bcn_formats;
mod bmd1_compat_motion;
mod bmd1_loader;
mod bmd1_target;
mod build_killed;
mod build_loops;
mod build_report;
mod build_samples;
mod build_script;
mod build_tools;
mod check_tree;
mod cli_rough_edges;
mod cluster_lod;
mod config_errors;
mod fbx_balsam;
mod fbx_import;
mod font_kind;
mod foreign_ktx2;
mod gltf_extensions;
mod gpu_ready_inputs;
mod hostile_inputs;
mod hpack_archive;
mod import_corpus;
mod import_fuzz;
mod import_invalid;
mod info_cmd;
mod ktx2_peers;
mod layers;
mod lightmap_uvs;
mod meta_files;
mod mixed_uvs;
mod newcomer_tree;
mod noop_rebuild;
mod obj_import;
mod output_folder;
mod platforms;
mod preview_render;
mod qtmesh_peers;
mod qtmesh_render;
mod qtmesh_target;
mod remote_cache;
mod rig_targets;
mod settings_effects;
mod settings_keys;
mod shader_imports;
mod shader_kind;
mod shader_wgsl;
mod skin_anim;
mod spk_archive;
mod standalone_kinds;
mod symlinks;
mod tangents_corpus;
mod texture_classes;
mod texture_layouts;
mod texture_samplers;
mod texture_transform;
mod uv1s_corpus;
mod warnings_reported;
