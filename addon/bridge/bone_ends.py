"""Where a bone ends on the body: its tail, or its next joint where an importer placed it.

A skeleton built in Blender ends its bones at their children's joints (Rigify's metarigs
and generated rigs do so for 76 to 100 % of their deform bones). A skeleton read from
glTF or FBX holds joints, and its importer gives each bone a tail of its own making: 100
times the joints' spacing for a glTF in centimetres, along the joint's own axes (which
need not point at the next joint) for a game engine's. So where fewer than half the deform
bones with deform children end at a child's joint (:func:`reads_joints`), a bone ends at
the joint its limb continues into (:func:`next_joint`), a leaf along its own axis at most
as far as its parent's joint lies behind it. A tail effector, a bone's mass and its
middle, its share of the comfort weights and a sole's footprint are placed by
:func:`end_local`.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from mathutils import Matrix, Vector

__all__ = [
    "LONG_BONE",
    "end",
    "end_local",
    "extent",
    "joint_spacing",
    "middle",
    "next_joint",
    "reads_joints",
    "turns_back",
    "where",
]

LONG_BONE = 30.0
"""A bone longer than this many times the spacing of its joints has a length an importer
gave it (a glTF skeleton in centimetres comes with bones 100× too long), not its body's;
a body's own bones stay under it (Rigify's metarigs reach 13×, the horse's skull)."""

AT_JOINT = 0.01
"""A tail within this share of its bone's length of a child's head ends at that joint."""

TAILS_AT_JOINTS = 0.5
"""The least share of deform bones (with deform children) ending at a child's joint for
the armature's tails to be read as its joints' places."""

END_NAME = re.compile(r"(_|\.|\b|(?<=[a-z]))(end|nub|tip)(\.\d+)?$", re.IGNORECASE)
"""A leaf named as an end joint (``HeadTop_End``, ``Bip01 Head Nub``, ``LeftToe_End``):
it marks where the body ends, at its own head."""

_READS: dict[tuple[int, int], bool] = {}
"""Per armature (its session id and the hash of its bones' rest ends), :func:`reads_joints`;
a few entries, cleared when full."""


def joint_spacing(bone: Any) -> float:
    """The spacing of the bone's joints (armature units), 0 for a lone bone.

    The distance from its head to its farthest child's head; for a bone with no child
    away from its head, from its head to its parent's. A foot ends where its toes start,
    however far its parent's joint lies.
    """
    head = bone.head_local
    spacing = max((float((child.head_local - head).length) for child in bone.children), default=0.0)
    if spacing <= 0.0 and bone.parent is not None:
        spacing = float((head - bone.parent.head_local).length)
    return spacing


def tail_length(bone: Any) -> float:
    """How far along the bone its tail lies on the body (armature units).

    Its length; for a bone longer than :data:`LONG_BONE` times its joints' spacing,
    that spacing.
    """
    length, spacing = float(bone.length), joint_spacing(bone)
    return spacing if spacing > 0.0 and length > LONG_BONE * spacing else length


def reads_joints(data: Any) -> bool:
    """Whether the armature ``data``'s tails are its importer's, not its joints' places.

    Fewer than :data:`TAILS_AT_JOINTS` of its deform bones that have deform children end
    at one of those children's heads (within :data:`AT_JOINT` of their length).
    """
    bones = data.bones
    count = len(bones)
    ends = np.empty(6 * count, np.float32)
    if count:
        bones.foreach_get("head_local", ends[: 3 * count])
        bones.foreach_get("tail_local", ends[3 * count :])
    key = (int(data.session_uid), hash(ends.tobytes()))
    found = _READS.get(key)
    if found is None:
        if len(_READS) > 16:
            _READS.clear()
        found = _READS[key] = _tails_off_joints(bones)
    return found


def _tails_off_joints(bones: Any) -> bool:
    parents = at = 0
    for bone in bones:
        if not bone.use_deform:
            continue
        children = [c for c in bone.children if c.use_deform and _away(c, bone)]
        if not children:
            continue
        parents += 1
        reach = AT_JOINT * float(bone.length)
        at += any((c.head_local - bone.tail_local).length <= reach for c in children)
    return parents > 0 and at < TAILS_AT_JOINTS * parents


def _away(child: Any, bone: Any) -> bool:
    """Whether ``child``'s joint is another than ``bone``'s own head."""
    return bool((child.head_local - bone.head_local).length > 1e-6 * max(float(bone.length), 1e-9))


