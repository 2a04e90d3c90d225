//! The in-memory scene: what an importer produces and what the pipeline stages and the
//! target writers consume. Geometry stays in each glTF mesh's own space here; the node
//! hierarchy carries the transforms, so targets that bake (`.hmesh`, BMD1) and targets that
//! keep a hierarchy (Qt Quick 3D) are served by the same data.

use crate::code::Warning;
use glam::{Mat4, Quat, Vec3};

/// One imported source file.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// Runtime ref of the source: path relative to the input root, extension dropped,
    /// lower-cased, `/`-separated (`models/chair`).
    pub source_ref: String,
    pub meshes: Vec<Mesh>,
    pub nodes: Vec<Node>,
    /// Root nodes of the exported scene, in glTF order: the default scene's roots, or every
    /// scene's roots when the file sets no default scene.
    pub roots: Vec<usize>,
    pub materials: Vec<Material>,
    pub images: Vec<Image>,
    pub skins: Vec<Skin>,
    pub animations: Vec<Animation>,
    /// `KHR_lights_punctual` lights, one per node that places one, in node order.
    pub lights: Vec<Light>,
    /// Cameras, one per node that places one, in node order.
    pub cameras: Vec<Camera>,
    /// Initial morph weights of each node whose mesh gives or which gives `weights`
    /// (the node's, else its mesh's), in node order.
    pub morph_weights: Vec<NodeWeights>,
    /// Things the importer dropped or repaired, each naming its glTF path.
    pub warnings: Vec<Warning>,
    /// Files besides the source itself that the import read or refers to (external
    /// buffers and images): the inputs an incremental build must watch.
    pub dependencies: Vec<std::path::PathBuf>,
}

/// A node of the glTF hierarchy.
#[derive(Debug, Clone)]
pub struct Node {
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Local transform; a node given by `matrix` is decomposed into it.
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
    /// The local matrix exactly as the file gives it (the TRS composed, or `matrix` as is,
    /// which may hold shear a TRS cannot).
    pub local_matrix: Mat4,
    /// Product of the local matrices from the root down to this node.
    pub world_matrix: Mat4,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    /// True when the node is reachable from [`Scene::roots`].
    pub in_scene: bool,
}

/// A glTF mesh: its primitives in mesh-local space.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
}

/// One triangle primitive, decoded to plain arrays. Strips and fans are already converted
/// to triangle lists; non-indexed primitives get the identity index list.
#[derive(Debug, Clone, Default)]
pub struct Primitive {
    /// glTF location for messages: `meshes[3].primitives[0]`.
    pub gltf_path: String,
    pub positions: Vec<[f32; 3]>,
    pub normals: Option<Vec<[f32; 3]>>,
    /// xyz direction, w handedness (+1 or -1).
    pub tangents: Option<Vec<[f32; 4]>>,
    pub uv0: Option<Vec<[f32; 2]>>,
    pub uv1: Option<Vec<[f32; 2]>>,
    /// COLOR_0 as linear RGBA (RGB sources get alpha 1).
    pub colors: Option<Vec<[f32; 4]>>,
    /// JOINTS_n sets in order (JOINTS_0, JOINTS_1, ...), parallel to `weights`.
    pub joints: Vec<Vec<[u16; 4]>>,
    /// WEIGHTS_n sets in order, as floats.
    pub weights: Vec<Vec<[f32; 4]>>,
    /// Triangle list, counter-clockwise front faces as glTF defines.
    pub indices: Vec<u32>,
    /// False when the source had no indices (flat normals are generated for such data).
    pub indexed: bool,
    pub material: Option<usize>,
    pub targets: Vec<MorphTarget>,
}

impl Primitive {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Whether the primitive has `TEXCOORD_<set>`.
    pub fn has_tex_coords(&self, set: u32) -> bool {
        match set {
            0 => self.uv0.is_some(),
            1 => self.uv1.is_some(),
            _ => false,
        }
    }
}

/// A morph target's displacements, parallel to the primitive's vertices.
#[derive(Debug, Clone, Default)]
pub struct MorphTarget {
    pub positions: Option<Vec<[f32; 3]>>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub tangents: Option<Vec<[f32; 3]>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlphaMode {
    #[default]
    Opaque,
    Mask,
    Blend,
}

/// A light placed by a node; it shines along the node's -Z axis (glTF and Qt agree).
#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    /// Index into [`Scene::nodes`].
    pub node: usize,
    pub name: Option<String>,
    pub kind: LightKind,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Lux for directional lights, candela for point and spot lights.
    pub intensity: f32,
    /// Distance where the light reaches zero; `None`: infinite.
    pub range: Option<f32>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LightKind {
    Directional,
    Point,
    /// Cone angles in radians from the axis.
    Spot {
        inner_cone: f32,
        outer_cone: f32,
    },
}

/// A camera placed by a node; it looks along the node's -Z axis with +Y up.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    /// Index into [`Scene::nodes`].
    pub node: usize,
    pub name: Option<String>,
    pub projection: Projection,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Vertical field of view in radians; `zfar: None` is an infinite projection.
    Perspective {
        yfov: f32,
        aspect_ratio: Option<f32>,
        znear: f32,
        zfar: Option<f32>,
    },
    /// Half the view's width and height.
    Orthographic {
        xmag: f32,
        ymag: f32,
        znear: f32,
        zfar: f32,
    },
}

/// The initial morph weights of a node's mesh instance.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeWeights {
    /// Index into [`Scene::nodes`].
    pub node: usize,
    pub weights: Vec<f32>,
}

/// `KHR_texture_transform`: UVs are scaled, then rotated (radians, counter-clockwise in
/// UV space), then offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransform {
    pub offset: [f32; 2],
    pub rotation: f32,
    pub scale: [f32; 2],
}

