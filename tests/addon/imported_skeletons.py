"""Game skeletons as Blender's own BVH, FBX and glTF importers read them, made in a child
Blender and appended from the files it saves.

The BVH skeleton of ``tests/fixtures/bvh.py`` is imported, exported as FBX or glTF and
imported back in a fresh Blender process: Blender 4.2's glTF exporter and importer
crashed now and then in the test process after a hundred tests had run there (each sets
the window's scene), never in a fresh one. A Mixamo-named character's skeleton is built
as Mixamo ships one (centimetres under a 0.01 scale, ``mixamorig:`` names, toes, three
spine bones, a T-pose action on a muted NLA track) and goes through glTF and FBX the same
way; Rigify's wolf metarig goes through glTF with every bone pointing up, as a game
engine's skeleton whose joints' frames are unturned comes (glTF's importer keeps each
bone's axes where its node's are, not pointing at its child); two basic human metarigs,
each skinning a box, go through one glTF file. Run as a script, this
module writes one ``<kind>.blend`` per kind into the folder it is given.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# kind -> (the BVH's scale, the armature object's scale before export)
KINDS = {
    "bvh": (0.01, 1.0),
    "fbx": (0.01, 1.0),
    "gltf": (0.01, 1.0),
    # in centimetres under a 0.01 scale: glTF brings the joints back in place but each
    # bone 100 times its joints' spacing
    "gltf_cm": (1.0, 0.01),
}
MIXAMO = ("mixamo_gltf", "mixamo_fbx")
"""The Mixamo-named character through glTF and through FBX."""
GAME = ("game_gltf", "game_fbx")
"""The Mixamo-named character with its bones askew (a game engine's joint frames: each bone
turned :data:`ASKEW` degrees off its child's joint and 1.3 times its joints' spacing long)
through glTF and through FBX."""
ASKEW = 25.0
ANIMALS = ("wolf_gltf",)
"""Rigify's wolf metarig through glTF, its bones pointing up."""
TWO_SKINS = "two_skins_gltf"
"""Two of Rigify's basic human metarigs, ``Body0`` at the origin and ``Body1`` 2 m along X,
each skinning a box to its chest, through one glTF file."""
PREFIX = "mixamorig:"
"""The Mixamo character's bones' names start with this."""
MIXAMO_JOINTS: tuple[tuple[str, str | None, tuple[float, float, float]], ...] = (
    ("Hips", None, (0.0, 0.0, 100.0)),
    ("Spine", "Hips", (0.0, 0.5, 110.0)),
    ("Spine1", "Spine", (0.0, 0.5, 122.0)),
    ("Spine2", "Spine1", (0.0, 0.0, 135.0)),
    ("Neck", "Spine2", (0.0, 0.0, 150.0)),
    ("Head", "Neck", (0.0, -1.0, 158.0)),
    ("HeadTop_End", "Head", (0.0, -1.0, 178.0)),
    ("LeftShoulder", "Spine2", (6.0, 0.0, 144.0)),
    ("LeftArm", "LeftShoulder", (17.0, 1.0, 144.0)),
    ("LeftForeArm", "LeftArm", (45.0, 1.0, 144.0)),
    ("LeftHand", "LeftForeArm", (71.0, 0.0, 144.0)),
    ("LeftHandIndex1", "LeftHand", (80.0, -1.0, 144.0)),
    ("LeftUpLeg", "Hips", (9.0, 0.0, 95.0)),
    ("LeftLeg", "LeftUpLeg", (9.0, -0.5, 53.0)),
    ("LeftFoot", "LeftLeg", (9.0, 1.0, 10.0)),
    ("LeftToeBase", "LeftFoot", (9.0, -11.0, 2.0)),
    ("LeftToe_End", "LeftToeBase", (9.0, -19.0, 2.0)),
)
"""The character's left side and trunk: (joint, parent, joint's place [cm]), parents first,
in Blender's axes (Z up, the figure facing −Y, its left at +X); the right side mirrors it."""


