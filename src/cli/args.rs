//! Arguments of every subcommand (clap derive).

use assetc::config;
use assetc::driver::Target;
use assetc::preview;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// assetc compiles a game's asset tree into GPU-ready runtime files: glTF 2.0, Wavefront
/// OBJ and FBX models (.hmesh geometry, .hmat material tables, .ktx2 textures, .hanim
/// clips), standalone textures, cubemaps and colour LUTs (.ktx2), fonts (.hfont and a
/// distance-field .ktx2), shaders (WGSL, WESL and GLSL to SPIR-V .spv; WGSL and WESL to
/// plain WGSL .wgsl for WebGPU), sounds (PCM .wav or Ogg Vorbis .ogg), embedded files, and
/// one assets.hman manifest.
///
/// Exit codes: 0 success, 1 one or more assets (or checked files) failed, 2 usage or
/// configuration error (bad flags, bad build.toml, unknown preset, missing input).
#[derive(Debug, Parser)]
#[command(name = "assetc", version, about, long_about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Print only errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print warnings and per-asset details.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// `human` (progress on a terminal, plain lines otherwise) or `json` (one JSON object
    /// per line, for CI and build tools).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human, global = true)]
    pub message_format: MessageFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    Human,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compile every asset under INPUT into OUTPUT.
    ///
    /// Every file below INPUT is a source of one kind (listed below), an input of a
    /// model (its buffers and images), a file named by an `embed` glob, or ignored, in
    /// which case one warning per build counts the ignored files by extension. Each
    /// model `INPUT/<path>.gltf` (or .glb, .obj, .fbx) gives `OUTPUT/<path>.hmesh` (geometry),
    /// `OUTPUT/<path>.hmat` (its material table), `OUTPUT/<path>.hanim` (clips, when
    /// skinned and animated) and content-addressed `OUTPUT/tex/<id>.ktx2` textures; the
    /// manifest `OUTPUT/assets.hman` maps every id to its file. `--target bmd1` writes
    /// `OUTPUT/<path>.bmd` (BGBTech3) and `--target qtmesh` a Qt Quick 3D scene in
    /// `OUTPUT/<path>.qt/` (what Qt's Balsam writes). A failing asset does not stop the
    /// others; the run then exits with 1 and writes nothing for that asset.
    #[command(after_long_help = kinds_help())]
    Build(BuildArgs),
    /// Validate every file of a compiled tree and the links between them (the CI gate).
    Check(TreeArgs),
    /// Print statistics of every file of a compiled tree, and totals.
    Info(TreeArgs),
    /// Delete the compiled output tree (one that does not exist is nothing to clean: exit 0).
    Clean(TreeArgs),
    /// Write a starter build.toml and an assets/ folder with a sample model.
    Init(InitArgs),
    /// Bundle a folder into a SparkPak `.spk` archive or an `.hpack` bundle (the original
    /// assetc's), or list, extract or check archives of either format.
    Pack(PackArgs),
    /// Print any assetc file (.hmesh .hmat .hanim .hman .ktx2 .mesh .bmd .spk .hpack .hfont
    /// .spv .wgsl .wav .ogg) readably.
    Inspect(InspectArgs),
    /// Render a compiled .hmesh (with its .hmat and textures), Qt .mesh or .bmd to a PNG
    /// from a 3/4 view, write one level of a .ktx2 as a PNG, or draw a line of text with an
    /// .hfont and its atlas.
    Preview(PreviewArgs),
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PackArgs {
    #[command(subcommand)]
    pub command: Option<PackCommand>,
    /// Folder to pack (every file below it, paths kept as they are, case included).
    pub dir: Option<PathBuf>,
    /// Archive to write [default: DIR.spk, or DIR.hpack with `--format hpack`].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Archive format [default: hpack when OUTPUT ends in .hpack, else spk].
    #[arg(long, value_enum)]
    pub format: Option<PackFormat>,
    /// Write a patch: only files that are new or differ from this archive (SparkPak only).
    #[arg(long, value_name = "BASE.spk")]
    pub base: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PackFormat {
    /// SparkEngine's SparkPak.
    Spk,
    /// The original assetc's single-file bundle (its SDK's ReadPackToc).
    Hpack,
}

#[derive(Debug, Subcommand)]
pub enum PackCommand {
    /// List the entries of SparkPak archives mounted in the given order (the last archive
    /// wins), or of one .hpack (path, size, kind).
    List {
        #[arg(required = true)]
        archives: Vec<PathBuf>,
    },
    /// Extract an archive into a folder (never writing outside it).
    Extract {
        archive: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Validate an archive and every entry in it, and say how many entries could not be
    /// verified (SparkPak keeps no checksum of a stored entry; a packed assets.hman's
    /// digests stand in for one).
    Check { archive: PathBuf },
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    pub file: PathBuf,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Project folder.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Source folder or a single .gltf/.glb/.obj/.fbx file [default: build.toml's `input`, else assets]
    pub input: Option<PathBuf>,
    /// Output folder [default: build.toml's `output` (or the preset's), else runtime]
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Worker threads, at least 1 (default: every core). Output is identical for any value.
    #[arg(short, long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Re-read and validate every written file.
    #[arg(long)]
    pub verify: bool,
    /// Stop at the first failing asset.
    #[arg(long)]
    pub fail_fast: bool,
    /// Fail a model whose texture image is missing, instead of building it without that
    /// texture and one warning naming the file (build.toml: `texture.missing_images =
    /// "fail"`). A missing buffer fails the model either way.
    #[arg(long)]
    pub strict: bool,
    /// Rebuild every asset, ignoring the incremental cache and fetching nothing from the
    /// remote cache (what is built is still uploaded).
    #[arg(long)]
    pub no_cache: bool,
    /// Keep running and rebuild whenever a source changes.
    #[arg(long)]
    pub watch: bool,
    /// After the build, bundle the output folder into `<OUTPUT>.spk` (SparkPak) or
    /// `<OUTPUT>.hpack` (the original assetc's bundle).
    #[arg(long, value_name = "FORMAT", value_parser = ["spk", "hpack"])]
    pub pack: Option<String>,
    /// Write a Makefile-style depfile listing every output's inputs.
    #[arg(long, value_name = "FILE")]
    pub emit_deps: Option<PathBuf>,
    /// Also write OUTPUT/report/index.html: thumbnails, sizes, counts, times and warnings
    /// of every asset (build.toml: `report = true`).
    #[arg(long)]
    pub report: bool,
    /// Settings file [default: build.toml in the working directory or a parent].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore build.toml even when one exists.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    /// Use the settings of [presets.NAME] from build.toml.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// Build only this platform's tree (<output>/NAME/) of build.toml's [platforms.NAME]
    /// tables; without the flag every platform's is built, one tree each.
    #[arg(long, value_name = "NAME")]
    pub platform: Option<String>,
    /// Runtime targets to write (repeatable): hmesh, bmd1, qtmesh; replaces build.toml's `targets`.
    #[arg(long = "target", value_name = "TARGET", value_parser = parse_target_arg)]
    pub targets: Vec<assetc::driver::Target>,
    /// Qt `.mesh` version for the qtmesh target: 7 (current Qt) or 5 (Qt 6.4 and older).
    #[arg(long, value_name = "VERSION", value_parser = parse_qt_mesh_version)]
    pub qt_mesh_version: Option<u16>,
    /// Shared cache of built assets (docs/scale.md): `http(s)://HOST/PATH` (WebDAV),
    /// `s3://BUCKET/PREFIX` (AWS credentials from the environment) or
    /// `redis://HOST:PORT/DB`. Assets built elsewhere with the same inputs, settings and
    /// compiler are fetched instead of compiled; if the server fails, one warning and the
    /// build goes on locally (build.toml: `[cache] remote`).
    #[arg(long, value_name = "URL")]
    pub remote_cache: Option<String>,
    /// Ignore build.toml's `[cache] remote`.
    #[arg(long, conflicts_with = "remote_cache")]
    pub no_remote_cache: bool,
    /// read (only fetch), write (only upload) or readwrite [default: readwrite]
    /// (build.toml: `[cache] mode`).
    #[arg(long, value_name = "MODE", value_parser = parse_remote_mode)]
    pub remote_cache_mode: Option<assetc::driver::remote::RemoteMode>,
    /// Build only the sources of shard I of N (1 <= I <= N), chosen by a hash of each
    /// source's path below the input folder, and upload them to the remote cache; no
    /// manifest is written. A final plain build fetches every shard's assets and writes
    /// it.
    #[arg(long, value_name = "I/N", conflicts_with_all = ["pack", "report", "verify", "watch", "emit_deps"])]
    pub shard: Option<assetc::driver::shard::Shard>,
}

/// `-j N`: as cargo, at least one thread; leaving it out is what uses every core.
fn parse_jobs(s: &str) -> Result<usize, JobsArg> {
    match s.parse::<usize>() {
        Ok(0) => Err(JobsArg::Zero),
        Ok(n) => Ok(n),
        Err(_) => Err(JobsArg::NotANumber(s.to_owned())),
    }
}

/// Why a `-j` is refused.
#[derive(Debug, thiserror::Error)]
pub enum JobsArg {
    #[error("must be at least 1 (leave -j out to use every core)")]
    Zero,
    #[error("expected a number of threads, got `{0}`")]
    NotANumber(String),
}

fn parse_remote_mode(
    s: &str,
) -> Result<assetc::driver::remote::RemoteMode, assetc::options::remote::UnknownRemoteMode> {
    s.parse()
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Compiled output folder.
    #[arg(default_value = "runtime")]
    pub output: PathBuf,
    /// JSON lines instead of text (as `--message-format json`).
    #[arg(long)]
    pub json: bool,
}

/// The kinds of source `build` compiles, from the kind registry.
fn kinds_help() -> String {
    format!("Kinds of source:\n{}", assetc::kinds::help_table())
}

#[derive(Debug, Args)]
pub struct PreviewArgs {
    /// A compiled .hmesh, Qt .mesh, .bmd, .ktx2 or .hfont (its atlas .ktx2 beside it).
    pub file: PathBuf,
    /// PNG to write [default: FILE with `.png` appended].
    #[arg(short, long, value_name = "OUT.png")]
    pub output: Option<PathBuf>,
    /// Edge of the square image in pixels for a mesh [default: 512] (a texture keeps its
    /// level's size); for a font, the text's size in pixels per em [default: 48].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=preview::MAX_SIZE as i64))]
    pub size: Option<u32>,
    /// The line of text a font preview draws.
    #[arg(long, value_name = "TEXT", default_value = preview::font::DEFAULT_TEXT)]
    pub text: String,
    /// Draw LOD level K (0 = full detail).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub lod: usize,
    /// Colour every meshlet on its own (.hmesh, full detail).
    #[arg(long, conflicts_with = "lod")]
    pub meshlets: bool,
    /// Draw the cluster LOD cut for PX pixels of error (a .hmesh built with
    /// mesh.cluster_lod = true), seen from the preview's camera; with --meshlets, each
    /// cluster in a colour of its own.
    #[arg(long, value_name = "PX", conflicts_with = "lod")]
    pub cluster_error: Option<f32>,
    /// Mip level K of a .ktx2 (0 = full size).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub mip: usize,
}

/// `--target NAME`, parsed as build.toml's `targets` are.
pub fn parse_target_arg(name: &str) -> Result<Target, config::UnknownTarget> {
    config::parse_target(name)
}

/// `--qt-mesh-version`: the two versions the Qt target writes.
pub fn parse_qt_mesh_version(v: &str) -> Result<u16, QtMeshVersionArg> {
    let version: u16 = v
        .parse()
        .map_err(|_| QtMeshVersionArg::NotANumber(v.to_owned()))?;
    assetc::targets::qtmesh::QtTargetSettings::check_mesh_version(version)?;
    Ok(version)
}

/// Why a `--qt-mesh-version` is refused.
#[derive(Debug, thiserror::Error)]
pub enum QtMeshVersionArg {
    #[error("must be 5 or 7, got `{0}`")]
    NotANumber(String),
    #[error(transparent)]
    Unwritable(#[from] assetc::pipeline::SettingRangeError),
}