impl Default for TextureTransform {
    fn default() -> Self {
        Self {
            offset: [0.0; 2],
            rotation: 0.0,
            scale: [1.0; 2],
        }
    }
}

/// How texture coordinates outside [0, 1] are wrapped (glTF sampler wrapS/wrapT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Wrap {
    #[default]
    Repeat,
    ClampToEdge,
    MirroredRepeat,
}

/// The glTF sampler of a texture ref, as far as the targets carry it. The default is
/// glTF's for a texture without a sampler: repeat, linear magnification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sampler {
    pub wrap_s: Wrap,
    pub wrap_t: Wrap,
    /// magFilter NEAREST (else LINEAR or unset).
    pub mag_nearest: bool,
}

/// A reference from a material slot to an image.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextureRef {
    /// Index into [`Scene::images`].
    pub image: usize,
    /// The glTF `texCoord` set.
    pub tex_coord: u32,
    /// Whether `KHR_texture_transform` was present (the runtime formats cannot hold it).
    pub has_transform: bool,
    /// The transform's values (Qt's `Texture` holds them); its `texCoord` override is
    /// already in `tex_coord`.
    pub transform: Option<TextureTransform>,
    /// The texture's sampler (wrap modes, magnification filter).
    pub sampler: Sampler,
}

/// A glTF material with the extensions assetc understands already folded in.
#[derive(Debug, Clone)]
pub struct Material {
    pub name: Option<String>,
    pub base_color_factor: [f32; 4],
    /// Already multiplied by `KHR_materials_emissive_strength`.
    pub emissive_factor: [f32; 3],
    pub metallic_factor: f32,
    pub roughness_factor: f32,
    pub normal_scale: f32,
    pub occlusion_strength: f32,
    pub alpha_mode: AlphaMode,
    pub alpha_cutoff: f32,
    pub double_sided: bool,
    pub unlit: bool,
    pub base_color_texture: Option<TextureRef>,
    pub metallic_roughness_texture: Option<TextureRef>,
    pub normal_texture: Option<TextureRef>,
    pub occlusion_texture: Option<TextureRef>,
    pub emissive_texture: Option<TextureRef>,
    /// Extensions present on this material that no runtime format holds.
    pub unsupported_extensions: Vec<String>,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: None,
            base_color_factor: [1.0; 4],
            emissive_factor: [0.0; 3],
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: 0.5,
            double_sided: false,
            unlit: false,
            base_color_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            occlusion_texture: None,
            emissive_texture: None,
            unsupported_extensions: Vec::new(),
        }
    }
}

/// Where an image's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSource {
    /// A bufferView (GLB or `.bin`) or a `data:` URI, already resolved.
    Embedded,
    /// An external file, resolved against the source's folder and checked to stay inside
    /// the input tree.
    File(std::path::PathBuf),
}

/// A glTF image. The bytes are resolved lazily by the texture stage so that sources
/// whose images are not used (or not wanted) never read them.
#[derive(Debug, Clone)]
pub struct Image {
    /// `images[2]` plus the URI when there is one, for messages.
    pub gltf_path: String,
    pub name: Option<String>,
    pub uri: Option<String>,
    pub mime_type: Option<String>,
    pub source: ImageSource,
    /// The encoded bytes for [`ImageSource::Embedded`]; empty for files until loaded.
    pub bytes: std::sync::Arc<Vec<u8>>,
}

/// A glTF skin.
#[derive(Debug, Clone)]
pub struct Skin {
    pub gltf_path: String,
    pub name: Option<String>,
    /// Node indices, in the order of the skin's `joints` array.
    pub joints: Vec<usize>,
    /// One per joint; identity when the skin has none.
    pub inverse_bind_matrices: Vec<Mat4>,
    pub skeleton: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelPath {
    Translation,
    Rotation,
    Scale,
    Weights,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Step,
    Linear,
    CubicSpline,
}

/// One animation channel with its sampler's data.
#[derive(Debug, Clone)]
pub struct Channel {
    /// `animations[0].channels[2]`, for messages.
    pub gltf_path: String,
    pub node: usize,
    pub path: ChannelPath,
    pub interpolation: Interpolation,
    /// Key times in seconds.
    pub times: Vec<f32>,
    /// Flat output values: `times.len() * components` (times 3 for CUBICSPLINE, as
    /// in-tangent, value, out-tangent triples); `components` is 3, 4 or the morph target count.
    pub values: Vec<f32>,
    pub components: usize,
}

#[derive(Debug, Clone)]
pub struct Animation {
    pub name: Option<String>,
    pub channels: Vec<Channel>,
}

/// One drawable instance: a primitive reached from a scene node, in traversal order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrimitiveInstance {
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
}

impl Scene {
    /// Every primitive instance reachable from the roots, depth-first in glTF child order.
    /// A mesh used by two nodes yields two instances.
    pub fn primitive_instances(&self) -> Vec<PrimitiveInstance> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        let mut visited = vec![false; self.nodes.len()];
        while let Some(n) = stack.pop() {
            // The importer rejects cycles; this guard keeps a bad graph from looping forever.
            if n >= self.nodes.len() || std::mem::replace(&mut visited[n], true) {
                continue;
            }
            let node = &self.nodes[n];
            if let Some(m) = node.mesh {
                if let Some(mesh) = self.meshes.get(m) {
                    for p in 0..mesh.primitives.len() {
                        out.push(PrimitiveInstance {
                            node: n,
                            mesh: m,
                            primitive: p,
                        });
                    }
                }
            }
            stack.extend(node.children.iter().rev().copied());
        }
        out
    }

    pub fn primitive(&self, inst: PrimitiveInstance) -> &Primitive {
        &self.meshes[inst.mesh].primitives[inst.primitive]
    }
}
