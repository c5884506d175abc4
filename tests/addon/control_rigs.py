"""Control rigs Rigify generates, for the add-on's tests: the rig, its limbs' switches,
its skeleton's channels, a limb constrained at a control and what was met and keyed."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import bpy

SKELETON = ("DEF-", "ORG-", "MCH-")

# Each kind's file as it was right after Rigify generated its rig into an empty file, and
# the rig's name in it. Rigify takes up to ~15 s to generate the human or an animal, and
# most tests of control rigs start from one: each kind is generated once a session, and
# every later test opens that file, as an animator opens a file they generated a rig in.
_files: dict[str, tuple[Path, str]] = {}
_folder: list[Path] = []


def generated(kind: str) -> bpy.types.Object:
    """The control rig Rigify generates from its ``kind`` metarig, active and selected.

    In an empty file it is the file saved after the session's first generation of
    ``kind``, opened; otherwise (other objects in the file) it is generated there.
    """
    empty = not bpy.data.objects
    if empty and kind in _files:
        path, name = _files[kind]
        bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
        obj = bpy.data.objects[name]
        assert bpy.context.view_layer.objects.active == obj and bpy.context.mode == "OBJECT"
        return obj
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    if empty:
        if not _folder:
            _folder.append(Path(tempfile.mkdtemp(prefix="reach-control-rigs-")))
        path = _folder[0] / f"{kind}.blend"
        bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True, compress=False)
        _files[kind] = (path, obj.name)
    return obj


def forget_generated() -> None:
    """Delete the files :func:`generated` saved this session."""
    for folder in _folder:
        shutil.rmtree(folder, ignore_errors=True)
    _folder.clear()
    _files.clear()


def switch_to(obj, limb, value: float) -> None:
    """Set a limb's switch as an animator does, and let Blender evaluate it."""
    obj.pose.bones[limb.settings][limb.switch] = value
    obj.update_tag()
    bpy.context.view_layer.update()


def limb_named(reach, obj, name):
    """The limb ``name`` of ``obj``, as Reach finds it."""
    limbs = reach.addon.bridge.control_rig.limbs.find_limbs(obj)
    return next(limb for limb in limbs if limb.name == name)


def channels(obj, prefix: str) -> dict[str, tuple[str, ...]]:
    """The channels of every pose bone whose name starts with ``prefix``, bit for bit."""
    return {
        b.name: tuple(float(v).hex() for row in b.matrix_basis for v in row)
        for b in obj.pose.bones
        if b.name.startswith(prefix)
    }


def skeleton_channels(obj) -> dict[str, tuple[str, ...]]:
    """Every deform, original and mechanism bone's channels, bit for bit."""
    return {
        b.name: tuple(float(v).hex() for row in b.matrix_basis for v in row)
        for b in obj.pose.bones
        if b.name.startswith(SKELETON)
    }


def solved(obj) -> set[str]:
    """Solve; the pose bones whose channels changed, after checking no skeleton bone did."""
    before = skeleton_channels(obj)
    channels = {b.name: tuple(b.matrix_basis.copy()) for b in obj.pose.bones}
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert skeleton_channels(obj) == before  # no deform, original or mechanism bone
    return {n for n, m in channels.items() if tuple(obj.pose.bones[n].matrix_basis) != m}


def constrained_end(
    reach, kind: str, name: str, mode: str, end: str, chain_start: str = "", move_root=False
):
    """Rigify's ``kind`` rig, limb ``name`` switched to ``mode``, and one constraint "end"
    on the head of control ``end``; the rig and the limb in its mode."""
    obj = generated(kind)
    switch_to(obj, limb_named(reach, obj, name), 1.0 if mode == "FK" else 0.0)
    made = bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=move_root)
    assert made == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=end, effector="HEAD", name="end", chain_start=chain_start
    ) == {"FINISHED"}
    return obj, limb_named(reach, obj, name)


def limb_length(obj, limb) -> float:
    """The length of the limb's bones above its chain end."""
    return sum(obj.data.bones[b].length for b in limb.bones[: limb.chain_end])


def deform_miss(obj, limb, constraint: str) -> float:
    """How far the constrained control's head is from the goal, carried by the deform
    bone at the limb's chain end as Blender evaluates it (what moves the mesh)."""
    end = limb.bones[limb.chain_end]
    deform = "DEF-" + end.removeprefix("ORG-")
    data = obj.data.bones
    named = data[obj.reach.constraints[constraint].bone]
    rest = data[deform].matrix_local.inverted() @ named.matrix_local  # named in deform's frame
    head = obj.matrix_world @ obj.pose.bones[deform].matrix @ rest.translation
    return (head - obj.reach.constraints[constraint].goal.matrix_world.translation).length


def keyed_bones(reach, obj) -> set[str]:
    """The pose bones with keys in the armature's action."""
    return {
        fcurve.data_path.split('"')[1]
        for fcurve in reach.addon.bridge.keys.fcurves(obj)
        if fcurve.data_path.startswith('pose.bones["')
    }


def evaluations(obj, steps: Iterable[Callable[[], object]]) -> list[int]:
    """Per step run, how many times Blender evaluated ``obj`` while it ran."""
    counts: list[int] = []

    def counted(_scene, depsgraph) -> None:
        counts[-1] += sum(update.id.original == obj for update in depsgraph.updates)

    bpy.app.handlers.depsgraph_update_post.append(counted)
    try:
        for step in steps:
            counts.append(0)
            step()
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(counted)
    return counts