def make(folder: Path) -> dict[str, Path]:
    """Write every kind's ``.blend`` into ``folder`` from a child Blender; their paths.

    Raises:
        RuntimeError: If the child failed, with what it printed.
    """
    done = subprocess.run(
        [sys.executable, __file__, str(folder)], capture_output=True, text=True, check=False
    )
    kinds = (*KINDS, *MIXAMO, *GAME, *ANIMALS, TWO_SKINS)
    paths = {kind: folder / f"{kind}.blend" for kind in kinds}
    missing = [kind for kind, path in paths.items() if not path.exists()]
    if done.returncode != 0 or missing:
        raise RuntimeError(
            f"importing skeletons failed (exit {done.returncode}, missing {missing}):\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return paths


def append(path: Path) -> Any:
    """Append the objects saved in ``path`` to the open file's scene and make the last
    armature among them active; that armature."""
    import bpy

    with bpy.data.libraries.load(str(path)) as (source, target):
        target.objects = list(source.objects)
    obj = None
    for each in target.objects:
        bpy.context.scene.collection.objects.link(each)
        if each.type == "ARMATURE":
            obj = each
    assert obj is not None, f"no armature in {path}"
    bpy.context.view_layer.objects.active = obj
    bpy.context.view_layer.update()  # the appended objects' world matrices
    return obj


ANIMATION_STATES = ("as imported", "action unlinked", "track unmuted", "no animation")
"""The imported character's animation as an animator may leave it before a bake: its T-pose
action active over a muted NLA track (as glTF's importer gives it), the action unlinked,
the track unmuted too, or no animation data at all."""


def baked_reach(obj: Any, state: str, frames: int = 30) -> Any:
    """Leave the Mixamo character ``obj``'s animation in ``state`` (of
    :data:`ANIMATION_STATES`), key a goal on its left hand's tail to move 20 cm in, 10 cm
    forward and 10 cm down (within the arm's reach) over ``frames`` frames and bake them;
    the goal."""
    import bpy
    from mathutils import Vector

    animation = obj.animation_data
    if state != "as imported":
        animation.action = None
    if state == "track unmuted":
        animation.nla_tracks[0].mute = False
    if state == "no animation":
        obj.animation_data_clear()
    assert bpy.ops.reach.add_constraint(
        armature=obj.name,
        bone=f"{PREFIX}LeftForeArm",
        chain_start=f"{PREFIX}LeftArm",
        name="hand",
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    start = Vector(goal.location)
    goal.keyframe_insert("location", frame=1)
    goal.location = start + Vector((-0.2, -0.1, -0.1))
    goal.keyframe_insert("location", frame=frames)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=frames) == {"FINISHED"}
    return goal


def _save(kind: str, folder: Path) -> None:
    import bpy

    from tests.fixtures import bvh

    bpy.ops.wm.read_homefile(use_empty=True)
    scale, object_scale = KINDS[kind]
    source = folder / "skeleton.bvh"
    source.write_text(bvh.bvh_text())
    assert bpy.ops.import_anim.bvh(filepath=str(source), global_scale=scale) == {"FINISHED"}
    bpy.context.active_object.scale = (object_scale,) * 3
    if kind != "bvh":
        _through(kind, folder)
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / f"{kind}.blend"))


