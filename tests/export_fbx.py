# Blender (headless) script used by tests/it/fbx_import.rs: imports one glTF/GLB and exports
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
# --key-action NAME: export the scene timeline as one take, with the shape keys playing
# the glTF clip NAME. Blender's "all actions" export only walks object actions, and the
# glTF importer puts morph weight clips on the shape keys, so they need this way out.
key_action = argv[argv.index("--key-action") + 1] if "--key-action" in argv else None

# An empty scene: factory start-up has a cube, a camera and a light.
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src)
if key_action is not None:
    # The glTF importer names the action "<clip>_<mesh>"; its keys give the frame range.
    action = next(a for a in bpy.data.actions if a.name.startswith(key_action + "_"))
    for key in bpy.data.shape_keys:
        if key.animation_data is None:
            key.animation_data_create()
        key.animation_data.action = action
    start, end = action.frame_range
    bpy.context.scene.frame_start = int(start)
    bpy.context.scene.frame_end = int(round(end))

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
    # Blender's glTF importer makes one action per glTF animation; each becomes an FBX
    # take (AnimStack) named "<object>|<action>".
    bake_anim_use_all_actions=key_action is None,
    bake_anim_use_nla_strips=False,
    # Blender bakes every step of a frame (24 per second). glTF keys may fall between
    # frames (Fox's Run has keys at frame 20.8 and 27.8); a fifth of a frame lands on them
    # (and on any 30 or 24 per second grid), so the FBX holds the clip's own key values.
    bake_anim_step=0.2,
    bake_anim_simplify_factor=0.0,
    use_mesh_modifiers=False,
    mesh_smooth_type="OFF",
    use_tspace=False,
)
print("EXPORTED", dst)
