"""What else poses an armature's bones, and which bones the mesh follows.

Drivers and keys on the channels Reach writes pose bones after Reach does; on a
control rig, deform bones stand in for the controls on the mesh.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import Array

DRIVEN_CHANNELS = ("rotation_euler", "rotation_quaternion", "rotation_axis_angle", "location")
"""Pose-bone channels Reach writes: a driver on one of them overrides Reach."""


def animated_bones(obj: Any) -> tuple[list[str], list[str]]:
    """Bones with a driver, and bones with keys, on a channel Reach writes."""
    animation = obj.animation_data
    if animation is None:
        return [], []
    driven = [_bone_of(d.data_path) for d in animation.drivers if _written(d.data_path)]
    keyed: list[str] = []
    if animation.action is not None:
        keyed = [_bone_of(c.data_path) for c in action_curves(animation.action)]
        keyed = [b for b in keyed if b]
    return list(dict.fromkeys(b for b in driven if b)), list(dict.fromkeys(keyed))


def poses_alone(obj: Any) -> bool:
    """Whether frames change no channel Reach reads: no keys or drivers on one, no NLA strip."""
    animation = obj.animation_data
    if animation is None:
        return True
    driven, keyed = animated_bones(obj)
    strips = any(not track.mute and len(track.strips) for track in animation.nla_tracks)
    return not (driven or keyed or strips)


def action_curves(action: Any) -> list[Any]:
    """The F-curves of ``action`` on channels Reach writes (flat or layered actions)."""
    curves = list(getattr(action, "fcurves", None) or [])
    for layer in getattr(action, "layers", []):  # layered actions (Blender 4.4 and later)
        for strip in layer.strips:
            for bag in getattr(strip, "channelbags", []):
                curves.extend(bag.fcurves)
    return [c for c in curves if _written(c.data_path)]


def _written(path: str) -> bool:
    return path.startswith("pose.bones[") and path.endswith(DRIVEN_CHANNELS)


def _bone_of(path: str) -> str:
    """The bone of a ``pose.bones["name"].channel`` path."""
    return path.split('"')[1] if '"' in path else ""


def mesh_bones(obj: Any, bones: set[str]) -> dict[str, tuple[str, Array]]:
    """Per bone of ``bones`` that deforms nothing, the deform bone standing in its place.

    A control rig moves the mesh by its deform bones, which follow the controls through
    its own constraints: the deform bone whose rest starts where the control's does and
    points the same way (the longest such, up to the control's length) is the one the
    user sees. Armatures without deform bones, and deform bones, have none.

    Returns:
        Per such bone, its deform bone and the bone's rest in the deform bone's frame.
    """
    data = obj.data.bones
    deform = [b for b in data if b.use_deform]
    twins: dict[str, tuple[str, Array]] = {}
    for name in bones:
        bone = data.get(name)
        if bone is None or bone.use_deform or not deform:
            continue
        head, axis, length = bone.head_local, bone.y_axis, bone.length
        candidates = [
            b
            for b in deform
            if (b.head_local - head).length <= 1e-4 * length
            and b.y_axis.dot(axis) >= 1.0 - 1e-6
            and b.length <= length * (1.0 + 1e-4)
        ]
        if candidates:
            twin = max(candidates, key=lambda b: b.length)
            rest = np.linalg.solve(np.array(twin.matrix_local), np.array(bone.matrix_local))
            twins[name] = (twin.name, rest)
    return twins