def _mixamo_armature(askew: bool = False) -> Any:
    """The Mixamo-named character's armature in the open file, with its T-pose action on a
    muted NLA track and none active.

    ``askew``: each bone turned 25° off its child's joint about its own X axis and made
    1.3 times its joints' spacing long, as a game engine's joint frames point.
    """
    import bpy
    from mathutils import Matrix

    joints = dict((name, place) for name, _, place in MIXAMO_JOINTS)
    data = bpy.data.armatures.new("Armature")
    obj = bpy.data.objects.new("Armature", data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    obj.scale = (0.01, 0.01, 0.01)
    bpy.ops.object.mode_set(mode="EDIT")
    for side, mirror in (("Left", 1.0), ("Right", -1.0)):
        for name, parent, place in MIXAMO_JOINTS:
            if side == "Right" and not name.startswith("Left"):
                continue
            own = name.replace("Left", side)
            child = next((n for n, p, _ in MIXAMO_JOINTS if p == name), None)
            if child is None:  # an end joint: the tail of its parent, no bone of its own
                continue
            bone = data.edit_bones.new(PREFIX + own)
            bone.head = (place[0] * mirror, place[1], place[2])
            end = joints[child]
            bone.tail = (end[0] * mirror, end[1], end[2])
            if askew:
                turn = Matrix.Rotation(math.radians(ASKEW), 3, bone.x_axis)
                bone.tail = bone.head + turn @ (bone.tail - bone.head) * 1.3
            if parent is not None:
                bone.parent = data.edit_bones[PREFIX + parent.replace("Left", side)]
                bone.use_connect = (bone.parent.tail - bone.head).length < 1e-6
    bpy.ops.object.mode_set(mode="OBJECT")
    action = bpy.data.actions.new("T-Pose")
    obj.animation_data_create().action = action
    for bone in obj.pose.bones:
        bone.keyframe_insert("location", frame=1)
        bone.keyframe_insert("rotation_quaternion", frame=1)
    track = obj.animation_data.nla_tracks.new()
    track.strips.new("T-Pose", 1, action)
    obj.animation_data.action = None
    track.mute = True
    return obj


def _through(kind: str, folder: Path) -> None:
    """Export the open file's armature as ``kind``'s format, import it into a new file."""
    import bpy

    fbx = kind.endswith("fbx")
    path = str(folder / f"{kind}.{'fbx' if fbx else 'glb'}")
    if fbx:
        bpy.ops.export_scene.fbx(filepath=path, add_leaf_bones=False)
    else:
        bpy.ops.export_scene.gltf(filepath=path, export_format="GLB")
    bpy.ops.wm.read_homefile(use_empty=True)
    if fbx:
        assert bpy.ops.import_scene.fbx(filepath=path) == {"FINISHED"}
    else:
        assert bpy.ops.import_scene.gltf(filepath=path) == {"FINISHED"}


def _save_mixamo(kind: str, folder: Path) -> None:
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    _mixamo_armature(askew=kind in GAME)
    _through(kind, folder)
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / f"{kind}.blend"))


def _save_animal(kind: str, folder: Path) -> None:
    import addon_utils
    import bpy

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.object, f"armature_{kind.split('_')[0]}_metarig_add")()
    bpy.ops.object.mode_set(mode="EDIT")
    for bone in bpy.context.active_object.data.edit_bones:
        bone.use_connect = False
    for bone in bpy.context.active_object.data.edit_bones:
        bone.tail = bone.head + type(bone.head)((0.0, 0.0, bone.length))
        bone.roll = 0.0
    bpy.ops.object.mode_set(mode="OBJECT")
    _through(kind, folder)
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / f"{kind}.blend"))


def _save_two_skins(folder: Path) -> None:
    import addon_utils
    import bpy

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    for k, x in enumerate((0.0, 2.0)):
        bpy.ops.object.armature_basic_human_metarig_add()
        body = bpy.context.active_object
        body.name, body.location = f"Body{k}", (x, 0.0, 0.0)
        bpy.ops.object.mode_set(mode="OBJECT")
        bpy.ops.mesh.primitive_cube_add(size=0.3, location=(x, 0.0, 1.0))
        box = bpy.context.active_object
        box.parent = body
        box.modifiers.new("Armature", "ARMATURE").object = body
        box.vertex_groups.new(name="spine.003").add(list(range(8)), 1.0, "REPLACE")
    _through(TWO_SKINS, folder)
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / f"{TWO_SKINS}.blend"))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    out = Path(sys.argv[1])
    for each in KINDS:
        _save(each, out)
    for each in (*MIXAMO, *GAME):
        _save_mixamo(each, out)
    for each in ANIMALS:
        _save_animal(each, out)
    _save_two_skins(out)
    sys.stdout.flush()
    os._exit(0)  # bpy cannot always finish the interpreter's shutdown