def next_joint(bone: Any) -> Any | None:
    """The child whose joint the bone's limb continues into, or None.

    Its one child away from its head; of several, the one connected to it, else the one
    at its tail, else the one carrying the most bones (a hips bone's spine over its legs
    and tail); None for a leaf or where no child stands out (a hand's fingers).
    """
    children = [c for c in bone.children if _away(c, bone)]
    if len(children) <= 1:
        return children[0] if children else None
    for chosen in (
        [c for c in children if c.use_connect],
        [c for c in children if (c.head_local - bone.tail_local).length <= AT_JOINT * bone.length],
    ):
        if len(chosen) == 1:
            return chosen[0]
    sizes = sorted((len(c.children_recursive) for c in children), reverse=True)
    return max(children, key=lambda c: len(c.children_recursive)) if sizes[0] > sizes[1] else None


def end_local(bone: Any, joints: bool | None = None) -> Vector:
    """Where the bone ends on the body, in its own rest frame (armature units, Y along it).

    A leaf named as an end joint (an exporter's ``_end`` leaves, whatever length the
    importer drew them) ends at its head; any other bone at its tail (at most
    :func:`joint_spacing` along it, :func:`tail_length`), but on an armature that
    :func:`reads_joints` at the joint its limb continues into, a leaf whose axis
    :func:`turns_back` at its head, another leaf along its own axis, at most its parent's
    spacing (the importer's length says nothing of where its body part ends).

    ``joints``: :func:`reads_joints` of its armature, where a loop over its bones read it
    once (None: read here).
    """
    leaf = not bone.children and bone.parent is not None
    if leaf and END_NAME.search(bone.name):
        return Vector((0.0, 0.0, 0.0))
    if reads_joints(bone.id_data) if joints is None else joints:
        rest: Matrix = bone.matrix_local.inverted()
        child = next_joint(bone)
        if child is not None:
            return rest @ Vector(child.head_local)
        if leaf:
            if turns_back(bone):
                return Vector((0.0, 0.0, 0.0))
            spacing = float((bone.head_local - bone.parent.head_local).length)
            if spacing > 0.0:
                return Vector((0.0, min(float(bone.length), spacing), 0.0))
    return Vector((0.0, tail_length(bone), 0.0))


def turns_back(bone: Any) -> bool:
    """Whether the bone's axis points back from the way its parent's joint leads to it.

    A leaf's axis is then no guess of where its body part ends (an importer that points
    every bone one way, as a paw's toes pointing up): its end is its own joint.
    """
    lead = bone.head_local - bone.parent.head_local
    axis = bone.tail_local - bone.head_local
    return bool(lead.length > 0.0 and axis.length > 0.0 and axis.dot(lead) < 0.0)


def where(bone: Any) -> str:
    """Why the bone's end is not its tail, in words, or "" where it is its tail."""
    point = end_local(bone)
    if (point - Vector((0.0, float(bone.length), 0.0))).length <= AT_JOINT * float(bone.length):
        return ""
    if point.length == 0.0 and END_NAME.search(bone.name):
        return "its head (it marks where the body ends)"
    if not reads_joints(bone.id_data):
        return f"its joints' spacing along it (it is {bone.length / point.length:.0f}× that long)"
    child = next_joint(bone)
    if child is not None:
        return f"the joint of '{child.name}' (the armature's tails are not at its joints)"
    if point.length == 0.0:
        return "its head (its axis points back from its limb, so says nothing of its end)"
    times = bone.length / point.length
    return f"its parent's joints' spacing along it (it is {times:.1f}× that long)"


def extent(bone: Any, joints: bool | None = None) -> float:
    """The length of the bone's part of the body: from its head to :func:`end_local`."""
    return float(end_local(bone, joints).length)


def end(bone: Any, matrix: Matrix, joints: bool | None = None) -> Vector:
    """The bone's end on the body in the frame ``matrix`` maps its own into.

    ``matrix``: the bone's matrix (``bone.matrix_local`` at rest, ``pose_bone.matrix``
    on the pose, either times the armature's world matrix).
    """
    return matrix @ end_local(bone, joints)


def middle(bone: Any, matrix: Matrix, joints: bool | None = None) -> Vector:
    """The midpoint of the bone's part of the body (:func:`end`), in ``matrix``'s frame."""
    return matrix @ (end_local(bone, joints) / 2.0)
