"""The figure's masses and its centre of mass.

Each joint of a figure has a mass (``Object.reach.joints[bone].mass``, kg); the centre
of mass is ``Σ m · c / Σ m`` over the bones, c the middle of each bone's part of the body
(:func:`.bone_ends.middle`: its midpoint unless an importer made it far longer than its
joints' spacing), on Blender's evaluated pose. Make Figure fills in masses where none is
set (:func:`default_masses`): a body of 70 kg at 1.75 m, scaled by the cube of the
armature's size (its longest extent at rest, whichever way it lies, bones ending where
:mod:`.bone_ends` says), shared among the bones recognised as human limb parts by the
segment fractions of Winter (2009, table 4.1: thigh 10 %, leg 4.65 %, upper arm 2.8 %,
forearm 1.6 %) and among the others in proportion to their lengths on the body.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mathutils import Vector

from .body import limb_part
from .bone_ends import end, extent, middle, reads_joints
from .rigify_names import body_name

BODY_MASS = 70.0
"""The mass [kg] of a body :data:`BODY_SIZE` tall."""

BODY_SIZE = 1.75
"""[m]"""

SHARES = {"thigh": 0.1, "shin": 0.0465, "upper_arm": 0.028, "forearm": 0.016}
"""Per human limb part, its share of the body's mass (Winter 2009)."""


def size(obj: Any) -> float:
    """The armature's longest extent at rest along a world axis [m] (its height, standing)."""
    world = obj.matrix_world
    bones = obj.data.bones
    tails_off = reads_joints(obj.data)  # once, not per bone
    points = [world @ p for b in bones for p in (b.head_local, end(b, b.matrix_local, tails_off))]
    if not points:
        return 0.0
    return float(max(max(p[k] for p in points) - min(p[k] for p in points) for k in range(3)))


def default_masses(obj: Any, bones: Iterable[str]) -> dict[str, float]:
    """A mass [kg] for each of ``bones``: limb parts by Winter's shares, others by length."""
    names = list(bones)
    data = obj.data.bones
    total = BODY_MASS * (size(obj) / BODY_SIZE) ** 3
    parts = {name: limb_part(body_name(name)) for name in names}
    masses = {n: total * SHARES[p[0]] for n, p in parts.items() if p is not None}
    rest = [n for n in names if n not in masses]
    tails_off = reads_joints(obj.data)  # once, not per bone
    extents = {n: extent(data[n], tails_off) for n in rest}
    length = sum(extents.values())
    left = max(total - sum(masses.values()), 0.0)
    for name in rest:
        masses[name] = left * extents[name] / length if length > 0.0 else 0.0
    return masses


def centre_of_mass(obj: Any) -> tuple[Vector, float] | None:
    """The figure's centre of mass (world) on Blender's pose and its total mass, if any."""
    world = obj.matrix_world
    bones = obj.pose.bones
    total = 0.0
    weighted = Vector((0.0, 0.0, 0.0))
    tails_off = reads_joints(obj.data)  # once, not per bone
    for joint in obj.reach.joints:
        pose_bone = bones.get(joint.name)
        if pose_bone is None or joint.mass <= 0.0:
            continue
        total += joint.mass
        weighted += joint.mass * (world @ middle(pose_bone.bone, pose_bone.matrix, tails_off))
    return None if total <= 0.0 else (weighted / total, total)
