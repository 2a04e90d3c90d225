# Blender (headless) script used by tests/fbx_import.rs: imports one glTF/GLB and exports
# it as binary FBX 7.4, the way an artist's "File > Export > FBX" would.
#
#   blender -b --factory-startup --python tests/export_fbx.py -- IN.gltf OUT.fbx [--embed]
#
# --embed packs the images into the FBX (path_mode COPY + embed_textures); without it the
# FBX names the images by a path relative to OUT's folder (path_mode RELATIVE), so the
# caller puts OUT beside the source's images.
import sys

import bpy
import numpy

# Debian 12's Blender 3.4 glTF importer still uses `numpy.bool`, which numpy 1.24 (the
# python3-numpy it is installed with) removed: without this alias every mesh import fails
# with "module 'numpy' has no attribute 'bool'".
if not hasattr(numpy, "bool"):
    numpy.bool = bool

argv = sys.argv[sys.argv.index("--") + 1:]
src, dst = argv[0], argv[1]
embed = "--embed" in argv[2:]

# An empty scene: factory start-up has a cube, a camera and a light.
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src)
bpy.ops.export_scene.fbx(
    filepath=dst,
    # Blender is Z-up; the exporter converts to the FBX file's own axis system (Y up,
    # -Z forward), which the reader converts back from the file's GlobalSettings.
    axis_forward="-Z",
    axis_up="Y",
    apply_unit_scale=True,
    path_mode="COPY" if embed else "RELATIVE",
    embed_textures=embed,
    add_leaf_bones=False,
    bake_anim=True,
    bake_anim_use_all_actions=False,
    bake_anim_use_nla_strips=True,
    bake_anim_simplify_factor=0.0,
    use_mesh_modifiers=False,
    mesh_smooth_type="OFF",
    use_tspace=False,
)
print("EXPORTED", dst)
